import { Box, Card, HStack, SimpleGrid, Skeleton, Stat } from '@chakra-ui/react';
import { ClockIcon, FolderKanbanIcon, TrendingUpIcon, UsersIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import type { DashboardStats } from '@shared/schemas/project';
import { QueryErrorCard } from '../../../components/query-error-card';
import { useDashboardStatsQuery } from '../api/dashboard-api';

const count = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const signed = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1, signDisplay: 'exceptZero' });

/** Seconds with the precision that matters: 0.012s, 0.42s, 3.5s. */
const formatSeconds = (seconds: number) =>
  `${new Intl.NumberFormat(undefined, { maximumSignificantDigits: seconds < 1 ? 2 : 3 }).format(seconds)}s`;

interface StatDefinition {
  label: string;
  icon: ReactNode;
  value: (stats: DashboardStats) => string;
  /** What the number covers, or its change computed from the analytics counters (never an invented trend). */
  help: (stats: DashboardStats) => string;
}

const statDefinitions: StatDefinition[] = [
  {
    label: 'Total Accounts',
    icon: <UsersIcon size={18} />,
    value: (stats) => count.format(stats.totalAccounts),
    // Growth this month against last month (months in the user's timezone).
    help: (stats) =>
      stats.accountsGrowthRate === null
        ? `${count.format(stats.accountsThisMonth)} this month`
        : `${signed.format(stats.accountsGrowthRate)}% this month`,
  },
  {
    label: 'Active Projects',
    icon: <FolderKanbanIcon size={18} />,
    value: (stats) => count.format(stats.activeProjects),
    help: (stats) => `${count.format(stats.newProjectsThisMonth)} new this month`,
  },
  {
    label: 'Success Rate',
    icon: <TrendingUpIcon size={18} />,
    value: (stats) => `${percent.format(stats.successRate)}%`,
    help: () => 'Rows created of rows submitted',
  },
  {
    label: 'Processing Time',
    icon: <ClockIcon size={18} />,
    value: (stats) => formatSeconds(stats.avgProcessingTime),
    help: () => 'Avg per account',
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
            {/* The list holds only its term and its two definitions (axe: definition-list); the
                icon sits beside it, and gives way on phones so no label wraps and every value
                sits on the same line as its neighbour's. */}
            <HStack justify="space-between" align="flex-start" gap="2">
              <Stat.Root minW="0">
                <Stat.Label whiteSpace={{ base: 'nowrap', sm: 'normal' }}>{label}</Stat.Label>
                <Stat.ValueText fontSize="2xl">
                  <Skeleton loading={stats.isPending} minH="9" minW="20" display="inline-block">
                    {stats.data ? value(stats.data) : '0'}
                  </Skeleton>
                </Stat.ValueText>
                <Stat.HelpText as="dd">{stats.data ? help(stats.data) : '\u00a0'}</Stat.HelpText>
              </Stat.Root>
              <Box color="fg.muted" aria-hidden="true" hideBelow="sm" flexShrink="0">
                {icon}
              </Box>
            </HStack>
          </Card.Body>
        </Card.Root>
      ))}
    </SimpleGrid>
  );
}
