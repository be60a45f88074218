import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { SECURITY_EVENTS_PAGE_MAX, SECURITY_EVENTS_SHOWN, type SecurityEventPage } from '@shared/schemas/security';
import type { SecurityOverview } from '@shared/schemas/security-overview';
import { apiRequest } from '../../../lib/api-client';

/** Every key starts with the GET path; the settings card's save refreshes ['/api/security']. */
export const securityKeys = {
  all: ['/api/security'] as const,
  recentEvents: ['/api/security', 'events', 'recent'] as const,
  allEvents: ['/api/security', 'events', 'all'] as const,
  overview: ['/api/security', 'overview'] as const,
};

const eventsPage = (limit: number, cursor?: string) => {
  const params = new URLSearchParams({ limit: String(limit) });
  if (cursor) params.set('cursor', cursor);
  return apiRequest<SecurityEventPage>(`/api/security/events?${params}`);
};

/** Recent Security Events: the newest SECURITY_EVENTS_SHOWN (spec 9: 10). */
export function useRecentSecurityEventsQuery() {
  return useQuery({ queryKey: securityKeys.recentEvents, queryFn: () => eventsPage(SECURITY_EVENTS_SHOWN) });
}

/** 'View all': every event, a page of 50 at a time ('Load more'); read only while the list is open. */
export const ALL_EVENTS_PAGE_SIZE = Math.min(50, SECURITY_EVENTS_PAGE_MAX);
export function useAllSecurityEventsQuery(enabled: boolean) {
  return useInfiniteQuery({
    queryKey: securityKeys.allEvents,
    queryFn: ({ pageParam }) => eventsPage(ALL_EVENTS_PAGE_SIZE, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
    enabled,
  });
}

export function useSecurityOverviewQuery() {
  return useQuery({ queryKey: securityKeys.overview, queryFn: () => apiRequest<SecurityOverview>('/api/security/overview') });
}
