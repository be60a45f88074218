import * as z from 'zod/mini';
import './zod-messages';
import { bulkCreateRequestSchema, type AccountType } from './bulk';
import { createGroupsSchema, projectGroupsSchema } from './project-groups';
import { idField } from './id-field';
import type { EmailStatus } from './email-status';
import type { ProjectEmailCounts } from './mail-send';

/** GET /api/projects item (spec 3: projects plus the client view's accountCount and successRate). */
export interface Project {
  id: string;
  name: string;
  description?: string;
  platformUrl?: string;
  accountType: AccountType;
  expirationDate?: string;
  /** When its expiration date arrived (in the user's timezone) and its accounts were deactivated ('Expired'); gone when the date is changed. */
  expiredAt?: string;
  /** 'Remind account holders N days before' the expiration date (absent: off). */
  reminderDays?: number;
  /** The user's e-mail template its expiry reminders are written with (absent: the built-in reminder text). */
  reminderTemplateId?: string;
  /** Expiry reminders e-mailed to its account holders, over all its dates (absent: none). */
  remindersSent?: number;
  status: 'active' | 'completed';
  /** Accounts stored in this project. */
  accountCount: number;
  /** Rows that could not be created. */
  failedCount: number;
  /** Percent of rows created, 0-100, one decimal; 100 for a project with no rows yet. */
  successRate: number;
  /** Accounts on the platform (Synced), refused there (Sync Failed), taken off it again (Removed) and not yet: they add up to accountCount. */
  syncedCount: number;
  syncFailedCount: number;
  syncRemovedCount: number;
  syncPendingCount: number;
  /** Groups on the platform its accounts join when provisioned (Pro), and whether missing ones are created there. */
  groups?: string[];
  createGroups?: boolean;
  /** The integration its accounts are provisioned to, and its latest provisioning run. */
  integrationId?: string;
  provisioningJobId?: string;
  /** Deactivated accounts (expired ones included; active = accountCount - deactivatedCount) and, of those, the ones its expiry deactivated: the project's counters, absent on a project older than them until its next account action. */
  deactivatedCount?: number;
  expiredCount?: number;
  /** Credential e-mails: accounts in each e-mail status and never sent to (they add up to accountCount). */
  emailCounts: ProjectEmailCounts;
  /** The project's latest credentials send (GET /api/mail-sends/{id}), and whether one is under way. */
  mailSendId?: string;
  mailSendActive?: boolean;
  /** The project's latest deletion (GET /api/project-deletions/{id}), and whether it is under way ('Deleting...'). */
  deletionId?: string;
  deletionActive?: boolean;
  /** The extra columns its accounts carry (department, title...), well-known first: what its table's drawer, its exports and its mapping preview show. */
  attributeKeys?: string[];
  createdAt: string;
  updatedAt: string;
}

// Kept in the zod-free shared/exports.ts (the functions that refuse a large download reach no schema).
export { exportCenterMessage, SYNC_EXPORT_MAX_ACCOUNTS } from '../exports';

/** Where an account stands on its project's platform: Pending, Synced, Sync Failed, Removed from platform (undone). */
export type ExternalStatus = 'pending' | 'success' | 'failed' | 'removed';

/** An account as lists show it: GET /api/projects/{id}/accounts and GET /api/accounts/search. */
export interface AccountView {
  id: string;
  projectId: string;
  projectName: string;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  accountType: AccountType;
  isActive: boolean;
  externalStatus: ExternalStatus;
  /** The platform's id of the account, once provisioned. */
  externalAccountId?: string;
  /** Why provisioning failed, in the platform's words. */
  externalError?: string;
  /** The credential e-mail's status (absent: never sent), why it failed or was skipped, when SES took it. */
  emailStatus?: EmailStatus;
  emailError?: string;
  emailSentAt?: string;
  createdAt: string;
  /** When the holder revealed the credentials through a one-time link (ISO 8601): 'Credentials viewed'. */
  credentialsViewedAt?: string;
  /** Only when the request asked for passwords (?showPasswords=true). */
  password?: string;
  /** Edited here after it was provisioned, and the platform does not have the change yet (text: 'Changed here: not yet updated on <platform>'). */
  platformChange?: { platform: string; since: string; fields: string[]; text: string };
  /** When the account was last edited (PUT /api/accounts/{id}). */
  editedAt?: string;
  /** Deactivated by its project's expiry (shown 'Expired' rather than 'Deactivated'); gone once reactivated or deactivated by hand. */
  expiredAt?: string;
  /** The last Deactivate / Reactivate / Delete of it the platform refused (the account left as it was), in its words ('Sync Failed: ...'). */
  actionError?: string;
  /** The e-mail address changed after the last credential e-mail: its status is that of an e-mail to the previous address. */
  emailSentToPreviousAddress?: boolean;
  /** The person's extra columns (department, title...) under normalised keys (shared/schemas/attributes.ts); absent when none. */
  attributes?: Record<string, string>;
}

export interface Page<T> {
  items: T[];
  /** Opaque; pass back as ?cursor= for the next page. Absent on the last page. */
  nextCursor?: string;
}

export interface DashboardStats {
  totalAccounts: number;
  activeProjects: number;
  /** Percent of rows created over all projects, 0-100. */
  successRate: number;
  /** Average seconds per account over completed creations (measured), 0 when none. */
  avgProcessingTime: number;
  /** Accounts created this month against last month, percent (one decimal); null when last month had none. From the analytics counters, months in the user's timezone. */
  accountsGrowthRate: number | null;
  accountsThisMonth: number;
  /** Projects created this month. */
  newProjectsThisMonth: number;
}

export interface ActivityItem {
  title: string;
  timestamp: string;
}

/** GET /api/subscription/status (spec 3). -1 means unlimited. */
export interface SubscriptionStatus {
  plan: 'free' | 'pro';
  subscriptionActive: boolean;
  currentPeriodEnd?: string;
  cancelAtPeriodEnd: boolean;
  usage: {
    canCreateProject: boolean;
    canCreateAccount: boolean;
    canUseApiIntegrations: boolean;
    remainingProjects: number;
    remainingAccounts: number;
    projectsUsed: number;
    accountsUsed: number;
  };
}

/**
 * PUT /api/projects/{id}: a project's own fields, with the very rules and messages of the bulk
 * creator's (shared/schemas/bulk.ts). An empty description, platform URL or expiration date clears it.
 */
export { GROUP_NAME_MAX, PROJECT_GROUPS_MAX, projectGroupsSchema, createGroupsSchema } from './project-groups';

/** The most days before its expiration date a project may remind its account holders. */
export const REMINDER_DAYS_MAX = 90;

export const projectEditSchema = z.object({
  name: bulkCreateRequestSchema.shape.projectName,
  description: bulkCreateRequestSchema.shape.description,
  platformUrl: bulkCreateRequestSchema.shape.platformUrl,
  accountType: bulkCreateRequestSchema.shape.accountType,
  expirationDate: bulkCreateRequestSchema.shape.expirationDate,
  groups: z.optional(projectGroupsSchema),
  createGroups: z.optional(createGroupsSchema),
  /** 'Remind account holders N days before' the expiration date: 1 to REMINDER_DAYS_MAX, null to turn it off, absent: unchanged. */
  reminderDays: z.optional(
    z.union([
      z.null(),
      z
        .number('Reminder days must be a whole number')
        .check(z.int('Reminder days must be a whole number'), z.minimum(1, 'Remind at least 1 day before'), z.maximum(REMINDER_DAYS_MAX, `Remind at most ${REMINDER_DAYS_MAX} days before`)),
    ]),
  ),
  /** The user's e-mail template the reminder is written with ({{expirationDate}} among its variables): null for the built-in reminder text, absent: unchanged. */
  reminderTemplateId: z.optional(z.union([z.null(), idField({ notFound: 'Template not found' })])),
});
export type ProjectEditRequest = z.input<typeof projectEditSchema>;

export const projectStatuses = ['active', 'completed'] as const;
export type ProjectStatus = (typeof projectStatuses)[number];

/** PUT /api/projects/{id}/status: Complete (completed) or Reopen (active). */
export const projectStatusSchema = z.object({ status: z.enum(projectStatuses, 'Status must be active or completed') });

/** The 409 of adding people to a completed project (POST /api/bulk-create and the upload's start with projectId). */
export const PROJECT_COMPLETED_MESSAGE = 'This project is completed: it takes no new people. Reopen it to add people.';
/**
 * The 409 of adding people to an expired project (its expiry started: `expiredAt`, or its date has
 * arrived in the owner's timezone and the hourly sweep is about to start it): people added then
 * would be active on a project whose accounts are being, or are about to be, deactivated.
 */
export const PROJECT_EXPIRED_MESSAGE = 'This project has expired. Change its expiration date to add people.';
