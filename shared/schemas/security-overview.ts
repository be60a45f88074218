import type { IntegrationPlatform } from './integrations';
import type { SecuritySeverity } from './security';

/** GET /api/security/overview: the Security Center's cards, from the user's real state. */
export interface SecurityOverview {
  /** Account Secure: whether sign-in asks for an authenticator code. */
  twoFactorEnabled: boolean;
  /** Password Strength: how old the password is against the password expiry setting. */
  password: {
    /** When the password was last set (the account's creation when it never changed). */
    changedAt: string;
    ageDays: number;
    expiryDays: number;
    /** Days until it expires; 0 when it has. */
    daysLeft: number;
    expired: boolean;
  };
  /** The last sign-in recorded, if any. */
  lastSignInAt?: string;
  /** API Security: integrations that hold stored secrets (API key, client secret, password, token). */
  integrations: { id: string; name: string; platform: IntegrationPlatform; lastTestStatus: 'success' | 'failed' | 'pending'; lastTestDate?: string }[];
  /** Security events of the last OVERVIEW_EVENT_DAYS days by severity. */
  recentEvents: Record<SecuritySeverity, number> & { total: number; days: number };
}

export const OVERVIEW_EVENT_DAYS = 30;
