/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ExportView } from '../../shared/schemas/export';
import type { NotificationList } from '../../shared/schemas/notifications';
import type { Project } from '../../shared/schemas/project';
import type { UserSettings } from '../../shared/schemas/user-settings';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { axeViolations, describeViolations, settle } from '../support/a11y';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const app = inject('stack').urls.app;

async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The bell and Settings > Notifications, as a user sees them. */
describe('notifications in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let job: BulkJob;

  beforeAll(async () => {
    user = await apiUser({ firstName: 'Bell', lastName: 'Ringer' });
    await upgradeToPro(user);
    const queued = await user.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Onboarding wave 3', csvData: people(1001, 'Wave') } });
    job = await waitUntil('the bulk job', () => user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (j) => j.status === 'completed' || j.status === 'failed');
    await waitUntil('its notification', () => user.json<NotificationList>('/api/notifications'), (l) => l.unreadCount === 1);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await signInThroughApp(page, app, user);
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
    }
  });

  it("the bell shows a finished bulk job's notification; choosing it opens the project and marks it read", async () => {
    expect(job.status).toBe('completed');
    const bell = page.getByRole('button', { name: 'Notifications (1 unread)' });
    await bell.waitFor();
    await expect(page.getByTestId('unread-dot').isVisible()).resolves.toBe(true);
    await bell.click();
    const list = page.getByRole('list', { name: 'Notifications list' });
    const entry = list.getByRole('button', { name: /Project "Onboarding wave 3" is ready/ });
    await entry.waitFor();
    await expect(entry.textContent()).resolves.toMatch(/Unread: Project "Onboarding wave 3" is ready1,001 accounts created\.(just now|\d+ min ago)/);
    await page.screenshot({ path: screenshotPath('notifications-bell-light') });
    await settle(page);
    expect(describeViolations('the open bell (light)', await axeViolations(page))).toEqual([]);

    await entry.click();
    await page.waitForURL(`${app}/projects/${job.projectId}`);
    await page.getByRole('heading', { name: 'Onboarding wave 3', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
    expect(await page.getByTestId('unread-dot').count()).toBe(0);
    const stored = await user.json<NotificationList>('/api/notifications');
    expect(stored.unreadCount).toBe(0);
    expect(stored.notifications[0]).toMatchObject({ kind: 'bulk-job-completed', read: true });
  }, 180_000);

  it("'Mark all read' clears the dot (dark theme and phone width shown too)", async () => {
    const { project } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Small team', csvData: people(2, 'Small') } });
    for (let i = 0; i < 2; i++) {
      const started = await user.json<ExportView>('/api/exports', { body: { projectId: project.id, format: 'csv' } });
      await waitUntil('the export', () => user.json<ExportView[]>('/api/exports/history'), (h) => h.some((e) => e.id === started.id && e.status === 'completed'));
    }
    await waitUntil('the export notifications', () => user.json<NotificationList>('/api/notifications'), (l) => l.unreadCount === 2);

    await page.evaluate(() => localStorage.setItem('theme', 'dark'));
    await page.reload();
    const bell = page.getByRole('button', { name: 'Notifications (2 unread)' });
    await bell.click();
    await page.getByRole('list', { name: 'Notifications list' }).getByRole('button', { name: /Export of "Small team" is ready/ }).first().waitFor();
    await page.screenshot({ path: screenshotPath('notifications-bell-dark') });
    await settle(page);
    expect(describeViolations('the open bell (dark)', await axeViolations(page))).toEqual([]);

    const phone = await (await browser.newContext({ viewport: { width: 375, height: 740 }, storageState: await page.context().storageState() })).newPage();
    await phone.goto(`${app}/`);
    await phone.getByRole('button', { name: 'Notifications (2 unread)' }).click();
    const phoneList = phone.getByRole('list', { name: 'Notifications list' });
    await phoneList.getByRole('button', { name: /Export of "Small team" is ready/ }).first().waitFor();
    const box = await phoneList.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await phone.screenshot({ path: screenshotPath('notifications-bell-phone') });
    await phone.close();

    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
    expect(await page.getByTestId('unread-dot').count()).toBe(0);
    await expect(page.getByRole('button', { name: 'Mark all read' }).isDisabled()).resolves.toBe(true);
    // The dot goes at once (the list is updated before the server answers); the server follows.
    await expect.poll(async () => (await user.json<NotificationList>('/api/notifications')).unreadCount).toBe(0);
    await page.keyboard.press('Escape');
    await page.evaluate(() => localStorage.setItem('theme', 'light'));
  }, 300_000);

  it('Settings > Notifications saves the four switches, and they survive a reload', async () => {
    await page.goto(`${app}/settings?tab=notifications`);
    const weekly = page.getByRole('switch', { name: 'Weekly Digest' });
    const completion = page.getByRole('switch', { name: 'Project Completion' });
    await weekly.waitFor();
    await expect(weekly.isChecked()).resolves.toBe(false);
    await expect(completion.isChecked()).resolves.toBe(true);
    await expect(page.getByRole('switch', { name: 'Email Notifications' }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('switch', { name: 'Security Alerts' }).isChecked()).resolves.toBe(true);
    await page.getByText('A Monday summary of the past week: new projects, accounts and notifications.').waitFor();
    expect(describeViolations('Settings > Notifications', await axeViolations(page))).toEqual([]);

    // The label is the switch's clickable row (its input is visually hidden).
    await page.getByText('Weekly Digest', { exact: true }).click();
    await page.getByText('Project Completion', { exact: true }).click();
    await expect(weekly.isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Save Preferences' }).click();
    const toast = page.getByRole('status').filter({ hasText: 'Settings updated' });
    await toast.getByText('Your settings have been saved successfully.').waitFor();
    await page.screenshot({ path: screenshotPath('settings-notifications') });

    await page.reload();
    await page.getByRole('switch', { name: 'Weekly Digest' }).waitFor();
    await expect(page.getByRole('switch', { name: 'Weekly Digest' }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('switch', { name: 'Project Completion' }).isChecked()).resolves.toBe(false);
    const saved = await user.json<UserSettings>('/api/user/settings');
    expect(saved.notifications).toEqual({ emailNotifications: true, projectCompletionEmail: false, securityAlerts: true, weeklyDigest: true });
  });
});
