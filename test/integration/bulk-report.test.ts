import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import Papa from 'papaparse';
import { FAILED_ROWS_INLINE_MAX, PASSWORD_NO_CLASS_MESSAGE, type BulkCreateSummary, type BulkJob, type CreatedAccount } from '../../shared/schemas/bulk';
import { until } from '../support/until';
import type { Integration } from '../../shared/schemas/integrations';
import type { Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { keys } from '../../functions/core/keys';
import { MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';

type Created = { project: Project; accounts: CreatedAccount[]; summary: BulkCreateSummary };

const profile = async (user: ApiUser) =>
  (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, ConsistentRead: true }))).Item ?? {};

async function storedAccounts(user: ApiUser): Promise<number> {
  let count = 0;
  for (const project of await user.json<Project[]>('/api/projects')) {
    // Every shard a project may have (a missing partition counts 0).
    for (const pk of keys.accountPartitions(user.sub, project.id, MAX_ACCOUNT_SHARDS)) {
      const { Count = 0 } = await testDb().send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT' }));
      count += Count;
    }
  }
  return count;
}

/** 31,000 rows: 1,000 people and 30,000 rows with long invalid e-mails (their rejections alone are ~6 MB; the whole is just under the request cap of 8 MB of rows as JSON). */
function mostlyInvalid() {
  const rows: { firstName: string; lastName: string; email: string }[] = [];
  for (let i = 0; i < 31_000; i++) {
    if (i % 31 === 0) rows.push({ firstName: `Good${i}`, lastName: 'Person', email: `good${i}@example.com` });
    else rows.push({ firstName: i === 1 ? '=HYPERLINK("http://x","click")' : `Bad${i}`, lastName: 'Row', email: `${'x'.repeat(150)}${i}` });
  }
  return rows;
}

describe('a large, mostly invalid file', () => {
  it('is a job however few of its rows are valid (every row is read and checked): 202 at once, the first rejections inline, then the accounts and the full report as CSV', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const rows = mostlyInvalid();
    const response = await user.call('/api/bulk-create', { body: { projectName: 'Mostly invalid', csvDataGzip: gzipSync(JSON.stringify(rows)).toString('base64') } });
    const text = await response.text();
    // Issue 26: 1,000 valid rows of 31,000 were answered at once, and the request answered 500 after 29 s with the accounts stored.
    expect(response.status, text.slice(0, 200)).toBe(202);
    expect(Buffer.byteLength(text)).toBeLessThan(6 * 1024 * 1024);
    const started = JSON.parse(text) as Omit<Created, 'accounts'> & { job: BulkJob };
    expect(started).not.toHaveProperty('accounts');
    expect(started.summary).toMatchObject({ total: 31_000, successful: 0, failedCount: 30_000, rejectedRowsUrl: `/api/projects/${started.project.id}/rejected-rows` });
    expect(started.summary.failed).toHaveLength(FAILED_ROWS_INLINE_MAX);
    expect(started.summary.failed[0]).toMatchObject({ row: 2, field: 'email', message: 'Valid email is required' });
    expect(started.job).toMatchObject({ total: 1000, projectId: started.project.id });
    const job = await until('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${started.job.id}`), (j) => j.status === 'completed' || j.status === 'failed');
    expect(job).toMatchObject({ status: 'completed', done: 1000, failedCount: 0 });
    const project = (await user.json<Project[]>('/api/projects')).find((p) => p.id === started.project.id);
    expect(project).toMatchObject({ accountCount: 1000, failedCount: 30_000 });
    expect(await storedAccounts(user)).toBe(1000);
    const created = started;

    const report = await user.call(created.summary.rejectedRowsUrl!, { headers: { 'accept-encoding': 'gzip' } });
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toContain('text/csv');
    expect(report.headers.get('content-disposition')).toContain('Mostly invalid_rejected_rows.csv');
    const csv = (await report.text()).replace(/^\uFEFF/, '');
    const lines = Papa.parse<string[]>(csv, { skipEmptyLines: true }).data;
    expect(lines[0]).toEqual(['Row', 'First Name', 'Last Name', 'Email', 'Problem']);
    expect(lines).toHaveLength(30_001);
    const expectedRows = rows.flatMap((_, i) => (i % 31 === 0 ? [] : [String(i + 1)]));
    expect(lines.slice(1).map((line) => line[0])).toEqual(expectedRows);
    // Formula injection neutralised by the shared writer.
    expect(lines[1]).toEqual(['2', `'=HYPERLINK("http://x","click")`, 'Row', `${'x'.repeat(150)}1`, 'Valid email is required']);

    const bob = await apiUser();
    expect((await bob.call(created.summary.rejectedRowsUrl!)).status).toBe(404);
    expect((await user.call(`/api/projects/${'x'.repeat(5000)}/rejected-rows`)).status).toBe(404);
  }, 240_000);

  it('lists at most the first rejections when none of the rows can be created', async () => {
    const user = await apiUser();
    const rows = Array.from({ length: 5000 }, (_, i) => ({ firstName: 'No', lastName: 'Mail', email: `nope${i}` }));
    const response = await user.call('/api/bulk-create', { body: { projectName: 'Nothing', csvData: rows } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { message: string; details: unknown[] };
    expect(body.message).toBe('None of the rows can be created.');
    expect(body.details).toHaveLength(FAILED_ROWS_INLINE_MAX);
  });
});

describe('Idempotency-Key on POST /api/bulk-create', () => {
  it('answers a retry with the first result and creates nothing again', async () => {
    const user = await apiUser();
    const request = { body: { projectName: 'Once', csvData: people(3, 'Once') }, headers: { 'idempotency-key': 'key-1' } };
    const first = await user.call('/api/bulk-create', request);
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as Created;
    const again = await user.call('/api/bulk-create', request);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same accounts with the same passwords: the user can still read what the first answer held.
    expect(await again.json()).toEqual(firstBody);
    expect(await user.json<Project[]>('/api/projects')).toHaveLength(1);
    expect(await storedAccounts(user)).toBe(3);
    expect(await profile(user)).toMatchObject({ projectCount: 1, accountCount: 3 });
    // The stored answer holds passwords: only encrypted.
    const { Items = [] } = await testDb().send(
      new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': `USER#${user.sub}`, ':sk': 'IDEMPOTENCY#key-1' } }),
    );
    expect(Items.length).toBeGreaterThanOrEqual(2);
    for (const account of firstBody.accounts) expect(JSON.stringify(Items)).not.toContain(account.plainPassword);

    // Another body under the same key: 422. A new key: a new creation.
    const other = await user.call('/api/bulk-create', { ...request, body: { projectName: 'Other', csvData: people(1, 'Other') } });
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ message: 'This Idempotency-Key was already used for a different request.' });
    expect((await user.call('/api/bulk-create', { ...request, headers: { 'idempotency-key': 'key-2' } })).status).toBe(200);
    expect(await storedAccounts(user)).toBe(6);
    expect((await user.call('/api/bulk-create', { ...request, headers: { 'idempotency-key': 'bad#key' } })).status).toBe(400);
  });

  it('answers 409 while the first request with the key still runs, then the first result', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const request = { body: { projectName: 'Slow', csvData: people(1000, 'Slow') }, headers: { 'idempotency-key': 'slow-1' } };
    const first = user.call('/api/bulk-create', request);
    const deadline = Date.now() + 10_000;
    let running = false;
    while (!running && Date.now() < deadline) {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'IDEMPOTENCY#slow-1' }, ConsistentRead: true }));
      running = Item?.status === 'running';
      if (Item?.status === 'done') break;
    }
    expect(running).toBe(true);
    const second = await user.call('/api/bulk-create', request);
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ message: 'A request with this Idempotency-Key is still in progress' });
    const firstResponse = await first;
    expect(firstResponse.status).toBe(200);
    const firstBody = await firstResponse.json();
    const third = await user.call('/api/bulk-create', request);
    expect(await third.json()).toEqual(firstBody);
    expect(await storedAccounts(user)).toBe(1000);
  });

  it('gives the key up when the request fails, so the same request can be tried again', async () => {
    const user = await apiUser();
    const request = { body: { projectName: 'Fails', csvData: [{ firstName: 'A', lastName: 'B', email: 'no' }] }, headers: { 'idempotency-key': 'fails-1' } };
    expect((await user.call('/api/bulk-create', request)).status).toBe(400);
    expect((await user.call('/api/bulk-create', request)).status).toBe(400);
  });
});

describe('password settings that cannot make a password', () => {
  const noClass = { minLength: 12, includeUppercase: false, includeLowercase: false, includeNumbers: false, includeSpecialChars: false, avoidAmbiguous: false };

  it('answer 400 with a clear message before anything is written, for a small request and a job', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    for (const rows of [3, 1500]) {
      const response = await user.call('/api/bulk-create', { body: { projectName: 'No class', csvData: people(rows, `N${rows}x`), passwordSettings: noClass } });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ message: PASSWORD_NO_CLASS_MESSAGE });
    }
    for (const minLength of [9, 51, 12.5]) {
      const response = await user.call('/api/bulk-create', { body: { projectName: 'Bad length', csvData: people(2), passwordSettings: { minLength } } });
      expect(response.status).toBe(400);
    }
    const stored = await profile(user);
    expect(stored.projectCount ?? 0).toBe(0);
    expect(stored).not.toHaveProperty('bulkLock');
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Fine', csvData: people(1500, 'Fine'), passwordSettings: { ...noClass, includeNumbers: true } } })).status).toBe(202);
  });
});

describe('apiIntegrationId on POST /api/bulk-create', () => {
  it("answers 404 for another user's or a made-up integration, and creates with one's own", async () => {
    const [owner, other] = [await apiUser(), await apiUser()];
    await Promise.all([upgradeToPro(owner), upgradeToPro(other)]);
    const integration = await owner.json<Integration>('/api/integrations', {
      body: { name: 'Okta', platform: 'okta', apiType: 'REST', baseUrl: 'https://acme.okta.com', authMethod: 'api_key', authConfig: { apiKey: 'k' }, apiConfig: {} },
    });
    const create = (user: ApiUser, apiIntegrationId: string) => user.call('/api/bulk-create', { body: { projectName: 'With API', csvData: people(2, 'Api'), apiIntegrationId } });
    for (const id of [integration.id, 'made-up', 'x'.repeat(5000)]) {
      const refused = await create(other, id);
      expect(refused.status, id.slice(0, 20)).toBe(404);
      expect(await refused.json()).toMatchObject({ message: 'Integration not found' });
    }
    expect(await other.json<Project[]>('/api/projects')).toHaveLength(0);
    expect((await create(owner, integration.id)).status).toBe(200);
  });
});
