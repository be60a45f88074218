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
  /** Analytics: from the same counters as the dashboard's change labels, refreshed with it. */
  analytics: ['/api/analytics'] as const,
  accountSearch: ['/api/accounts/search'] as const,
  /** One account's history drawer (features/projects and features/accounts both open it). */
  accountHistory: (accountId: string) => ['/api/accounts', accountId, 'history'] as const,
  bulkJob: (jobId: string) => ['/api/bulk-jobs', jobId] as const,
  /** A provisioning run: the Bulk Creator and the project page both follow one. */
  provisioningJob: (jobId: string) => ['/api/provisioning-jobs', jobId] as const,
  /** The user's integrations: API Integrations lists them, the Bulk Creator and projects provision to them. */
  integrations: ['/api/integrations'] as const,
  /** The Export Center's history: a project's Export CSV may start an export there too. */
  exportHistory: ['/api/exports/history'] as const,
  /** A credentials send: the Bulk Creator and the project page both follow one. */
  mailSend: (sendId: string) => ['/api/mail-sends', sendId] as const,
  /** The user's e-mail templates (the same key as the Email Templates page's list). */
  emailTemplates: ['/api/email-templates'] as const,
  /** The Security Center's settings: the settings card saves them, the overview shows two-factor on or off. */
  securitySettings: ['/api/security/settings'] as const,
};
