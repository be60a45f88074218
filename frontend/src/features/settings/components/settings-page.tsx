import { Tabs } from '@chakra-ui/react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/page-header';
import { useCheckoutReturn } from '../hooks/use-checkout-return';
import { AccountTab } from './account-tab';
import { DataTab } from './data-tab';
import { NotificationsTab } from './notifications-tab';
import { PreferencesTab } from './preferences-tab';
import { SecurityTab } from './security-tab';
import { SubscriptionTab } from './subscription-tab';

const tabs = [
  { value: 'account', label: 'Account' },
  { value: 'subscription', label: 'Subscription' },
  { value: 'notifications', label: 'Notifications' },
  { value: 'preferences', label: 'Preferences' },
  { value: 'security', label: 'Security' },
  { value: 'data', label: 'Data' },
] as const;
type TabValue = (typeof tabs)[number]['value'];

const isTab = (value: string | null): value is TabValue => tabs.some((tab) => tab.value === value);

/**
 * Six tabs; the open one is ?tab= (Account by default), so Billing links can open Subscription.
 * Stripe Checkout and the Billing Portal return here (?tab=subscription, &checkout=...).
 */
export function SettingsPage() {
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get('tab');
  const tab: TabValue = isTab(requested) ? requested : 'account';
  const checkout = useCheckoutReturn();

  return (
    <>
      <PageHeader title="Settings" subtitle="Manage your account, subscription and preferences." />
      <Tabs.Root
        value={tab}
        onValueChange={(details) => setSearchParams(details.value === 'account' ? {} : { tab: details.value })}
        variant="line"
        lazyMount
      >
        {/* Six tabs wrap onto a second line on a phone: scrolled sideways, the last ones were cut
            off with nothing to say there were more. */}
        <Tabs.List flexWrap="wrap" mb="6">
          {tabs.map(({ value, label }) => (
            <Tabs.Trigger key={value} value={value} flexShrink="0">
              {label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value="account">
          <AccountTab />
        </Tabs.Content>
        <Tabs.Content value="subscription">
          <SubscriptionTab checkout={checkout} />
        </Tabs.Content>
        <Tabs.Content value="notifications">
          <NotificationsTab />
        </Tabs.Content>
        <Tabs.Content value="preferences">
          <PreferencesTab />
        </Tabs.Content>
        <Tabs.Content value="security">
          <SecurityTab />
        </Tabs.Content>
        <Tabs.Content value="data">
          <DataTab />
        </Tabs.Content>
      </Tabs.Root>
    </>
  );
}
