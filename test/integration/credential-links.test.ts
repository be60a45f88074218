import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { credentialLinkAccess } from '../../functions/credential-links/credential-link-access';
import { issueCredentialLink, type IssueCredentialLinkInput } from '../../functions/credential-links/issue-credential-link';
import { dynamoLinkStore } from '../../functions/credential-links/link-store';
import { dynamoDeletionRequestStore } from '../../functions/account-deletion/deletion-request-store';
import { linkTokenHash } from '../../functions/credential-links/link-token';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { CredentialLinkState, RevealedCredentials } from '../../shared/schemas/credential-links';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, testDb, type ApiUser } from '../support/api';

/**
 * One-time credential links through the real handlers of the local stack: links are issued as the
 * sender issues them (issueCredentialLink against the stack's DynamoDB with the stack's key),
 * then opened as the holder's browser opens them, without any token.
 */
const stack = inject('stack');
const TABLE = 'bulkonboard';
const db = testDb();
const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack.dataDir, 'encryption.key'), 'utf8')));
const deps = { db, tableName: TABLE, cipher, appUrl: stack.urls.app };

const tokenOf = (url: string) => url.split('/credentials#')[1]!;
/** The token travels in the body (never in a URL, which access logs record). */
const linkCall = (path: string, token: unknown) =>
  fetch(`${stack.urls.app}/api/credential-links/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
const getState = (token: unknown) => linkCall('state', token);
const reveal = (token: unknown) => linkCall('reveal', token);
const getItem = async (Key: Record<string, string>) => (await db.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true }))).Item;

describe('one-time credential links', () => {
  let owner: ApiUser;
  let project: Project;
  let accounts: CreatedAccount[];
  /** The account item's keys, as the sender reads them. */
  const accountKeys = new Map<string, { PK: string; SK: string }>();
  const input = (account: CreatedAccount, sendId = timeOrderedId(), expiresInDays = 7): IssueCredentialLinkInput => ({
    userId: owner.sub,
    projectId: project.id,
    accountId: account.id,
    accountPK: accountKeys.get(account.id)!.PK,
    accountSK: accountKeys.get(account.id)!.SK,
    sendId,
    expiresInDays,
  });
  const viewOf = async (account: CreatedAccount) =>
    (await owner.json<Page<AccountView>>(`/api/projects/${project.id}/accounts`)).items.find((a) => a.id === account.id)!;

  beforeAll(async () => {
    owner = await apiUser();
    const created = await owner.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', {
      body: {
        projectName: 'Autumn <intake> & co',
        platformUrl: 'https://portal.example.com/login',
        csvData: Array.from({ length: 9 }, (_, i) => ({ firstName: `Holder${i}`, lastName: 'Links', email: `holder${i}@example.com` })),
      },
    });
    project = created.project;
    accounts = created.accounts;
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(owner.sub, project.id).PK } }));
    for (const item of Items) accountKeys.set(String(item.id), { PK: String(item.PK), SK: String(item.SK) });
    expect(accountKeys.size).toBe(accounts.length);
  });

  it('issuing twice for the same send and account gives the same URL; the token is stored only hashed', async () => {
    const account = accounts[0]!;
    const request = input(account);
    const first = await issueCredentialLink(deps, request);
    const again = await issueCredentialLink(deps, request);
    expect(again).toEqual(first);
    expect(first.url).toMatch(new RegExp(`^${stack.urls.app}/credentials#[A-Za-z0-9_-]{43}$`));
    // A redelivery racing the first delivery: still one link.
    const racing = input(account);
    const urls = new Set((await Promise.all(Array.from({ length: 5 }, () => issueCredentialLink(deps, racing)))).map((l) => l.url));
    expect(urls.size).toBe(1);
    expect([...urls][0]).not.toBe(first.url);
    // Another send of the same account is another link.
    expect((await issueCredentialLink(deps, input(account))).url).not.toBe(first.url);

    const token = tokenOf(first.url);
    const link = await getItem(keys.credentialLink(linkTokenHash(token)));
    const issue = await getItem(keys.credentialLinkIssue(owner.sub, request.sendId, account.id));
    expect(link).toMatchObject({ entityType: 'CredentialLink', userId: owner.sub, projectId: project.id, accountId: account.id, accountPK: request.accountPK, accountSK: request.accountSK, linkExpiresAt: first.expiresAt });
    expect(JSON.stringify(link)).not.toContain(token);
    expect(JSON.stringify(issue)).not.toContain(token);
    // The table's TTL attribute (epoch seconds) removes the items some time after the link expired.
    expect(typeof link!.expiresAt).toBe('number');
    expect(Number(link!.expiresAt) * 1000).toBeGreaterThan(Date.parse(first.expiresAt));
    expect(issue!.expiresAt).toBe(link!.expiresAt);
    expect(Date.parse(first.expiresAt) - Date.parse(String(link!.createdAt))).toBe(7 * 86_400_000);
  });

  it('GET says the link is ready and spends nothing, however often a scanner opens it', async () => {
    const account = accounts[1]!;
    const { url, expiresAt } = await issueCredentialLink(deps, input(account));
    const token = tokenOf(url);
    for (let i = 0; i < 5; i++) {
      const response = await getState(token);
      expect(response.status).toBe(200);
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const state = (await response.json()) as CredentialLinkState;
      expect(state).toEqual({ status: 'ready', projectName: 'Autumn <intake> & co', expiresAt });
      expect(JSON.stringify(state)).not.toContain(account.plainPassword);
    }
    expect((await getItem(keys.credentialLink(linkTokenHash(token))))?.usedAt).toBeUndefined();
    expect((await viewOf(account)).credentialsViewedAt).toBeUndefined();
    // ... and then the holder still gets the credentials.
    expect((await reveal(token)).status).toBe(200);
  });

  it('the first POST reveals the credentials and marks the account viewed; the second answers used, and so does GET', async () => {
    const account = accounts[2]!;
    const token = tokenOf((await issueCredentialLink(deps, input(account))).url);
    const before = Date.now();
    const first = await reveal(token);
    expect(first.status).toBe(200);
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await first.json()) as RevealedCredentials).toEqual({
      username: account.username,
      password: account.plainPassword,
      projectName: 'Autumn <intake> & co',
      platformUrl: 'https://portal.example.com/login',
    });
    const viewed = (await viewOf(account)).credentialsViewedAt;
    expect(viewed).toBeDefined();
    expect(Date.parse(viewed!)).toBeGreaterThanOrEqual(before - 1000);
    // The other accounts of the project were not viewed.
    expect((await viewOf(accounts[3]!)).credentialsViewedAt).toBeUndefined();

    const second = await reveal(token);
    expect(second.status).toBe(410);
    const body = (await second.json()) as { message: string; details: { status: string; projectName: string } };
    expect(body.details).toEqual({ status: 'used', projectName: 'Autumn <intake> & co' });
    expect(body.message).toMatch(/already shown.*Ask the person who sent you the link/);
    expect(JSON.stringify(body)).not.toContain(account.plainPassword);
    expect(((await (await getState(token)).json()) as CredentialLinkState).status).toBe('used');
  });

  it('an expired link says so on GET and POST and reveals nothing', async () => {
    const account = accounts[3]!;
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
    const { url, expiresAt } = await issueCredentialLink({ ...deps, now: () => tenDaysAgo }, input(account, timeOrderedId(), 2));
    const token = tokenOf(url);
    expect(Date.parse(expiresAt)).toBeLessThan(Date.now());
    expect((await (await getState(token)).json()) as CredentialLinkState).toEqual({ status: 'expired', projectName: 'Autumn <intake> & co', expiresAt });
    const response = await reveal(token);
    expect(response.status).toBe(410);
    const body = (await response.json()) as { message: string; details: { status: string } };
    expect(body.details.status).toBe('expired');
    expect(body.message).toMatch(/expired/);
    expect((await getItem(keys.credentialLink(linkTokenHash(token))))?.usedAt).toBeUndefined();
    expect((await viewOf(account)).credentialsViewedAt).toBeUndefined();
  });

  it('of many POSTs at once, exactly one reveals', async () => {
    const account = accounts[4]!;
    const token = tokenOf((await issueCredentialLink(deps, input(account))).url);
    const responses = await Promise.all(Array.from({ length: 12 }, () => reveal(token)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(11);
    const bodies = await Promise.all(responses.map((r) => r.text()));
    expect(bodies.filter((b) => b.includes(account.plainPassword))).toHaveLength(1);
  });

  it('a tampered, made-up, malformed or deleted token answers the same 404, with no hint which', async () => {
    const account = accounts[5]!;
    const token = tokenOf((await issueCredentialLink(deps, input(account))).url);
    const tampered = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    const deleted = tokenOf((await issueCredentialLink(deps, input(accounts[6]!))).url);
    await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.credentialLink(linkTokenHash(deleted)) }));
    const madeUp = 'A'.repeat(43);
    const answers = new Set<string>();
    // Not a string at all, or no token in the body, is the same answer (never a 400 or a 500).
    for (const bad of [tampered, madeUp, deleted, token.slice(1), `${token}x`, 'abc', 'x'.repeat(300), `${token.slice(0, 42)}.`, 42, null, undefined, { token }]) {
      for (const response of [await getState(bad), await reveal(bad)]) {
        expect(response.status, String(bad)).toBe(404);
        answers.add(await response.text());
      }
    }
    expect([...answers]).toEqual([JSON.stringify({ message: 'This link is not valid' })]);
    // The genuine link was not touched by any of it.
    expect((await reveal(token)).status).toBe(200);
  });

  it('a failure before the link is spent leaves it usable; one after it still hands the credentials over', async () => {
    const account = accounts[8]!;
    const token = tokenOf((await issueCredentialLink(deps, input(account))).url);
    const store = dynamoLinkStore(db, TABLE);
    const now = () => new Date();
    // A key that does not open the password (a rotated ring missing the old key): nothing is spent.
    const wrongKey = aesGcmCipher(keyRingFromSecret('another-secret-of-at-least-32-characters'));
    await expect(credentialLinkAccess({ store, cipher: async () => wrongKey, now }).reveal(token)).rejects.toThrow();
    expect((await getItem(keys.credentialLink(linkTokenHash(token))))?.usedAt).toBeUndefined();
    // DynamoDB failing the viewed marker after the link was spent: the holder still gets them.
    const failingMarker = { ...store, markViewed: () => Promise.reject(new Error('ProvisionedThroughputExceededException')) };
    const revealed = await credentialLinkAccess({ store: failingMarker, cipher: async () => cipher, now }).reveal(token);
    expect(revealed).toMatchObject({ username: account.username, password: account.plainPassword });
    expect((await getItem(keys.credentialLink(linkTokenHash(token))))?.usedAt).toEqual(expect.any(String));
    expect((await reveal(token)).status).toBe(410);
  });

  it("a link whose owner's account is being deleted is an unknown link (404, 'not valid'), not a removed account's, and is not spent", async () => {
    const leaving = await apiUser();
    const made = await leaving.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', { body: { projectName: 'Leaving', csvData: [{ firstName: 'Leaving', lastName: 'Holder', email: 'leaving@example.com' }] } });
    const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.accountsOf(leaving.sub, made.project.id).PK } }));
    const token = tokenOf(
      (await issueCredentialLink(deps, { userId: leaving.sub, projectId: made.project.id, accountId: made.accounts[0]!.id, accountPK: String(Items[0]!.PK), accountSK: String(Items[0]!.SK), sendId: timeOrderedId(), expiresInDays: 7 })).url,
    );
    expect(((await (await getState(token)).json()) as CredentialLinkState).status).toBe('ready');
    await dynamoDeletionRequestStore(db, TABLE).markDeleting(leaving.sub, new Date());
    for (const response of [await getState(token), await reveal(token)]) {
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: 'This link is not valid' });
    }
    expect((await getItem(keys.credentialLink(linkTokenHash(token))))?.usedAt).toBeUndefined();
  });

  it("a link whose account was removed says so, and is not spent by trying", async () => {
    const account = accounts[7]!;
    const keysOfAccount = accountKeys.get(account.id)!;
    const token = tokenOf((await issueCredentialLink(deps, input(account))).url);
    const item = await getItem(keysOfAccount);
    await db.send(new DeleteCommand({ TableName: TABLE, Key: keysOfAccount }));
    try {
      expect(((await (await getState(token)).json()) as CredentialLinkState).status).toBe('removed');
      const response = await reveal(token);
      expect(response.status).toBe(410);
      expect(((await response.json()) as { details: { status: string } }).details.status).toBe('removed');
      expect((await getItem(keys.credentialLink(linkTokenHash(token))))?.usedAt).toBeUndefined();
      // No account item was made up by marking it viewed.
      expect(await getItem(keysOfAccount)).toBeUndefined();
    } finally {
      await db.send(new PutCommand({ TableName: TABLE, Item: item }));
    }
  });
});
