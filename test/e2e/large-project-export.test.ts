/// <reference lib="dom" />
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { keys } from '../../functions/core/keys';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ExportView } from '../../shared/schemas/export';
import { SYNC_EXPORT_MAX_ACCOUNTS, type Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';

const app = inject('stack').urls.app;
const ROWS = SYNC_EXPORT_MAX_ACCOUNTS + 1;

/**
 * Export CSV on a project above SYNC_EXPORT_MAX_ACCOUNTS: no download is attempted, the export is
 * started in the Export Center, the toast and the page say so and link there; and when the page's
 * count is behind (a job still adding accounts), the server's 409 leads to the same place.
 */
describe('Export CSV of a large project in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let user: ApiUser;
  let project: Project;

  const exportsOfProject = async () => (await user.json<ExportView[]>('/api/exports/history')).filter((e) => e.projectId === project.id);

  beforeAll(async () => {
    user = await apiUser({ firstName: 'Large', lastName: 'Exporter' });
    await upgradeToPro(user);
    const queued = await user.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Big list', csvData: people(ROWS, 'Big') } });
    const deadline = Date.now() + 150_000;
    for (;;) {
      const job = await user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`);
      if (job.status === 'completed') break;
      if (job.status === 'failed' || Date.now() > deadline) throw new Error(`job did not complete: ${JSON.stringify(job)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    project = queued.project;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
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

  it('starts the export in the Export Center instead of downloading, and links there', async () => {
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.goto(`${app}/projects/${project.id}`);
    await page.getByRole('heading', { name: 'Big list', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Export CSV' }).click();

    const toast = page.getByRole('status').filter({ hasText: 'Export started' });
    await toast.getByText("Your export is being processed. You'll be notified when it's ready.").waitFor();
    await toast.getByRole('button', { name: 'Open Export Center' }).waitFor();
    const note = page.getByRole('status').filter({ hasText: 'Open the Export Center' });
    await note.getByText('This project has 10,001 accounts: its CSV is prepared in the Export Center.').waitFor();
    await page.screenshot({ path: screenshotPath('large-project-export') });
    expect(await exportsOfProject()).toHaveLength(1);

    await note.getByRole('link', { name: 'Open the Export Center' }).click();
    await page.waitForURL(`${app}/exports`);
    const entry = page.getByRole('list', { name: 'Export history' }).getByRole('listitem').first();
    await entry.getByText('Big list').first().waitFor();
    await entry.getByText('Completed').waitFor();
    expect(downloads).toBe(0);
  }, 120_000);

  it('follows the server when the page counted fewer accounts than the project has', async () => {
    // The projects list says 5 (as while a job is still adding accounts): the page tries the
    // download, the server refuses it (409) and the export is started instead.
    await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, project.id), UpdateExpression: 'SET accountCount = :n', ExpressionAttributeValues: { ':n': 5 } }));
    try {
      await page.goto(`${app}/projects/${project.id}`);
      await page.getByText('5 accounts', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Export CSV' }).click();
      await page.getByRole('status').filter({ hasText: 'Export started' }).waitFor();
      const note = page.getByRole('status').filter({ hasText: 'Open the Export Center' });
      await note.getByText('This project has more than 10,000 accounts: its CSV is prepared in the Export Center.').waitFor();
      await note.getByRole('link', { name: 'Open the Export Center' }).click();
      await page.waitForURL(`${app}/exports`);
      expect(await exportsOfProject()).toHaveLength(2);
    } finally {
      await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, project.id), UpdateExpression: 'SET accountCount = :n', ExpressionAttributeValues: { ':n': ROWS } }));
    }
  }, 60_000);
});
