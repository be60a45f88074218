import { Box, Button, CloseButton, Drawer, Flex, HStack, IconButton, Portal } from '@chakra-ui/react';
import { MenuIcon, PlusIcon } from 'lucide-react';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { BrandLogo } from '../../components/brand-logo';
import { NotificationsButton } from './notifications-button';
import { SideNav } from './side-nav';
import { ThemeMenu } from './theme-menu';
import { UserMenu } from './user-menu';

export function TopBar() {
  return (
    <Flex
      as="header"
      h="16"
      px={{ base: '3', md: '6' }}
      align="center"
      justify="space-between"
      gap="3"
      bg="bg.panel"
      borderBottomWidth="1px"
      borderColor="border"
      position="sticky"
      top="0"
      zIndex="sticky"
    >
      <HStack gap="2" minW="0">
        <MobileNav />
        <RouterLink to="/" aria-label="BulkOnboard home">
          <BrandLogo compact />
        </RouterLink>
      </HStack>
      <HStack gap={{ base: '1', md: '2' }}>
        <Button asChild colorPalette="blue" size="sm">
          <RouterLink to="/projects" aria-label="New Project">
            <PlusIcon aria-hidden="true" />
            <Box as="span" hideBelow="sm">
              New Project
            </Box>
          </RouterLink>
        </Button>
        <ThemeMenu />
        <NotificationsButton />
        <UserMenu />
      </HStack>
    </Flex>
  );
}

/** Below 768px the side navigation lives in a drawer; picking an entry closes it. */
function MobileNav() {
  const [open, setOpen] = useState(false);
  return (
    <Drawer.Root open={open} onOpenChange={(details) => setOpen(details.open)} placement="start" lazyMount unmountOnExit>
      <Drawer.Trigger asChild>
        <IconButton aria-label="Open navigation" variant="ghost" size="sm" hideFrom="md">
          <MenuIcon />
        </IconButton>
      </Drawer.Trigger>
      <Portal>
        <Drawer.Backdrop />
        <Drawer.Positioner>
          <Drawer.Content maxW="72">
            <Drawer.Header>
              <Drawer.Title>
                <BrandLogo />
              </Drawer.Title>
            </Drawer.Header>
            <Drawer.Body pb="6">
              <SideNav onNavigate={() => setOpen(false)} />
            </Drawer.Body>
            <Drawer.CloseTrigger asChild>
              <CloseButton size="sm" aria-label="Close navigation" />
            </Drawer.CloseTrigger>
          </Drawer.Content>
        </Drawer.Positioner>
      </Portal>
    </Drawer.Root>
  );
}
