import { Alert, Badge, Card, HStack, Stack, Table, Text } from '@chakra-ui/react';
import { planLimits, planNames, PRO_PRICE_MONTHLY_USD, UNLIMITED, type PlanId } from '@shared/plans';
import { useUser } from '../../../lib/user-api';

const formatLimit = (value: number) => (value === UNLIMITED ? 'Unlimited' : String(value));
const formatBoolean = (value: boolean) => (value ? 'Yes' : 'No');
const formatNames: Record<'csv' | 'xlsx' | 'json', string> = { csv: 'CSV', xlsx: 'Excel', json: 'JSON' };

const comparison: { label: string; value: (plan: PlanId) => string }[] = [
  { label: 'Projects', value: (plan) => formatLimit(planLimits[plan].projects) },
  { label: 'Accounts per project', value: (plan) => formatLimit(planLimits[plan].accountsPerProject) },
  { label: 'Accounts in total', value: (plan) => formatLimit(planLimits[plan].accountsTotal) },
  { label: 'API integrations', value: (plan) => formatBoolean(planLimits[plan].apiIntegrations) },
  { label: 'E-mail notifications', value: (plan) => formatBoolean(planLimits[plan].emailNotifications) },
  {
    label: 'Export formats',
    value: (plan) => planLimits[plan].exportFormats.map((format) => formatNames[format]).join(', '),
  },
  { label: 'Support', value: (plan) => (plan === 'pro' ? 'Priority' : 'Standard') },
];

const formatDate = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

export function SubscriptionTab() {
  const user = useUser();
  const plan = user.subscriptionPlan;
  const isPro = plan === 'pro';

  return (
    <Stack gap="6">
      <Card.Root variant="outline">
        <Card.Header>
          <Card.Title>Current Plan</Card.Title>
        </Card.Header>
        <Card.Body gap="2">
          <HStack gap="3">
            <Text fontSize="xl" fontWeight="semibold">
              {planNames[plan]} Plan
            </Text>
            <Badge colorPalette={isPro ? 'purple' : 'gray'} variant={isPro ? 'solid' : 'subtle'}>
              {isPro ? 'Pro' : 'Free'}
            </Badge>
            <Badge colorPalette="green" variant="subtle">
              {user.subscriptionStatus}
            </Badge>
          </HStack>
          <Text color="fg.muted">{isPro ? `$${PRO_PRICE_MONTHLY_USD}/month, billed monthly` : '$0/month'}</Text>
          {isPro && user.subscriptionCurrentPeriodEnd ? (
            <Text fontSize="sm" color="fg.muted">
              {user.subscriptionCancelAtPeriodEnd
                ? `Your plan ends on ${formatDate(user.subscriptionCurrentPeriodEnd)}.`
                : `Next billing date: ${formatDate(user.subscriptionCurrentPeriodEnd)}.`}
            </Text>
          ) : null}
        </Card.Body>
      </Card.Root>

      <Card.Root variant="outline">
        <Card.Header>
          <Card.Title>Free vs Pro</Card.Title>
          <Card.Description>Pro costs ${PRO_PRICE_MONTHLY_USD} per month, billed monthly.</Card.Description>
        </Card.Header>
        <Card.Body>
          <Table.ScrollArea>
            <Table.Root size="sm">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeader>Feature</Table.ColumnHeader>
                  <Table.ColumnHeader>{planNames.free}</Table.ColumnHeader>
                  <Table.ColumnHeader>{planNames.pro}</Table.ColumnHeader>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {comparison.map(({ label, value }) => (
                  <Table.Row key={label}>
                    <Table.Cell>{label}</Table.Cell>
                    <Table.Cell>{value('free')}</Table.Cell>
                    <Table.Cell>{value('pro')}</Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </Table.ScrollArea>
        </Card.Body>
      </Card.Root>

      {isPro ? null : (
        <Alert.Root status="info">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Upgrading arrives with billing</Alert.Title>
            <Alert.Description>
              Upgrading to Pro becomes available once billing is released. Until then every account is on the
              Free plan.
            </Alert.Description>
          </Alert.Content>
        </Alert.Root>
      )}
    </Stack>
  );
}
