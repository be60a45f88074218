import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { notificationListSchema, type MarkReadInput, type NotificationList } from '@shared/schemas/notifications';
import * as z from 'zod';
import { formatDate } from './format-date';
import { apiRequest } from './api-client';
import { plural } from '@shared/text/plural';

export const notificationsQueryKey = ['/api/notifications'] as const;

/**
 * How often the bell looks for news while the tab is visible (TanStack Query pauses the interval
 * in a hidden tab, and refetches when the window gets focus again).
 */
export const NOTIFICATIONS_POLL_MS = 30_000;

export function useNotifications() {
  return useQuery({
    queryKey: notificationsQueryKey,
    queryFn: () => apiRequest('/api/notifications?limit=20', { schema: notificationListSchema }),
    refetchInterval: NOTIFICATIONS_POLL_MS,
    refetchIntervalInBackground: false,
  });
}

const markReadAnswer = z.object({ marked: z.number(), unreadCount: z.number(), unreadCountCapped: z.boolean().optional() });

/** Marks some (or all) read; the list shows them read at once and is then read again. */
export function useMarkNotificationsRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: MarkReadInput) => apiRequest('/api/notifications/read', { method: 'POST', body: input, schema: markReadAnswer }),
    onMutate: (input) => {
      queryClient.setQueryData<NotificationList>(notificationsQueryKey, (list) => {
        if (!list) return list;
        const ids = new Set(input.ids ?? []);
        const notifications = list.notifications.map((n) => (input.all || ids.has(n.id) ? { ...n, read: true } : n));
        const newlyRead = list.notifications.filter((n) => !n.read && (input.all || ids.has(n.id))).length;
        return { ...list, notifications, unreadCount: input.all ? 0 : Math.max(0, list.unreadCount - newlyRead), unreadCountCapped: input.all ? false : list.unreadCountCapped };
      });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: notificationsQueryKey }),
  });
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", then the date. */
export function timeAgo(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const seconds = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 30) return `${plural(days, 'day')} ago`;
  return formatDate(at.toISOString());
}
