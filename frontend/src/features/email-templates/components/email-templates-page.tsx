import { MailIcon } from 'lucide-react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function EmailTemplatesPage() {
  return (
    <>
      <PageHeader title="Email Templates" subtitle="Customise the e-mails sent to the holders of new accounts." />
      <EmptyStateCard
        icon={<MailIcon />}
        title="No templates yet"
        description="Create your first template once the template editor arrives in an upcoming release."
      />
    </>
  );
}
