import * as z from 'zod/mini';
import './zod-messages';
import { idField } from './id-field';
import { credentialOptionsSchema } from './mail-send';

/**
 * Sync a changed list into a project ('Update from a file', docs/sync.md): the file is uploaded as
 * for a large creation (POST /api/bulk-uploads and its form), then
 *  - POST /api/projects/{id}/sync-previews `{ uploadId }`: a preview job reads the file and the
 *    project's accounts and stores the differences (202, the preview as it stands);
 *  - GET /api/sync-previews/{id}: its status, counts and, once applied, the apply's progress;
 *  - GET /api/sync-previews/{id}/rows?section=&page=: one page of a section;
 *  - GET /api/sync-previews/{id}/csv: every section as CSV;
 *  - POST /api/sync-previews/{id}/apply `{ createNew, updateChanged, missing }`: the chosen changes, as a job.
 */

/** The fields compared between a row and its account (the diff's list: docs/sync.md says how a field joins it). */
export const syncFieldLabels = { firstName: 'First name', lastName: 'Last name', email: 'E-mail' } as const;
export type SyncField = keyof typeof syncFieldLabels | (string & {});

/** How rows are matched to accounts: an `id` column (the account's id), an `employeeId` column (the account's attribute of that name), else the e-mail. */
export const syncMatchKeys = ['id', 'employeeId', 'email'] as const;
export type SyncMatchKey = (typeof syncMatchKeys)[number];
export const syncMatchWords: Record<SyncMatchKey, string> = {
  id: 'the id column (rows without one: by e-mail)',
  employeeId: 'the employeeId column (rows without one, or accounts without one: by e-mail)',
  email: 'e-mail address (case-insensitive)',
};

export const syncSections = ['new', 'changed', 'unchanged', 'missing', 'rejected'] as const;
export type SyncSection = (typeof syncSections)[number];
export const SYNC_PAGE_SIZE = 50;

export interface SyncFieldChange {
  field: SyncField;
  label: string;
  from: string;
  to: string;
}
export interface SyncNewRow { row: number; firstName: string; lastName: string; email: string; attributes?: Record<string, string> }
export interface SyncChangedRow { row: number; accountId: string; username: string; matchedBy: SyncMatchKey; changes: SyncFieldChange[] }
export interface SyncUnchangedRow { row: number; accountId: string; username: string; firstName: string; lastName: string; email: string }
export interface SyncMissingAccount { accountId: string; username: string; firstName: string; lastName: string; email: string; isActive: boolean }
export interface SyncRejectedRow { row: number; firstName: string; lastName: string; email: string; problem: string }
export interface SyncSectionRows {
  new: SyncNewRow;
  changed: SyncChangedRow;
  unchanged: SyncUnchangedRow;
  missing: SyncMissingAccount;
  rejected: SyncRejectedRow;
}

export interface SyncCounts {
  /** Data rows of the file: new + changed + unchanged + rejected. */
  rows: number;
  new: number;
  changed: number;
  unchanged: number;
  rejected: number;
  /** Accounts of the project when it was read: matched + missing. */
  accounts: number;
  matched: number;
  missing: number;
  /** Of the missing, those still active (what a deactivation would change). */
  missingActive: number;
}

export const syncMissingChoices = ['nothing', 'deactivate', 'delete'] as const;
export type SyncMissingChoice = (typeof syncMissingChoices)[number];

export const syncApplySchema = z.object(
  {
    createNew: z._default(z.boolean('createNew must be true or false'), false),
    updateChanged: z._default(z.boolean('updateChanged must be true or false'), false),
    missing: z._default(z.enum(syncMissingChoices, 'missing must be nothing, deactivate or delete'), 'nothing'),
    /**
     * E-mail the new people their credentials once created, as Add people's 'E-mail each account
     * holder' does (Pro; the same send over the added rows). Absent: not e-mailed (Add people's
     * default). Used only with createNew.
     */
    sendCredentials: z.optional(credentialOptionsSchema),
  },
  'The request must be an object with createNew, updateChanged and missing',
);
export type SyncApplyInput = z.input<typeof syncApplySchema>;
export type SyncApplyOptions = z.output<typeof syncApplySchema>;

export const syncPreviewStartSchema = z.object(
  { uploadId: idField({ required: 'uploadId is required', notFound: 'Upload not found' }) },
  'The request must be an object with the uploadId of the uploaded file',
);

export const syncPreviewStatuses = ['reading', 'ready', 'failed', 'applying', 'applied'] as const;
export type SyncPreviewStatus = (typeof syncPreviewStatuses)[number];

/** One job the apply started: the platform update, the missing accounts' action, or the people added as a job. */
export interface SyncStartedJob {
  id: string;
  kind: 'account-action' | 'bulk-job';
  status: string;
  total: number;
  done: number;
  failed: number;
}

export interface SyncApplyProgress {
  options: SyncApplyOptions;
  /** Where the apply is: the changed accounts here, then on their platform, then the missing, then the new people. */
  step: 'update-here' | 'update-platform' | 'missing' | 'new' | 'done';
  /** Changed accounts written here / left as they were (changed since the preview, or gone), of `toUpdate`. */
  toUpdate: number;
  updatedHere: number;
  updateFailed: number;
  toCreate: number;
  created: number;
  /** The accounts not changed, with why (at most SYNC_FAILURES_SHOWN). */
  failures: { accountId: string; username: string; reason: string }[];
  updateOnPlatform?: SyncStartedJob;
  missingAction?: SyncStartedJob;
  addPeople?: SyncStartedJob;
  /** The send of the new people's credentials (GET /api/mail-sends/{id}), once started. */
  mailSendId?: string;
  /** A step that could not run, in words (plan limit, a job that would not start). */
  errors: string[];
  startedAt: string;
  finishedAt?: string;
}

export interface SyncPreview {
  id: string;
  projectId: string;
  status: SyncPreviewStatus;
  matchKey?: SyncMatchKey;
  matchWords?: string;
  counts?: SyncCounts;
  rowsRead: number;
  reason?: string;
  createdAt: string;
  updatedAt: string;
  apply?: SyncApplyProgress;
}

export interface SyncRowsPage<S extends SyncSection = SyncSection> {
  section: S;
  page: number;
  pageSize: number;
  total: number;
  rows: SyncSectionRows[S][];
}

export const SYNC_FAILURES_SHOWN = 200;

export const syncMessages = {
  stale: 'The project changed after this preview (accounts were added, edited, deleted, deactivated or synced since): preview the file again before applying it.',
  notReady: (status: string) => (status === 'reading' ? 'The preview is still being prepared.' : status === 'failed' ? 'This preview failed: upload the file again.' : 'This preview has already been applied: preview the file again to see what is left to do.'),
  nothingChosen: 'Choose at least one change to apply.',
  nothingToDo: 'There is nothing to apply: the project already matches the file for what you chose.',
  uploadNotArrived: 'The file has not arrived yet: upload it, then ask for the preview.',
  uploadUsed: 'This upload has already been read: upload the file again.',
  busy: 'Another job is running on this project: wait for it to finish, then try again.',
} as const;
