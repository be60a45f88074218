import { describe, expect, it, inject } from 'vitest';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { BulkJob } from '../../shared/schemas/bulk';
import { UPLOAD_CSV_MAX_BYTES, UPLOAD_MAX_ROWS, uploadMessages, type BulkUpload, type BulkUploadForm, type BulkUploadStartRequest } from '../../shared/schemas/bulk-upload';
import { keys } from '../../functions/core/keys';
import { MAX_ACCOUNT_SHARDS } from '../../functions/accounts/account-partitions';
import { readUpload, uploadKey } from '../../functions/bulk/bulk-uploads';
import { signedUploadObjects } from '../../functions/bulk/upload-requests';
import { timeOrderedId } from '../../functions/core/ids';
import { localCredentials } from '../../bin/local/bootstrap';
import { apiUser, testDb, upgradeToPro, type ApiUser } from '../support/api';

const stack = inject('stack');
const s3 = new S3Client({ region: 'us-east-1', endpoint: stack.urls.s3, forcePathStyle: true, credentials: localCredentials });
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

/** The browser's way: ask for the form, POST the file straight to the bucket. */
async function upload(user: ApiUser, body: Buffer | string): Promise<string> {
  const response = await user.call('/api/bulk-uploads', { method: 'POST' });
  expect(response.status).toBe(201);
  const form = (await response.json()) as BulkUploadForm;
  expect(form.maxBytes).toBe(UPLOAD_CSV_MAX_BYTES);
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
  data.append('file', new Blob([typeof body === 'string' ? body : new Uint8Array(body)], { type: 'text/csv' }), 'people.csv');
  const answer = await fetch(form.url, { method: 'POST', body: data });
  expect(answer.status, await answer.clone().text()).toBeLessThan(300);
  return form.id;
}

const start = (user: ApiUser, id: string, options: Partial<BulkUploadStartRequest> = {}) =>
  user.call(`/api/bulk-uploads/${id}/start`, { method: 'POST', body: { projectName: 'Uploaded', ...options } });

async function settled(user: ApiUser, id: string): Promise<BulkUpload> {
  for (let i = 0; i < 600; i++) {
    const state = await user.json<BulkUpload>(`/api/bulk-uploads/${id}`);
    if (state.status === 'checked' || state.status === 'queued' || state.status === 'failed') return state;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the upload was not read');
}

async function waitForJob(user: ApiUser, id: string): Promise<BulkJob> {
  for (let i = 0; i < 600; i++) {
    const job = await user.json<BulkJob>(`/api/bulk-jobs/${id}`);
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('job did not finish');
}

async function countAccounts(userId: string, projectId: string): Promise<number> {
  let count = 0;
  for (const pk of keys.accountPartitions(userId, projectId, MAX_ACCOUNT_SHARDS)) {
    let from: Record<string, unknown> | undefined;
    do {
      const page = await testDb().send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT', ExclusiveStartKey: from }));
      count += page.Count ?? 0;
      from = page.LastEvaluatedKey;
    } while (from);
  }
  return count;
}

const usage = async (userId: string) => {
  const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(userId), ConsistentRead: true }));
  return { projects: Number(Item?.projectCount ?? 0), accounts: Number(Item?.accountCount ?? 0) };
};

const objectExists = async (userId: string, id: string) =>
  s3.send(new HeadObjectCommand({ Bucket: 'bulkonboard-exports', Key: uploadKey(userId, id) })).then(
    () => true,
    (error: unknown) => {
      if ((error as { name?: string }).name !== 'NotFound') throw error;
      return false;
    },
  );

/** A file of `count` people, a header first (so row n is on line n + 1). */
const csvOf = (count: number, line: (i: number) => string = (i) => `P${i},Upload,p${i}@example.com`) => {
  const lines = ['First Name,Last Name,Email'];
  for (let i = 0; i < count; i++) lines.push(line(i));
  return `${lines.join('\n')}\n`;
};

describe('bulk creation from a file uploaded to S3', () => {
  it('refuses files it cannot take with a clear message, creates nothing and deletes the file', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const latin1 = Buffer.concat([Buffer.from('First Name,Last Name,Email\nJos'), Buffer.from([0xe9]), Buffer.from(',Garc\u00eda,jose@example.com\n', 'latin1')]);
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x08, 0x00]), Buffer.alloc(200, 7)]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('First Name,Last Name,Email\nA,B,a@example.com\n', 'utf16le')]);
    const tooManyRows = csvOf(UPLOAD_MAX_ROWS + 1, (i) => `A,B,r${i}@x.io`);
    for (const [body, message] of [
      [latin1, uploadMessages.notUtf8],
      [zip, uploadMessages.notText],
      [utf16, uploadMessages.notUtf8],
      [tooManyRows, `The file has more than 250,000 rows; the limit is 250,000 per file.`],
      ['First Name,Phone\nAda,123\n', 'The CSV needs First Name, Last Name and Email columns.'],
    ] as const) {
      const id = await upload(user, body);
      const started = await start(user, id);
      expect(started.status).toBe(202);
      const state = await settled(user, id);
      expect({ status: state.status, reason: state.reason }).toEqual({ status: 'failed', reason: message });
      expect(await objectExists(user.sub, id)).toBe(false);
    }
    expect(await usage(user.sub)).toEqual({ projects: 0, accounts: 0 });
    expect(await user.json<unknown[]>('/api/projects')).toHaveLength(0);
  }, 180_000);

  it('refuses a file over 50 MB at the start (413) and deletes it', async () => {
    const user = await apiUser();
    const line = 'Averyveryveryverylongfirstname,Averyveryveryverylonglastname,someone@example.com\n';
    const body = Buffer.alloc(UPLOAD_CSV_MAX_BYTES + 1, line);
    const id = await upload(user, body);
    const started = await start(user, id);
    expect(started.status).toBe(413);
    expect(await started.json()).toMatchObject({ message: 'The file is 50.1 MB; the limit is 50 MB.' });
    expect(await objectExists(user.sub, id)).toBe(false);
    expect((await user.json<BulkUpload>(`/api/bulk-uploads/${id}`)).status).toBe('failed');
    expect(await usage(user.sub)).toEqual({ projects: 0, accounts: 0 });
  }, 120_000);

  it('creates a mid-size file as a job, every row accounted for; the file is deleted; a second delivery creates nothing', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // 3,000 rows: every 100th has no e-mail, every 250th repeats row 0's address.
    const text = csvOf(3000, (i) => (i % 100 === 99 ? `P${i},Upload,` : i % 250 === 249 ? `P${i},Upload,p0@example.com` : `P${i},Upload,p${i}@example.com`));
    const id = await upload(user, text);
    expect((await start(user, id, { accountType: 'Training Account' })).status).toBe(202);
    const state = await settled(user, id);
    expect(state.status, state.reason).toBe('queued');
    const invalid = Array.from({ length: 3000 }, (_, i) => i).filter((i) => i % 100 === 99 || i % 250 === 249).length;
    expect(state).toMatchObject({ total: 3000, validCount: 3000 - invalid, failedCount: invalid, rowsRead: 3000 });
    expect(state.failed![0]).toMatchObject({ row: 101, field: 'email' });
    expect(state.job!.id).toBe(id);
    expect(await objectExists(user.sub, id)).toBe(false);

    const job = await waitForJob(user, id);
    expect(job.status).toBe('completed');
    expect(job.done + job.failedCount).toBe(state.validCount);
    expect(await countAccounts(user.sub, id)).toBe(job.done);
    expect(job.done + job.failedCount + state.failedCount!).toBe(3000);
    // Every rejected row downloadable with its line, from the project's report.
    const report = await user.call(`/api/projects/${id}/rejected-rows`);
    expect(report.status).toBe(200);
    const lines = (await report.text()).trim().split(/\r?\n/);
    expect(lines).toHaveLength(1 + invalid);
    expect(lines[1]).toMatch(/^101,P99,Upload,,/);
    const before = await usage(user.sub);
    expect(before).toEqual({ projects: 1, accounts: 3000 - invalid });

    // The same start message delivered again after the reading ended: nothing happens.
    await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls['bulk-uploads'], MessageBody: JSON.stringify({ userId: user.sub, uploadId: id }) }));
    // As if the first delivery had died after starting the job and before recording it: the next
    // delivery finds the job (its id is the upload's) and only records it.
    await testDb().send(
      new UpdateCommand({
        TableName: 'bulkonboard',
        Key: keys.bulkUpload(user.sub, id),
        UpdateExpression: 'SET #status = :reading, readingSince = :long REMOVE job',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':reading': 'reading', ':long': Date.now() - 60 * 60 * 1000 },
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls['bulk-uploads'], MessageBody: JSON.stringify({ userId: user.sub, uploadId: id }) }));
    expect((await settled(user, id)).status).toBe('queued');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await usage(user.sub)).toEqual(before);
    expect(await countAccounts(user.sub, id)).toBe(job.done);
    expect(await user.json<unknown[]>('/api/projects')).toHaveLength(1);
  }, 180_000);

  it("'check first' keeps the per-row report and creates nothing; the same file then creates", async () => {
    const user = await apiUser();
    const text = csvOf(40, (i) => (i === 4 ? 'Ann,,ann@example.com' : i === 9 ? `P${i},Upload,not-an-address` : `P${i},Upload,p${i}@example.com`));
    const id = await upload(user, text);
    expect((await start(user, id, { checkOnly: true })).status).toBe(202);
    const checked = await settled(user, id);
    expect(checked).toMatchObject({ status: 'checked', checkOnly: true, total: 40, validCount: 38, failedCount: 2, rowsRead: 40 });
    expect(checked.failed).toEqual([
      { row: 6, field: 'lastName', email: 'ann@example.com', message: 'Last name is required' },
      { row: 11, field: 'email', email: 'not-an-address', message: 'Valid email is required' },
    ]);
    const report = await user.call(checked.rejectedRowsUrl!);
    expect(report.status).toBe(200);
    expect((await report.text()).trim().split(/\r?\n/).slice(1)).toEqual(['6,Ann,,ann@example.com,Last name is required', '11,P9,Upload,not-an-address,Valid email is required']);
    expect(await usage(user.sub)).toEqual({ projects: 0, accounts: 0 });
    expect(await objectExists(user.sub, id)).toBe(true);

    // A free user's limits hold: 38 accounts fit one project (100 at most).
    expect((await start(user, id)).status).toBe(202);
    const created = await settled(user, id);
    expect(created.status, created.reason).toBe('queued');
    const job = await waitForJob(user, id);
    expect(job).toMatchObject({ status: 'completed', done: 38, failedCount: 0 });
    expect(await usage(user.sub)).toEqual({ projects: 1, accounts: 38 });
    expect(await objectExists(user.sub, id)).toBe(false);
    // Over: nothing more may start from it.
    expect((await start(user, id)).status).toBe(409);
  }, 120_000);

  it('fails a file replaced between its two readings (a second POST of its form) with a message, and creates nothing', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const id = await upload(user, csvOf(30));
    // Started as the start route starts it, but not queued: this test's worker reads it, not the stack's.
    await testDb().send(
      new UpdateCommand({
        TableName: 'bulkonboard',
        Key: keys.bulkUpload(user.sub, id),
        UpdateExpression: 'SET #status = :started, options = :options, checkOnly = :no',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':started': 'started', ':options': { projectName: 'Replaced', accountType: 'Standard User', checkOnly: false, passwordSettings: { minLength: 12, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: false } }, ':no': false },
      }),
    );
    // The real bucket; the file is replaced by a second upload just before the second reading.
    const objects = signedUploadObjects('bulkonboard-exports', { region: 'us-east-1', endpoint: stack.urls.s3, pathStyle: true, credentials: localCredentials });
    let readings = 0;
    let creations = 0;
    const read = readUpload({
      db: testDb(),
      tableName: 'bulkonboard',
      objects: {
        ...objects,
        async read(key, ifMatch) {
          if (++readings === 2) await s3.send(new PutObjectCommand({ Bucket: 'bulkonboard-exports', Key: key, Body: csvOf(3000) }));
          return objects.read(key, ifMatch);
        },
      },
      now: () => new Date(),
      newId: timeOrderedId,
      create: async () => {
        creations++;
        throw new Error('a replaced file must not be created');
      },
    });
    await read({ userId: user.sub, uploadId: id });
    expect(readings).toBe(2);
    expect(creations).toBe(0);
    expect(await user.json<BulkUpload>(`/api/bulk-uploads/${id}`)).toMatchObject({ status: 'failed', reason: uploadMessages.changed });
    expect(await usage(user.sub)).toEqual({ projects: 0, accounts: 0 });
    expect(await objectExists(user.sub, id)).toBe(false);
  }, 60_000);

  it("holds a free user's limits exactly as a request does: over 100 rows, nothing created", async () => {
    const user = await apiUser();
    const id = await upload(user, csvOf(101));
    expect((await start(user, id)).status).toBe(202);
    const state = await settled(user, id);
    expect(state).toMatchObject({ status: 'failed', reason: 'The free plan allows at most 100 accounts per project; this request has 101.', total: 101, validCount: 101 });
    expect(await usage(user.sub)).toEqual({ projects: 0, accounts: 0 });
    expect(await objectExists(user.sub, id)).toBe(false);
    // Pro options are refused to a free user with the same words as a request.
    const again = await upload(user, csvOf(5));
    expect((await start(user, again, { sendCredentials: { delivery: 'password' } })).status).toBe(202);
    expect((await settled(user, again)).reason).toMatch(/Pro/);
    expect(await usage(user.sub)).toEqual({ projects: 0, accounts: 0 });
  }, 60_000);

  it("answers 404 to another user's upload, its job, its report and its start", async () => {
    const owner = await apiUser();
    const other = await apiUser();
    const id = await upload(owner, csvOf(3));
    for (const [path, method] of [
      [`/api/bulk-uploads/${id}`, 'GET'],
      [`/api/bulk-uploads/${id}/rejected-rows`, 'GET'],
      [`/api/bulk-uploads/${id}/start`, 'POST'],
      [`/api/bulk-jobs/${id}`, 'GET'],
    ] as const) {
      const response = await other.call(path, { method, ...(method === 'POST' ? { body: { projectName: 'Not mine' } } : {}) });
      expect(response.status, path).toBe(404);
    }
    // Nothing of the owner's changed: it still waits for its start.
    expect((await owner.json<BulkUpload>(`/api/bulk-uploads/${id}`)).status).toBe('waiting');
    // An upload that never arrived cannot start.
    const form = await owner.json<BulkUploadForm>('/api/bulk-uploads', { method: 'POST' });
    const missing = await start(owner, form.id);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ message: uploadMessages.notArrived });
  });
});
