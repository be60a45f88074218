import { ChartColumnIcon } from 'lucide-react';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';

export function AnalyticsPage() {
  return (
    <>
      <PageHeader title="Analytics" subtitle="Insights into your account creation activity." />
      <EmptyStateCard
        icon={<ChartColumnIcon />}
        title="No analytics data"
        description="Analytics appear once you have created projects and accounts."
      />
    </>
  );
}
