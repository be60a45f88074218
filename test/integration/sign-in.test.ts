import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { generateSync } from 'otplib';
import path from 'node:path';
import {
  AssociateSoftwareTokenCommand,
  CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ForgotPasswordCommand,
  InitiateAuthCommand,
  SetUserMFAPreferenceCommand,
  VerifySoftwareTokenCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { emailHashOf } from '../../functions/security/sign-in-guard';
import { accountLockedMessage, LOCKOUT_MINUTES } from '../../shared/schemas/security';
import { CURRENT_PASSWORD_INCORRECT_MESSAGE, INCORRECT_CREDENTIALS_MESSAGE, INCORRECT_TOTP_MESSAGE, REUSED_TOTP_MESSAGE, type SignInAnswer, type SignInTokens } from '../../shared/schemas/sign-in';
import { apiUser, testDb, type ApiUser } from '../support/api';
import { confirmationCode } from '../support/browser';

const stack = () => inject('stack');
const post = (path: string, body: unknown, token?: string) =>
  fetch(`${stack().urls.app}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'sign-in-test/1.0', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
const signIn = (email: string, password: string) => post('/api/auth/sign-in', { email, password });
const signedIn = async (email: string, password: string): Promise<SignInTokens> => {
  const response = await signIn(email, password);
  const answer = (await response.json()) as SignInAnswer;
  if (response.status !== 200 || answer.status !== 'signedIn') throw new Error(`sign-in answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer.tokens;
};
const cognitoClient = () => new CognitoIdentityProviderClient({ region: 'us-east-1', endpoint: stack().urls.cognito, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const withToken = (user: ApiUser, accessToken: string): ApiUser => ({ ...user, accessToken, call: (path, init = {}) => fetch(`${stack().urls.app}${path}`, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers: { authorization: `Bearer ${accessToken}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) }, body: init.body === undefined ? undefined : JSON.stringify(init.body) }) });
const putSettings = async (user: ApiUser, settings: Record<string, unknown>) => {
  const response = await user.call('/api/security/settings', { method: 'PUT', body: settings });
  expect(response.status).toBe(200);
};
const eventsOf = async (userId: string) => {
  const { PK, SKPrefix } = keys.securityEventsOf(userId);
  const { Items = [] } = await testDb().send(
    new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
  );
  return Items as { type: string; severity: string; ipAddress: string; userAgent: string; description: string }[];
};
const typesOf = async (userId: string) => (await eventsOf(userId)).map((e) => e.type).sort();
const guardOf = async (email: string) => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.signInGuard(emailHashOf(email)), ConsistentRead: true }))).Item;
const userItemOf = async (userId: string) => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(userId), ConsistentRead: true }))).Item!;
const unlock = (email: string) =>
  testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.signInGuard(emailHashOf(email)), UpdateExpression: 'SET lockedUntil = :past', ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 } }));

/** A test user who signed in once through the API, so the guard knows their id (their own maxLoginAttempts applies). */
async function signedInUser(settings?: Record<string, unknown>) {
  const user = await apiUser();
  await signedIn(user.email, user.password);
  if (settings) await putSettings(user, settings);
  return user;
}

describe('POST /api/auth/sign-in', () => {
  it('answers the tokens, records the login with the caller\'s address through the trigger, and keeps the session', async () => {
    const user = await apiUser();
    const before = (await eventsOf(user.sub)).filter((e) => e.type === 'login');
    const tokens = await signedIn(user.email, user.password);
    expect(tokens.accessToken.split('.')).toHaveLength(3);
    expect(tokens.refreshToken).toBeTruthy();
    const logins = (await eventsOf(user.sub)).filter((e) => e.type === 'login');
    // apiUser() signed in straight at Cognito (no address); the API's sign-in has one.
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ ipAddress: '', description: expect.stringContaining('directly through Cognito') });
    expect(logins).toHaveLength(2);
    expect(logins.find((e) => e.ipAddress !== '')).toMatchObject({ severity: 'low', userAgent: 'sign-in-test/1.0', description: 'Signed in' });
    expect(await guardOf(user.email)).toMatchObject({ failures: 0, userId: user.sub });
    // The guard names the user: account deletion finds it through the user's global reference.
    const guardKey = keys.signInGuard(emailHashOf(user.email));
    expect((await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.globalReference(user.sub, guardKey) }))).Item).toMatchObject({ targetPK: guardKey.PK, targetSK: guardKey.SK });
    const { Items = [] } = await testDb().send(new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.sessionsOf(user.sub).PK } }));
    expect(Items).toHaveLength(1);
    // Stored encrypted, never in clear.
    expect(Items[0]!.refreshToken).not.toContain(tokens.refreshToken.slice(0, 20));
    expect(String(Items[0]!.refreshToken)).toMatch(/^v2\./);
  });

  it("locks after the user's own max login attempts: 423 with the message, Cognito not asked while locked, events and alert recorded", async () => {
    const user = await signedInUser({ maxLoginAttempts: 3 });
    for (let i = 0; i < 2; i++) {
      const response = await signIn(user.email, 'Wrong-Passw0rd!');
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ message: INCORRECT_CREDENTIALS_MESSAGE });
    }
    const third = await signIn(user.email, 'Wrong-Passw0rd!');
    expect(third.status).toBe(423);
    expect(await third.json()).toEqual({ message: accountLockedMessage(LOCKOUT_MINUTES), code: 'ACCOUNT_LOCKED' });
    const loginsBefore = (await typesOf(user.sub)).filter((t) => t === 'login').length;
    // The right password while locked: refused without a call to Cognito (a call would have run the trigger: a login event).
    const right = await signIn(user.email, user.password);
    expect(right.status).toBe(423);
    expect(((await right.json()) as { code: string }).code).toBe('ACCOUNT_LOCKED');
    expect((await typesOf(user.sub)).filter((t) => t === 'login')).toHaveLength(loginsBefore);
    // A sign-in straight at Cognito is refused by the post-authentication trigger.
    const client = cognitoClient();
    await expect(
      client.send(new InitiateAuthCommand({ ClientId: stack().userPool.userPoolClientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: user.email, PASSWORD: user.password } })),
    ).rejects.toMatchObject({ name: 'UserLambdaValidationException' });
    client.destroy();
    const events = await eventsOf(user.sub);
    expect(events.filter((e) => e.type === 'failed_login')).toHaveLength(3);
    expect(events.find((e) => e.type === 'lockout')).toMatchObject({ severity: 'high', userAgent: 'sign-in-test/1.0' });
    const notifications = await user.json<{ notifications: { title: string }[] }>('/api/notifications');
    expect(notifications.notifications.map((n) => n.title)).toContain('Your account was locked');
    // Once the lock is over, the right password signs in and the count starts again.
    await unlock(user.email);
    await signedIn(user.email, user.password);
    expect(await guardOf(user.email)).toMatchObject({ failures: 0 });
  });

  it('a success resets the count: failures must be in a row', async () => {
    const user = await signedInUser({ maxLoginAttempts: 3 });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) expect((await signIn(user.email, 'Wrong-Passw0rd!')).status).toBe(401);
      await signedIn(user.email, user.password);
    }
    expect((await signIn(user.email, 'Wrong-Passw0rd!')).status).toBe(401);
  });

  it('an unknown e-mail is answered exactly like a wrong password, and locks the same way (no account enumeration)', async () => {
    const user = await signedInUser();
    const unknown = `nobody-${randomUUID()}@example.com`;
    const answers: { status: number; body: unknown }[][] = [[], []];
    for (let i = 0; i < 5; i++) {
      for (const [n, email] of [user.email, unknown].entries()) {
        const response = await signIn(email, 'Wrong-Passw0rd!');
        answers[n]!.push({ status: response.status, body: await response.json() });
      }
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[0]!.map((a) => a.status)).toEqual([401, 401, 401, 401, 423]);
  });

  it('bad input is a 400 with a message, never a 500', async () => {
    const response = await post('/api/auth/sign-in', { email: 'not-an-address', password: '' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe('Valid email is required');
    expect((await post('/api/auth/sign-in/totp', { email: 'a@example.com', session: 'forged', code: '123456' })).status).toBe(401);
  });
});

describe('sign-in with a TOTP code', () => {
  async function withTotp() {
    const user = await signedInUser();
    const client = cognitoClient();
    const { SecretCode } = await client.send(new AssociateSoftwareTokenCommand({ AccessToken: user.accessToken }));
    await client.send(new VerifySoftwareTokenCommand({ AccessToken: user.accessToken, UserCode: generateSync({ secret: SecretCode! }) }));
    await client.send(new SetUserMFAPreferenceCommand({ AccessToken: user.accessToken, SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true } }));
    client.destroy();
    return { user, secret: SecretCode! };
  }
  const challenge = async (user: ApiUser) => {
    const response = await signIn(user.email, user.password);
    const answer = (await response.json()) as SignInAnswer;
    expect(answer.status).toBe('totp');
    return (answer as { session: string }).session;
  };
  const totp = (email: string, session: string, code: string) => post('/api/auth/sign-in/totp', { email, session, code });

  it('asks for the code, refuses a wrong one (counted, recorded), accepts the right one, refuses it when replayed', async () => {
    const { user, secret } = await withTotp();
    const session = await challenge(user);
    const wrong = generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 600 });
    const refused = await totp(user.email, session, wrong);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ message: INCORRECT_TOTP_MESSAGE });
    expect(await guardOf(user.email)).toMatchObject({ failures: 1 });
    expect(await typesOf(user.sub)).toContain('two_factor_failed');

    const code = generateSync({ secret });
    const accepted = await totp(user.email, session, code);
    expect(accepted.status).toBe(200);
    const answer = (await accepted.json()) as SignInAnswer;
    expect(answer.status).toBe('signedIn');
    expect(await guardOf(user.email)).toMatchObject({ failures: 0 });

    // Someone who saw the code (and knows the password) cannot sign in with it again.
    const replay = await totp(user.email, await challenge(user), code);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ message: REUSED_TOTP_MESSAGE });
    expect(await guardOf(user.email)).toMatchObject({ failures: 1 });

    // The TOTP sign-in's refresh token refreshes (the emulator stores it, as Cognito does).
    const client = cognitoClient();
    const refreshed = await client.send(
      new InitiateAuthCommand({ ClientId: stack().userPool.userPoolClientId, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: (answer as { tokens: SignInTokens }).tokens.refreshToken } }),
    );
    expect(refreshed.AuthenticationResult?.AccessToken).toBeTruthy();
    client.destroy();
  });

  it('on in the app but off in Cognito (switched off outside the app): the sign-in raises a high alert and the setting follows Cognito', async () => {
    const user = await apiUser();
    // As if the user had turned it on through the app and someone then called Cognito's
    // SetUserMFAPreference with a stolen access token.
    await testDb().send(
      new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET securitySettings = :s', ExpressionAttributeValues: { ':s': { twoFactorEnabled: true } } }),
    );
    await signedIn(user.email, user.password);
    expect((await eventsOf(user.sub)).find((e) => e.type === 'two_factor_disabled')).toMatchObject({ severity: 'high', description: expect.stringContaining('outside the app') });
    expect(await user.json<{ twoFactorEnabled: boolean }>('/api/security/settings')).toMatchObject({ twoFactorEnabled: false });
    const { Items = [] } = await testDb().send(
      new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.notificationsOf(user.sub).PK }, ConsistentRead: true }),
    );
    expect(Items.map((n) => n.title)).toContain('Two-factor authentication is off');
  });

  it('wrong codes lock the account like wrong passwords', async () => {
    const { user, secret } = await withTotp();
    await putSettings(user, { maxLoginAttempts: 3 });
    const session = await challenge(user);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await totp(user.email, session, generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 600 + i * 60 }))).status);
    expect(statuses).toEqual([401, 401, 423]);
    expect((await totp(user.email, session, generateSync({ secret }))).status).toBe(423);
  });
});

describe('password expiry and change', () => {
  it('an expired password is said at sign-in; changing it (allowed) records the change and ends the expiry', async () => {
    const user = await signedInUser({ passwordExpiryDays: 30 });
    const created = await userItemOf(user.sub);
    expect(typeof created.passwordChangedAt).toBe('string');
    await testDb().send(
      new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET passwordChangedAt = :old', ExpressionAttributeValues: { ':old': new Date(Date.now() - 31 * 86_400_000).toISOString() } }),
    );
    const response = await signIn(user.email, user.password);
    const answer = (await response.json()) as SignInAnswer & { passwordExpired: boolean; tokens: SignInTokens };
    expect(answer).toMatchObject({ status: 'signedIn', passwordExpired: true });
    expect(await typesOf(user.sub)).toContain('password_expired');

    const token = answer.tokens.accessToken;
    const weak = await post('/api/auth/change-password', { currentPassword: user.password, newPassword: 'short' }, token);
    expect(weak.status).toBe(400);
    expect(((await weak.json()) as { message: string }).message).toBe('Password must be at least 8 characters');
    const wrong = await post('/api/auth/change-password', { currentPassword: 'Not-the-Passw0rd!', newPassword: 'New-Passw0rd!2' }, token);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ message: CURRENT_PASSWORD_INCORRECT_MESSAGE });
    const same = await post('/api/auth/change-password', { currentPassword: user.password, newPassword: user.password }, token);
    expect(same.status).toBe(400);

    const changed = await post('/api/auth/change-password', { currentPassword: user.password, newPassword: 'New-Passw0rd!2' }, token);
    expect(changed.status).toBe(200);
    expect(Date.now() - Date.parse((await userItemOf(user.sub)).passwordChangedAt as string)).toBeLessThan(60_000);
    const change = (await eventsOf(user.sub)).find((e) => e.type === 'password_change');
    expect(change).toMatchObject({ severity: 'medium', userAgent: 'sign-in-test/1.0' });
    const again = (await (await signIn(user.email, 'New-Passw0rd!2')).json()) as { passwordExpired: boolean };
    expect(again.passwordExpired).toBe(false);
    expect((await signIn(user.email, user.password)).status).toBe(401);
  });
});

describe('password reset through "Forgot password"', () => {
  it('the Cognito trigger records password_reset (with an alert) and starts the password age again', async () => {
    const user = await signedInUser({ passwordExpiryDays: 30 });
    await testDb().send(
      new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET passwordChangedAt = :old', ExpressionAttributeValues: { ':old': new Date(Date.now() - 40 * 86_400_000).toISOString() } }),
    );
    const client = cognitoClient();
    const { userPoolClientId, userPoolId } = stack().userPool;
    await client.send(new ForgotPasswordCommand({ ClientId: userPoolClientId, Username: user.email }));
    const code = await confirmationCode(path.join(stack().dataDir, ''), userPoolId, user.email);
    await client.send(new ConfirmForgotPasswordCommand({ ClientId: userPoolClientId, Username: user.email, ConfirmationCode: code, Password: 'Reset-Passw0rd!' }));
    client.destroy();
    expect((await eventsOf(user.sub)).find((e) => e.type === 'password_reset')).toMatchObject({ severity: 'medium' });
    expect(Date.now() - Date.parse((await userItemOf(user.sub)).passwordChangedAt as string)).toBeLessThan(60_000);
    const answer = (await (await signIn(user.email, 'Reset-Passw0rd!')).json()) as { passwordExpired: boolean };
    expect(answer.passwordExpired).toBe(false);
    const notifications = await user.json<{ notifications: { title: string }[] }>('/api/notifications');
    expect(notifications.notifications.map((n) => n.title)).toContain('Your password was reset');
  });
});

describe('concurrent sessions', () => {
  const refresh = (refreshToken: string) => {
    const client = cognitoClient();
    return client
      .send(new InitiateAuthCommand({ ClientId: stack().userPool.userPoolClientId, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } }))
      .finally(() => client.destroy());
  };

  it("off: a new sign-in revokes the other sessions' refresh tokens and sets sessionsNotBefore", async () => {
    const user = await apiUser();
    const first = await signedIn(user.email, user.password);
    await putSettings(withToken(user, first.accessToken), { allowConcurrentSessions: false });
    // A second second for auth_time: the first session's sign-in is strictly older.
    await new Promise((r) => setTimeout(r, 1100));
    const second = await signedIn(user.email, user.password);
    await expect(refresh(first.refreshToken)).rejects.toMatchObject({ name: 'NotAuthorizedException' });
    expect((await refresh(second.refreshToken)).AuthenticationResult?.AccessToken).toBeTruthy();
    const secondAuthTime = JSON.parse(Buffer.from(second.accessToken.split('.')[1]!, 'base64url').toString()).auth_time as number;
    expect((await userItemOf(user.sub)).sessionsNotBefore).toBe(secondAuthTime);
    expect((await eventsOf(user.sub)).find((e) => e.type === 'sessions_revoked')).toMatchObject({ severity: 'medium', description: expect.stringContaining('1 other session') });
  });

  it('off: a sign-in straight at Cognito (not through the app) ends the earlier sessions too, through the trigger', async () => {
    const user = await apiUser();
    const first = await signedIn(user.email, user.password);
    await putSettings(withToken(user, first.accessToken), { allowConcurrentSessions: false });
    // Older than the trigger's slack (DIRECT_SIGN_IN_SLACK_SECONDS).
    await new Promise((r) => setTimeout(r, 3100));
    const client = cognitoClient();
    const direct = await client
      .send(new InitiateAuthCommand({ ClientId: stack().userPool.userPoolClientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: user.email, PASSWORD: user.password } }))
      .finally(() => client.destroy());
    const refused = await withToken(user, first.accessToken).call('/api/security/settings');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'SESSION_REPLACED' });
    expect((await withToken(user, direct.AuthenticationResult!.AccessToken!).call('/api/security/settings')).status).toBe(200);
  });

  it("a sign-in straight at Cognito names the guard's user: the user's own limit, events and alert apply from the first failure", async () => {
    const user = await apiUser();
    // apiUser() signed in straight at Cognito only: the trigger has named the address.
    expect(await guardOf(user.email)).toMatchObject({ userId: user.sub, failures: 0 });
    await putSettings(user, { maxLoginAttempts: 3 });
    expect((await signIn(user.email, 'Wrong-Passw0rd!')).status).toBe(401);
    expect((await signIn(user.email, 'Wrong-Passw0rd!')).status).toBe(401);
    expect((await signIn(user.email, 'Wrong-Passw0rd!')).status).toBe(423);
    const types = await typesOf(user.sub);
    expect(types.filter((t) => t === 'failed_login')).toHaveLength(3);
    expect(types).toContain('lockout');
  });

  it('on (the default): the first session keeps refreshing', async () => {
    const user = await apiUser();
    const first = await signedIn(user.email, user.password);
    await signedIn(user.email, user.password);
    expect((await refresh(first.refreshToken)).AuthenticationResult?.AccessToken).toBeTruthy();
    expect(await typesOf(user.sub)).not.toContain('sessions_revoked');
  });
});
