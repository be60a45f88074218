import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
import type { AccountView, Page, Project } from '@shared/schemas/project';
import { apiDownload, apiRequest } from './api-client';
import { queryKeys } from './query-keys';
import { saveFile } from './save-file';
import { toaster } from './toaster';

/**
 * Projects, their accounts and their CSV export: read by the Dashboard, Projects and the Bulk
 * Creator (after a background job), so they live here rather than in one of those features.
 */
export function useProjectsQuery() {
  return useQuery({ queryKey: queryKeys.projects, queryFn: () => apiRequest<Project[]>('/api/projects') });
}

export const PROJECT_ACCOUNTS_PAGE_SIZE = 50;

/** A project's accounts, 50 a page ('Load more'); passwords only when asked for. */
export function useProjectAccountsQuery(projectId: string, showPasswords: boolean, enabled = true) {
  return useInfiniteQuery({
    queryKey: queryKeys.projectAccounts(projectId, showPasswords),
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: String(PROJECT_ACCOUNTS_PAGE_SIZE) });
      if (pageParam) params.set('cursor', pageParam);
      if (showPasswords) params.set('showPasswords', 'true');
      return apiRequest<Page<AccountView>>(`/api/projects/${encodeURIComponent(projectId)}/accounts?${params}`);
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
    enabled,
  });
}

/** Downloads GET /api/projects/{id}/export and saves it as {projectName}_accounts.csv. */
export function useExportProject() {
  return useMutation({
    mutationFn: async (project: Pick<Project, 'id' | 'name'>) => {
      const { blob, filename } = await apiDownload(`/api/projects/${encodeURIComponent(project.id)}/export`);
      saveFile(blob, filename ?? `${project.name}_accounts.csv`);
    },
    onSuccess: (_result, project) => {
      toaster.create({
        type: 'success',
        title: 'Export successful',
        description: `${project.name} accounts exported successfully.`,
      });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Export failed', description: 'Failed to export project accounts.' });
    },
  });
}
