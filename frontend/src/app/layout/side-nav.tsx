import { Badge, Box, Button, Card, Flex, HStack, Stack, Text } from '@chakra-ui/react';
import { CrownIcon, SparklesIcon } from 'lucide-react';
import { NavLink, useNavigate } from 'react-router';
import { planNames } from '@shared/plans';
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
      <PlanFooter onNavigate={onNavigate} />
    </Flex>
  );
}

function PlanFooter({ onNavigate }: { onNavigate?: () => void }) {
  const user = useUser();
  const navigate = useNavigate();
  const isPro = user.subscriptionPlan === 'pro';

  return (
    <Stack gap="3" borderTopWidth="1px" borderColor="border" pt="4">
      <HStack justify="space-between" px="1">
        <Text fontSize="sm" fontWeight="medium">
          {planNames[user.subscriptionPlan]} Plan
        </Text>
        <Badge colorPalette={isPro ? 'purple' : 'gray'} variant={isPro ? 'solid' : 'subtle'}>
          {isPro ? 'Pro' : 'Free'}
        </Badge>
      </HStack>
      {isPro ? (
        <Card.Root size="sm" variant="subtle" colorPalette="purple" bg="colorPalette.subtle">
          <Card.Body gap="1">
            <HStack gap="2" color="colorPalette.fg">
              <CrownIcon size={16} aria-hidden="true" />
              <Text fontWeight="semibold" fontSize="sm">
                Pro Active
              </Text>
            </HStack>
            <Text fontSize="xs" color="fg.muted">
              Unlimited projects, accounts and API integrations.
            </Text>
          </Card.Body>
        </Card.Root>
      ) : (
        <Card.Root size="sm" variant="subtle" colorPalette="blue" bg="colorPalette.subtle">
          <Card.Body gap="2">
            <HStack gap="2" color="colorPalette.fg">
              <SparklesIcon size={16} aria-hidden="true" />
              <Text fontWeight="semibold" fontSize="sm">
                Upgrade to Pro
              </Text>
            </HStack>
            <Text fontSize="xs" color="fg.muted">
              Unlimited projects and accounts, API integrations and more.
            </Text>
            <Button
              size="xs"
              colorPalette="blue"
              onClick={() => {
                // Billing arrives in a later issue; until then this shows the plan comparison.
                onNavigate?.();
                void navigate('/settings?tab=subscription');
              }}
            >
              Upgrade Now
            </Button>
          </Card.Body>
        </Card.Root>
      )}
    </Stack>
  );
}
