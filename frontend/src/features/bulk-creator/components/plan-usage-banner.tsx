import { Alert } from '@chakra-ui/react';
import { planLimits } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { ManageSubscriptionButton, UpgradeButton } from '../../../components/subscription-buttons';

/**
 * Free limits in force: how much of them is used, and the way out - Checkout for free users, the
 * Billing Portal for a Pro subscription whose payment failed (it is Pro again once paid).
 */
export function PlanUsageBanner({ usage, paymentFailed }: { usage: SubscriptionStatus['usage']; paymentFailed: boolean }) {
  const limits = planLimits.free;
  return (
    <Alert.Root status="warning" alignItems={{ base: 'flex-start', md: 'center' }} flexWrap="wrap" gap="3">
      <Alert.Indicator />
      <Alert.Content minW="60">
        <Alert.Title>{paymentFailed ? 'Payment failed – free plan limits apply' : 'Free plan limits'}</Alert.Title>
        <Alert.Description>
          {usage.projectsUsed} of {limits.projects} projects, {usage.accountsUsed} of {limits.accountsTotal} accounts
          used. At most {limits.accountsPerProject} accounts per project.
        </Alert.Description>
      </Alert.Content>
      {paymentFailed ? (
        <ManageSubscriptionButton size="sm" variant="solid" colorPalette="orange" />
      ) : (
        <UpgradeButton label="Upgrade Now" size="sm" colorPalette="orange" />
      )}
    </Alert.Root>
  );
}
