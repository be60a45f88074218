import { describe, expect, inject, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { PLATFORM_WINDOW } from '../../functions/provisioning/chunk-window';
import type { Integration } from '../../shared/schemas/integrations';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';

/**
 * Fair turns on the shared provisioning queue (issue 15, part 5): one user's large run keeps a
 * window of chunks on the queue, so another user's small run started after it waits behind a few
 * of them, not behind all of them, and says why while it waits. Through the API and the stack's
 * own workers and SCIM directory, as in use.
 */
const scim = () => inject('stack').scim;

async function directory(who: ApiUser, name: string): Promise<Integration> {
  const response = await who.call('/api/integrations', {
    // Two calls in flight for all workers: a chunk of 250 takes a while, as on a real platform.
    body: { name, platform: 'custom', baseUrl: scim().url, authMethod: 'bearer_token', authConfig: { token: scim().token }, apiConfig: { testPath: '/ServiceProviderConfig', provisioning: { concurrency: 2 } } },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Integration;
}

/** The run's item as the workers keep it: chunks planned and done. */
const runItem = async (userId: string, jobId: string) =>
  (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.provisioningJob(userId, jobId), ConsistentRead: true }))).Item ?? {};

describe('fair turns on the provisioning queue', () => {
  it("another user's 5-account run ends while a 3,000-account run is still going, having said why it waited", async () => {
    const [a, b] = [await apiUser(), await apiUser()];
    await upgradeToPro(a);
    await upgradeToPro(b);
    const [aDirectory, bDirectory] = [await directory(a, 'A directory'), await directory(b, 'B directory')];

    // A's 3,000 accounts (a bulk job), then B's 5 (answered at once): both only created here.
    const aCreated = await a.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Large', csvData: people(3000, 'FairLarge') } });
    await until('the large bulk job', () => a.json<BulkJob>(`/api/bulk-jobs/${aCreated.job.id}`), (job) => job.status === 'completed');
    const bCreated = await b.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Small', csvData: people(5, 'FairSmall') } });

    const aRun = await a.json<ProvisioningJob>(`/api/projects/${aCreated.project.id}/provision`, { method: 'POST', body: { integrationId: aDirectory.id } });
    // A's run planned: its chunks are known, and only a window of them is on the queue.
    const planned = await until('the large run planned', () => runItem(a.sub, aRun.id), (item) => Number(item.chunks ?? 0) > 0);
    const aChunks = Number(planned.chunks);
    expect(aChunks).toBeGreaterThanOrEqual(4 * PLATFORM_WINDOW);
    expect(planned.window).toBe(PLATFORM_WINDOW);

    const bRun = await b.json<ProvisioningJob>(`/api/projects/${bCreated.project.id}/provision`, { method: 'POST', body: { integrationId: bDirectory.id } });
    const reasons: string[] = [];
    const bDone = await until(
      'the small run',
      async () => {
        const job = await b.json<ProvisioningJob>(`/api/provisioning-jobs/${bRun.id}`);
        if (job.waitReason) reasons.push(job.waitReason);
        return job;
      },
      (job) => job.status === 'completed' || job.status === 'failed',
      120_000,
      50,
    );
    const aThen = await runItem(a.sub, aRun.id);
    expect(bDone).toMatchObject({ status: 'completed', total: 5, synced: 5, failed: 0, pending: 0 });
    expect(bDone.waitReason).toBeUndefined();
    // B waited behind a window of A's chunks, not behind all of them: A is still far from done.
    // (Without the window, B's start message queues behind every chunk of A and B ends when
    // nearly all of A's are done.)
    expect(aThen.status).toBe('running');
    expect(Number(aThen.chunksDone ?? 0)).toBeLessThanOrEqual(aChunks / 2);
    // While it waited it said so, and why: A's chunks ahead of it on the shared queue.
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons[0]).toMatch(/^Queued( behind about \d+ chunks? of other runs on the shared provisioning queue\.|: )/);

    // Another user's run is not theirs to see.
    expect((await a.call(`/api/provisioning-jobs/${bRun.id}`)).status).toBe(404);

    // A's run goes on to the end with every chunk released by the one before it: all 3,000 synced, once.
    const aDone = await until('the large run', () => a.json<ProvisioningJob>(`/api/provisioning-jobs/${aRun.id}`), (job) => job.status === 'completed' || job.status === 'failed', 240_000, 250);
    expect(aDone).toMatchObject({ status: 'completed', total: 3000, synced: 3000, failed: 0, pending: 0 });
    expect(aDone.waitReason).toBeUndefined();
    expect(Number((await runItem(a.sub, aRun.id)).chunksDone)).toBe(aChunks);
  }, 420_000);

  it('a paused run of several windows resumes with its due chunks and goes on to the end, chunk releasing chunk', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const wrong = await user.json<Integration>('/api/integrations', {
      method: 'POST',
      body: { name: 'Wrong token', platform: 'custom', baseUrl: scim().url, authMethod: 'bearer_token', authConfig: { token: 'not-the-token' }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const created = await user.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Paused windows', csvData: people(1300, 'FairPause') } });
    await until('the bulk job', () => user.json<BulkJob>(`/api/bulk-jobs/${created.job.id}`), (job) => job.status === 'completed');
    const run = await user.json<ProvisioningJob>(`/api/projects/${created.project.id}/provision`, { method: 'POST', body: { integrationId: wrong.id } });
    const paused = await until('the run paused', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${run.id}`), (job) => job.status === 'paused');
    expect(paused).toMatchObject({ total: 1300, synced: 0, failed: 0, pending: 1300 });
    const item = await runItem(user.sub, run.id);
    expect(Number(item.chunks)).toBeGreaterThan(2 * PLATFORM_WINDOW);
    expect(Number(item.chunksDone ?? 0)).toBe(0);

    const edited = await user.call(`/api/integrations/${wrong.id}`, {
      method: 'PUT',
      body: { name: 'Right token', platform: 'custom', baseUrl: scim().url, authMethod: 'bearer_token', authConfig: { token: scim().token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    expect(edited.status).toBe(200);
    expect((await user.json<Integration>(`/api/integrations/${wrong.id}/test`, { method: 'POST' })).lastTestStatus).toBe('success');
    const done = await until('the resumed run', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${run.id}`), (job) => job.status === 'completed' || job.status === 'failed', 180_000, 250);
    // Every chunk done and every account created. In CI (two test lanes, heavy load) one of the
    // 1,300 once ended failed (reason not captured), and later two, rows 1 and 501, with the wrong
    // token's 401: a delivery with one call in flight failed its first account after two refusals
    // (fixed; provisioning.test.ts, "with one call in flight"). Any failure's reason is printed.
    expect(done).toMatchObject({ status: 'completed', total: 1300, pending: 0 });
    expect(done.synced + done.failed).toBe(1300);
    if (done.failed > 0) {
      const reasons: string[] = [];
      for (let cursor: string | undefined, i = 0; i < 20 && reasons.length < done.failed; i++) {
        const page = await user.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        for (const account of page.items) if (account.externalStatus === 'failed') reasons.push(`${account.username}: ${account.externalError ?? '(no reason)'}`);
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      console.warn(`Provisioning accounts failed after the resume: ${reasons.join(' | ')}`);
    }
    expect(done).toMatchObject({ synced: 1300, failed: 0 });
    expect(Number((await runItem(user.sub, run.id)).chunksDone)).toBe(Number(item.chunks));
  }, 300_000);
});
