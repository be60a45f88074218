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

/**
 * The rows of one POST /api/bulk-create as JSON at most (csvDataGzip gunzipped; csvData is bounded
 * by the body's 5.5 MB anyway). Sized by measurement (`npm run bench -- bulk-request`, the bundled
 * handler in a process of its own, 2026-11-28): 50,000 people with names and e-mail are ~4.2 MB of
 * JSON, peak RSS ~180 MB and ~0.7 s of CPU; ~15 MB took ~1.5 s of CPU and ~310 MB; the ~46 MB the
 * gunzip limit used to let through took 4.4 s of CPU and 577 MB, more than the function's 512 MB
 * (where it gets 0.29 of a vCPU: ~15 s of its 10). At 8 MB a request stays under half of both
 * (docs/bulk-files.md). A larger list (extra columns make JSON grow fast: each row repeats their
 * names) takes the upload path, which reads a file of up to 50 MB in a worker: the web app chooses
 * it by this same figure, an API client is told so (413).
 */
export const REQUEST_ROWS_JSON_MAX_BYTES = 8 * 1024 * 1024;

/** UTF-8 bytes of `rows` as JSON: what a request would carry (measured against REQUEST_ROWS_JSON_MAX_BYTES). */
export const jsonBytes = (rows: readonly unknown[]): number => new TextEncoder().encode(JSON.stringify(rows)).length;

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
