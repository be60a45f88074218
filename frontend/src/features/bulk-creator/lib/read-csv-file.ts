import { checkCsvFile, csvMessages, readPeopleCsv, type CsvReadResult } from '@shared/csv/read-people';
import { assignUsernames, usernameYear } from '@shared/generation/username';
import { toaster } from '../../../lib/toaster';

export const PREVIEW_ROWS = 3;

/** A chosen CSV, read: its rows and the usernames the server will give the first valid ones. */
export interface CsvFile {
  name: string;
  size: number;
  result: CsvReadResult;
  previewUsernames: string[];
}

const plural = (count: number, one: string, many: string) => `${count.toLocaleString()} ${count === 1 ? one : many}`;

/**
 * Checks, reads and validates a chosen file (the same reader the server runs), with the spec's
 * toasts. Undefined when the file cannot be used at all; otherwise the rows, valid or not.
 * `now` dates the preview's usernames (a parameter so tests can pick New Year's Eve).
 */
export async function readCsvFile(file: File, now: Date = new Date()): Promise<CsvFile | undefined> {
  const problem = checkCsvFile(file);
  if (problem) {
    toaster.create({
      type: 'error',
      title: problem === csvMessages.notCsv ? 'Invalid file type' : 'File too large',
      description: problem,
    });
    return undefined;
  }

  let text: string;
  try {
    text = await file.text();
  } catch {
    toaster.create({ type: 'error', title: 'File could not be read', description: 'Please choose the file again.' });
    return undefined;
  }

  const result = readPeopleCsv(text);
  if (result.fileError) {
    toaster.create({
      type: 'error',
      title: result.fileError === csvMessages.noData ? 'No CSV data' : 'Invalid CSV file',
      description: result.fileError,
    });
    return undefined;
  }

  const { valid, invalid } = result;
  if (valid.length === 0) {
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
  return { name: file.name, size: file.size, result, previewUsernames };
}
