/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { useTheme } from '../support/a11y';
import { boxOf, expectToastClearOf, shownToasts as shownToast } from '../support/screen-layout';

const stack = inject('stack');
const app = stack.urls.app;

const csvOf = (rows: { firstName: string; lastName: string; email: string }[]) =>
  Buffer.from(`First Name,Last Name,Email\n${rows.map((r) => `${r.firstName},${r.lastName},${r.email}`).join('\n')}\n`);


/**
 * Feedback a user can trust (issue 9, item 8), seen in Chromium: toasts, the plan limit in the bulk
 * dialog, a queued job, the phone layout and the free plan card.
 */
describe('feedback in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: ApiUser;
  let projectId: string;

  beforeAll(async () => {
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    user = await apiUser({ firstName: 'Fern', lastName: 'Feedback' });
    const created = await user.json<{ project: { id: string } }>('/api/bulk-create', {
      body: { projectName: 'Wide table', csvData: people(12, 'Wide') },
    });
    projectId = created.project.id;
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  const dialog = () => page.getByRole('dialog', { name: 'Bulk Create Accounts' });
  const generate = () => dialog().getByRole('button', { name: 'Generate Accounts' });
  /** What a user may need while a toast shows: the dialog's buttons, and (behind it) the top bar's. */
  const toastMustNotCover = (): Record<string, Locator> => ({
    'Generate Accounts': generate(),
    Cancel: dialog().getByRole('button', { name: 'Cancel' }),
    "the dialog's close button": dialog().getByRole('button', { name: /^Close/ }),
    // The open dialog hides the page from assistive technology; the top bar is still on screen.
    'New Project': page.getByRole('link', { name: 'New Project', includeHidden: true }),
    'the user menu': page.getByRole('button', { name: 'User menu', includeHidden: true }),
  });

  it('keeps Generate off, and says why, while the file has more rows than the free plan allows per project', async () => {
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'too-many.csv', mimeType: 'text/csv', buffer: csvOf(people(101, 'Over')) });
    await dialog().getByText('101 valid', { exact: true }).waitFor();
    await dialog().getByLabel('Project name').fill('Too many');
    await dialog().getByText('your plan allows 100 accounts per project', { exact: false }).waitFor();
    const reason = dialog().getByText('Too many rows for your plan: choose a smaller file or upgrade.');
    await reason.waitFor();
    expect(await generate().isDisabled()).toBe(true);
    // Described by the file's summary beside it (ready / skipped) and by the reason.
    expect((await generate().getAttribute('aria-describedby'))?.split(' ')).toContain(await reason.getAttribute('id'));
    await page.screenshot({ path: screenshotPath('feedback-over-plan') });

    // The same dialog with a file that fits: Generate is on again.
    await dialog().getByLabel('Upload CSV').setInputFiles({ name: 'fits.csv', mimeType: 'text/csv', buffer: csvOf(people(100, 'Fits')) });
    await dialog().getByText('100 valid', { exact: true }).waitFor();
    await expect.poll(() => generate().isEnabled()).toBe(true);
    expect(await reason.count()).toBe(0);
  });

  it('replaces the shown toast with a new one at once, and shows it where it covers nothing needed', async () => {
    await dialog().getByLabel('Upload CSV').setInputFiles({ name: 'fits.csv', mimeType: 'text/csv', buffer: csvOf(people(100, 'Again')) });
    await shownToast(page).getByText('File uploaded successfully').waitFor();
    // The pointer holds the first toast (a toast under the pointer does not time out): queued
    // behind it, the new one would never show; replacing it, it shows alone. No clock involved.
    await shownToast(page).hover();
    await dialog().getByLabel('Upload CSV').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await shownToast(page).getByText('Invalid file type').waitFor();
    expect(await shownToast(page).count()).toBe(1);
    expect(await page.getByText('File uploaded successfully').count()).toBe(0);
    await expectToastClearOf(page, toastMustNotCover());
    await page.screenshot({ path: screenshotPath('feedback-toast-dialog-desktop') });
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'hidden' });
  });

  it('at phone width keeps the top bar and the dialog buttons clear of toasts', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'few.csv', mimeType: 'text/csv', buffer: csvOf(people(3, 'Phone')) });
    await shownToast(page).getByText('File uploaded successfully').waitFor();
    await expectToastClearOf(page, toastMustNotCover());
    await page.screenshot({ path: screenshotPath('feedback-toast-dialog-phone') });
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'hidden' });
  });

  it('at phone width lines the stat values up and says a wide table scrolls', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await page.goto(app);
      await useTheme(page, theme);
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      const values = page.locator('dl dd').filter({ hasText: /^[\d.,]+(%|s)?$/ });
      await expect.poll(() => values.count()).toBe(4);
      const tops = await Promise.all([0, 1, 2, 3].map(async (i) => (await boxOf(values.nth(i))).y));
      // Two cards a row: each value level with its neighbour's.
      expect(Math.abs(tops[0]! - tops[1]!)).toBeLessThan(1);
      expect(Math.abs(tops[2]! - tops[3]!)).toBeLessThan(1);
      await page.screenshot({ path: screenshotPath(`feedback-dashboard-phone-${theme}`) });
    }

    await page.goto(`${app}/projects/${encodeURIComponent(projectId)}`);
    await page.getByRole('cell', { name: 'wide0@example.com' }).waitFor();
    const hint = page.getByText('Scroll for more →');
    await hint.waitFor();
    const region = page.getByRole('region', { name: /scrolls sideways/ });
    expect(await region.getAttribute('tabindex')).toBe('0');
    await page.screenshot({ path: screenshotPath('feedback-project-table-phone-dark') });
    // Scrolled to the end, nothing more to the right: the hint goes.
    await region.evaluate((box) => box.scrollTo({ left: box.scrollWidth }));
    await hint.waitFor({ state: 'hidden' });

    // On a desktop the table fits: no hint.
    await page.setViewportSize({ width: 1280, height: 800 });
    await useTheme(page, 'light');
    await page.getByRole('cell', { name: 'wide0@example.com' }).waitFor();
    await expect.poll(() => hint.count()).toBe(0);
  });

  it("names the free plan once: 'Free Plan' and what it costs", async () => {
    await page.goto(`${app}/settings?tab=subscription`);
    const card = page.locator('.chakra-card__root').filter({ has: page.getByRole('heading', { name: 'Current Plan' }) });
    await card.getByText('Free Plan').waitFor();
    await card.getByText('$0/month, no card needed').waitFor();
    const text = await card.innerText();
    expect(text.match(/\bFree\b/g)).toHaveLength(1);
  });

  it('says a job waiting behind other jobs is queued and why, not "0 of N rows, 0%"', async () => {
    // Two Pro users with jobs of 3,000 rows each fill the bulk queue (each keeps 3 of its chunks on
    // it: jobs take turns, so the next job waits about two rounds of chunks, not for both jobs)...
    const busy = await Promise.all([apiUser({ firstName: 'Busy', lastName: 'Importer' }), apiUser({ firstName: 'Busier', lastName: 'Importer' })]);
    await Promise.all(busy.map((b) => upgradeToPro(b)));
    // ...while a third Pro user has a file of 1,001 rows ready to go (a background job too).
    const waiting = await apiUser({ firstName: 'Patient', lastName: 'Importer' });
    await upgradeToPro(waiting);
    const second = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    try {
      await signInThroughApp(second, app, waiting);
      await second.goto(`${app}/bulk-creator`);
      await second.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
      await second.getByLabel('Upload CSV').setInputFiles({ name: 'queued.csv', mimeType: 'text/csv', buffer: csvOf(people(1001, 'Queued')) });
      const secondDialog = second.getByRole('dialog', { name: 'Bulk Create Accounts' });
      await secondDialog.getByText('1,001 valid', { exact: true }).waitFor();
      await secondDialog.getByLabel('Project name').fill('Behind the others');

      for (const [i, b] of busy.entries()) {
        const first = await b.call('/api/bulk-create', { body: { projectName: `Big one ${i}`, csvData: people(3000, `Busy${i}`) } });
        expect(first.status).toBe(202);
      }
      await secondDialog.getByRole('button', { name: 'Generate Accounts' }).click();

      await secondDialog.getByText('Queued — waiting for its turn').waitFor();
      // And why: the other users' chunks ahead of it on the shared queue (the job's waitReason).
      const reason = secondDialog.getByTestId('bulk-wait-reason');
      await reason.waitFor();
      expect(await reason.innerText()).toMatch(/^Queued behind about \d+ chunks of other jobs on the shared bulk queue\. Jobs take turns chunk by chunk/);
      await secondDialog.getByText('1,001 rows waiting to start').waitFor();
      await secondDialog.getByText('Your accounts will be created when the job starts.').waitFor();
      expect(await secondDialog.getByText('0 of 1,001 rows processed').count()).toBe(0);
      expect(await secondDialog.getByText('0%').count()).toBe(0);
      await second.screenshot({ path: screenshotPath('feedback-job-queued') });
      // The same in the dark theme (switched in place: a reload would close the dialog).
      await second.evaluate(() => {
        document.documentElement.classList.replace('light', 'dark');
        document.documentElement.style.colorScheme = 'dark';
      });
      await second.screenshot({ path: screenshotPath('feedback-job-queued-dark') });
      // Its turn comes: real progress, then the result.
      await secondDialog.getByText('1,001 accounts created', { exact: false }).waitFor({ timeout: 110_000 });
    } finally {
      await second.context().close();
    }
  }, 180_000);
});
