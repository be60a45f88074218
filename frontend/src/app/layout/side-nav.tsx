import { Badge, Box, Card, Flex, HStack, Skeleton, Stack, Text } from '@chakra-ui/react';
import { CrownIcon, SparklesIcon, TriangleAlertIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { planNames, PRO_PRICE_MONTHLY_USD } from '@shared/plans';
import { ManageSubscriptionButton, UpgradeButton } from '../../components/subscription-buttons';
import { isPaymentFailed } from '../../lib/plan-status';
import { useSubscriptionStatus } from '../../lib/subscription-api';
import { useUser } from '../../lib/user-api';
import { navItems } from './nav-items';

/**
 * Links with aria-current="page" on the active one (NavLink sets it), plan footer below.
 * Used in the desktop sidebar and in the phone drawer; onNavigate lets the drawer close.
 */
export function SideNav({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Flex direction="column" h="full" gap="4">
      <Box as="nav" aria-label="Main navigation" flex="1">
        <Stack as="ul" gap="1" listStyleType="none">
          {navItems.map(({ label, to, icon: Icon }) => (
            <li key={to}>
              <Flex
                asChild
                align="center"
                gap="3"
                px="3"
                py="2"
                borderRadius="md"
                fontSize="sm"
                fontWeight="medium"
                color="fg.muted"
                _hover={{ bg: 'bg.muted', color: 'fg' }}
                _currentPage={{ bg: 'blue.subtle', color: 'blue.fg' }}
                focusVisibleRing="outside"
              >
                <NavLink to={to} end={to === '/'} onClick={onNavigate}>
                  <Icon size={18} aria-hidden="true" />
                  {label}
                </NavLink>
              </Flex>
            </li>
          ))}
        </Stack>
      </Box>
      <PlanFooter />
    </Flex>
  );
}

/**
 * The plan footer (spec 2): plan name and badge, then 'Upgrade to Pro' for free users, 'Pro Active'
 * for Pro, or 'Payment failed' while a Pro subscription is past due. Reads the subscription status
 * (not the user), so it changes as soon as a plan change refreshes that query.
 */
function PlanFooter() {
  const user = useUser();
  const subscription = useSubscriptionStatus();
  const status = subscription.data;
  // Until the status has loaded (or if it cannot), the user's stored plan names the plan.
  const plan = status?.plan ?? user.subscriptionPlan;
  const isPro = plan === 'pro';

  return (
    <Stack as="section" aria-label="Plan" gap="3" borderTopWidth="1px" borderColor="border" pt="4">
      <HStack justify="space-between" px="1">
        <Text fontSize="sm" fontWeight="medium">
          {planNames[plan]} Plan
        </Text>
        <Badge colorPalette={isPro ? 'purple' : 'gray'} variant={isPro ? 'solid' : 'subtle'}>
          {isPro ? 'Pro' : 'Free'}
        </Badge>
      </HStack>
      {!status ? (
        subscription.isPending ? <Skeleton height="24" borderRadius="md" /> : null
      ) : isPaymentFailed(status) ? (
        <PlanCard
          palette="red"
          icon={<TriangleAlertIcon size={16} aria-hidden="true" />}
          title="Payment failed"
          text="Update your payment method to keep Pro features. Free limits apply until then."
          action={<ManageSubscriptionButton size="xs" variant="solid" colorPalette="red" />}
        />
      ) : isPro ? (
        <PlanCard
          palette="purple"
          icon={<CrownIcon size={16} aria-hidden="true" />}
          title="Pro Active"
          text="Unlimited projects and accounts, API integrations and all export formats."
        />
      ) : (
        <PlanCard
          palette="blue"
          icon={<SparklesIcon size={16} aria-hidden="true" />}
          title="Upgrade to Pro"
          text={`Unlimited projects and accounts, API integrations and more for $${PRO_PRICE_MONTHLY_USD}/month.`}
          action={<UpgradeButton label="Upgrade Now" size="xs" />}
        />
      )}
    </Stack>
  );
}

/** One of the plan footer's cards: a title with its icon, a line of text, then an optional button. */
function PlanCard({ palette, icon, title, text, action }: { palette: string; icon: ReactNode; title: string; text: string; action?: ReactNode }) {
  return (
    <Card.Root size="sm" variant="subtle" colorPalette={palette} bg="colorPalette.subtle">
      <Card.Body gap={action ? '2' : '1'}>
        <HStack gap="2" color="colorPalette.fg">
          {icon}
          <Text fontWeight="semibold" fontSize="sm">
            {title}
          </Text>
        </HStack>
        <Text fontSize="xs" color="fg.muted">
          {text}
        </Text>
        {action}
      </Card.Body>
    </Card.Root>
  );
}
