import { Badge, SimpleGrid, Stack } from '@chakra-ui/react';
import { PageHeader } from '../../../components/page-header';
import { QuickActionsCard } from './quick-actions-card';
import { RecentActivityCard } from './recent-activity-card';
import { RecentProjectsCard } from './recent-projects-card';
import { StatCards } from './stat-cards';

export function DashboardPage() {
  return (
    <>
      <PageHeader
        title="Dashboard"
        subtitle="Manage your bulk account creation projects and monitor their progress."
        actions={
          // The figures cover every project so far, so the label says that (not 'Last 30 days').
          <Badge variant="outline" size="lg">
            All time
          </Badge>
        }
      />
      <Stack gap="6">
        <StatCards />
        <QuickActionsCard />
        <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6">
          <RecentProjectsCard />
          <RecentActivityCard />
        </SimpleGrid>
      </Stack>
    </>
  );
}
