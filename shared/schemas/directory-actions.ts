import * as z from 'zod/mini';
import './zod-messages';
import { accountIdsSchema, SELECTION_MAX } from './account-selection';
import { directorySelectionSchema } from './account-directory';
import { credentialOptionsSchema } from './mail-send';

/**
 * Acting on the Account Database (POST /api/directory-actions): the lifecycle bulk actions over
 * accounts of any of the user's projects, either the rows ticked (`accountIds`) or "all N
 * matching" the filters and term (`matching`). The set is fixed when the action starts: it is
 * resolved then into each project's listed accounts, one job of the usual kind per project
 * (docs/jobs.md, "Actions over the Account Database"), so an account that arrives later is not
 * acted on.
 */
export const directoryActions = ['deactivate', 'reactivate', 'delete', 'update', 'reset', 'send', 'retry'] as const;
export type DirectoryAction = (typeof directoryActions)[number];

/** The most projects one action over the Account Database spans (its jobs are read together for its progress). */
export const DIRECTORY_ACTION_PROJECTS_MAX = 100;

// Send credentials takes the project page's send options (the user's default template when none is named).
export const directoryActionSchema = z
  .extend(credentialOptionsSchema, {
    action: z.enum(directoryActions, 'Action must be deactivate, reactivate, delete, update, reset, send or retry'),
    accountIds: z.optional(accountIdsSchema),
    matching: z.optional(directorySelectionSchema),
  })
  .check(z.refine((input) => (input.accountIds === undefined) !== (input.matching === undefined), { message: 'Give either accountIds or matching, not both' }));
export type DirectoryActionInput = z.input<typeof directoryActionSchema>;
export type DirectoryActionRequest = z.output<typeof directoryActionSchema>;

export const directoryActionStatuses = ['running', 'completed', 'failed'] as const;
export type DirectoryActionStatus = (typeof directoryActionStatuses)[number];

/** One project's part of an action over the Account Database: a job of the usual kind, or why it did not start. */
export interface DirectoryActionPart {
  projectId: string;
  projectName: string;
  total: number;
  jobId?: string;
  status: string;
  /** Why this project's accounts were not acted on (its job did not start, or failed). */
  reason?: string;
}

/**
 * GET /api/directory-actions/{id}: the sum of its jobs. done + failed + skipped + pending = total
 * at every moment; a project whose job could not start counts its accounts as failed, with the reason.
 */
export interface DirectoryActionJob {
  id: string;
  action: DirectoryAction;
  status: DirectoryActionStatus;
  total: number;
  done: number;
  onPlatform: number;
  failed: number;
  skipped: number;
  pending: number;
  parts: DirectoryActionPart[];
  /** Once over: accounts not done, with the words (at most DIRECTORY_FAILURES_SHOWN over every project). */
  failures?: { accountId: string; username: string; reason: string }[];
  createdAt: string;
}

export const DIRECTORY_FAILURES_SHOWN = 50;
export { SELECTION_MAX as DIRECTORY_ACTION_MAX };
