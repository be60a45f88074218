/// <reference lib="dom" />
import Papa from 'papaparse';
import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CSV_MAX_BYTES } from '../../shared/schemas/bulk';
import { axeViolations, describeViolations, settle } from '../support/a11y';
import { proUserInChromium, downloadedBytes, screenshotPath } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;
const ROWS = 200;

/**
 * An HR export with a long Notes column: few people, but over CSV_MAX_BYTES, so the web app uploads
 * the file to S3 and the server reads every row (docs/bulk-files.md). Line 9 lacks a last name and
 * has a bad address (two problems about two fields); line 20 repeats line 2's address.
 */
const notesCsv = () => {
  const notes = 'Joined from the Lisbon office; badge, laptop and parking pending. '.repeat(900);
  const lines = Array.from({ length: ROWS }, (_, i) => {
    if (i === 7) return `Nine,,nope,${notes}`;
    if (i === 18) return `Twenty,Again,person0@example.com,${notes}`;
    return `Person${i},Upload,person${i}@example.com,${notes}`;
  });
  return ['First Name,Last Name,Email,Notes', ...lines].join('\n');
};

describe('The upload dialog in Chromium: a file read on the server, checked first, then created', () => {
  const session = proUserInChromium('upload-dialog', { firstName: 'Upload', lastName: 'Dialog' });
  const csv = Buffer.from(notesCsv());

  const projects = async () =>
    (await (await fetch(`${app}/api/projects`, { headers: { authorization: `Bearer ${session.user.accessToken}` } })).json()) as { id: string; name: string; accountCount: number }[];

  /** Chooses the file, asks for the check first, and waits for the server's report. */
  async function checkFile(on: Page, projectName: string) {
    await on.goto(`${app}/bulk-creator`);
    await on.getByText('CSV with First Name, Last Name and Email columns, up to 50 MB').waitFor();
    await on.getByText('Up to 250,000 rows per file.', { exact: false }).waitFor();
    await on.getByLabel('Upload CSV').setInputFiles({ name: 'people-with-notes.csv', mimeType: 'text/csv', buffer: csv });
    const dialog = on.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.getByLabel('Project name').fill(projectName);
    await dialog.getByText('Check every row first (nothing is created until you confirm)').click();
    await dialog.getByRole('button', { name: 'Generate Accounts' }).click();
    const report = dialog.getByTestId('file-report');
    await report.getByText(`${ROWS} rows read`).waitFor();
    return { dialog, report };
  }

  it('reports every row with its line, names a field only where one field is wrong, and offers the rejected rows', async () => {
    expect(csv.byteLength).toBeGreaterThan(CSV_MAX_BYTES);
    const { dialog, report } = await checkFile(session.page, 'Notes import');
    await report.getByText('198 can be created').waitFor();
    await report.getByText('2 with problems').waitFor();
    const problems = report.getByRole('list', { name: 'Rows with problems' });
    const items = problems.getByRole('listitem');
    await expect.poll(() => items.allInnerTexts()).toEqual(['Row 9 Last name is required; Valid email is required', 'Row 20 Email: Duplicate email (also in row 2)']);

    const [rejected] = await Promise.all([session.page.waitForEvent('download'), report.getByRole('button', { name: 'Download rejected rows' }).click()]);
    const rows = Papa.parse<string[]>((await downloadedBytes(rejected)).toString('utf8').replace(/^\uFEFF/, '')).data.filter((r) => r.length > 1);
    expect(rows.slice(1).map((r) => [r[0], r[3]])).toEqual([
      ['9', 'nope'],
      ['20', 'person0@example.com'],
    ]);
    // Nothing is created until the user confirms.
    expect((await projects()).map((p) => p.name)).not.toContain('Notes import');

    await settle(session.page);
    expect(describeViolations('upload report (light, desktop)', await axeViolations(session.page))).toEqual([]);
    await session.page.screenshot({ path: screenshotPath('upload-dialog-report-light') });

    await dialog.getByRole('button', { name: 'Create 198 accounts' }).click();
    await dialog.getByText('198 accounts created').waitFor({ timeout: 90_000 });
    await session.page.screenshot({ path: screenshotPath('upload-dialog-complete-light') });
    const project = (await projects()).find((p) => p.name === 'Notes import')!;
    expect(project.accountCount).toBe(198);
  });

  it('reads the same report at phone width in dark, and Back creates nothing', async () => {
    const storageState = await session.page.context().storageState();
    const phone = await (await session.browser.newContext({ viewport: { width: 390, height: 844 }, storageState })).newPage();
    await phone.goto(app);
    await phone.evaluate(() => localStorage.setItem('theme', 'dark'));
    await phone.reload();
    await phone.waitForFunction(() => document.documentElement.classList.contains('dark'));
    const { dialog, report } = await checkFile(phone, 'Notes import, phone');
    await report.getByText('2 with problems').waitFor();
    await settle(phone);
    // Contrast included: the outline buttons ('Download rejected rows', 'Back') must read in dark.
    expect(describeViolations('upload report (dark, phone)', await axeViolations(phone))).toEqual([]);
    const back = dialog.getByRole('button', { name: 'Back' });
    const box = (await back.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: screenshotPath('upload-dialog-report-dark-phone') });
    await back.click();
    await dialog.getByRole('button', { name: 'Generate Accounts' }).waitFor();
    expect((await projects()).map((p) => p.name)).not.toContain('Notes import, phone');
    await phone.context().close();
  });
});
