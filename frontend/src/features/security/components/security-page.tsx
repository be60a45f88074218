import { Box, SimpleGrid, Stack } from '@chakra-ui/react';
import { PageHeader } from '../../../components/page-header';
import { SecurityEventsCard } from './security-events-card';
import { SECURITY_SETTINGS_ANCHOR, SecurityOverviewCards } from './security-overview-cards';
import { SecurityQuickActions } from './security-quick-actions';

/**
 * The Security Center (spec 2): the overview from the account's real state, the settings card,
 * the quick actions and the recent security events.
 */
export function SecurityPage() {
  return (
    <>
      <PageHeader title="Security Center" subtitle="Monitor the security of your account." />
      <Stack gap={{ base: '4', md: '6' }}>
        <SecurityOverviewCards />
        {/* The settings card: helper B's SecuritySettingsCard (security-settings-card.tsx) goes in
            this box; 'Turn on two-factor authentication' in the overview links to its anchor. */}
        <Box id={SECURITY_SETTINGS_ANCHOR} scrollMarginTop="20" _empty={{ display: 'none' }} />
        <SimpleGrid columns={{ base: 1, lg: 3 }} gap={{ base: '4', md: '6' }} alignItems="start">
          <Box gridColumn={{ lg: 'span 2' }} minW="0">
            <SecurityEventsCard />
          </Box>
          {/* On a phone the actions come before the list, not after ten events. */}
          <Box order={{ base: -1, lg: 0 }} minW="0">
            <SecurityQuickActions />
          </Box>
        </SimpleGrid>
      </Stack>
    </>
  );
}
