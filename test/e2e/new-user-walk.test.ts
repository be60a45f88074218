/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AccountView } from '../../shared/schemas/project';
import type { MailSend } from '../../shared/schemas/mail-send';
import { apiUser, upgradeToPro, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { settle, useTheme } from '../support/a11y';
import { until } from '../support/until';
import { boxOf, overlaps, shownToasts as toasts } from '../support/screen-layout';

const app = inject('stack').urls.app;



/**
 * Counts, in the page, the most toasts ever shown at once and every console error that names
 * flushSync (spec 9: at most one toast; issue 26: toasts raised in effects).
 */
async function watchToasts(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen = { most: 0 };
    (window as unknown as { __toasts: typeof seen }).__toasts = seen;
    new MutationObserver(() => {
      seen.most = Math.max(seen.most, document.querySelectorAll('[data-scope="toast"][data-part="root"]').length);
    }).observe(document, { childList: true, subtree: true });
  });
}
const mostToastsAtOnce = (page: Page) => page.evaluate(() => (window as unknown as { __toasts: { most: number } }).__toasts.most);

const csv = (lines: string[]) => Buffer.from(`First Name,Last Name,Email\n${lines.join('\n')}\n`);

/**
 * What a new user met in the outside walk through the app (issue 26, items 13, 14, 18, 19, 20):
 * toasts over the next controls, two toasts at once, a skipped-rows list below the fold, a password
 * length refused without a word, "1 accounts", and text cut at 390 px or a table scrolling at 1280.
 */
describe('a new user walks through the app (Chromium)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: ApiUser;
  const flushSyncErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    await watchToasts(context);
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text().includes('flushSync')) flushSyncErrors.push(message.text());
    });
    user = await apiUser({ firstName: 'Nora', lastName: 'Newcomer' });
    // Pro: the walk makes more projects than the free plan's 3.
    await upgradeToPro(user);
    await user.json('/api/bulk-create', { body: { projectName: 'Solo', csvData: [{ firstName: 'Una', lastName: 'Single', email: 'una.single@example.com' }] } });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-walk-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('manual entry: the result comes into view with View project and Download CSV clear of the toast, and one toast at a time', async () => {
    for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`${app}/bulk-creator`);
      await page.getByRole('tab', { name: 'Manual Entry' }).click();
      await page.getByLabel('Project name').fill(`Typed ${name}`);
      // Two rows: the form is long, and the result is rendered under it.
      await page.getByRole('button', { name: 'Add Row' }).click();
      for (const [index, who] of ['Ann', 'Ben'].entries()) {
        const row = page.getByRole('group', { name: `Account ${index + 1}` });
        await row.getByLabel('First name').fill(who);
        await row.getByLabel('Last name').fill(`Typed${name}`);
        await row.getByLabel('Email').fill(`${who.toLowerCase()}.${name}@example.com`);
      }
      await page.getByRole('button', { name: 'Create Accounts' }).click();
      const toast = toasts(page).filter({ hasText: 'Accounts created successfully' });
      await toast.waitFor();
      // The pointer on the toast holds it (Chakra pauses toasts under the pointer): on a busy
      // machine its 5 s could otherwise end before its place is measured.
      await toast.hover();
      await toast.getByText('2 accounts have been created.').waitFor();
      const viewProject = page.getByRole('link', { name: 'View project' });
      const download = page.getByRole('button', { name: 'Download CSV' });
      await page.getByRole('heading', { name: `Typed ${name}`, level: 2 }).waitFor();
      await settle(page);
      for (const [label, control] of [['View project', viewProject], ['Download CSV', download]] as const) {
        const box = await boxOf(control);
        expect(box.y >= 0 && box.y + box.height <= viewport.height, `${label} is on screen (${name})`).toBe(true);
        expect(overlaps(await boxOf(toast), box), `the toast covers ${label} (${name})`).toBe(false);
      }
      await page.screenshot({ path: screenshotPath(`walk-manual-result-${name}`) });
    }
    expect(await mostToastsAtOnce(page)).toBeLessThanOrEqual(1);
  });

  it('an export raises its toasts (started, then ready from an effect) one at a time, and no flushSync error', async () => {
    flushSyncErrors.length = 0;
    await page.goto(`${app}/exports`);
    await page.getByRole('heading', { name: 'Export Center', level: 1 }).waitFor();
    // A refused start first: its toast is still up when the next one comes.
    await page.getByRole('button', { name: 'Start Export' }).click();
    await toasts(page).filter({ hasText: 'Please select a project to export.' }).waitFor();
    await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Solo (1 account)' });
    await page.getByRole('button', { name: 'Start Export' }).click();
    await page.getByRole('list', { name: 'Export history' }).getByRole('listitem').first().getByText('Completed').waitFor();
    await toasts(page).filter({ hasText: 'Export ready' }).waitFor();
    expect(await mostToastsAtOnce(page)).toBeLessThanOrEqual(1);
    expect(flushSyncErrors).toEqual([]);
  });

  it('bulk dialog: ready and skipped rows beside Generate, with a link to the list; the password length says 10 to 50 at once', async () => {
    for (const [name, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`${app}/bulk-creator`);
      await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
      await page.getByLabel('Upload CSV').setInputFiles({
        name: 'mixed.csv',
        mimeType: 'text/csv',
        buffer: csv(['Ada,Lovelace,ada.walk@example.com', 'Alan,Turing,alan.walk@example.com', 'Bad,Row,not-an-email']),
      });
      const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
      await dialog.getByText('mixed.csv').first().waitFor();
      await settle(page);
      const generate = dialog.getByRole('button', { name: 'Generate Accounts' });
      const summary = dialog.getByTestId('file-ready-summary');
      expect(await summary.innerText()).toMatch(/^2 accounts ready, 1 row skipped See why$/);
      // Beside the button, on screen without scrolling, and the button names it.
      for (const [label, control] of [['the summary', summary], ['Generate', generate]] as const) {
        const box = await boxOf(control);
        expect(box.y >= 0 && box.y + box.height <= viewport.height, `${label} is on screen (${name})`).toBe(true);
      }
      expect(await generate.getAttribute('aria-describedby')).toContain(await summary.getAttribute('id'));
      const skipped = dialog.locator('#bulk-skipped-rows');
      expect(await skipped.innerText()).toContain('will be skipped');
      await dialog.getByRole('button', { name: 'See why' }).click();
      await until(
        'the skipped rows in view',
        async () => {
          // The dialog scrolls inside: its list is in view once its top is on screen, under the header.
          const [list, title] = await Promise.all([boxOf(skipped), boxOf(dialog.getByRole('heading', { name: 'Bulk Create Accounts' }))]);
          return list.y > title.y + title.height && list.y + 40 < viewport.height;
        },
        Boolean,
        10_000,
      );
      await dialog.getByText('Row 4', { exact: false }).first().waitFor();
      await page.screenshot({ path: screenshotPath(`walk-bulk-summary-${name}`) });

      // The length: out of range says so as it is typed, in words, before Generate.
      const length = dialog.getByLabel('Password length');
      const message = dialog.getByText('Password length must be between 10 and 50 characters');
      for (const typed of ['5', '80']) {
        await length.fill(typed);
        await message.waitFor();
        expect(await length.getAttribute('aria-invalid')).toBe('true');
      }
      await length.fill('12');
      await message.waitFor({ state: 'detached' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
    }
  });

  it('says "1 account" for one account: the dashboard, the project, Reset Passwords', async () => {
    await page.goto(`${app}/`);
    await page.getByRole('heading', { name: 'Recent Projects' }).waitFor();
    await page.getByText('1 account created', { exact: true }).first().waitFor();
    expect(await page.getByText(/\b1 accounts\b/).count()).toBe(0);

    await page.goto(`${app}/projects`);
    await page.getByRole('article', { name: 'Solo' }).getByRole('link', { name: /View/ }).first().click();
    await page.getByText('1 account', { exact: true }).first().waitFor();

    await page.goto(`${app}/security`);
    await page.getByRole('button', { name: 'Reset Passwords' }).click();
    const reset = page.getByRole('dialog').or(page.getByRole('alertdialog')).filter({ hasText: 'Generate new passwords for the accounts of one project.' });
    await reset.locator('select').selectOption({ label: 'Solo (1 account)' });
    await reset.getByText('The one account in Solo gets a new generated password', { exact: false }).waitFor();
    expect(await reset.getByText(/Every one of the 1 account/).count()).toBe(0);
    await reset.getByRole('button', { name: 'Cancel' }).click();
  });

  it('at 390 px the Free vs Pro table and the Settings tabs are not cut', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${app}/settings?tab=subscription`);
      await useTheme(page, theme);
      const table = page.getByRole('table', { name: 'Free vs Pro' });
      await table.getByText('$19.95', { exact: false }).first().waitFor();
      await settle(page);
      // No cell is narrower than its text, and the table is as wide as its box (nothing to scroll to).
      const cut = await table.evaluate((element) =>
        [...element.querySelectorAll('th, td')].filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map((cell) => cell.textContent),
      );
      expect(cut).toEqual([]);
      const box = await boxOf(table);
      expect(box.x >= 0 && box.x + box.width <= 390, `the table fits the screen: ${JSON.stringify(box)}`).toBe(true);
      // Every tab is on screen, whole.
      const tabs = page.getByRole('tab');
      expect(await tabs.count()).toBe(6);
      for (const tab of await tabs.all()) {
        const tabBox = await boxOf(tab);
        expect(tabBox.x >= 0 && tabBox.x + tabBox.width <= 390, `${await tab.innerText()} is whole on screen: ${JSON.stringify(tabBox)}`).toBe(true);
      }
      await page.screenshot({ path: screenshotPath(`walk-settings-subscription-${theme}-phone`), fullPage: true });
    }
    await useTheme(page, 'light');
  });
});

describe("a project's accounts table with a bounce reason (Chromium, 1280 px)", () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let projectId: string;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    user = await apiUser({ firstName: 'Bea', lastName: 'Bounce' });
    await upgradeToPro(user);
    const created = await user.json<{ project: { id: string } }>('/api/bulk-create', {
      body: {
        projectName: 'Bouncing',
        csvData: [
          { firstName: 'Bo', lastName: 'Unce', email: 'bounce@simulator.amazonses.com' },
          { firstName: 'Del', lastName: 'Ivered', email: 'success@simulator.amazonses.com' },
        ],
      },
    });
    projectId = created.project.id;
    const send = await user.json<MailSend>(`/api/projects/${projectId}/send-credentials`, { method: 'POST', body: { scope: 'all' } });
    await until('the send to finish', () => user.json<MailSend>(`/api/mail-sends/${send.id}`), (s) => s.status === 'completed', 60_000, 250);
    await until(
      'the bounce to show on the account',
      () => user.json<{ items: AccountView[] }>(`/api/projects/${projectId}/accounts`),
      (page) => page.items.some((a) => a.emailStatus === 'bounced' && !!a.emailError),
      60_000,
      250,
    );
    await signInThroughApp(page, inject('stack').urls.app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath('failed-walk-bounce-table'), fullPage: true }).catch(() => undefined);
  });

  it('does not scroll sideways, and its Send column is whole', async () => {
    await page.goto(`${app}/projects/${encodeURIComponent(projectId)}`);
    const table = page.getByRole('table', { name: 'Accounts of this project' });
    await table.getByText('Bounced', { exact: true }).waitFor();
    await settle(page);
    const area = table.locator('xpath=..');
    const sizes = await area.evaluate((element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(sizes.scrollWidth, JSON.stringify(sizes)).toBeLessThanOrEqual(sizes.clientWidth + 1);
    const areaBox = await boxOf(area);
    for (const button of await table.getByRole('button', { name: /^(Send|Resend)/ }).all()) {
      const box = await boxOf(button);
      expect(box.x + box.width <= areaBox.x + areaBox.width + 1, `${await button.innerText()} is whole: ${JSON.stringify({ box, areaBox })}`).toBe(true);
    }
    await page.screenshot({ path: screenshotPath('walk-project-bounce-desktop'), fullPage: true });
  });
});
