/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import Papa from 'papaparse';
import type { Browser, Page } from 'playwright-core';
import { csvMessages } from '../../shared/csv/read-people';
import { usernameYear } from '../../shared/generation/username';
import { createTestUser } from '../support/cognito-users';
import { launchChromium, downloadedBytes, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/**
 * A username made between `since` and now: the base and the year (UTC) in which it was made,
 * either year should New Year fall in between (never a year fixed when the file was loaded).
 */
const madeSince = (since: Date, base: string) => {
  const years = [...new Set([usernameYear(since), usernameYear(new Date())])];
  return new RegExp(`^${base}(${years.join('|')})$`);
};

/** A file with the awkward parts real exports have. */
const awkwardCsv =
  '\uFEFFEmail,First Name,Last Name\r\n' +
  'jose@example.com,José,Núñez\r\n' +
  '"smith@example.com","Anna, Maria","Smith"\r\n' +
  '\r\n' +
  'o.neil@example.com,Sean,"O\'Neil ""Jr"""\r\n' +
  'broken-email,No,Mail\r\n' +
  'JOSE@example.com,Dup,Licate\r\n' +
  'empty@example.com,Nolast,\r\n';

const parseCsv = (bytes: Buffer) => Papa.parse<string[]>(bytes.toString('utf8').replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data;

describe('bulk creation in Chromium', () => {
  let browser: Browser;
  let page: Page;
  /** The year in the usernames of the project the tests create from the file. */
  let projectYear: string;
  /** José's generated password, from the downloaded CSV: what 'Show Passwords' must reveal. */
  let josePassword = '';

  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    // A confirmed user, signed in through the app's own sign-in screen.
    const user = await createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Bulk', lastName: 'Tester' });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  it('reads on after a line with a misplaced quote and lists that line by its number', async () => {
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    const strayQuotes = [
      'First Name,Last Name,Email',
      'Ann,Lee,ann@example.com',
      'Anna,Lee,"anna ""the boss"" lee"@example.com',
      'Bob,Ray,bob@example.com',
      'Cy,Doe,cy@example.com',
      '=HYPERLINK("http://x","click"),Evil,evil@example.com',
      'Ed,Gray,ed@example.com',
    ].join('\r\n');
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'stray-quotes.csv', mimeType: 'text/csv', buffer: Buffer.from(strayQuotes) });
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    // Six people: four to create, two rejected, none lost.
    await dialog.getByText('4 valid', { exact: true }).waitFor();
    await dialog.getByText('2 invalid', { exact: true }).waitFor();
    const problems = await dialog.getByRole('list', { name: 'Rows with problems' }).getByRole('listitem').allInnerTexts();
    expect(problems.map((text) => text.replace(/\s+/g, ' ').trim())).toEqual([`Row 3 ${csvMessages.badQuotes}`, `Row 6 ${csvMessages.badQuotes}`]);
    await page.screenshot({ path: screenshotPath('bulk-dialog-stray-quotes') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('uploads a CSV with awkward rows, shows the problems and offers them for download', async () => {
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    // The drop zone's file input (what a click on it or a drop feeds) opens the dialog with the file.
    await page.getByRole('button', { name: 'Drag and drop your CSV file here, or click to browse' }).waitFor();
    const chosen = new Date();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(awkwardCsv) });
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.waitFor();
    await dialog.getByText('3 valid').waitFor();
    await dialog.getByText('3 invalid').waitFor();
    const problems = dialog.getByRole('list', { name: 'Rows with problems' });
    await problems.getByText('Valid email is required').waitFor();
    await problems.getByText('Duplicate email (also in row 2)').waitFor();
    await problems.getByText('Last name is required').waitFor();
    // The preview shows the usernames the server will give.
    await dialog.getByText(madeSince(chosen, 'josenunez')).waitFor();

    const [rejected] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download rejected rows' }).click()]);
    const rows = parseCsv(await downloadedBytes(rejected));
    expect(rows[0]).toEqual(['Row', 'First Name', 'Last Name', 'Email', 'Problem']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['6', '7', '8']);
    await page.screenshot({ path: screenshotPath('bulk-dialog-upload') });
  });

  it('generates the valid accounts and downloads them as CSV', async () => {
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.getByLabel('Project name').fill('Awkward import');
    const generated = new Date();
    await dialog.getByRole('button', { name: 'Generate Accounts' }).click();
    await dialog.getByText('3 accounts created').waitFor();
    await page.screenshot({ path: screenshotPath('bulk-dialog-complete') });
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('Awkward import_accounts.csv');
    const rows = parseCsv(await downloadedBytes(download));
    expect(rows[0]).toEqual(['First Name', 'Last Name', 'Email', 'Username', 'Password']);
    expect(rows[1]![3]).toMatch(madeSince(generated, 'josenunez'));
    projectYear = rows[1]![3]!.slice(-4);
    expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
      ['José', 'Núñez', 'jose@example.com', `josenunez${projectYear}`],
      ['Anna, Maria', 'Smith', 'smith@example.com', `annamariasmith${projectYear}`],
      ['Sean', 'O\'Neil "Jr"', 'o.neil@example.com', `seanoneiljr${projectYear}`],
    ]);
    for (const row of rows.slice(1)) expect(row[4]).toMatch(/^.{12}$/);
    josePassword = rows[1]![4]!;
    // On screen the passwords stay masked until asked for.
    const shownTable = await dialog.locator('table').innerText();
    expect(shownTable).toContain('••••');
    expect(shownTable).not.toContain(josePassword);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('finds the accounts in the Account Database and shows their passwords on request', async () => {
    await page.goto(`${app}/accounts`);
    await page.getByRole('searchbox', { name: 'Search accounts' }).fill('nú');
    await page.getByText('1 result').waitFor();
    await page.getByRole('cell', { name: 'jose@example.com' }).waitFor();
    expect(await page.getByRole('cell', { name: `josenunez${projectYear}` }).count()).toBe(1);
    // Hidden: no password column, and José's password nowhere in the table.
    expect(josePassword).toMatch(/^.{12}$/);
    expect(await page.getByRole('columnheader', { name: 'Password' }).count()).toBe(0);
    expect(await page.locator('table').innerText()).not.toContain(josePassword);
    await page.getByRole('button', { name: 'Show Passwords' }).click();
    await page.getByRole('button', { name: 'Hide Passwords' }).waitFor();
    // Shown: José's row holds exactly the password generated for him.
    await page.getByRole('columnheader', { name: 'Password' }).waitFor();
    await page.getByRole('row', { name: /jose@example\.com/ }).getByRole('cell', { name: josePassword, exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath('accounts-search') });
  });

  it('creates accounts by manual entry until the free plan limit shows Upgrade Required', async () => {
    for (const project of ['Second', 'Third']) {
      await page.goto(`${app}/bulk-creator`);
      await page.getByRole('tab', { name: 'Manual Entry' }).click();
      await page.getByLabel('Project name').fill(project);
      await page.getByLabel('First name').fill('Manual');
      await page.getByLabel('Last name').fill(project);
      await page.getByLabel('Email').fill(`manual.${project.toLowerCase()}@example.com`);
      const created = new Date();
      await page.getByRole('button', { name: 'Create Accounts' }).click();
      await page.getByText(madeSince(created, `manual${project.toLowerCase()}`)).first().waitFor();
    }
    await page.goto(`${app}/bulk-creator`);
    await page.getByText('Upgrade Required').waitFor();
    await page.getByText('You have reached your project limit.').waitFor();
    await page.screenshot({ path: screenshotPath('bulk-upgrade-required') });

    await page.goto(`${app}/projects`);
    await page.getByRole('article', { name: 'Awkward import' }).waitFor();
    expect(await page.getByRole('article').count()).toBe(3);
    await page.screenshot({ path: screenshotPath('projects') });
  });
});
