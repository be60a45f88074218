import * as z from 'zod';
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

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date as YYYY-MM-DD').refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)), 'Use a real date');

/** The filters and the term: what a page and an export of the Account Database select. */
const directoryFields = z.object({
  q: z.string().max(200).optional(),
  sort: z.enum(directorySorts, 'Sort by date, name or project').default('date'),
  projectId: z.string().optional(),
  accountType: z.enum(accountTypes, 'Choose a valid account type').optional(),
  platformStatus: z.enum(platformStatusFilters, 'Choose a valid platform status').optional(),
  emailStatus: z.enum(emailStatusFilters, 'Choose a valid e-mail status').optional(),
  state: z.enum(accountStateFilters, 'Choose active, deactivated or expired').optional(),
  createdFrom: date.optional(),
  createdTo: date.optional(),
  expiresFrom: date.optional(),
  expiresTo: date.optional(),
  /**
   * The Attribute filter: an extra column (its key, shared/schemas/attributes.ts) and the value it
   * must hold, compared without regard to case (docs/data-model.md, pattern 77). Both or neither.
   */
  attributeName: z.string().trim().max(40, 'Choose a column').regex(/^[a-z][a-zA-Z0-9]*$/, 'Choose a column').optional(),
  attributeValue: z.string().trim().min(1, 'Type the value to find').max(256, 'The value is at most 256 characters').optional(),
});

type Ranges = { createdFrom?: string | undefined; createdTo?: string | undefined; expiresFrom?: string | undefined; expiresTo?: string | undefined };
const rangesInOrder = <T extends z.ZodType<Ranges & { attributeName?: string | undefined; attributeValue?: string | undefined }>>(schema: T) =>
  schema
    .refine((query) => (query.attributeName === undefined) === (query.attributeValue === undefined), { path: ['attributeValue'], message: 'Choose a column and type the value to find' })
    .refine((query) => !query.createdFrom || !query.createdTo || query.createdFrom <= query.createdTo, { path: ['createdTo'], message: 'The end of the range is before its start' })
    .refine((query) => !query.expiresFrom || !query.expiresTo || query.expiresFrom <= query.expiresTo, { path: ['expiresTo'], message: 'The end of the range is before its start' });

export const directoryQuerySchema = rangesInOrder(
  directoryFields.extend({
    limit: z.coerce.number('The page size is a number').int().min(1).max(DIRECTORY_PAGE_MAX).default(DIRECTORY_PAGE_DEFAULT),
    cursor: z.string().max(2000).optional(),
    showPasswords: z.enum(['true', 'false']).optional(),
  }),
);

/** What an action over the Account Database's "all N matching" selects: the filters, term and sort, as a page asks for them. */
export const directorySelectionSchema = rangesInOrder(directoryFields);

/** POST /api/exports/directory ('Export All'): what the filters select, through the Export Center. */
export const directoryExportSchema = rangesInOrder(directoryFields.extend({ format: z.enum(exportFormats, 'Choose csv, xlsx or json').default('csv') }));
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
