import { Alert, Button, CloseButton, Dialog, List, Portal, Stack, Text } from '@chakra-ui/react';
import { CheckIcon, CrownIcon } from 'lucide-react';
import { PRO_PRICE_MONTHLY_USD, upgradeMessage } from '@shared/plans';
import { isPaymentFailed } from '../lib/plan-status';
import { useSubscriptionStatus } from '../lib/subscription-api';
import { ManageSubscriptionButton, UpgradeButton } from './subscription-buttons';
import { ignoreFocusOutside } from '../lib/modal-focus';

const proBenefits = [
  'Unlimited projects and accounts',
  'API integrations (Salesforce, Active Directory, Okta, Workday, custom)',
  'Exports in CSV, Excel and JSON',
  'E-mail notifications and templates',
  'Priority support',
];

/**
 * The feature gate (spec 2, 4 and 6): opens when a free user tries a Pro feature; closes on
 * 'Maybe Later' or once 'Upgrade Now' has been answered: on success the browser is leaving for
 * Stripe Checkout, on failure the toast says why. A Pro subscription whose payment failed is
 * offered the Billing Portal instead (a second checkout would be refused).
 */
export function UpgradePromptDialog({
  feature,
  open,
  onOpenChange,
}: {
  /** What the user tried, e.g. 'Advanced Export Formats'. */
  feature: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { data: status } = useSubscriptionStatus();
  const paymentFailed = !!status && isPaymentFailed(status);
  return (
    <Dialog.Root onFocusOutside={ignoreFocusOutside} open={open} onOpenChange={(details) => onOpenChange(details.open)} placement="center">
      <Portal>
        <Dialog.Backdrop />
        <Dialog.Positioner>
          <Dialog.Content mx="4">
            <Dialog.Header>
              <Stack direction="row" align="center" gap="3">
                <Stack
                  align="center"
                  justify="center"
                  w="10"
                  h="10"
                  flexShrink="0"
                  borderRadius="full"
                  bg="purple.subtle"
                  color="purple.fg"
                  aria-hidden="true"
                >
                  <CrownIcon size={20} />
                </Stack>
                <Dialog.Title>Upgrade to Pro</Dialog.Title>
              </Stack>
            </Dialog.Header>
            <Dialog.Body>
              <Stack gap="4">
                <Dialog.Description color="fg">{upgradeMessage(feature)}</Dialog.Description>
                <List.Root variant="plain" gap="2" aria-label="Pro benefits">
                  {proBenefits.map((benefit) => (
                    <List.Item key={benefit} alignItems="flex-start" fontSize="sm">
                      <List.Indicator asChild color="green.fg" mt="0.5">
                        <CheckIcon aria-hidden="true" />
                      </List.Indicator>
                      {benefit}
                    </List.Item>
                  ))}
                </List.Root>
                {paymentFailed ? (
                  <Alert.Root status="error" size="sm">
                    <Alert.Indicator />
                    <Alert.Description>
                      Your last Pro payment failed. Update your payment method to get Pro features back.
                    </Alert.Description>
                  </Alert.Root>
                ) : (
                  <Text fontSize="sm" color="fg.muted">
                    ${PRO_PRICE_MONTHLY_USD} per month, billed monthly.
                  </Text>
                )}
              </Stack>
            </Dialog.Body>
            <Dialog.Footer flexWrap="wrap">
              <Dialog.ActionTrigger asChild>
                <Button variant="outline">Maybe Later</Button>
              </Dialog.ActionTrigger>
              {paymentFailed ? (
                <ManageSubscriptionButton variant="solid" colorPalette="blue" onSettled={() => onOpenChange(false)} />
              ) : (
                <UpgradeButton label="Upgrade Now" onSettled={() => onOpenChange(false)} />
              )}
            </Dialog.Footer>
            <Dialog.CloseTrigger asChild>
              <CloseButton size="sm" />
            </Dialog.CloseTrigger>
          </Dialog.Content>
        </Dialog.Positioner>
      </Portal>
    </Dialog.Root>
  );
}
