import { BarList, Chart, useChart, type BarListData } from '@chakra-ui/charts';
import { Bar, BarChart, CartesianGrid, Cell, Label, Legend, Pie, PieChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { Analytics } from '@shared/schemas/analytics';
import { plural } from '@shared/text/plural';

/**
 * The Analytics page's charts (@chakra-ui/charts over recharts). This module is loaded lazily by
 * the page, so recharts is not part of the first screen's code. Colours are semantic tokens: they
 * follow the light and dark theme.
 */

const monthLabel = (month: string) => {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m - 1, 1)).toLocaleDateString(undefined, { month: 'short', year: '2-digit', timeZone: 'UTC' });
};

/** Accounts and projects created per month, the last 12 months. */
export function MonthlyTrendsChart({ trends }: { trends: Analytics['monthlyTrends'] }) {
  const chart = useChart({
    data: trends.map((t) => ({ month: monthLabel(t.month), accounts: t.accounts, projects: t.projects })),
    series: [
      { name: 'accounts', color: 'teal.solid', label: 'Accounts', yAxisId: 'accounts' },
      { name: 'projects', color: 'orange.solid', label: 'Projects', yAxisId: 'projects' },
    ],
  });
  return (
    <Chart.Root chart={chart} h={{ base: '64', md: '72' }} role="figure" aria-label="Accounts and projects created per month">
      <BarChart responsive data={chart.data} margin={{ left: -12, right: -12 }}>
        <CartesianGrid stroke={chart.color('border.muted')} vertical={false} />
        <XAxis dataKey={chart.key('month')} axisLine={false} tickLine={false} interval="preserveStartEnd" minTickGap={8} tick={{ fill: chart.color('fg.muted'), fontSize: 12 }} />
        <YAxis yAxisId="accounts" axisLine={false} tickLine={false} allowDecimals={false} tickFormatter={chart.formatNumber({ notation: 'compact' })} tick={{ fill: chart.color('fg.muted'), fontSize: 12 }} />
        <YAxis yAxisId="projects" orientation="right" axisLine={false} tickLine={false} allowDecimals={false} tick={{ fill: chart.color('fg.muted'), fontSize: 12 }} />
        <Tooltip cursor={{ fill: chart.color('bg.muted') }} animationDuration={100} content={<Chart.Tooltip />} />
        <Legend content={<Chart.Legend />} />
        {chart.series.map((item) => (
          <Bar key={item.name} yAxisId={item.yAxisId} dataKey={chart.key(item.name)} fill={chart.color(item.color)} isAnimationActive={false} radius={[4, 4, 0, 0]} />
        ))}
      </BarChart>
    </Chart.Root>
  );
}


/** Accounts on each platform (Synced), most first, with their share. */
export function TopPlatformsChart({ platforms }: { platforms: Analytics['topPlatforms'] }) {
  const chart = useChart<BarListData>({
    data: platforms.map((p) => ({ name: p.name, value: p.count })),
    sort: { by: 'value', direction: 'desc' },
    series: [{ name: 'name', color: 'teal.subtle' }],
  });
  const share = new Map(platforms.map((p) => [p.count, p.percentage]));
  return (
    <BarList.Root chart={chart}>
      <BarList.Content>
        <BarList.Bar tooltip={false} />
        <BarList.Value valueFormatter={(value) => `${plural(value, 'account')} · ${share.get(value) ?? 0}%`} />
      </BarList.Content>
    </BarList.Root>
  );
}

/** Rows created against rows not created, as a ring with the rate in the middle. */
export function CompletionChart({ rate }: { rate: number }) {
  const chart = useChart({
    data: [
      { name: 'created', value: rate, color: 'teal.solid' },
      { name: 'not created', value: Math.round((100 - rate) * 10) / 10, color: 'border.emphasized' },
    ],
  });
  return (
    <Chart.Root chart={chart} boxSize="48" mx="auto" role="figure" aria-label={`Completion rate ${rate}%`}>
      <PieChart responsive>
        <Pie data={chart.data} dataKey={chart.key('value')} nameKey="name" innerRadius="70%" outerRadius="100%" startAngle={90} endAngle={-270} isAnimationActive={false} stroke="none">
          <Label content={({ viewBox }) => <Chart.RadialText viewBox={viewBox} title={`${rate}%`} description="created" />} />
          {chart.data.map((item) => (
            <Cell key={item.name} fill={chart.color(item.color)} />
          ))}
        </Pie>
      </PieChart>
    </Chart.Root>
  );
}
