import * as z from 'zod/mini';
import './zod-messages';
import { accountFilterSchema, accountIdsSchema } from './account-selection';

/**
 * Reset Passwords (the Security page's quick action): every account of one project gets a new
 * generated password, as a job on the provisioning queue (functions/security/reset-passwords*.ts).
 * An account on a platform (Synced) gets it there too where the platform allows; one whose
 * platform refused keeps its previous password, here and there, with the reason.
 */

/**
 * POST /api/security/reset-passwords: every account of the project, or (the project page's bulk
 * bar) the listed accounts (`accountIds`) or a `filter` (shared/schemas/account-selection.ts).
 */
export const resetPasswordsSchema = z
  .object(
    {
      projectId: z.string('Choose a project').check(z.trim(), z.minLength(1, 'Choose a project'), z.maxLength(100, 'Project not found')),
      accountIds: z.optional(accountIdsSchema),
      filter: z.optional(accountFilterSchema),
    },
    'The request must be an object with the project to reset',
  )
  .check(z.refine((input) => input.accountIds === undefined || input.filter === undefined, { message: 'Give either accountIds or filter, not both' }));
export type ResetPasswordsInput = z.input<typeof resetPasswordsSchema>;

export const passwordResetStatuses = ['queued', 'running', 'completed', 'failed'] as const;
export type PasswordResetStatus = (typeof passwordResetStatuses)[number];

/**
 * What a reset did to one account (stored on the account as passwordResetStatus):
 * - updated: new password stored and set on the platform;
 * - local: new password stored; the account is not on a platform (not provisioned, failed or removed there);
 * - failed: the platform did not take the new password: the account keeps its previous one (the reason says why).
 */
export const accountResetResults = ['updated', 'local', 'failed'] as const;
export type AccountResetResult = (typeof accountResetResults)[number];

/** Accounts whose failure a job's view lists (the rest are counted). */
export const RESET_FAILURES_SHOWN = 50;

/** GET /api/security/reset-passwords/{id}: done + failed + pending = total, at every moment. */
export interface PasswordResetJob {
  id: string;
  projectId: string;
  projectName: string;
  status: PasswordResetStatus;
  total: number;
  /** New password stored (and on the platform, for accounts there). */
  done: number;
  /** Of done: set on the platform too. */
  updatedOnPlatform: number;
  /** The platform refused: previous password kept. */
  failed: number;
  pending: number;
  /** Once it completed: accounts of its filter (or list) that no longer matched (or were gone) when reached. */
  skipped?: number;
  /** The integration the project's accounts were provisioned to, when any is. */
  integrationName?: string;
  /** Why the job failed as a whole, in words a user can act on. */
  reason?: string;
  /** The accounts the platform refused (at most RESET_FAILURES_SHOWN), once the job is over. */
  failures?: { username: string; email: string; reason: string }[];
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}
