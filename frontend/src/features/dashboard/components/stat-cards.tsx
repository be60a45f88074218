import { Box, Card, HStack, SimpleGrid, Skeleton, Stat } from '@chakra-ui/react';
import { ClockIcon, FolderKanbanIcon, TrendingUpIcon, UsersIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import type { DashboardStats } from '@shared/schemas/project';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useDashboardStatsQuery } from '../api/dashboard-api';

const count = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** Seconds with the precision that matters: 0.012s, 0.42s, 3.5s. */
const formatSeconds = (seconds: number) =>
  `${new Intl.NumberFormat(undefined, { maximumSignificantDigits: seconds < 1 ? 2 : 3 }).format(seconds)}s`;

interface StatDefinition {
  label: string;
  icon: ReactNode;
  value: (stats: DashboardStats) => string;
  /** What the number covers (never an invented trend). */
  help: string;
}

const statDefinitions: StatDefinition[] = [
  {
    label: 'Total Accounts',
    icon: <UsersIcon size={18} />,
    value: (stats) => count.format(stats.totalAccounts),
    help: 'Stored accounts',
  },
  {
    label: 'Active Projects',
    icon: <FolderKanbanIcon size={18} />,
    value: (stats) => count.format(stats.activeProjects),
    help: 'Active and not expired',
  },
  {
    label: 'Success Rate',
    icon: <TrendingUpIcon size={18} />,
    value: (stats) => `${percent.format(stats.successRate)}%`,
    help: 'Rows created of rows submitted',
  },
  {
    label: 'Processing Time',
    icon: <ClockIcon size={18} />,
    value: (stats) => formatSeconds(stats.avgProcessingTime),
    help: 'Avg per account',
  },
];

export function StatCards() {
  const stats = useDashboardStatsQuery();
  if (stats.isError) {
    return (
      <QueryErrorCard
        message="Failed to load dashboard statistics."
        onRetry={() => void stats.refetch()}
        retrying={stats.isFetching}
      />
    );
  }
  return (
    <SimpleGrid columns={{ base: 2, xl: 4 }} gap={{ base: '3', md: '4' }}>
      {statDefinitions.map(({ label, icon, value, help }) => (
        <Card.Root key={label} variant="outline" size={{ base: 'sm', md: 'md' }}>
          <Card.Body>
            <Stat.Root>
              <HStack justify="space-between">
                <Stat.Label>{label}</Stat.Label>
                <Box color="fg.muted" aria-hidden="true">
                  {icon}
                </Box>
              </HStack>
              <Skeleton loading={stats.isPending} minH="9" minW="20">
                <Stat.ValueText fontSize="2xl">{stats.data ? value(stats.data) : '0'}</Stat.ValueText>
              </Skeleton>
              <Stat.HelpText>{help}</Stat.HelpText>
            </Stat.Root>
          </Card.Body>
        </Card.Root>
      ))}
    </SimpleGrid>
  );
}
