import { UploadIcon } from 'lucide-react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function BulkCreatorPage() {
  return (
    <>
      <PageHeader
        title="Bulk Account Creator"
        subtitle="Create many user accounts at once from a CSV file or by manual entry."
      />
      <EmptyStateCard
        icon={<UploadIcon />}
        title="Bulk creation is not available yet"
        description="CSV upload and manual entry, with generated usernames and passwords, arrive in an upcoming release."
      />
    </>
  );
}
