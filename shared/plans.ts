/** Plan limits (spec sections 6 and 9). -1 means unlimited. */
export const planIds = ['free', 'pro'] as const;
export type PlanId = (typeof planIds)[number];

export interface PlanLimits {
  projects: number;
  accountsPerProject: number;
  accountsTotal: number;
  apiIntegrations: boolean;
  emailNotifications: boolean;
  exportFormats: readonly ('csv' | 'xlsx' | 'json')[];
}

export const UNLIMITED = -1;

export const planLimits: Record<PlanId, PlanLimits> = {
  free: {
    projects: 3,
    accountsPerProject: 100,
    accountsTotal: 300,
    apiIntegrations: false,
    emailNotifications: false,
    exportFormats: ['csv'],
  },
  pro: {
    projects: UNLIMITED,
    accountsPerProject: UNLIMITED,
    accountsTotal: UNLIMITED,
    apiIntegrations: true,
    emailNotifications: true,
    exportFormats: ['csv', 'xlsx', 'json'],
  },
};

export const planNames: Record<PlanId, string> = { free: 'Free', pro: 'Pro' };
export const PRO_PRICE_MONTHLY_USD = 19.95;

/** The Pro features a free user is refused (server) and shown the upgrade prompt for (web app). */
export const proFeatures = {
  apiIntegrations: 'API Integrations',
  exportFormats: 'Advanced Export Formats',
  emailTemplates: 'Email Templates',
  credentialEmails: 'Credential E-mails',
} as const;

/** Spec 6: the upgrade prompt's text, also the message of a refused Pro-only request. */
export const upgradeMessage = (feature: string): string =>
  `Upgrade to Pro to access ${feature}. Pro plan includes unlimited projects, accounts, API integrations, and more.`;
