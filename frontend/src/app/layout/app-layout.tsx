import { Box, Flex } from '@chakra-ui/react';
import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { PageLoading } from '../../components/loading-screen';
import { setDatePreferences } from '../../lib/format-date';
import { useUserSettings } from '../../lib/user-settings-api';
import { SideNav } from './side-nav';
import { TopBar } from './top-bar';
import { WelcomeDialog } from './welcome-dialog';

/** Every signed-in screen: top bar, side navigation (a drawer on phones), the page. */
export function AppLayout() {
  // Every date shown follows Settings > Preferences (timezone, date format): set before the page
  // renders, and the page remounts when they change.
  const preferences = useUserSettings().data?.preferences;
  if (preferences) setDatePreferences(preferences);
  const dateKey = preferences ? `${preferences.timezone}|${preferences.dateFormat}` : 'default';
  return (
    <Flex direction="column" minH="100dvh" bg="bg.subtle">
      <TopBar />
      <WelcomeDialog />
      <Flex flex="1" align="stretch">
        <Box
          as="aside"
          hideBelow="md"
          w="64"
          flexShrink="0"
          bg="bg.panel"
          borderRightWidth="1px"
          borderColor="border"
          px="3"
          py="4"
          position="sticky"
          top="16"
          h="calc(100dvh - var(--chakra-sizes-16))"
          overflowY="auto"
        >
          <SideNav />
        </Box>
        {/* Room below the page for a toast (bottom corner, lib/toaster): the last controls of a page
            (an integration's Edit and Test after its toast) can always be scrolled clear of it. */}
        <Box as="main" flex="1" minW="0" px={{ base: '4', md: '8' }} pt={{ base: '5', md: '8' }} pb="28">
          <Box maxW="6xl" mx="auto">
            <Suspense fallback={<PageLoading />}>
              <Outlet key={dateKey} />
            </Suspense>
          </Box>
        </Box>
      </Flex>
    </Flex>
  );
}
