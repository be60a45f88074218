import * as z from 'zod/mini';
import './zod-messages';

/**
 * Which of a project's accounts a job over a selection takes (the project page's bulk bar: account
 * actions, Reset password, Send credentials): the ticked accounts (`accountIds`, at most
 * SELECTION_MAX) or a filter. A filter is evaluated on each account when the job's chunk reaches
 * it (functions/account-jobs/selection.ts, the one place), so it scales to any project size; its
 * count at the start comes from the project's exact counters.
 * - all: every account;
 * - failed: the platform sync failed (externalStatus failed; the project's syncFailedCount);
 * - synced: on the project's platform (externalStatus success; the project's syncedCount);
 * - unsent: credentials never e-mailed (no e-mail status; the accounts the e-mail counters leave);
 * - active / deactivated: the project page's own views (isActive; the project's deactivatedCount,
 *   or, for a project older than it, counted by a query of the project's accounts:
 *   GET /api/projects/{id}/account-selection?filter=).
 */
export const accountFilters = ['all', 'failed', 'synced', 'unsent', 'active', 'deactivated'] as const;
export type AccountFilter = (typeof accountFilters)[number];

/** The bulk bar's words for each filter. */
export const accountFilterLabels: Record<AccountFilter, string> = { all: 'All accounts', failed: 'Sync failed', synced: 'Synced', unsent: 'Not e-mailed', active: 'Active', deactivated: 'Deactivated' };

/** The filters whose count the project's own counters give (the others are counted on request). */
export const countedFilters: readonly AccountFilter[] = ['all', 'failed', 'synced', 'unsent'];

/** GET /api/projects/{id}/account-selection?filter=: how many of the project's accounts the filter takes now. */
export interface AccountSelectionCount {
  filter: AccountFilter;
  count: number;
}

/** The most accounts one job names (the engine's MAX_SELECTED_ACCOUNTS). */
export const SELECTION_MAX = 10_000;

export const accountIdsSchema = z
  .array(z.string('Each account id must be a string').check(z.maxLength(200, 'Account not found')), 'accountIds must be a list of account ids')
  .check(
    z.minLength(1, 'Choose at least one account'),
    z.maxLength(SELECTION_MAX, `At most ${SELECTION_MAX.toLocaleString('en-US')} accounts at once: choose a filter or all accounts of the project instead`),
  );

export const accountFilterSchema = z.enum(accountFilters, "filter must be 'all', 'failed', 'synced', 'unsent', 'active' or 'deactivated'");
