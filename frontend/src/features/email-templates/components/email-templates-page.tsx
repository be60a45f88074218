import { MailIcon } from 'lucide-react';
import { proFeatures } from '@shared/plans';
import { PageHeader } from '../../../components/page-header';
import { ProFeatureEmptyState } from '../../../components/pro-feature-empty-state';

/** Spec 6: e-mail template customisation is a Pro feature; free users see the gate. */
export function EmailTemplatesPage() {
  return (
    <>
      <PageHeader title="Email Templates" subtitle="Customise the e-mails sent to the holders of new accounts." />
      <ProFeatureEmptyState
        feature={proFeatures.emailTemplates}
        icon={<MailIcon />}
        title="No templates yet"
        description="Create your first template once the template editor arrives in an upcoming release."
        freeDescription="Send new account holders e-mails in your own words and brand. E-mail notifications and templates are part of the Pro plan."
        actionLabel="Create your first template"
      />
    </>
  );
}
