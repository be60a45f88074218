import { gunzipSync } from 'node:zlib';
import { MAX_ROWS_PER_REQUEST, REQUEST_ROWS_JSON_MAX_BYTES, bulkCreateRequestSchema, type BulkCreateInput } from '../../shared/schemas/bulk';
import { UPLOAD_CSV_MAX_BYTES, UPLOAD_MAX_ROWS } from '../../shared/schemas/bulk-upload';
import { PayloadTooLargeError, ValidationError } from '../core/errors';

export const NOT_GZIP_MESSAGE = 'csvDataGzip is not gzipped JSON rows.';
export const TOO_LARGE_MESSAGE = 'The file is too large to process; the limit is 10 MB and 50,000 rows.';
/** Rows past REQUEST_ROWS_JSON_MAX_BYTES (a decompression bomb too stops there, before it fills the function's memory). */
export const ROWS_TOO_LARGE_MESSAGE = `These rows are more than ${REQUEST_ROWS_JSON_MAX_BYTES / 1048576} MB as JSON, too large for one request: upload the file instead (POST /api/bulk-uploads takes up to ${UPLOAD_MAX_ROWS.toLocaleString('en-US')} rows and ${UPLOAD_CSV_MAX_BYTES / 1048576} MB).`;

/** csvDataGzip (base64 of gzipped JSON rows) back to csvData, checked like csvData itself. */
export function inflateRows(input: BulkCreateInput): BulkCreateInput {
  if (input.csvDataGzip === undefined) return input;
  let json: string;
  try {
    json = gunzipSync(Buffer.from(input.csvDataGzip, 'base64'), { maxOutputLength: REQUEST_ROWS_JSON_MAX_BYTES }).toString('utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw new PayloadTooLargeError(ROWS_TOO_LARGE_MESSAGE);
    throw new ValidationError(NOT_GZIP_MESSAGE);
  }
  // Counted before parsing: a few KB of gzip can hold millions of empty rows, and parsing and
  // checking them all would fill the function's memory before the row limit is looked at.
  if (topLevelEntries(json) > MAX_ROWS_PER_REQUEST) throw new PayloadTooLargeError(TOO_LARGE_MESSAGE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new ValidationError(NOT_GZIP_MESSAGE);
  }
  const rows = bulkCreateRequestSchema.shape.csvData.safeParse(parsed);
  if (!rows.success) {
    const details = rows.error.issues.map((issue) => ({ path: ['csvData', ...issue.path].join('.'), message: issue.message }));
    throw new ValidationError(details[0]?.message ?? NOT_GZIP_MESSAGE, details);
  }
  const { csvDataGzip: _sent, ...rest } = input;
  return { ...rest, csvData: rows.data };
}

/**
 * How many entries the top-level JSON array of `json` holds (0 when it is not an array): one pass
 * over the text, skipping strings, without building anything. Malformed JSON gets some count and
 * is refused by JSON.parse afterwards.
 */
export function topLevelEntries(json: string): number {
  if (!json.trimStart().startsWith('[')) return 0;
  let depth = 0;
  let entries = 0;
  let inString = false;
  let sawValue = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      if (depth === 1) sawValue = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (depth === 1) sawValue = true;
      depth++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (depth === 1) {
      if (c === 0x2c) {
        entries++;
        sawValue = false;
      } else if (c > 0x20) {
        sawValue = true;
      }
    }
  }
  return entries + (sawValue ? 1 : 0);
}
