import { Button, type ButtonProps } from '@chakra-ui/react';
import { CreditCardIcon, CrownIcon } from 'lucide-react';
import { useOpenPortal, useStartCheckout } from '../lib/subscription-api';

type SubscriptionButtonProps = Omit<ButtonProps, 'onClick' | 'loading' | 'loadingText' | 'children'> & {
  /** The button's text (its accessible name while idle). */
  label: string;
  /** After the request has ended; on success the browser is already on its way to Stripe. */
  onSettled?: () => void;
};

/** Starts Stripe Checkout for Pro; 'Processing...' from the click until the browser has left. */
export function UpgradeButton({ label, onSettled, ...props }: SubscriptionButtonProps) {
  const checkout = useStartCheckout();
  return (
    <Button
      colorPalette="blue"
      {...props}
      loading={checkout.busy}
      loadingText="Processing..."
      onClick={() => checkout.mutate(undefined, { onSettled })}
    >
      <CrownIcon aria-hidden="true" />
      {label}
    </Button>
  );
}

/** Opens Stripe's Billing Portal (payment method, invoices, cancelling); keeps its name while busy. */
export function ManageSubscriptionButton({ label = 'Manage Subscription', onSettled, ...props }: Partial<SubscriptionButtonProps>) {
  const portal = useOpenPortal();
  return (
    <Button
      variant="outline"
      {...props}
      loading={portal.busy}
      onClick={() => portal.mutate(undefined, { onSettled })}
    >
      <CreditCardIcon aria-hidden="true" />
      {label}
    </Button>
  );
}
