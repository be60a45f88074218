import { describe, expect, inject, it } from 'vitest';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { PASSWORD_EXPIRED_MESSAGE, SESSION_EXPIRED_MESSAGE, SESSION_REPLACED_MESSAGE } from '../../shared/schemas/security';
import { apiUser, testDb, type ApiUser } from '../support/api';
import { accessTokenSignedInAt, authTimeOf } from '../support/signed-in-at';

/**
 * The Security Center's settings enforced by the account gate that every signed-in route passes
 * (functions/core/account-gate.ts), through the local gateway with tokens it verifies.
 */
const withToken = (token: string, path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${inject('stack').urls.app}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const putSettings = async (user: ApiUser, body: unknown) => expect((await user.call('/api/security/settings', { method: 'PUT', body })).status).toBe(200);
const setOnUserItem = (user: ApiUser, values: Record<string, unknown>) =>
  testDb().send(
    new UpdateCommand({
      TableName: 'bulkonboard',
      Key: keys.user(user.sub),
      UpdateExpression: `SET ${Object.keys(values).map((name, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(Object.keys(values).map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(Object.values(values).map((value, i) => [`:v${i}`, value])),
    }),
  );
const securityEvents = async (user: ApiUser) => {
  const { PK, SKPrefix } = keys.securityEventsOf(user.sub);
  const { Items = [] } = await testDb().send(
    new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
  );
  return Items;
};
const refusal = async (response: Response) => ({ status: response.status, body: (await response.json()) as { message: string; code?: string } });

describe('session timeout', () => {
  it("refuses a token whose sign-in is older than the timeout with SESSION_EXPIRED, records one event per session; a fresh sign-in passes", async () => {
    const user = await apiUser();
    await putSettings(user, { sessionTimeout: 1 });
    const signedIn = authTimeOf(user.accessToken);
    // A token refreshed an hour and a minute after its sign-in: valid signature, not expired, too old a sign-in.
    const old = await accessTokenSignedInAt(user.accessToken, signedIn - 61 * 60);
    for (const path of ['/api/projects', '/api/auth/user', '/api/security/settings']) {
      expect(await refusal(await withToken(old, path))).toEqual({ status: 401, body: { message: SESSION_EXPIRED_MESSAGE, code: 'SESSION_EXPIRED' } });
    }
    // Within the hour it still passes.
    expect((await withToken(await accessTokenSignedInAt(user.accessToken, signedIn - 59 * 60), '/api/projects')).status).toBe(200);
    expect((await user.call('/api/projects')).status).toBe(200);

    const timeouts = (await securityEvents(user)).filter((e) => e.type === 'session_timeout');
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]).toMatchObject({ severity: 'low', description: 'Session ended by the 1-hour session timeout' });
    expect(timeouts[0]!.ipAddress).not.toBe('');
    // The event is dated when the session ran out: the sign-in plus the timeout.
    expect(timeouts[0]!.createdAt).toBe(new Date((signedIn - 60) * 1000).toISOString());
  });

  it('an expired session may not delete the account either', async () => {
    const user = await apiUser();
    await putSettings(user, { sessionTimeout: 1 });
    const old = await accessTokenSignedInAt(user.accessToken, authTimeOf(user.accessToken) - 2 * 3600);
    expect((await refusal(await withToken(old, '/api/user/account', { method: 'DELETE' }))).body.code).toBe('SESSION_EXPIRED');
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), ConsistentRead: true }));
    expect(Item?.deletionRequestedAt).toBeUndefined();
  });
});

describe('concurrent sessions', () => {
  it('off: a token from before the latest sign-in elsewhere answers SESSION_REPLACED; on: it passes', async () => {
    const user = await apiUser();
    const signedIn = authTimeOf(user.accessToken);
    // A sign-in elsewhere a second later, as the sign-in trigger records it.
    await setOnUserItem(user, { sessionsNotBefore: signedIn + 1 });
    expect((await user.call('/api/projects')).status).toBe(200);
    await putSettings(user, { allowConcurrentSessions: false });
    expect(await refusal(await user.call('/api/projects'))).toEqual({ status: 401, body: { message: SESSION_REPLACED_MESSAGE, code: 'SESSION_REPLACED' } });
    // The newer session itself passes.
    expect((await withToken(await accessTokenSignedInAt(user.accessToken, signedIn + 1), '/api/projects')).status).toBe(200);
  });
});

describe('password expiry', () => {
  it('a password older than the expiry answers 403 PASSWORD_EXPIRED, except on the routes the app needs to ask for a new one', async () => {
    const user = await apiUser();
    await putSettings(user, { passwordExpiryDays: 30 });
    await setOnUserItem(user, { passwordChangedAt: new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString() });
    expect(await refusal(await user.call('/api/projects'))).toEqual({ status: 403, body: { message: PASSWORD_EXPIRED_MESSAGE, code: 'PASSWORD_EXPIRED' } });
    expect((await user.call('/api/security/settings', { method: 'PUT', body: { sessionTimeout: 5 } })).status).toBe(403);
    expect((await user.call('/api/auth/user')).status).toBe(200);
    expect((await user.call('/api/security/settings')).status).toBe(200);
    // A password changed since passes.
    await setOnUserItem(user, { passwordChangedAt: new Date().toISOString() });
    expect((await user.call('/api/projects')).status).toBe(200);
  });

  it('without passwordChangedAt the account is as old as its password (createdAt)', async () => {
    const user = await apiUser();
    await setOnUserItem(user, { createdAt: new Date(Date.now() - 91 * 24 * 3600 * 1000).toISOString() });
    // A user item from before passwordChangedAt was kept (new ones get it at creation).
    await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'REMOVE passwordChangedAt' }));
    expect((await refusal(await user.call('/api/projects'))).body.code).toBe('PASSWORD_EXPIRED');
    // Lengthening the expiry is no way out: the settings PUT is refused too while expired.
    expect((await user.call('/api/security/settings', { method: 'PUT', body: { passwordExpiryDays: 120 } })).status).toBe(403);
    expect((await user.call('/api/projects')).status).toBe(403);
  });
});
