/// <reference lib="dom" />
import { setTimeout as sleep } from 'node:timers/promises';
import JSZip from 'jszip';
import Papa from 'papaparse';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestUser, type TestUser } from '../support/cognito-users';
import { launchChromium, downloadedBytes, screenshotPath, signInThroughApp } from '../support/browser';
import { until } from '../support/until';
import type { NotificationList } from '../../shared/schemas/notifications';

const stack = inject('stack');
const app = stack.urls.app;

const api = (token: string, path: string, body?: unknown) =>
  fetch(`${app}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });

describe('Settings > Data in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: TestUser;
  let project: { id: string };

  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    user = await createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Data', lastName: 'Owner' });
    await api(user.accessToken, '/api/auth/user');
    const created = await api(user.accessToken, '/api/bulk-create', {
      projectName: 'Mine',
      csvData: [
        { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
        { firstName: '=SUM(1+1)', lastName: 'Injector', email: 'inject@example.com' },
      ],
    });
    expect(created.status).toBe(200);
    project = ((await created.json()) as { project: { id: string } }).project;
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

  it('exports all data: the toast when ready, then the zip downloads with the accounts and passwords', async () => {
    await page.goto(`${app}/settings?tab=data`);
    await page.getByRole('button', { name: 'Export All Data' }).click();
    await page.getByText("Your export is being processed. You'll be notified when it's ready.").first().waitFor();
    await page.getByText('All your data (ZIP) is ready to download.').waitFor();
    await page.screenshot({ path: screenshotPath('export-all-data') });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download', exact: true }).click()]);
    expect(download.suggestedFilename()).toMatch(/^bulkonboard-data_\d{4}-\d{2}-\d{2}\.zip$/);
    const zip = await JSZip.loadAsync(await downloadedBytes(download));
    const accounts = JSON.parse(await zip.file('accounts.json')!.async('string')) as { firstName: string; password: string }[];
    const shown = (await (await api(user.accessToken, `/api/projects/${project.id}/accounts?showPasswords=true`)).json()) as { items: { firstName: string; password: string }[] };
    expect(accounts.map((a) => [a.firstName, a.password])).toEqual(shown.items.map((a) => [a.firstName, a.password]));
    const csv = (await zip.file('accounts.csv')!.async('string')).replace(/^\uFEFF/, '');
    expect(Papa.parse<string[]>(csv, { skipEmptyLines: true }).data[2]![0]).toBe("'=SUM(1+1)");

    // It is in the Export Center's history too.
    await page.goto(`${app}/exports`);
    await page.getByRole('list', { name: 'Export history' }).getByText('All your data').first().waitFor();

    // And in the bell, like a project's export (issue 26: it never appeared there); opening it goes to the Export Center.
    await until('its notification', async () => ((await (await api(user.accessToken, '/api/notifications')).json()) as NotificationList).unreadCount, (n) => n === 1);
    await page.goto(`${app}/projects`);
    await page.getByRole('button', { name: 'Notifications (1 unread)' }).click();
    await page.getByRole('list', { name: 'Notifications list' }).getByRole('button', { name: /Export of all your data is ready/ }).click();
    await page.waitForURL(`${app}/exports`);
  });

  it('deletes the account after the confirmation: logout, "Account deleted", and the user cannot come back', async () => {
    await page.goto(`${app}/settings?tab=data`);
    const deleteButton = page.getByRole('button', { name: 'Delete Account' });
    await deleteButton.click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete Account' });
    await dialog.getByText('Are you sure you want to delete your account? This action cannot be undone.').waitFor();
    await page.screenshot({ path: screenshotPath('delete-account-dialog') });
    // Cancel deletes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await api(user.accessToken, '/api/projects')).status).toBe(200);

    await deleteButton.click();
    await dialog.getByRole('button', { name: 'Delete Account' }).click();
    await page.waitForURL(`${app}/`);
    await page.getByText('Your account has been permanently deleted.').waitFor();
    await page.getByText('Account deleted', { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath('account-deleted') });

    // The job ends with the Cognito user: the token is refused, and signing in again fails.
    let status = 0;
    for (let i = 0; i < 150 && status !== 401; i++) {
      status = (await api(user.accessToken, '/api/auth/user')).status;
      if (status !== 401) await sleep(200);
    }
    expect(status).toBe(401);
    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').first().waitFor();
    expect(page.url()).toContain('/sign-in');
  });
});
