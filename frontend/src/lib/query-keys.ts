/**
 * Query keys of the data more than one feature reads or refreshes (features may not import each
 * other, so a bulk creation can still refresh the dashboard, the projects and the search). Each
 * key starts with its GET path, so invalidating the first part refreshes every variant.
 */
export const queryKeys = {
  subscriptionStatus: ['/api/subscription/status'] as const,
  projects: ['/api/projects'] as const,
  projectAccounts: (projectId: string, showPasswords: boolean) =>
    ['/api/projects', projectId, 'accounts', { showPasswords }] as const,
  dashboardStats: ['/api/dashboard/stats'] as const,
  recentActivity: ['/api/dashboard/recent-activity'] as const,
  accountSearch: ['/api/accounts/search'] as const,
  bulkJob: (jobId: string) => ['/api/bulk-jobs', jobId] as const,
  /** The Export Center's history: a project's Export CSV may start an export there too. */
  exportHistory: ['/api/exports/history'] as const,
};
