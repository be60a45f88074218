import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { StateBlockWriter } from '../../functions/accounts/account-state-writer';
import { keys } from '../../functions/core/keys';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { apiUser, testDb, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/**
 * The Account Database as a directory, as a person uses it: every account listed without typing
 * anything, the Filters panel narrowed to the accounts that failed to sync (a chip for the filter,
 * the count badge exact), the chip removed; light and dark, 1280 and 390 px, axe clean.
 */
describe('Account Database: browse and filter, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  const tag = `${Date.now() % 100_000}`;
  const people = ['Ada', 'Ben', 'Cleo', 'Dan'].map((name) => ({ firstName: name, lastName: `Dir${tag}`, email: `${name.toLowerCase()}.${tag}@example.com` }));
  let created: { project: Project; accounts: CreatedAccount[] };

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    user = await apiUser({ firstName: 'Directory', lastName: 'Tester' });
    created = await user.json('/api/bulk-create', { body: { projectName: `Directory ${tag}`, csvData: people } });
    // Two of them refused by the platform, as a provisioning run records it: the run's PROV state
    // entries and the project's counter (the platform itself is covered by the provisioning tests).
    const db = testDb();
    const writer = new StateBlockWriter({ db, tableName: 'bulkonboard' }, { userId: user.sub, projectId: created.project.id, shards: 1 }, 'PROV');
    await writer.load(1, 4);
    for (const row of [2, 4]) writer.set(row, { externalStatus: 'failed', externalError: 'The platform refused the e-mail address', provisionRun: 'e2e-run' });
    await writer.flush();
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, created.project.id), UpdateExpression: 'ADD syncFailedCount :two', ExpressionAttributeValues: { ':two': 2 } }));
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await page?.evaluate(() => localStorage.removeItem('theme')).catch(() => undefined);
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-account-directory-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  const rows = () => page.getByRole('table', { name: 'Accounts' }).locator('tbody tr');

  it('lists every account without a term, filters to the failed ones with a chip and an exact count, and clears it', async () => {
    await page.goto(`${app}/accounts`);
    await page.getByText('4 results', { exact: true }).waitFor();
    expect(await rows().count()).toBe(4);
    // Newest first: the file's last row on top.
    await expect.poll(async () => (await rows().first().innerText()).includes(`Dan Dir${tag}`)).toBe(true);

    await page.getByRole('button', { name: 'Filters' }).click();
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Platform status').selectOption({ label: 'Sync Failed' });
    await page.getByText('2 results', { exact: true }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Platform status: Sync Failed' }).waitFor();
    await expect.poll(async () => rows().count()).toBe(2);
    for (const text of await rows().allInnerTexts()) expect(text).toContain('Sync Failed');
    expect((await rows().allInnerTexts()).join('\n')).toMatch(/Ben[\s\S]*Dir|Dan[\s\S]*Dir/);
    await page.getByRole('button', { name: 'Filters (1)' }).waitFor();

    // Export All: what the filter selects, through the Export Center.
    await page.getByRole('button', { name: 'Export All' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export accounts' });
    await dialog.getByText('Exports the accounts your search and filters select (2 results), with their passwords.', { exact: false }).waitFor();
    await settle(page);
    expect(describeViolations('export all dialog', await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: screenshotPath('account-directory-export-dialog') });
    await dialog.getByRole('button', { name: 'Start export' }).click();
    await page.getByText('Export started').waitFor();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Remove filter Platform status: Sync Failed' }).click();
    await page.getByText('4 results', { exact: true }).waitFor();
    await expect.poll(async () => rows().count()).toBe(4);

    // A filter that selects nothing says so in words.
    await page.getByRole('group', { name: 'Filters' }).getByLabel('Platform status').selectOption({ label: 'Removed' });
    await page.getByText('No accounts found').waitFor();
    await page.getByText('No account matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.getByText('4 results', { exact: true }).waitFor();

    // The export made from the filtered view: in the history, two accounts, ready to download.
    await page.goto(`${app}/exports`);
    const entry = page.getByRole('listitem').filter({ hasText: 'Account Database' });
    await entry.getByText('2 accounts').waitFor();
    await entry.getByRole('button', { name: 'Download' }).waitFor();
  });

  it('looks right in light and dark, at 1280 and 390 px: the filtered list and its panel, no sideways scrolling of the page, no axe violation', async () => {
    for (const [theme, width] of [
      ['light', 1280],
      ['dark', 1280],
      ['light', 390],
      ['dark', 390],
    ] as const) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(`${app}/accounts`);
      await useTheme(page, theme);
      await page.getByText('4 results', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByRole('group', { name: 'Filters' }).getByLabel('Platform status').selectOption({ label: 'Sync Failed' });
      await page.getByText('2 results', { exact: true }).waitFor();
      await expect.poll(async () => rows().count()).toBe(2);
      await settle(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${theme} ${width}`).toBeLessThanOrEqual(0);
      expect(describeViolations(`account database filtered (${theme}, ${width})`, await axeViolations(page))).toEqual([]);
      await page.screenshot({ path: screenshotPath(`account-directory-failed-${theme}-${width}`), fullPage: true });
    }
  });
});
