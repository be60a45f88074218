import { Alert, Badge, Button, Card, Flex, HStack, Progress, Skeleton, Spinner, Stack, Table, Text } from '@chakra-ui/react';
import { CheckIcon, MinusIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { planLimits, planNames, PRO_PRICE_MONTHLY_USD, UNLIMITED, type PlanId } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { QueryErrorCard } from '../../../components/query-error-card';
import { ManageSubscriptionButton, UpgradeButton } from '../../../components/subscription-buttons';
import { formatDate } from '../../../lib/format-date';
import { billingLine, effectivePlanOf, freeUsageMeters, isPaymentFailed, type UsageMeter } from '../../../lib/plan-status';
import { useSubscriptionStatus } from '../../../lib/subscription-api';
import type { CheckoutConfirmation } from '../hooks/use-checkout-return';
import { ScrollTable } from '../../../components/scroll-table';

const PRO_PRICE = `$${PRO_PRICE_MONTHLY_USD}/month`;
const formatNames: Record<'csv' | 'xlsx' | 'json', string> = { csv: 'CSV', xlsx: 'Excel', json: 'JSON' };

const limitText = (value: number) => (value === UNLIMITED ? 'Unlimited' : value.toLocaleString());
const yesNo = (value: boolean): ReactNode =>
  value ? (
    <HStack gap="1.5" color="green.fg">
      <CheckIcon size={16} aria-hidden="true" />
      <Text as="span" color="fg">
        Yes
      </Text>
    </HStack>
  ) : (
    <HStack gap="1.5" color="fg.subtle">
      <MinusIcon size={16} aria-hidden="true" />
      <Text as="span" color="fg.muted">
        No
      </Text>
    </HStack>
  );

/** Spec 6's table, from shared/plans (the limits the server enforces). */
const comparison: { label: string; value: (plan: PlanId) => ReactNode }[] = [
  // In words that can wrap on a phone ('$19.95/month' is one word).
  { label: 'Price', value: (plan) => (plan === 'pro' ? `$${PRO_PRICE_MONTHLY_USD} per month` : 'Free') },
  { label: 'Projects', value: (plan) => limitText(planLimits[plan].projects) },
  { label: 'Accounts per project', value: (plan) => limitText(planLimits[plan].accountsPerProject) },
  { label: 'Accounts in total', value: (plan) => limitText(planLimits[plan].accountsTotal) },
  { label: 'API integrations', value: (plan) => yesNo(planLimits[plan].apiIntegrations) },
  { label: 'E-mail notifications', value: (plan) => yesNo(planLimits[plan].emailNotifications) },
  { label: 'Support', value: (plan) => (plan === 'pro' ? 'Priority' : 'Standard') },
  {
    label: 'Export formats',
    value: (plan) => planLimits[plan].exportFormats.map((format) => formatNames[format]).join(', '),
  },
];

/**
 * Settings > Subscription (spec 2 and 4): the plan card with its billing line and action, the
 * Free vs Pro comparison, and the free limits' usage while they apply.
 */
export function SubscriptionTab({ checkout }: { checkout: CheckoutConfirmation }) {
  const subscription = useSubscriptionStatus();

  if (subscription.isPending) {
    return (
      <Stack gap="6" role="status" aria-label="Loading subscription" aria-busy="true">
        <Skeleton height="40" borderRadius="lg" />
        <Skeleton height="80" borderRadius="lg" />
      </Stack>
    );
  }
  if (subscription.isError) {
    return (
      <QueryErrorCard
        message="Failed to load subscription information."
        onRetry={() => void subscription.refetch()}
        retrying={subscription.isFetching}
      />
    );
  }

  const status = subscription.data;
  const freeLimitsApply = effectivePlanOf(status) === 'free';
  return (
    <Stack gap="6">
      <CurrentPlanCard status={status} checkout={checkout} onCheckAgain={() => void subscription.refetch()} />
      {freeLimitsApply ? <UsageCard usage={status.usage} /> : null}
      <ComparisonCard />
    </Stack>
  );
}

function CurrentPlanCard({
  status,
  checkout,
  onCheckAgain,
}: {
  status: SubscriptionStatus;
  checkout: CheckoutConfirmation;
  onCheckAgain: () => void;
}) {
  const isPro = status.plan === 'pro';
  const paymentFailed = isPaymentFailed(status);
  // Back from Checkout, the webhook not yet in: no second Upgrade while the first one lands.
  const awaitingPro = !isPro && (checkout === 'confirming' || checkout === 'delayed');
  const line = billingLine(status, formatDate);

  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Current Plan</Card.Title>
      </Card.Header>
      <Card.Body gap="4">
        <Flex justify="space-between" align={{ base: 'flex-start', sm: 'center' }} gap="4" wrap="wrap">
          <Stack gap="1">
            <HStack gap="2" wrap="wrap">
              <Text fontSize="xl" fontWeight="semibold">
                {planNames[status.plan]} Plan
              </Text>
              {paymentFailed ? (
                <Badge colorPalette="red" variant="subtle">
                  Past due
                </Badge>
              ) : isPro && status.cancelAtPeriodEnd ? (
                <Badge colorPalette="orange" variant="subtle">
                  Ending
                </Badge>
              ) : isPro ? (
                <Badge colorPalette="green" variant="subtle">
                  Active
                </Badge>
              ) : null}
            </HStack>
            {/* The name says the plan once; the line under it says what it costs (not 'Free' again). */}
            <Text color="fg.muted">{isPro ? PRO_PRICE : '$0/month, no card needed'}</Text>
            {line ? (
              <Text fontSize="sm" color="fg.muted">
                {line}
              </Text>
            ) : null}
          </Stack>
          {isPro ? (
            <ManageSubscriptionButton colorPalette={paymentFailed ? 'red' : undefined} variant={paymentFailed ? 'solid' : 'outline'} />
          ) : awaitingPro ? null : (
            <UpgradeButton label="Upgrade to Pro" />
          )}
        </Flex>
        {paymentFailed ? (
          <Alert.Root status="error">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>Payment failed – update your payment method</Alert.Title>
              <Alert.Description>
                Pro features are paused and the free limits apply until the payment goes through. Use Manage
                Subscription to update your card.
              </Alert.Description>
            </Alert.Content>
          </Alert.Root>
        ) : null}
        {awaitingPro && checkout === 'confirming' ? (
          <Alert.Root status="info" alignItems="center">
            <Spinner size="sm" color="colorPalette.fg" />
            <Alert.Content>
              <Alert.Description>Activating your Pro plan...</Alert.Description>
            </Alert.Content>
          </Alert.Root>
        ) : null}
        {awaitingPro && checkout === 'delayed' ? (
          <Alert.Root status="warning" alignItems="center" flexWrap="wrap">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Description>
                Your payment is still being confirmed. Your plan switches to Pro as soon as it is.
              </Alert.Description>
            </Alert.Content>
            <Button size="sm" variant="outline" onClick={onCheckAgain}>
              Check again
            </Button>
          </Alert.Root>
        ) : null}
      </Card.Body>
    </Card.Root>
  );
}

function UsageCard({ usage }: { usage: SubscriptionStatus['usage'] }) {
  const meters = freeUsageMeters(usage);
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Usage</Card.Title>
        <Card.Description>The free plan's limits. Pro has none.</Card.Description>
      </Card.Header>
      <Card.Body gap="5">
        {meters.projects ? <UsageBar label="Projects" meter={meters.projects} /> : null}
        {meters.accounts ? <UsageBar label="Accounts" meter={meters.accounts} /> : null}
      </Card.Body>
    </Card.Root>
  );
}

function UsageBar({ label, meter }: { label: string; meter: UsageMeter }) {
  const text = `${label}: ${meter.used.toLocaleString()} of ${meter.limit.toLocaleString()}`;
  return (
    <Progress.Root
      value={Math.min(meter.used, meter.limit)}
      max={meter.limit}
      colorPalette={meter.percent >= 100 ? 'red' : meter.percent >= 80 ? 'orange' : 'blue'}
    >
      <Progress.Label mb="2" fontSize="sm" fontWeight="medium">
        {text}
      </Progress.Label>
      <Progress.Track borderRadius="full">
        <Progress.Range />
      </Progress.Track>
    </Progress.Root>
  );
}

function ComparisonCard() {
  return (
    <Card.Root variant="outline">
      <Card.Header>
        <Card.Title as="h2">Free vs Pro</Card.Title>
        <Card.Description>Pro costs ${PRO_PRICE_MONTHLY_USD} per month, billed monthly.</Card.Description>
      </Card.Header>
      {/* On a phone the three columns fit the screen (no text cut, nothing to scroll to): a narrower
          padding around and inside the table, and every value in words that wrap. */}
      <Card.Body px={{ base: '3', sm: '6' }}>
        <ScrollTable label={'Free vs Pro'}>
          <Table.Root size="sm" aria-label="Free vs Pro" css={{ '& th, & td': { paddingInline: { base: '2', sm: '3' } } }}>
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
                  <Table.Cell as="th" scope="row" fontWeight="medium" textAlign="start">
                    {label}
                  </Table.Cell>
                  <Table.Cell>{value('free')}</Table.Cell>
                  <Table.Cell>{value('pro')}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </ScrollTable>
      </Card.Body>
    </Card.Root>
  );
}
