/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { Integration } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import { launchChromium, screenshotPath, signInThroughApp } from '../support/browser';
import { until } from '../support/until';
import { queues } from '../../shared/routes';

const stack = inject('stack');
const app = stack.urls.app;

const csv = (rows: [string, string, string][]) => ['First Name,Last Name,Email', ...rows.map((row) => row.join(','))].join('\r\n');

async function directory(who: ApiUser, name: string, pacing: { concurrency: number; requestsPerMinute?: number } = { concurrency: 2 }): Promise<Integration> {
  return who.json<Integration>('/api/integrations', {
    method: 'POST',
    // Few calls in flight: a chunk of 250 takes seconds, as on a real platform.
    body: { name, platform: 'custom', baseUrl: stack.scim.url, authMethod: 'bearer_token', authConfig: { token: stack.scim.token }, apiConfig: { testPath: '/ServiceProviderConfig', provisioning: pacing } },
  });
}

/** The provisioning queue's workers in the test stack: a run on a platform holds one of them. */
const WORKERS = queues.find((queue) => queue.name === 'provisioning')!.maxConcurrency;

/**
 * Fair turns on the shared provisioning queue, as a user sees them: while another user's runs
 * hold every worker of the queue (a run on a platform holds one: one per integration, so one run
 * per worker, each on an integration of its own paced to a call a second), a 3-person bulk
 * creation onto a platform shows its run as Queued with the reason (other runs' chunks ahead of
 * it), then Completed, without waiting for the other runs to end.
 */
describe('a provisioning run waiting on the shared queue, in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let other: ApiUser;
  let user: ApiUser;
  const tag = `${Date.now() % 100_000}`;

  beforeAll(async () => {
    other = await apiUser();
    user = await apiUser({ firstName: 'Queued', lastName: 'Tester' });
    await upgradeToPro(other);
    await upgradeToPro(user);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signInThroughApp(page, app, user);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') await page.screenshot({ path: screenshotPath(`failed-${context.task.name.replace(/\W+/g, '-')}`) }).catch(() => undefined);
  });

  it("shows the run as Queued with the reason while another user's runs hold every worker, then Completed", async () => {
    const mine = await directory(user, `Queue directory ${tag}`);
    // The other user's runs: one per worker, 1,000 accounts each (4 chunks of 250, each a few calls a second apart), on integrations of their own.
    const theirs: Integration[] = [];
    const large: Project[] = [];
    for (let i = 0; i < WORKERS; i++) {
      theirs.push(await directory(other, `Large directory ${tag} ${i}`, { concurrency: 1, requestsPerMinute: 60 }));
      const created = await other.json<{ project: Project; job?: BulkJob }>('/api/bulk-create', { method: 'POST', body: { projectName: `Large ${tag} ${i}`, csvData: people(1000, `Large${tag}n${i}`) } });
      if (created.job) await until('a large bulk job', () => other.json<BulkJob>(`/api/bulk-jobs/${created.job!.id}`), (job) => job.status === 'completed');
      large.push(created.project);
    }

    await page.goto(`${app}/bulk-creator`);
    await page.getByRole('heading', { name: 'Bulk Account Creator', level: 1 }).waitFor();
    const rows: [string, string, string][] = [
      ['Queued', `First${tag}`, `queued.first${tag}@example.com`],
      ['Queued', `Second${tag}`, `queued.second${tag}@example.com`],
      ['Queued', `Third${tag}`, `queued.third${tag}@example.com`],
    ];
    await page.getByLabel('Upload CSV').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv(rows)) });
    const dialog = page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.getByText('3 valid').waitFor();
    await dialog.getByLabel('Project name').fill(`Queued ${tag}`);
    const section = dialog.getByRole('group', { name: 'Create accounts on a platform' });
    await section.getByText('Also create these accounts on the platform of an integration').click();
    await section.getByRole('combobox', { name: 'Integration' }).selectOption(mine.id);

    const runs: ProvisioningJob[] = [];
    for (let i = 0; i < WORKERS; i++) runs.push(await other.json<ProvisioningJob>(`/api/projects/${large[i]!.id}/provision`, { method: 'POST', body: { integrationId: theirs[i]!.id } }));
    for (const run of runs) await until('a large run picked up', () => other.json<ProvisioningJob>(`/api/provisioning-jobs/${run.id}`), (job) => job.status === 'running' && job.waitReason === undefined);

    await dialog.getByRole('button', { name: 'Generate Accounts' }).click();
    await dialog.getByText('3 accounts created').waitFor();
    const progress = dialog.getByRole('group', { name: `Provisioning to Queue directory ${tag}` });
    const reason = progress.getByTestId('provisioning-wait-reason');
    await reason.waitFor();
    expect(await reason.innerText()).toMatch(/^Queued( behind about \d+ chunks? of other runs on the shared provisioning queue\. Runs take turns chunk by chunk, so this one starts as soon as a worker is free\.|: )/);
    await progress.getByText('Queued', { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath('provisioning-queued-behind-other-runs') });

    await progress.getByText('3 synced, 0 failed, 0 pending of 3').waitFor();
    await progress.getByText('Completed').waitFor();
    expect(await reason.count()).toBe(0);
    // It did not wait for the other runs to end.
    const still = await Promise.all(runs.map((run) => other.json<ProvisioningJob>(`/api/provisioning-jobs/${run.id}`)));
    expect(still.some((run) => run.status === 'running')).toBe(true);
  }, 240_000);
});
