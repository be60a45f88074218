import { Box, IconButton, Popover, Portal, Stack, Text } from '@chakra-ui/react';
import { BellIcon } from 'lucide-react';

/**
 * The bell. No notification source exists yet, so there are never unread ones and the dot
 * stays hidden; a later issue passes real notifications in.
 */
export function NotificationsButton({ unreadCount = 0 }: { unreadCount?: number }) {
  return (
    <Popover.Root positioning={{ placement: 'bottom-end' }}>
      <Popover.Trigger asChild>
        <IconButton aria-label="Notifications" variant="ghost" size="sm" position="relative">
          <BellIcon />
          {unreadCount > 0 ? (
            <Box
              data-testid="unread-dot"
              position="absolute"
              top="1.5"
              right="1.5"
              w="2"
              h="2"
              borderRadius="full"
              bg="red.solid"
            />
          ) : null}
        </IconButton>
      </Popover.Trigger>
      <Portal>
        <Popover.Positioner>
          <Popover.Content w="xs">
            <Popover.Body>
              <Stack gap="1">
                <Text fontWeight="semibold">Notifications</Text>
                <Text fontSize="sm" color="fg.muted">
                  No notifications
                </Text>
              </Stack>
            </Popover.Body>
          </Popover.Content>
        </Popover.Positioner>
      </Portal>
    </Popover.Root>
  );
}
