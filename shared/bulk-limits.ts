/**
 * Bulk limits that code without the request schemas needs (the export worker's account reader):
 * kept apart from shared/schemas/bulk.ts so importing one does not bundle zod.
 */

/**
 * At most this many rows answer at once (every row of the request, valid or not: each is read and
 * checked); more become a background job.
 */
export const SYNC_ROW_LIMIT = 1000;
/**
 * ... and at most this many bytes of rows (a CSV's text, or the three fields of each row): 1,000
 * rows with every field at its longest valid length (100 + 100 + 254 characters) fit. Past it the
 * rows are a job too, however few (docs/bulk-files.md, "The path is chosen before anything is written").
 */
export const SYNC_BYTE_LIMIT = 512 * 1024;

/** What a creation request is known to hold before anything is written: its rows and their bytes. */
export interface RequestSize {
  rows: number;
  bytes: number;
}

/**
 * Whether a request is answered at once (with the accounts and their passwords) or becomes a job
 * (202): decided from what is measured before anything is reserved or written, never from how the
 * work then goes, so the answer-at-once path is bounded whatever the machine's load.
 */
export const answersAtOnce = ({ rows, bytes }: RequestSize): boolean => rows <= SYNC_ROW_LIMIT && bytes <= SYNC_BYTE_LIMIT;
