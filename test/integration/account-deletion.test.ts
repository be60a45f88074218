import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { AdminGetUserCommand, CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ExportView } from '../../shared/exports';
import type { Project } from '../../shared/schemas/project';
import { redriveDeletion } from '../../functions/account-deletion/redrive-deletion';
import { sqsDeletionQueue } from '../../functions/account-deletion/deletion-queue';
import { AccountBusyError, deleteAccount, STOPPED_FOR_DELETION, type DeleteAccountDeps } from '../../functions/account-deletion/delete-account';
import { dynamoDeletionRequestStore } from '../../functions/account-deletion/deletion-request-store';
import { dynamoErasureStore } from '../../functions/account-deletion/erasure-store';
import { cognitoIdentityAdmin } from '../../functions/account-deletion/identity-admin';
import { s3UserFiles } from '../../functions/account-deletion/user-files';
import { billingProvider } from '../../functions/billing/billing-config';
import { keys } from '../../functions/core/keys';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { issueCredentialLink } from '../../functions/credential-links/issue-credential-link';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';

const TABLE = 'bulkonboard';
const BUCKET = 'bulkonboard-exports';
const stack = inject('stack');
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const s3Client = () => new S3Client({ region: 'us-east-1', endpoint: stack.urls.s3, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
const cognitoClient = () => new CognitoIdentityProviderClient({ region: 'us-east-1', endpoint: stack.urls.cognito, credentials });

async function until<T>(what: string, probe: () => Promise<T | undefined>, tries = 600, ms = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(ms);
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function scanTable(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await testDb().send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

async function listBucket(): Promise<string[]> {
  const client = s3Client();
  const found: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
    found.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  client.destroy();
  return found;
}

/** Every item that names the user anywhere: in a key, an index key, or any attribute. */
const itemsOf = (items: Record<string, unknown>[], marks: string[]) => items.filter((item) => marks.some((mark) => JSON.stringify(item).includes(mark)));

async function exportFile(user: ApiUser, projectId: string): Promise<ExportView> {
  const started = await user.json<ExportView>('/api/exports', { body: { projectId, format: 'csv' } });
  return until('export', async () => {
    const found = (await user.json<ExportView[]>('/api/exports/history')).find((e) => e.id === started.id);
    return found?.status === 'completed' ? found : undefined;
  });
}

const okta = { name: 'Okta', platform: 'okta', apiType: 'REST', baseUrl: 'https://acme.okta.com', authMethod: 'api_key', authConfig: { apiKey: 'okta-secret-delete-me' }, apiConfig: {} };
const template = { name: 'Welcome', subject: 'Hi {{accountHolderName}}', htmlContent: '<p>Hello {{accountHolderName}}</p>', brandLogoUrl: '', isDefault: true, isActive: true };

/**
 * A Pro user with everything the product stores: projects (one sharded by a bulk job through
 * SQS), accounts, usernames, an integration, a template, an export file, and the items of issue
 * 12 written as their features will (settings, a notification, a one-time link with its reference).
 */
async function fullUser(): Promise<{ user: ApiUser; bigProject: Project; projectIds: string[]; linkTokens: string[] }> {
  const user = await apiUser();
  await upgradeToPro(user);
  const small = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Small', csvData: people(3, 'Small') } });
  const queued = await user.call('/api/bulk-create', { body: { projectName: 'Big import', csvData: people(1500, 'Big') } });
  expect(queued.status).toBe(202);
  const { project: bigProject, job } = (await queued.json()) as { project: Project; job: BulkJob };
  await until('bulk job', async () => {
    const state = await user.json<BulkJob>(`/api/bulk-jobs/${job.id}`);
    return state.status === 'completed' ? state : undefined;
  });
  await user.json('/api/integrations', { body: okta });
  await user.json('/api/email-templates', { body: template });
  await exportFile(user, small.project.id);
  const db = testDb();
  // One-time credential links as the credential sender issues them (issue 26: they outlived their user).
  const linkTokens: string[] = [];
  for (const project of [small.project, bigProject]) {
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, project.id).PK }, Limit: 2 }));
    for (const account of Items) {
      const issued = await issueCredentialLink(
        { db, tableName: TABLE, cipher: linkCipher(), appUrl: stack.urls.app },
        { userId: user.sub, projectId: project.id, accountId: String(account.id), accountPK: String(account.PK), accountSK: String(account.SK), sendId: timeOrderedId(), expiresInDays: 7 },
      );
      linkTokens.push(issued.url.split('/credentials#')[1]!);
    }
  }
  // The settings as the app saves them: the weekly digest's subscriber item is a global item of the user's.
  expect((await user.call('/api/user/settings', { method: 'PUT', body: { notifications: { weeklyDigest: true }, preferences: { timezone: 'America/Chicago' } } })).status).toBe(200);
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...keys.notification(user.sub, '0001'), entityType: 'Notification', title: 'Hello' } }));
  const projectIds = (await user.json<Project[]>('/api/projects')).map((p) => p.id);
  return { user, bigProject, projectIds, linkTokens };
}

const linkCipher = () => aesGcmCipher(keyRingFromSecret(fs.readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8')));
const linkState = (token: string) => fetch(`${stack.urls.app}/api/credential-links/state`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });

describe('Delete Account', () => {
  let doomed: ApiUser;
  let bigProject: Project;
  let doomedProjectIds: string[];
  let doomedLinks: string[];
  let other: ApiUser;
  let customerId: string;
  let otherItemsBefore: Record<string, unknown>[];
  let otherFilesBefore: string[];

  beforeAll(async () => {
    [{ user: doomed, bigProject, projectIds: doomedProjectIds, linkTokens: doomedLinks }, { user: other }] = await Promise.all([fullUser(), fullUser()]);
    const profile = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(doomed.sub) }));
    customerId = String(profile.Item?.stripeCustomerId);
    const items = await scanTable();
    otherItemsBefore = itemsOf(items, [other.sub]);
    otherFilesBefore = (await listBucket()).filter((key) => key.includes(other.sub));
    // The seeding reached every kind of item, so an empty scan afterwards means something.
    const doomedItems = itemsOf(items, [doomed.sub]);
    const pks = new Set(doomedItems.map((i) => String(i.PK)));
    expect(shardsOf(doomedItems, bigProject.id)).toBeGreaterThan(1);
    expect([...pks].some((pk) => pk.includes('#USERNAMES#'))).toBe(true);
    // The bulk job recorded its names as username blocks: deleting the user must remove them too.
    expect(doomedItems.some((i) => i.entityType === 'UsernameBlock')).toBe(true);
    expect([...pks].some((pk) => pk.endsWith('#NOTIFICATIONS'))).toBe(true);
    // Global items of the user's, under keys that do not name the user: its links and its digest subscription.
    expect(doomedItems.filter((i) => i.entityType === 'CredentialLink')).toHaveLength(doomedLinks.length);
    expect(doomedItems.some((i) => i.entityType === 'DigestSubscriber')).toBe(true);
    expect(doomedProjectIds).toHaveLength(2);
    for (const token of doomedLinks) expect(((await (await linkState(token)).json()) as { status: string }).status).toBe('ready');
    expect(items.some((i) => i.PK === `STRIPE_CUSTOMER#${customerId}`)).toBe(true);
    expect((await listBucket()).some((key) => key.includes(doomed.sub))).toBe(true);
  }, 300_000);

  it('refuses every other route at once, then erases the table, the bucket, Cognito and billing; the other user keeps everything', async () => {
    const response = await doomed.call('/api/user/account', { method: 'DELETE' });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: 'deleting' });

    // Marked before the answer: nothing new is written while the job runs.
    for (const [pathname, init] of [
      ['/api/projects', {}],
      ['/api/auth/user', {}],
      ['/api/bulk-create', { body: { projectName: 'Late', csvData: people(1) } }],
      ['/api/exports', { body: { projectId: bigProject.id, format: 'csv' } }],
    ] as const) {
      const refused = await doomed.call(pathname, init);
      expect([401, 410]).toContain(refused.status);
    }

    await until('the user item to go', async () => {
      const { Item } = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(doomed.sub), ConsistentRead: true }));
      return Item ? undefined : true;
    });

    // A scan of the whole table: no item names the user, its projects (and so their accounts' ids) or its customer, whatever its kind.
    const items = await scanTable();
    expect(itemsOf(items, [doomed.sub, customerId, ...doomedProjectIds])).toEqual([]);
    // Its links are unknown links now, like any made-up one.
    for (const token of doomedLinks) {
      const state = await linkState(token);
      expect(state.status).toBe(404);
      expect(await state.json()).toEqual({ message: 'This link is not valid' });
    }
    expect((await listBucket()).filter((key) => key.includes(doomed.sub))).toEqual([]);
    expect(sortItems(itemsOf(items, [other.sub]))).toEqual(sortItems(otherItemsBefore));
    expect((await listBucket()).filter((key) => key.includes(other.sub))).toEqual(otherFilesBefore);

    const cognito = cognitoClient();
    await expect(cognito.send(new AdminGetUserCommand({ UserPoolId: stack.userPool.userPoolId, Username: doomed.sub }))).rejects.toMatchObject({ name: 'UserNotFoundException' });
    await expect(cognito.send(new AdminGetUserCommand({ UserPoolId: stack.userPool.userPoolId, Username: other.sub }))).resolves.toBeDefined();
    cognito.destroy();

    // The local checkout (Stripe's side): the subscription canceled now, the customer deleted.
    const billing = JSON.parse(fs.readFileSync(path.join(stack.dataDir, 'local-billing.json'), 'utf8')) as {
      subscriptions: Record<string, { customer: string; status: string }>;
      deletedCustomers: string[];
    };
    const subscriptions = Object.values(billing.subscriptions).filter((s) => s.customer === customerId);
    expect(subscriptions.length).toBeGreaterThan(0);
    expect(subscriptions.every((s) => s.status === 'canceled')).toBe(true);
    expect(billing.deletedCustomers).toContain(customerId);

    // The still-valid token of the deleted user creates nothing again, on any route.
    expect((await doomed.call('/api/auth/user')).status).toBe(401);
    expect((await doomed.call('/api/bulk-create', { body: { projectName: 'After', csvData: people(1) } })).status).toBe(401);
    expect((await doomed.call('/api/exports/account-data', { method: 'POST' })).status).toBe(401);
    // Deleting again passes the account gate like every route: no user item, 401.
    expect((await doomed.call('/api/user/account', { method: 'DELETE' })).status).toBe(401);
    expect(itemsOf(await scanTable(), [doomed.sub])).toEqual([]);
  }, 300_000);

  it('changes nothing when the message is delivered again', async () => {
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials });
    const queueUrl = stack.queueUrls['account-deletion']!;
    const before = sortItems(await scanTable());
    const inQueue = async () => {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
    };
    // Other test files share the stack's queue: a deletion they hold back (a bulk lock) stays in
    // flight for the visibility timeout. This message is done when the queue is back to that.
    const othersInQueue = await inQueue();
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ userId: doomed.sub }) }));
    await until('the queue to drain', async () => ((await inQueue()) <= othersInQueue ? true : undefined));
    const dlq = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls['account-deletion-dlq']!, AttributeNames: ['ApproximateNumberOfMessages'] }));
    expect(dlq.Attributes?.ApproximateNumberOfMessages).toBe('0');
    sqs.destroy();
    expect(sortItems(await scanTable())).toEqual(before);
    expect(await deleteAccount(realDeps())({ userId: doomed.sub })).toBe('already-deleted');
  });

  it('resumes a run that was interrupted, and never touches an account whose deletion was not requested', async () => {
    const user = await apiUser();
    await user.json('/api/bulk-create', { body: { projectName: 'Resume', csvData: people(4, 'Resume') } });
    await exportFile(user, (await user.json<Project[]>('/api/projects'))[0]!.id);

    expect(await deleteAccount(realDeps())({ userId: user.sub })).toBe('not-requested');
    // A bulk creation holding the user's lock is waited for: nothing is deleted under it.
    const lockUntil = Date.now() + 60_000;
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': { owner: 'job', until: lockUntil } } }));
    await dynamoDeletionRequestStore(testDb(), TABLE).markDeleting(user.sub, new Date());
    await expect(deleteAccount(realDeps())({ userId: user.sub })).rejects.toBeInstanceOf(AccountBusyError);
    expect(itemsOf(await scanTable(), [user.sub]).length).toBeGreaterThan(4);
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'REMOVE bulkLock' }));
    expect(itemsOf(await scanTable(), [user.sub]).length).toBeGreaterThan(4);

    expect(await dynamoDeletionRequestStore(testDb(), TABLE).markDeleting(user.sub, new Date())).toBe(true);
    const cognitoDown = new Error('Cognito is unavailable');
    await expect(deleteAccount({ ...realDeps(), identity: { deleteUser: () => Promise.reject(cognitoDown) } })({ userId: user.sub })).rejects.toBe(cognitoDown);
    // Stopped before its last steps: only the user item is left, and it still refuses the user.
    expect(itemsOf(await scanTable(), [user.sub]).map((i) => i.SK)).toEqual(['PROFILE']);
    expect((await user.call('/api/projects')).status).toBe(410);

    expect(await deleteAccount(realDeps())({ userId: user.sub })).toBe('deleted');
    expect(itemsOf(await scanTable(), [user.sub])).toEqual([]);
    expect((await listBucket()).filter((key) => key.includes(user.sub))).toEqual([]);
    // Three deletion runs over a project with files: 17 s on a quiet CI machine.
  }, 120_000);
});

describe('Account deletion beside running deliveries', () => {
  it('stops unfinished provisioning runs, credential sends, resets and exports, and waits for a chunk a worker still holds', async () => {
    const user = await apiUser();
    const db = testDb();
    const put = (Item: Record<string, unknown>) => db.send(new PutCommand({ TableName: TABLE, Item }));
    await put({ ...keys.provisioningJob(user.sub, 'run1'), entityType: 'ProvisioningJob', status: 'running' });
    await put({ ...keys.provisioningJob(user.sub, 'run0'), entityType: 'ProvisioningJob', status: 'completed' });
    await put({ ...keys.mailSend(user.sub, 'send1'), entityType: 'MailSend', status: 'queued' });
    await put({ ...keys.passwordReset(user.sub, 'reset1'), entityType: 'PasswordReset', status: 'running' });
    await put({ ...keys.export(user.sub, 'export1'), entityType: 'Export', status: 'processing' });
    await put({ ...keys.export(user.sub, 'export0'), entityType: 'Export', status: 'completed' });
    // A provisioning worker holds chunk 0 of run1 for another minute.
    await put({ ...keys.provisioningLease(user.sub, 'run1', 0), entityType: 'ProvisioningLease', holder: 'worker', until: Date.now() + 60_000 });
    await dynamoDeletionRequestStore(db, TABLE).markDeleting(user.sub, new Date());

    const busy = await deleteAccount(realDeps())({ userId: user.sub }).catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(AccountBusyError);
    expect((busy as AccountBusyError).by).toBe('delivery');
    const status = async (key: { PK: string; SK: string }) => (await db.send(new GetCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))).Item;
    // No worker takes another chunk of them (each reads its job first); a finished one is left as it was.
    expect(await status(keys.provisioningJob(user.sub, 'run1'))).toMatchObject({ status: 'failed', reason: STOPPED_FOR_DELETION });
    expect(await status(keys.mailSend(user.sub, 'send1'))).toMatchObject({ status: 'failed', reason: STOPPED_FOR_DELETION });
    expect(await status(keys.passwordReset(user.sub, 'reset1'))).toMatchObject({ status: 'failed', reason: STOPPED_FOR_DELETION });
    expect(await status(keys.export(user.sub, 'export1'))).toMatchObject({ status: 'failed', reason: STOPPED_FOR_DELETION });
    expect(await status(keys.provisioningJob(user.sub, 'run0'))).toMatchObject({ status: 'completed' });
    expect(await status(keys.export(user.sub, 'export0'))).toMatchObject({ status: 'completed' });
    expect(await status(keys.user(user.sub))).toBeDefined();

    // The worker lets go of its chunk (or its lease lapses): the deletion goes through.
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.provisioningLease(user.sub, 'run1', 0), UpdateExpression: 'SET #until = :past', ExpressionAttributeNames: { '#until': 'until' }, ExpressionAttributeValues: { ':past': Date.now() - 1 } }));
    expect(await deleteAccount(realDeps())({ userId: user.sub })).toBe('deleted');
    expect(itemsOf(await scanTable(), [user.sub])).toEqual([]);
  });
});

describe('A deletion that failed every delivery', () => {
  it('goes back on the queue (counted) while the user is still waiting to be erased, and is dropped once erased', async () => {
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials });
    // A queue of this test's own: the stack's deletion worker would take the message from the real one.
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `deletion-redrive-${Date.now()}` }));
    try {
      const user = await apiUser();
      await dynamoDeletionRequestStore(testDb(), TABLE).markDeleting(user.sub, new Date());
      const redrive = redriveDeletion({ profile: (userId) => dynamoErasureStore(testDb(), TABLE).profile(userId), queue: sqsDeletionQueue(sqs, QueueUrl!), delaySeconds: 1 });
      expect(await redrive({ userId: user.sub, redrives: 2 })).toBe('redriven');
      const received = await until('the message back on the queue', async () => (await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }))).Messages?.[0]);
      expect(JSON.parse(received.Body!)).toEqual({ userId: user.sub, redrives: 3 });

      expect(await deleteAccount(realDeps())({ userId: user.sub })).toBe('deleted');
      expect(await redrive({ userId: user.sub })).toBe('nothing-left');
      // A live account (deletion never requested) is never queued for deletion either.
      const live = await apiUser();
      expect(await redrive({ userId: live.sub })).toBe('nothing-left');
    } finally {
      await sqs.send(new DeleteQueueCommand({ QueueUrl }));
      sqs.destroy();
    }
  });
});

function realDeps(): DeleteAccountDeps {
  return {
    store: dynamoErasureStore(testDb(), TABLE),
    files: s3UserFiles(s3Client(), BUCKET),
    identity: cognitoIdentityAdmin(cognitoClient(), stack.userPool.userPoolId),
    billing: billingProvider,
    now: () => new Date(),
  };
}

const sortItems = (items: Record<string, unknown>[]) => [...items].sort((a, b) => `${String(a.PK)}|${String(a.SK)}`.localeCompare(`${String(b.PK)}|${String(b.SK)}`));
const shardsOf = (items: Record<string, unknown>[], projectId: string) => new Set(items.filter((i) => String(i.PK).includes(`#PROJECT#${projectId}`) && String(i.SK).startsWith('ACCOUNT#')).map((i) => i.PK)).size;
