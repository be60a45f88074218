import type { Writable } from 'node:stream';
import { EXPORT_COLUMNS, type ExportRow } from '../../../shared/exports';
import { UTF8_BOM, csvLine, type CsvValue } from '../../../shared/csv/write-csv';
import type { Cipher } from '../../core/encryption';
import { exportView } from '../export-item';
import type { RowPages } from '../export-writers';
import { end, write } from '../output-stream';
import { zipOutput } from '../zip-output';
import { projectView } from '../../projects/project-item';
import type { AccountDataSource } from './account-data-source';

/** Turns a project's account items into export rows (passwords decrypted), as the project export does. */
export type AccountRows = (pages: AsyncIterable<Record<string, unknown>[]>, cipher: Cipher, projectName: string) => RowPages;

export interface AccountDataZipInput {
  source: AccountDataSource;
  cipher: Cipher;
  rows: AccountRows;
  userId: string;
  now: Date;
}

/** The account columns of the zip: the project export's, plus which project (names may repeat). */
const ACCOUNT_FILE_COLUMNS = [...EXPORT_COLUMNS.map((c) => c.header), 'Project ID'];

const cellOf = (value: unknown): CsvValue => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
};

/** A list of records as CSV: the columns are every field that occurs, in order of first appearance; nested values as JSON. */
export function recordsCsv(records: readonly Record<string, unknown>[]): string {
  const columns: string[] = [];
  for (const record of records) for (const name of Object.keys(record)) if (!columns.includes(name)) columns.push(name);
  let text = UTF8_BOM + csvLine(columns);
  for (const record of records) text += csvLine(columns.map((name) => cellOf(record[name])));
  return text;
}

const README = (now: Date) => `BulkOnboard: all your data, exported ${now.toISOString()}

Every list comes twice: as JSON (values as stored) and as CSV (UTF-8 with BOM; a cell that a
spreadsheet would run as a formula starts with an apostrophe).

profile.json             your profile and plan
settings.json            your settings (when you saved any)
projects.json/.csv       your projects
accounts.json/.csv       every account of every project, with its password
integrations.json/.csv   your API integrations; their credentials are never exported
email-templates.json/.csv
export-history.json/.csv your exports (the files themselves are not included)
notifications.json/.csv  your notifications
activity.json/.csv       your recent activity
`;

/**
 * Writes the zip of everything the product holds on the user into `out` (then ends it); answers
 * how many accounts it holds. Entries are written one after the other, each with backpressure,
 * and accounts a Query page at a time, so memory holds a page and the zip's window, whatever the
 * size of the projects.
 */
export async function writeAccountDataZip(input: AccountDataZipInput, out: Writable): Promise<number> {
  const { source, userId } = input;
  const zip = zipOutput(out, input.now);
  const { text, streamed } = zip;
  const list = (base: string, records: readonly Record<string, unknown>[]) => {
    text(`${base}.json`, `${JSON.stringify(records, null, 2)}\n`);
    text(`${base}.csv`, recordsCsv(records));
  };

  text('README.txt', README(input.now));
  const profile = await source.profile(userId);
  text('profile.json', `${JSON.stringify(profile ?? {}, null, 2)}\n`);
  const settings = await source.settings(userId);
  if (settings) text('settings.json', `${JSON.stringify(settings, null, 2)}\n`);

  const projectItems = await source.projects(userId);
  list('projects', projectItems.map((item) => ({ ...projectView(item) })));

  // Oldest project first, each in file order: the order the user created them.
  const ordered = [...projectItems].reverse();
  const accountPages = () => allAccounts(input, ordered);
  let accounts = 0;
  await streamed('accounts.csv', async (entry) => {
    accounts = await writeCsvWithProject(accountPages(), entry);
  });
  await streamed('accounts.json', (entry) => writeAccountsJson(accountPages(), entry));

  list('integrations', (await source.integrations(userId)).map((integration) => ({ ...integration })));
  list('email-templates', (await source.templates(userId)).map((template) => ({ ...template })));
  list('export-history', (await source.exports(userId)).map((item) => ({ ...exportView(item, input.now) })));
  list('notifications', await source.notifications(userId));
  list('activity', await source.activity(userId));

  await zip.finish();
  return accounts;
}

type RowWithProject = ExportRow & { projectId: string };

async function* allAccounts(input: AccountDataZipInput, projects: readonly Record<string, unknown>[]): AsyncIterable<RowWithProject[]> {
  for (const project of projects) {
    const projectId = String(project.id);
    for await (const rows of input.rows(input.source.accountPages(input.userId, projectId), input.cipher, String(project.name))) {
      yield rows.map((row) => ({ ...row, projectId }));
    }
  }
}

async function writeCsvWithProject(pages: AsyncIterable<RowWithProject[]>, out: Writable): Promise<number> {
  await write(out, UTF8_BOM + csvLine(ACCOUNT_FILE_COLUMNS));
  let rows = 0;
  for await (const page of pages) {
    let chunk = '';
    for (const row of page) chunk += csvLine([...EXPORT_COLUMNS.map((c) => row[c.key]), row.projectId]);
    rows += page.length;
    if (chunk) await write(out, chunk);
  }
  await end(out);
  return rows;
}

/** A JSON array, one object per account: the project export's fields, then projectId. */
async function writeAccountsJson(pages: AsyncIterable<RowWithProject[]>, out: Writable): Promise<void> {
  await write(out, '[');
  let rows = 0;
  for await (const page of pages) {
    let chunk = '';
    for (const row of page) {
      const record: Record<string, string> = {};
      for (const column of EXPORT_COLUMNS) record[column.key] = row[column.key];
      record.projectId = row.projectId;
      chunk += (rows === 0 ? '\n' : ',\n') + JSON.stringify(record);
      rows++;
    }
    if (chunk) await write(out, chunk);
  }
  await write(out, '\n]\n');
  await end(out);
}
