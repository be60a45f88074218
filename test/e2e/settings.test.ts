/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { User } from '../../shared/schemas/user';
import { apiUser, type ApiUser } from '../support/api';
import { useTheme } from '../support/a11y';
import { launchChromium, downloadedBytes, screenshotPath, signInThroughApp } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;

/**
 * Settings > Preferences and Security as a person uses them: preferences that apply everywhere
 * (a date on the Profile follows the timezone and format; the Bulk Creator's expiration date
 * and password length start from the defaults), the spec's ranges, and the security report PDF.
 */
describe('Settings in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    user = await apiUser({ firstName: 'Dorothy', lastName: 'Vaughan' });
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-${ctx.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it('refuses a value out of range with the range, and takes a non-numeric one as the default', async () => {
    await page.goto(`${app}/settings?tab=preferences`);
    await page.getByRole('heading', { name: 'Preferences', level: 2 }).waitFor();
    await page.getByLabel('Default project expiry (days)').fill('400');
    await page.getByRole('button', { name: 'Save Preferences' }).click();
    await page.getByText('Default project expiry must be between 30 and 365 days').waitFor();
    await page.getByLabel('Default project expiry (days)').fill('abc');
    await page.getByLabel('Default password length').fill('16');
    await page.getByRole('button', { name: 'Save Preferences' }).click();
    await page.getByText('Your settings have been saved successfully.').waitFor();
    const saved = await user.json<{ preferences: { defaultProjectExpiry: number; defaultPasswordLength: number } }>('/api/user/settings');
    expect(saved.preferences).toMatchObject({ defaultProjectExpiry: 90, defaultPasswordLength: 16 });
  });

  it('dates everywhere follow the timezone and format', async () => {
    const me = await user.json<User>('/api/auth/user');
    const [year, month, day] = me.createdAt.slice(0, 10).split('-');
    await page.goto(`${app}/profile`);
    await page.getByText(`Joined ${month}/${day}/${year}`).waitFor();

    await page.goto(`${app}/settings?tab=preferences`);
    await page.getByLabel('Date format').selectOption('YYYY-MM-DD');
    await page.getByLabel('Timezone').selectOption('America/Los_Angeles');
    await page.getByLabel('Default project expiry (days)').fill('30');
    await page.getByRole('button', { name: 'Save Preferences' }).click();
    await page.getByText('Your settings have been saved successfully.').waitFor();
    await page.screenshot({ path: screenshotPath('settings-preferences') });

    await page.goto(`${app}/profile`);
    const inLosAngeles = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(me.createdAt));
    await page.getByText(`Joined ${inLosAngeles}`).waitFor();
    await page.getByText(/^Last sign-in \d{4}-\d{2}-\d{2} \d{1,2}:\d{2} [AP]M P[SD]T$/).waitFor();
  });

  it("the Bulk Creator's expiration date and password length start from the preferences", async () => {
    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'two.csv', mimeType: 'text/csv', buffer: Buffer.from('First Name,Last Name,Email\nAnn,Lee,ann@example.com\nBo,Ray,bo@example.com\n') });
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.waitFor();
    const expected = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now() + 30 * 86_400_000));
    expect(await dialog.getByLabel('Expiration date (optional)').inputValue()).toBe(expected);
    expect(await dialog.getByLabel('Password length').inputValue()).toBe('16');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('Security: the way to the Security Center and the security report as a PDF', async () => {
    await page.goto(`${app}/settings?tab=security`);
    await useTheme(page, 'dark');
    await page.getByRole('button', { name: 'Download Security Report' }).waitFor();
    await page.screenshot({ path: screenshotPath('settings-security-dark') });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Security Report' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^bulkonboard-security-report-\d{4}-\d{2}-\d{2}\.pdf$/);
    const pdf = await downloadedBytes(download);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdf.toString('latin1');
    expect(text).toContain('BulkOnboard security report');
    expect(text).toContain(user.email);
    await page.getByText('Your security report is in your downloads.').waitFor();
    await page.getByRole('link', { name: 'Open Security Center' }).click();
    await page.waitForURL(`${app}/security`);
    await useTheme(page, 'light');
  });
});
