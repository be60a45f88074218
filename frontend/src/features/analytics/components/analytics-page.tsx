import { Badge, Box, Button, Card, HStack, Heading, SimpleGrid, Skeleton, Stack, Stat, Text } from '@chakra-ui/react';
import { ActivityIcon, ChartColumnIcon, CircleCheckIcon, FolderKanbanIcon, PlugIcon, RotateCwIcon, RulerIcon, UsersIcon } from 'lucide-react';
import { lazy, Suspense, type ReactNode } from 'react';
import type { Analytics } from '@shared/schemas/analytics';
import { EmptyStateCard } from '../../../components/empty-state-card';
import { PageHeader } from '../../../components/page-header';
import { formatDateTime } from '../../../lib/format-date';
import { useAnalyticsQuery } from '../api/analytics-api';

// The charts (recharts) load after the cards: they are not in the first screen's code.
const MonthlyTrendsChart = lazy(async () => ({ default: (await import('./analytics-charts')).MonthlyTrendsChart }));
const TopPlatformsChart = lazy(async () => ({ default: (await import('./analytics-charts')).TopPlatformsChart }));
const CompletionChart = lazy(async () => ({ default: (await import('./analytics-charts')).CompletionChart }));

const count = new Intl.NumberFormat();
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const signed = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1, signDisplay: 'exceptZero' });

export function AnalyticsPage() {
  const analytics = useAnalyticsQuery();
  return (
    <>
      <PageHeader
        title="Analytics"
        subtitle="Insights into your account creation activity."
        actions={
          <Badge variant="outline" size="lg">
            All time · months in your timezone
          </Badge>
        }
      />
      {analytics.isError ? (
        <EmptyStateCard
          icon={<ChartColumnIcon />}
          title="No analytics data"
          description="Your analytics could not be loaded. Nothing is lost: try again in a moment."
          action={
            <Button size="sm" variant="outline" onClick={() => void analytics.refetch()} loading={analytics.isFetching}>
              <RotateCwIcon aria-hidden="true" />
              Retry
            </Button>
          }
        />
      ) : (
        <Stack gap="6">
          <AnalyticsCards data={analytics.data} />
          <Section title="Monthly Trends" description="Accounts and projects created each month, the last 12 months.">
            {!analytics.data ? (
              <Skeleton h="64" />
            ) : analytics.data.monthlyTrends.every((m) => m.accounts === 0 && m.projects === 0) ? (
              <SectionEmpty icon={<ChartColumnIcon size={20} />} text="No accounts or projects created in the last 12 months." />
            ) : (
              <Suspense fallback={<Skeleton h="64" />}>
                <MonthlyTrendsChart trends={analytics.data.monthlyTrends} />
              </Suspense>
            )}
          </Section>
          <SimpleGrid columns={{ base: 1, lg: 2 }} gap="6">
            <Section title="Top Integration Platforms" description="Accounts created on each platform by provisioning (Synced).">
              {!analytics.data ? (
                <Skeleton h="32" />
              ) : analytics.data.topPlatforms.length === 0 ? (
                <SectionEmpty icon={<PlugIcon size={20} />} text="No accounts provisioned to a platform yet." />
              ) : (
                <Suspense fallback={<Skeleton h="32" />}>
                  <TopPlatformsChart platforms={analytics.data.topPlatforms} />
                </Suspense>
              )}
            </Section>
            <Section title="Completion Rate" description="Rows created of all rows submitted (the rest were refused or failed).">
              {!analytics.data ? (
                <Skeleton h="48" />
              ) : analytics.data.completionRate === null ? (
                <SectionEmpty icon={<CircleCheckIcon size={20} />} text="No rows submitted yet." />
              ) : (
                <Suspense fallback={<Skeleton h="48" />}>
                  <CompletionChart rate={analytics.data.completionRate} />
                </Suspense>
              )}
            </Section>
          </SimpleGrid>
          <Section title="Recent Activity" description="The latest creations and what they counted.">
            {!analytics.data ? (
              <Skeleton h="24" />
            ) : analytics.data.recentActivity.length === 0 ? (
              <SectionEmpty icon={<ActivityIcon size={20} />} text="No recent activity. Create a project to see it here." />
            ) : (
              <Stack as="ul" gap="3" listStyleType="none">
                {analytics.data.recentActivity.map((item, index) => (
                  <HStack as="li" key={`${item.date}-${index}`} justify="space-between" align="flex-start" gap="3">
                    <Stack gap="0" minW="0">
                      <Text fontSize="sm" wordBreak="break-word">
                        {item.action}
                      </Text>
                      <Text fontSize="xs" color="fg.muted">
                        <time dateTime={item.date}>{formatDateTime(item.date)}</time>
                      </Text>
                    </Stack>
                    <Badge variant="subtle" flexShrink="0">
                      {count.format(item.count)}
                    </Badge>
                  </HStack>
                ))}
              </Stack>
            )}
          </Section>
        </Stack>
      )}
    </>
  );
}

interface CardDefinition {
  label: string;
  icon: ReactNode;
  value: (a: Analytics) => string;
  /** The change or what the figure covers, computed from the counters (never a fixed text). */
  help: (a: Analytics) => string;
}

const growth = (a: Analytics) =>
  a.accountsGrowthRate === null
    ? `${count.format(a.accountsThisMonth)} this month (none last month)`
    : `${signed.format(a.accountsGrowthRate)}% this month`;

const cards: CardDefinition[] = [
  { label: 'Total Accounts', icon: <UsersIcon size={18} />, value: (a) => count.format(a.totalAccounts), help: growth },
  { label: 'Active Projects', icon: <FolderKanbanIcon size={18} />, value: (a) => count.format(a.activeProjects), help: (a) => `${count.format(a.projectsThisMonth)} new this month` },
  {
    label: 'Completion Rate',
    icon: <CircleCheckIcon size={18} />,
    value: (a) => (a.completionRate === null ? '–' : `${decimal.format(a.completionRate)}%`),
    help: () => 'Success rate of rows submitted',
  },
  { label: 'Avg Project Size', icon: <RulerIcon size={18} />, value: (a) => decimal.format(a.averageProjectSize), help: () => 'Accounts per project' },
];

function AnalyticsCards({ data }: { data: Analytics | undefined }) {
  return (
    <SimpleGrid columns={{ base: 2, xl: 4 }} gap={{ base: '3', md: '4' }}>
      {cards.map(({ label, icon, value, help }) => (
        <Card.Root key={label} variant="outline" size={{ base: 'sm', md: 'md' }}>
          <Card.Body>
            <HStack justify="space-between" align="flex-start" gap="2">
              <Stat.Root minW="0">
                <Stat.Label>{label}</Stat.Label>
                <Stat.ValueText fontSize="2xl">
                  <Skeleton loading={!data} minH="9" minW="16" display="inline-block">
                    {data ? value(data) : '0'}
                  </Skeleton>
                </Stat.ValueText>
                <Stat.HelpText as="dd">{data ? help(data) : '\u00a0'}</Stat.HelpText>
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

function Section({ title, description, children }: { title: string; description: string; children: ReactNode }) {
  return (
    <Card.Root variant="outline" as="section" aria-label={title}>
      <Card.Header>
        <Heading as="h2" size="md">
          {title}
        </Heading>
        <Text fontSize="sm" color="fg.muted">
          {description}
        </Text>
      </Card.Header>
      <Card.Body>{children}</Card.Body>
    </Card.Root>
  );
}

function SectionEmpty({ icon, text }: { icon: ReactNode; text: string }) {
  return (
    <HStack color="fg.muted" gap="3" py="4">
      <Box aria-hidden="true">{icon}</Box>
      <Text fontSize="sm">{text}</Text>
    </HStack>
  );
}
