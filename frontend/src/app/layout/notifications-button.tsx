import { Box, Button, HStack, IconButton, Popover, Portal, Stack, Text } from '@chakra-ui/react';
import { BellIcon } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Notification } from '@shared/schemas/notifications';
import { timeAgo, useMarkNotificationsRead, useNotifications } from '../../lib/notifications-api';

/**
 * The bell: a dot while anything is unread, and a list of the newest notifications. Choosing one
 * opens what it is about (the project, the Export Center, ...) and marks it read.
 */
export function NotificationsButton() {
  const [open, setOpen] = useState(false);
  const { data, isError } = useNotifications();
  const markRead = useMarkNotificationsRead();
  const navigate = useNavigate();
  const unreadCount = data?.unreadCount ?? 0;
  // The API counts at most 100 unread notifications (one bounded read): beyond, '99+'.
  const unreadLabel = data?.unreadCountCapped || unreadCount > 99 ? '99+' : String(unreadCount);
  const notifications = data?.notifications ?? [];

  const openNotification = (notification: Notification) => {
    if (!notification.read) markRead.mutate({ ids: [notification.id] });
    setOpen(false);
    void navigate(notification.link);
  };

  return (
    <Popover.Root open={open} onOpenChange={(details) => setOpen(details.open)} positioning={{ placement: 'bottom-end' }}>
      <Popover.Trigger asChild>
        <IconButton aria-label={unreadCount > 0 ? `Notifications (${unreadLabel} unread)` : 'Notifications'} variant="ghost" size="sm" position="relative">
          <BellIcon />
          {unreadCount > 0 ? (
            <Box data-testid="unread-dot" position="absolute" top="1.5" right="1.5" w="2" h="2" borderRadius="full" bg="red.solid" />
          ) : null}
        </IconButton>
      </Popover.Trigger>
      <Portal>
        <Popover.Positioner>
          <Popover.Content w="sm" maxW="calc(100vw - 1rem)">
            {/* Not Popover.Header: its <header> would be a second banner landmark beside the top bar. */}
            <HStack justify="space-between" px="4" pt="4" pb="2">
              <Popover.Title fontWeight="semibold">Notifications</Popover.Title>
              <Button size="xs" variant="ghost" colorPalette="blue" disabled={unreadCount === 0} onClick={() => markRead.mutate({ all: true })}>
                Mark all read
              </Button>
            </HStack>
            <Popover.Body pt="0" px="2" maxH="min(28rem, 70vh)" overflowY="auto">
              {isError && !data ? (
                <Text fontSize="sm" color="fg.error" px="2" py="3">
                  Notifications could not be loaded.
                </Text>
              ) : notifications.length === 0 ? (
                <Text fontSize="sm" color="fg.muted" px="2" py="3">
                  No notifications
                </Text>
              ) : (
                <Stack as="ul" gap="0.5" listStyleType="none" aria-label="Notifications list">
                  {notifications.map((notification) => (
                    <Box as="li" key={notification.id}>
                      <Button
                        variant="ghost"
                        w="full"
                        h="auto"
                        py="2"
                        px="2"
                        justifyContent="flex-start"
                        textAlign="start"
                        whiteSpace="normal"
                        onClick={() => openNotification(notification)}
                        data-unread={notification.read ? undefined : 'true'}
                      >
                        <HStack align="flex-start" gap="2" w="full">
                          <Box mt="1.5" w="2" h="2" flexShrink="0" borderRadius="full" bg={notification.read ? 'transparent' : 'blue.solid'} aria-hidden="true" />
                          <Stack gap="0.5" minW="0" flex="1">
                            <Text fontSize="sm" fontWeight={notification.read ? 'normal' : 'semibold'} lineClamp={2}>
                              {notification.read ? null : <Box as="span" srOnly>Unread: </Box>}
                              {notification.title}
                            </Text>
                            <Text fontSize="xs" color="fg.muted" lineClamp={2}>
                              {notification.body}
                            </Text>
                            <Text fontSize="xs" color="fg.muted">
                              <time dateTime={notification.createdAt}>{timeAgo(notification.createdAt)}</time>
                            </Text>
                          </Stack>
                        </HStack>
                      </Button>
                    </Box>
                  ))}
                </Stack>
              )}
            </Popover.Body>
          </Popover.Content>
        </Popover.Positioner>
      </Portal>
    </Popover.Root>
  );
}
