import { FileDownIcon } from 'lucide-react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function ExportsPage() {
  return (
    <>
      <PageHeader title="Export Center" subtitle="Export the accounts of your projects as CSV, Excel or JSON." />
      <EmptyStateCard
        icon={<FileDownIcon />}
        title="No exports yet"
        description="Your export history appears here once you export a project."
      />
    </>
  );
}
