import { checkCsvFile, csvMessages, readPeopleCsv, type CsvReadResult } from '@shared/csv/read-people';
import { CSV_MAX_BYTES, MAX_ROWS_PER_REQUEST, REQUEST_ROWS_JSON_MAX_BYTES, jsonBytes } from '@shared/schemas/bulk';
import { requestRows } from './upload-form';
import { UPLOAD_CSV_MAX_BYTES, UPLOAD_MAX_ROWS } from '@shared/schemas/bulk-upload';
import { assignUsernames, usernameYear } from '@shared/generation/username';
import { toaster } from '../../../lib/toaster';
import { plural } from '@shared/text/plural';

export const PREVIEW_ROWS = 3;
/** Of a file too large to read here, the opening this many bytes is read for the preview. */
export const PREVIEW_BYTES = 256 * 1024;

/**
 * A chosen CSV, read: its rows and the usernames the server will give the first valid ones.
 * One path per size (docs/bulk-files.md): up to MAX_ROWS_PER_REQUEST rows and CSV_MAX_BYTES, whose
 * rows are at most REQUEST_ROWS_JSON_MAX_BYTES as JSON, the rows travel in the request ('request'); larger files, up to UPLOAD_MAX_ROWS and
 * UPLOAD_CSV_MAX_BYTES, are uploaded to S3 and read there ('upload').
 */
export interface CsvFile {
  name: string;
  size: number;
  result: CsvReadResult;
  previewUsernames: string[];
  route: 'request' | 'upload';
  /** Only the file's opening was read (over CSV_MAX_BYTES): the server reads and checks every row. */
  partial: boolean;
  /** The file itself, for the upload. */
  file?: File;
}

/**
 * Checks, reads and validates a chosen file (the same reader the server runs), with the spec's
 * toasts. Undefined when the file cannot be used at all; otherwise the rows, valid or not.
 * `now` dates the preview's usernames (a parameter so tests can pick New Year's Eve).
 */
export async function readCsvFile(file: File, now: Date = new Date()): Promise<CsvFile | undefined> {
  const problem = checkCsvFile(file, UPLOAD_CSV_MAX_BYTES);
  if (problem) {
    toaster.create({
      type: 'error',
      title: problem === csvMessages.notCsv ? 'Invalid file type' : 'File too large',
      description: problem,
    });
    return undefined;
  }

  // Over CSV_MAX_BYTES only the opening is read here, up to its last whole line (a character cut
  // at the end is dropped with it): the preview; the server reads the whole file.
  const partial = file.size > CSV_MAX_BYTES;
  let text: string;
  try {
    text = partial ? await file.slice(0, PREVIEW_BYTES).text() : await file.text();
    if (partial) text = text.slice(0, text.lastIndexOf('\n') + 1);
  } catch {
    toaster.create({ type: 'error', title: 'File could not be read', description: 'Please choose the file again.' });
    return undefined;
  }

  const result = readPeopleCsv(text, { maxRows: UPLOAD_MAX_ROWS });
  if (result.fileError) {
    toaster.create({
      type: 'error',
      title: result.fileError === csvMessages.noData ? 'No CSV data' : 'Invalid CSV file',
      description: result.fileError,
    });
    return undefined;
  }

  const { valid, invalid } = result;
  // Many extra columns make the rows' JSON larger than the file (each row repeats their names): past the request's measured bound, the upload path.
  const route = partial || result.rows.length > MAX_ROWS_PER_REQUEST || jsonBytes(requestRows(valid)) > REQUEST_ROWS_JSON_MAX_BYTES ? 'upload' : 'request';
  if (partial) {
    toaster.create({
      type: 'info',
      title: 'Large file',
      description: `${(file.size / (1024 * 1024)).toFixed(1)} MB: the first rows are shown here; every row is checked on the server after the upload.`,
    });
  } else if (valid.length === 0) {
    toaster.create({
      type: 'warning',
      title: 'No valid rows',
      description: `None of the ${plural(invalid.length, 'row', 'rows')} can be used. Fix them and upload the file again.`,
    });
  } else {
    toaster.create({
      type: 'success',
      title: 'File uploaded successfully',
      description:
        `${plural(valid.length, 'user', 'users')} found.` +
        (invalid.length ? ` ${plural(invalid.length, 'row has', 'rows have')} problems and will be skipped.` : ''),
    });
  }

  // Usernames as the server makes them (same functions, the same UTC year); a name already used
  // in one of your earlier projects gets its suffix on the server.
  const previewUsernames = assignUsernames(valid.slice(0, PREVIEW_ROWS), usernameYear(now));
  return { name: file.name, size: file.size, result, previewUsernames, route, partial, ...(route === 'upload' ? { file } : {}) };
}
