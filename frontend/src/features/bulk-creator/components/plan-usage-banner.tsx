import { Alert, Button } from '@chakra-ui/react';
import { useNavigate } from 'react-router';
import { planLimits } from '@shared/plans';
import type { SubscriptionStatus } from '@shared/schemas/project';

export const UPGRADE_PATH = '/settings?tab=subscription';

/** Free plan: how much of the limits is used, and the way to Pro. */
export function PlanUsageBanner({ usage }: { usage: SubscriptionStatus['usage'] }) {
  const navigate = useNavigate();
  const limits = planLimits.free;
  return (
    <Alert.Root status="warning" alignItems={{ base: 'flex-start', md: 'center' }} flexWrap="wrap" gap="3">
      <Alert.Indicator />
      <Alert.Content minW="60">
        <Alert.Title>Free plan limits</Alert.Title>
        <Alert.Description>
          {usage.projectsUsed} of {limits.projects} projects, {usage.accountsUsed} of {limits.accountsTotal} accounts
          used. At most {limits.accountsPerProject} accounts per project.
        </Alert.Description>
      </Alert.Content>
      <Button size="sm" colorPalette="orange" onClick={() => void navigate(UPGRADE_PATH)}>
        Upgrade Now
      </Button>
    </Alert.Root>
  );
}
