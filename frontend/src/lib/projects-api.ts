import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { ExportView } from '@shared/schemas/export';
import { exportCenterMessage, SYNC_EXPORT_MAX_ACCOUNTS, type AccountView, type Page, type Project, type ProjectEditRequest } from '@shared/schemas/project';
import { ApiError, apiDownload, apiRequest, serverMessageOf } from './api-client';
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

/** What Export CSV did: saved the file, or started an export in the Export Center (a large project). */
export type ProjectExportOutcome = { kind: 'downloaded' } | { kind: 'export-center'; reason: string; exportId: string };

/** The Export Center's route, where a large project's CSV is made and downloaded. */
export const EXPORT_CENTER_PATH = '/exports';

/**
 * Export CSV: GET /api/projects/{id}/export saved as {projectName}_accounts.csv. A project above
 * SYNC_EXPORT_MAX_ACCOUNTS is too large for one response: its CSV is made by the Export Center
 * (POST /api/exports), with the spec's 'Export started' toast and a button to go there (the
 * project page also shows the reason, outcome.reason, with a link). Decided from the project's
 * accountCount, and also when the server counts more than this page knew (a job still adding
 * accounts): it answers 409 on this route only for that, with the count in its message.
 */
export function useExportProject() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: async (project: Pick<Project, 'id' | 'name' | 'accountCount'>): Promise<ProjectExportOutcome> => {
      const viaExportCenter = async (reason: string): Promise<ProjectExportOutcome> => {
        const started = await apiRequest<ExportView>('/api/exports', { method: 'POST', body: { projectId: project.id, format: 'csv' } });
        return { kind: 'export-center', reason, exportId: started.id };
      };
      if (project.accountCount > SYNC_EXPORT_MAX_ACCOUNTS) return viaExportCenter(exportCenterMessage(project.accountCount));
      try {
        const { blob, filename } = await apiDownload(`/api/projects/${encodeURIComponent(project.id)}/export`);
        saveFile(blob, filename ?? `${project.name}_accounts.csv`);
        return { kind: 'downloaded' };
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) {
          return viaExportCenter(error.serverMessage ?? exportCenterMessage(SYNC_EXPORT_MAX_ACCOUNTS, true));
        }
        throw error;
      }
    },
    onSuccess: (outcome, project) => {
      if (outcome.kind === 'downloaded') {
        toaster.create({
          type: 'success',
          title: 'Export successful',
          description: `${project.name} accounts exported successfully.`,
        });
        return;
      }
      void queryClient.invalidateQueries({ queryKey: queryKeys.exportHistory });
      toaster.create({
        type: 'success',
        title: 'Export started',
        description: "Your export is being processed. You'll be notified when it's ready.",
        action: { label: 'Open Export Center', onClick: () => void navigate(EXPORT_CENTER_PATH) },
      });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      toaster.create({ type: 'error', title: 'Export failed', description: 'Failed to export project accounts.' });
    },
  });
}

/** What a project's change refreshes: the projects (cards, page), the dashboard and analytics. */
function invalidateAfterProjectChange(queryClient: ReturnType<typeof useQueryClient>) {
  for (const queryKey of [queryKeys.projects, queryKeys.dashboardStats, queryKeys.analytics]) void queryClient.invalidateQueries({ queryKey });
}

/** PUT /api/projects/{id}: the project's own fields (projectEditSchema's rules and messages). */
export function useEditProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, edit }: { id: string; edit: ProjectEditRequest }) => apiRequest<Project>(`/api/projects/${encodeURIComponent(id)}`, { method: 'PUT', body: edit }),
    onSuccess: (project) => {
      invalidateAfterProjectChange(queryClient);
      toaster.create({ type: 'success', title: 'Project updated', description: `${project.name} has been saved.` });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return;
      toaster.create({ type: 'error', title: 'Project not saved', description: serverMessageOf(error, [400, 404, 409]) ?? 'The project could not be saved. Please try again.' });
    },
  });
}

/** PUT /api/projects/{id}/status: Complete (no new people) or Reopen. */
export function useSetProjectStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: string; status: Project['status'] }) => apiRequest<Project>(`/api/projects/${encodeURIComponent(id)}/status`, { method: 'PUT', body: { status } }),
    onSuccess: (project) => {
      invalidateAfterProjectChange(queryClient);
      toaster.create({
        type: 'success',
        title: project.status === 'completed' ? 'Project completed' : 'Project reopened',
        description: project.status === 'completed' ? `${project.name} takes no new people until it is reopened.` : `${project.name} is active again.`,
      });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return;
      toaster.create({ type: 'error', title: 'Project not changed', description: serverMessageOf(error) ?? 'The project could not be changed. Please try again.' });
    },
  });
}
