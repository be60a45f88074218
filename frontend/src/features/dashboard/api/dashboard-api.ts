import { useQuery } from '@tanstack/react-query';
import type { ActivityItem, DashboardStats } from '@shared/schemas/project';
import { apiRequest } from '../../../lib/api-client';
import { queryKeys } from '../../../lib/query-keys';

export function useDashboardStatsQuery() {
  return useQuery({
    queryKey: queryKeys.dashboardStats,
    queryFn: () => apiRequest<DashboardStats>('/api/dashboard/stats'),
  });
}

export function useRecentActivityQuery() {
  return useQuery({
    queryKey: queryKeys.recentActivity,
    queryFn: () => apiRequest<ActivityItem[]>('/api/dashboard/recent-activity'),
  });
}
