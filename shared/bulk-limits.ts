/**
 * Bulk limits that code without the request schemas needs (the export worker's account reader):
 * kept apart from shared/schemas/bulk.ts so importing one does not bundle zod.
 */

/** At most this many rows answer synchronously; more become a background job. */
export const SYNC_ROW_LIMIT = 1000;
