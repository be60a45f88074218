/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import Papa from 'papaparse';
import type { Integration } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import type { SecurityEventPage } from '../../shared/schemas/security';
import { keys } from '../../functions/core/keys';
import { recordSecurityEvent } from '../../functions/security/security-events';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle, useTheme } from '../support/a11y';
import { launchChromium, downloadedBytes, recordAddedTexts, screenshotPath, signInThroughApp, waitForAddedText } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;
const TABLE = 'bulkonboard';

/** Every event of a user, newest first, through the API (the list the page reads). */
async function allEvents(user: ApiUser) {
  const events: SecurityEventPage['events'] = [];
  let cursor: string | undefined;
  do {
    const page = await user.json<SecurityEventPage>(`/api/security/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    events.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor);
  return events;
}

/** Removes a user's security events (a sign-in records one once sign-in events exist). */
async function clearEvents(user: ApiUser) {
  const { PK, SKPrefix } = keys.securityEventsOf(user.sub);
  const { Items = [] } = await testDb().send(
    new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
  );
  for (let i = 0; i < Items.length; i += 25) {
    await testDb().send(new BatchWriteCommand({ RequestItems: { [TABLE]: Items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })) } }));
  }
}

/** The Security Center as a person uses it: real events, the overview, View all, Export Logs. */
describe('Security Center in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;

  beforeAll(async () => {
    user = await apiUser({ firstName: 'Sec', lastName: 'Officer' });
    await upgradeToPro(user);
    // Older history first (a sign-in a week ago, a failed one, a password change), enough for 'Load more'.
    const weekAgo = Date.now() - 7 * 86_400_000;
    const history = [
      { type: 'login', description: 'Signed in', severity: 'low' },
      { type: 'failed_login', description: 'Failed sign-in: wrong password', severity: 'medium' },
      { type: 'password_change', description: 'Password changed', severity: 'medium' },
    ] as const;
    for (let i = 0; i < 54; i++) {
      const kind = history[i % 3]!;
      await recordSecurityEvent({ db: testDb(), tableName: TABLE }, { userId: user.sub, ...kind, at: new Date(weekAgo + i * 60_000), ipAddress: '198.51.100.23', userAgent: 'Mozilla/5.0 (Seed)' });
    }
    // Then real actions through the API, as the app makes them.
    const { project } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Finance onboarding', csvData: people(4, 'Fin') } });
    await user.json<Integration>('/api/integrations', {
      body: { name: 'Okta staff', platform: 'okta', baseUrl: stack.fakePlatformOrigin, authMethod: 'api_key', authConfig: { apiKey: 'e2e-secret' }, apiConfig: {} },
    });
    await user.json(`/api/projects/${project.id}/accounts?showPasswords=true`);
    expect((await user.call(`/api/projects/${project.id}/export`)).status).toBe(200);

    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    await signInThroughApp(page, app, user);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-security-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  it('shows the overview from the real state and the newest 10 events with icons and severities (light, dark, phone)', async () => {
    await page.goto(`${app}/security`);
    await page.getByRole('heading', { name: 'Security Center', level: 1 }).waitFor();
    const recent = page.getByRole('list', { name: 'Recent security events' });
    await recent.waitFor();
    const items = recent.getByRole('listitem');
    expect(await items.count()).toBe(10);
    // Newest first: the CSV download, then the reveal, then the integration's credentials (a
    // sign-in, where recorded, may come before them).
    const texts = await items.allTextContents();
    const at = (text: string) => texts.findIndex((t) => t.includes(text));
    const download = at('Accounts of the project "Finance onboarding" downloaded as CSV with their passwords (4 accounts)');
    const reveal = at('Passwords shown for 4 accounts of the project "Finance onboarding"');
    const added = at('Credentials of the integration "Okta staff" (Okta) added');
    expect(download).toBeGreaterThanOrEqual(0);
    expect([download < reveal, reveal < added]).toEqual([true, true]);
    expect(texts[download]).toMatch(/Medium.*IP (::ffff:)?127\.0\.0\.1 · \d{2}\/\d{2}\/\d{4} \d{1,2}:\d{2} (AM|PM) UTC/);
    expect(texts[added]).toContain('Low');
    // Icons by type: the seeded sign-ins, failed sign-ins and password changes have their own.
    const icons = await recent.locator('[data-event-icon]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-event-icon')));
    expect(new Set(icons)).toEqual(new Set(['other', 'login', 'failed_login', 'password_change']));

    const account = page.getByRole('region', { name: 'Account Secure' });
    await account.getByText('Two-factor off').waitFor();
    await expect(account.getByRole('link', { name: 'Turn on two-factor authentication' }).getAttribute('href')).resolves.toBe('#security-settings');
    const password = page.getByRole('region', { name: 'Password Strength' });
    await password.getByText('Expires in 90 days').waitFor();
    await password.getByText('Changed today; a new one is required every 90 days.').waitFor();
    const api = page.getByRole('region', { name: 'API Security' });
    await api.getByText('1 integration with credentials').waitFor();
    await expect(api.getByRole('listitem').first().textContent()).resolves.toBe('Okta staff (Okta): never tested');
    await page.screenshot({ path: screenshotPath('security-center-light'), fullPage: true });
    await settle(page);
    expect(describeViolations('Security Center (light)', await axeViolations(page))).toEqual([]);

    await useTheme(page, 'dark');
    await page.getByRole('list', { name: 'Recent security events' }).waitFor();
    await page.getByRole('region', { name: 'API Security' }).getByText('1 integration with credentials').waitFor();
    await page.screenshot({ path: screenshotPath('security-center-dark'), fullPage: true });
    await settle(page);
    expect(describeViolations('Security Center (dark)', await axeViolations(page))).toEqual([]);

    const phone = await (await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await page.context().storageState() })).newPage();
    await phone.goto(`${app}/security`);
    const phoneList = phone.getByRole('list', { name: 'Recent security events' });
    await phoneList.waitFor();
    const box = await phoneList.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await phone.screenshot({ path: screenshotPath('security-center-phone-dark'), fullPage: true });
    await useTheme(phone, 'light');
    await phone.getByRole('list', { name: 'Recent security events' }).waitFor();
    await phone.screenshot({ path: screenshotPath('security-center-phone-light'), fullPage: true });
    await phone.close();
    await useTheme(page, 'light');
  }, 120_000);

  it("'View all' lists every event, 50 at a time with 'Load more'", async () => {
    const total = (await allEvents(user)).length;
    expect(total).toBeGreaterThanOrEqual(57);
    await page.goto(`${app}/security`);
    await page.getByRole('button', { name: 'View all' }).click();
    const dialog = page.getByRole('dialog', { name: 'All security events' });
    const list = dialog.getByRole('list', { name: 'All security events' });
    await list.waitFor();
    expect(await list.getByRole('listitem').count()).toBe(50);
    await dialog.getByText('Showing the newest 50').waitFor();
    await dialog.getByRole('button', { name: 'Load more' }).click();
    await dialog.getByText(`All ${total} events shown`).waitFor();
    expect(await list.getByRole('listitem').count()).toBe(total);
    // The oldest is last: the first seeded sign-in.
    await expect(list.getByRole('listitem').last().textContent()).resolves.toContain('Signed in');
    await page.screenshot({ path: screenshotPath('security-center-view-all') });
    await settle(page);
    expect(describeViolations("Security Center, 'View all'", await axeViolations(page))).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  }, 60_000);

  it("'Export Logs' makes every event into a CSV file in the Export Center (issue 29, item 4), followed here until it is ready and downloaded here; light, dark, phone", async () => {
    await page.goto(`${app}/security`);
    const actions = page.getByRole('region', { name: 'Quick Actions' });
    // Both toasts, from a record of what was shown: the file may be ready at once, its toast
    // replacing 'Export started' before a poll of the page could see it.
    await recordAddedTexts(page);
    await actions.getByRole('button', { name: 'Export Logs' }).click();
    await waitForAddedText(page, 'Export started');
    await waitForAddedText(page, 'Your security events (CSV) is ready to download.');
    const download = actions.getByRole('button', { name: 'Download' });
    await download.waitFor();
    await actions.getByText(/^Last export .+\. Export Center$/).waitFor();
    // The file holds the events as they were when it was written: every one of them until now.
    const events = await allEvents(user);
    for (const theme of ['light', 'dark'] as const) {
      await useTheme(page, theme);
      await actions.getByRole('button', { name: 'Download' }).waitFor();
      await actions.screenshot({ path: screenshotPath(`security-export-logs-${theme}`) });
      await settle(page);
      expect(describeViolations(`Security Center, Export Logs ready (${theme})`, await axeViolations(page))).toEqual([]);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await actions.scrollIntoViewIfNeeded();
    await actions.screenshot({ path: screenshotPath('security-export-logs-phone') });
    await page.setViewportSize({ width: 1280, height: 900 });
    await useTheme(page, 'light');

    const [file] = await Promise.all([page.waitForEvent('download'), actions.getByRole('button', { name: 'Download' }).click()]);
    expect(file.suggestedFilename()).toBe(`security-events-${new Date().toISOString().slice(0, 10)}.csv`);
    const text = (await downloadedBytes(file)).toString('utf8').replace(/^\uFEFF/, '');
    const rows = Papa.parse<string[]>(text.trim()).data;
    expect(rows[0]).toEqual(['Time', 'Type', 'Severity', 'Description', 'IP address', 'User agent']);
    expect(rows.slice(1).map((row) => row[3])).toEqual(events.map((event) => event.description));

    // In the Export Center's history like every export, with what it holds.
    await page.goto(`${app}/exports`);
    const entry = page.getByRole('list', { name: 'Export history' }).getByRole('listitem').filter({ hasText: 'Security events' });
    await entry.getByText(`${events.length} security events`, { exact: false }).waitFor();
    await entry.getByRole('button', { name: 'Download' }).waitFor();
    await entry.screenshot({ path: screenshotPath('export-center-security-events') });
  }, 120_000);

  it("a user without events sees 'No security events' and a clean overview", async () => {
    const fresh = await apiUser({ firstName: 'New', lastName: 'Comer' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const newPage = await context.newPage();
    await signInThroughApp(newPage, app, fresh);
    await clearEvents(fresh);
    await newPage.goto(`${app}/security`);
    await newPage.getByRole('heading', { name: 'No security events' }).waitFor();
    expect(await newPage.getByRole('button', { name: 'View all' }).count()).toBe(0);
    await newPage.getByRole('region', { name: 'API Security' }).getByText('No stored credentials').waitFor();
    await newPage.getByRole('region', { name: 'Account Secure' }).getByText('Two-factor off').waitFor();
    await newPage.screenshot({ path: screenshotPath('security-center-empty'), fullPage: true });
    await settle(newPage);
    expect(describeViolations('Security Center, no events', await axeViolations(newPage))).toEqual([]);
    await context.close();
  }, 120_000);
});
