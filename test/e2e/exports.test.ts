/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import Papa from 'papaparse';
import type { Browser, Page } from 'playwright-core';
import { createTestUser } from '../support/cognito-users';
import { launchChromium, downloadedBytes, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

describe('Export Center in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let token = '';

  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    const user = await createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Export', lastName: 'Tester' });
    token = user.accessToken;
    const api = (path: string, body?: unknown) =>
      fetch(`${app}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    await api('/api/auth/user');
    const created = await api('/api/bulk-create', {
      projectName: 'Exportable',
      csvData: [
        { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
        { firstName: '=SUM(1+1)', lastName: 'Injector', email: 'inject@example.com' },
      ],
    });
    expect(created.status).toBe(200);
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

  it('gates Excel and JSON behind Pro for a free user', async () => {
    await page.goto(`${app}/exports`);
    await page.getByRole('heading', { name: 'Export Center', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: 'Format' }).selectOption('xlsx');
    const prompt = page.getByRole('dialog', { name: 'Upgrade to Pro' });
    await prompt.getByText('Advanced Export Formats').first().waitFor();
    await prompt.getByRole('button', { name: 'Maybe Later' }).click();
    await prompt.waitFor({ state: 'hidden' });
    expect(await page.getByRole('combobox', { name: 'Format' }).inputValue()).toBe('csv');
  });

  it('asks for a project, then exports the CSV and downloads it from the history', async () => {
    await page.getByRole('button', { name: 'Start Export' }).click();
    await page.getByText('Please select a project to export.').first().waitFor();

    await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Exportable (2 accounts)' });
    await page.getByRole('button', { name: 'Start Export' }).click();
    const history = page.getByRole('list', { name: 'Export history' });
    const entry = history.getByRole('listitem').first();
    await entry.getByText('Completed').waitFor();
    await page.screenshot({ path: screenshotPath('exports') });

    const [download] = await Promise.all([page.waitForEvent('download'), entry.getByRole('button', { name: 'Download', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('Exportable_accounts.csv');
    const text = (await downloadedBytes(download)).toString('utf8').replace(/^\uFEFF/, '');
    const rows = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
    expect(rows[0]!.slice(0, 5)).toEqual(['First Name', 'Last Name', 'Email', 'Username', 'Password']);
    expect(rows).toHaveLength(3);
    expect(rows[1]!.slice(0, 3)).toEqual(['Ada', 'Lovelace', 'ada@example.com']);
    // A cell that looks like a formula is neutralised.
    expect(rows[2]![0]).toBe("'=SUM(1+1)");
  });
});
