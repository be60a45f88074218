import { Card, List, Stack, Text } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import type { SubscriptionStatus } from '@shared/schemas/project';
import { ManageSubscriptionButton, UpgradeButton } from '../../../components/subscription-buttons';

/** At a plan limit (spec 6): the limit reached, instead of the upload and entry tabs. */
export function UpgradeRequiredCard({
  usage,
  paymentFailed,
}: {
  usage: SubscriptionStatus['usage'];
  /** Pro whose payment failed: the Billing Portal, not Checkout, lifts the limits. */
  paymentFailed: boolean;
}) {
  const reasons = [
    ...(usage.canCreateProject ? [] : ['You have reached your project limit.']),
    ...(usage.canCreateAccount ? [] : ['You have reached your account limit.']),
  ];
  return (
    <Card.Root variant="outline" borderColor="orange.muted">
      <Card.Body>
        <Stack align="center" textAlign="center" gap="4" py="6">
          <Stack
            align="center"
            justify="center"
            w="12"
            h="12"
            borderRadius="full"
            bg="orange.subtle"
            color="orange.fg"
            aria-hidden="true"
          >
            <CrownIcon size={24} />
          </Stack>
          <Card.Title as="h2" fontSize="xl">
            Upgrade Required
          </Card.Title>
          <List.Root variant="plain" gap="1" align="center">
            {reasons.map((reason) => (
              <List.Item key={reason} fontWeight="medium" justifyContent="center">
                {reason}
              </List.Item>
            ))}
          </List.Root>
          <Text color="fg.muted" maxW="md">
            {paymentFailed
              ? 'Your last Pro payment failed, so the free limits apply. Update your payment method to lift them.'
              : 'Pro has unlimited projects and accounts.'}{' '}
            Your existing projects and accounts stay available in Projects and the Account Database.
          </Text>
          {paymentFailed ? (
            <ManageSubscriptionButton variant="solid" colorPalette="blue" />
          ) : (
            <UpgradeButton label="Upgrade to Pro" />
          )}
        </Stack>
      </Card.Body>
    </Card.Root>
  );
}
