import * as z from 'zod/mini';
import './zod-messages';
import { accountTypes } from './bulk';
import { emailStatuses } from './email-status';
import { exportFormats } from '../exports';
import { isIdShaped } from './ids';
import type { AccountView } from './project';

/**
 * GET /api/accounts: the Account Database without a term (docs/data-model.md, "The Account
 * Database as a directory"). Every filter is optional and they combine (AND); `q` is the search
 * prefix of GET /api/accounts/search, combined with the same filters.
 */
export const directorySorts = ['date', 'name', 'project'] as const;
export type DirectorySort = (typeof directorySorts)[number];

export const platformStatusFilters = ['success', 'failed', 'pending', 'removed'] as const;
export type PlatformStatusFilter = (typeof platformStatusFilters)[number];
export const platformStatusFilterLabels: Record<PlatformStatusFilter, string> = { success: 'Synced', failed: 'Sync Failed', pending: 'Pending', removed: 'Removed' };

/** An account's credential e-mail as a filter: never sent, one of its statuses, or the credentials viewed through the one-time link. */
export const emailStatusFilters = ['not_sent', ...emailStatuses, 'viewed'] as const;
export type EmailStatusFilter = (typeof emailStatusFilters)[number];
export const emailStatusFilterLabels: Record<EmailStatusFilter, string> = {
  not_sent: 'Not sent',
  queued: 'Queued',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  complained: 'Marked as spam',
  failed: 'Failed',
  suppressed: 'Skipped: suppressed',
  viewed: 'Credentials viewed',
};

/** The account's state as its row shows it: active (usable); deactivated (an account action or its project's expiry switched it off); expired (its project's expiry did, and no Reactivate since). Counted by the project's deactivatedCount / expiredCount. */
export const accountStateFilters = ['active', 'deactivated', 'expired'] as const;
export type AccountStateFilter = (typeof accountStateFilters)[number];
export const accountStateFilterLabels: Record<AccountStateFilter, string> = { active: 'Active', deactivated: 'Deactivated', expired: 'Expired' };

export const DIRECTORY_PAGE_DEFAULT = 25;
export const DIRECTORY_PAGE_MAX = 100;

const date = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date as YYYY-MM-DD'),
  z.refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'Use a real date'),
);

/** The filters and the term: what a page and an export of the Account Database select. */
const directoryFields = z.object({
  q: z.optional(z.string().check(z.maxLength(200))),
  sort: z._default(z.enum(directorySorts, 'Sort by date, name or project'), 'date'),
  projectId: z.optional(z.string()),
  accountType: z.optional(z.enum(accountTypes, 'Choose a valid account type')),
  platformStatus: z.optional(z.enum(platformStatusFilters, 'Choose a valid platform status')),
  emailStatus: z.optional(z.enum(emailStatusFilters, 'Choose a valid e-mail status')),
  state: z.optional(z.enum(accountStateFilters, 'Choose active, deactivated or expired')),
  createdFrom: z.optional(date),
  createdTo: z.optional(date),
  expiresFrom: z.optional(date),
  expiresTo: z.optional(date),
  /**
   * The Attribute filter: an extra column (its key, shared/schemas/attributes.ts) and the value it
   * must hold, compared without regard to case (docs/data-model.md, pattern 77). Both or neither.
   */
  attributeName: z.optional(z.string().check(z.trim(), z.maxLength(40, 'Choose a column'), z.regex(/^[a-z][a-zA-Z0-9]*$/, 'Choose a column'))),
  attributeValue: z.optional(z.string().check(z.trim(), z.minLength(1, 'Type the value to find'), z.maxLength(256, 'The value is at most 256 characters'))),
});

type Ranges = { createdFrom?: string | undefined; createdTo?: string | undefined; expiresFrom?: string | undefined; expiresTo?: string | undefined };
type Selected = Ranges & { attributeName?: string | undefined; attributeValue?: string | undefined };
/** The checks across fields of a selection, in this order (each schema gets its own). */
const rangesInOrder = () => [
  z.refine<Selected>((query) => (query.attributeName === undefined) === (query.attributeValue === undefined), {
    path: ['attributeValue'],
    message: 'Choose a column and type the value to find',
  }),
  z.refine<Selected>((query) => !query.createdFrom || !query.createdTo || query.createdFrom <= query.createdTo, { path: ['createdTo'], message: 'The end of the range is before its start' }),
  z.refine<Selected>((query) => !query.expiresFrom || !query.expiresTo || query.expiresFrom <= query.expiresTo, { path: ['expiresTo'], message: 'The end of the range is before its start' }),
];

export const directoryQuerySchema = z
  .extend(directoryFields, {
    limit: z._default(z.coerce.number('The page size is a number').check(z.int(), z.minimum(1), z.maximum(DIRECTORY_PAGE_MAX)), DIRECTORY_PAGE_DEFAULT),
    cursor: z.optional(z.string().check(z.maxLength(2000))),
    showPasswords: z.optional(z.enum(['true', 'false'])),
  })
  .check(...rangesInOrder());

/** What an action over the Account Database's "all N matching" selects: the filters, term and sort, as a page asks for them. */
export const directorySelectionSchema = directoryFields.check(...rangesInOrder());

/** POST /api/exports/directory ('Export All'): what the filters select, through the Export Center. */
export const directoryExportSchema = z.extend(directoryFields, { format: z._default(z.enum(exportFormats, 'Choose csv, xlsx or json'), 'csv') }).check(...rangesInOrder());
export type DirectoryExportRequest = z.input<typeof directoryExportSchema>;
/** What an export of the Account Database stores and reads again: the filters, term and sort. */
export type DirectorySelection = z.output<typeof directoryFields>;

export type DirectoryQuery = z.infer<typeof directoryQuerySchema>;
export type DirectoryFilters = Pick<DirectoryQuery, 'projectId' | 'accountType' | 'platformStatus' | 'emailStatus' | 'state' | 'createdFrom' | 'createdTo' | 'expiresFrom' | 'expiresTo' | 'attributeName' | 'attributeValue'>;
export const directoryFilterNames = ['projectId', 'accountType', 'platformStatus', 'emailStatus', 'state', 'createdFrom', 'createdTo', 'expiresFrom', 'expiresTo', 'attributeName', 'attributeValue'] as const;

/** A project id from a query: an id that cannot exist names nothing (404). */
export const isProjectIdShaped = (value: string): boolean => isIdShaped(value);

export interface DirectoryPage {
  items: AccountView[];
  /** How many accounts the filters select (the count badge). */
  count: number;
  /**
   * exact: from the counters; at-most: a combination no counter keeps (docs/data-model.md), the
   * smallest counter that bounds it (badge 'Up to N'); at-least: a term with more hits than the
   * search reads (badge 'N+').
   */
  countIs: 'exact' | 'at-most' | 'at-least';
  /** Opaque; pass back as ?cursor= (with the same filters and sort) for the next page. Absent on the last page. */
  nextCursor?: string;
}
