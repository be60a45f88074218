import * as z from 'zod/mini';
import './zod-messages';
import { accountFilterSchema, accountIdsSchema, SELECTION_MAX } from './account-selection';

/**
 * Account actions (functions/account-actions): Deactivate, Reactivate or Delete some of a
 * project's accounts (one, the ones ticked, or all), as a job on the provisioning queue. An
 * account on a platform is changed there first (Pro); one the platform refuses stays as it was,
 * with the platform's words, and counts as failed: running the action again retries it.
 */
// 'update': an account edited here gets its names and e-mail (and a regenerated username) on its platform.
// 'groups': the project's accounts already on its platform join the groups it names now and leave the ones it no longer names (docs/lifecycle.md, "Groups").
export const accountActions = ['deactivate', 'reactivate', 'delete', 'update', 'groups'] as const;
export type AccountAction = (typeof accountActions)[number];

/** The most accounts one action names (the engine's MAX_SELECTED_ACCOUNTS). */
export const ACCOUNT_ACTION_MAX = SELECTION_MAX;

/** POST /api/projects/{id}/account-actions: `accountIds` (at most ACCOUNT_ACTION_MAX) or a `filter` (shared/schemas/account-selection.ts). */
export const accountActionSchema = z
  .object(
    {
      action: z.enum(accountActions, 'Action must be deactivate, reactivate, delete, update or groups'),
      accountIds: z.optional(accountIdsSchema),
      filter: z.optional(accountFilterSchema),
    },
    'The request must be an object with the action and the accounts',
  )
  .check(z.refine((input) => (input.accountIds === undefined) !== (input.filter === undefined), { message: 'Give either accountIds or filter, not both' }));
export type AccountActionInput = z.input<typeof accountActionSchema>;

export const accountActionStatuses = ['queued', 'running', 'completed', 'failed'] as const;
export type AccountActionStatus = (typeof accountActionStatuses)[number];

/** Accounts whose failure a job's view lists (the rest are counted). */
export const ACTION_FAILURES_SHOWN = 50;

/** Words for what the action does, for its progress and confirmations. */
export const actionWords: Record<AccountAction, { verb: string; done: string; doing: string }> = {
  deactivate: { verb: 'Deactivate', done: 'deactivated', doing: 'Deactivating' },
  reactivate: { verb: 'Reactivate', done: 'reactivated', doing: 'Reactivating' },
  delete: { verb: 'Delete', done: 'deleted', doing: 'Deleting' },
  update: { verb: 'Update', done: 'updated', doing: 'Updating' },
  groups: { verb: 'Update the groups of', done: 'moved to the groups', doing: 'Updating the groups of' },
};

/** GET /api/account-actions/{id}: done + failed + pending = total, at every moment. */
export interface AccountActionJob {
  id: string;
  projectId: string;
  projectName: string;
  action: AccountAction;
  status: AccountActionStatus;
  total: number;
  done: number;
  /** Of `done`: changed on the platform too. */
  onPlatform: number;
  failed: number;
  pending: number;
  /** Once it completed: accounts of its filter (or list) that no longer matched (or were gone) when reached. */
  skipped?: number;
  integrationName?: string;
  reason?: string;
  /** 'expiry': started by the project's expiration date (the expiry schedule), not by the user. */
  origin?: 'expiry';
  /** Once it is over: the accounts not changed, with the platform's (or our) words. */
  failures?: { accountId: string; username: string; reason: string }[];
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
}

export { ACCOUNT_ACTION_RUNNING } from '../text/account-action-running';
