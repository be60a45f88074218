import { Box, SimpleGrid, Stack } from '@chakra-ui/react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '../../../components/page-header';
import { ChangePasswordCard } from './change-password-card';
import { SecurityEventsCard } from './security-events-card';
import { SECURITY_SETTINGS_ANCHOR, SecurityOverviewCards } from './security-overview-cards';
import { SecurityQuickActions } from './security-quick-actions';
import { SecuritySettingsCard } from './security-settings-card';

/**
 * The Security Center (spec 2): the overview from the account's real state, the settings card,
 * the quick actions, the recent security events and the password change. Opened with
 * ?change-password=1 (an expired password: every other API call is refused until it is changed),
 * the password form comes first.
 */
export function SecurityPage() {
  const [params] = useSearchParams();
  const passwordFirst = params.get('change-password') === '1';
  const changePassword = (
    <Box id="change-password" scrollMarginTop="20">
      <ChangePasswordCard />
    </Box>
  );
  return (
    <>
      <PageHeader title="Security Center" subtitle="Monitor the security of your account." />
      <Stack gap={{ base: '4', md: '6' }}>
        {passwordFirst && changePassword}
        <SecurityOverviewCards />
        {/* 'Turn on two-factor authentication' in the overview links to this anchor. */}
        <Box id={SECURITY_SETTINGS_ANCHOR} scrollMarginTop="20">
          <SecuritySettingsCard />
        </Box>
        <SimpleGrid columns={{ base: 1, lg: 3 }} gap={{ base: '4', md: '6' }} alignItems="start">
          <Box gridColumn={{ lg: 'span 2' }} minW="0">
            <SecurityEventsCard />
          </Box>
          {/* On a phone the actions come before the list, not after ten events. */}
          <Box order={{ base: -1, lg: 0 }} minW="0">
            <SecurityQuickActions />
          </Box>
        </SimpleGrid>
        {!passwordFirst && changePassword}
      </Stack>
    </>
  );
}
