import { describe, expect, it, inject, beforeAll } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT, decodeJwt, generateKeyPair } from 'jose';
import { cognitoAccessTokenVerifier } from '../../bin/local/gateway';
import type { User } from '../../shared/schemas/user';
import { createTestUser, type TestUser } from '../support/cognito-users';

const stack = inject('stack');
const api = (path: string, init: RequestInit = {}) => fetch(`${stack.urls.app}${path}`, { redirect: 'manual', ...init });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
);

describe('GET /api/auth/user', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Grace', lastName: 'Hopper' });
  });

  it('answers 401 without a token', async () => {
    const response = await api('/api/auth/user');
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: 'Unauthorized' });
  });

  it('answers 401 for a forged token with the same claims signed by another key', async () => {
    const claims = decodeJwt(user.accessToken);
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'CognitoLocal' }).sign(privateKey);
    expect((await api('/api/auth/user', { headers: bearer(forged) })).status).toBe(401);
  });

  it('answers 401 for a tampered token and for an unsigned one', async () => {
    const [header, payload, signature] = user.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
    expect((await api('/api/auth/user', { headers: bearer(tampered) })).status).toBe(401);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    expect((await api('/api/auth/user', { headers: bearer(none) })).status).toBe(401);
  });

  it('answers 401 for an ID token (access tokens only)', async () => {
    expect((await api('/api/auth/user', { headers: bearer(user.idToken) })).status).toBe(401);
  });

  it('rejects an expired access token', async () => {
    const verify = cognitoAccessTokenVerifier(stack.urls.cognito, stack.userPool.userPoolId, stack.userPool.userPoolClientId);
    await expect(verify(user.accessToken)).resolves.toMatchObject({ sub: user.sub });
    const afterExpiry = new Date(Date.now() + 25 * 3600 * 1000);
    await expect(verify(user.accessToken, { currentDate: afterExpiry })).rejects.toThrow();
  });

  it('creates the user record on the first call and returns the same record afterwards', async () => {
    const first = await api('/api/auth/user', { headers: bearer(user.accessToken) });
    expect(first.status).toBe(200);
    const body = (await first.json()) as User;
    expect(body).toMatchObject({
      id: user.sub,
      email: user.email,
      firstName: 'Grace',
      lastName: 'Hopper',
      subscriptionPlan: 'free',
      subscriptionStatus: 'active',
      subscriptionCancelAtPeriodEnd: false,
    });
    expect(Date.parse(body.createdAt)).not.toBeNaN();
    expect(body.updatedAt).toBe(body.createdAt);
    expect(body).not.toHaveProperty('PK');

    const { Item } = await db.send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' } }));
    expect(Item).toMatchObject({ entityType: 'User', email: user.email });

    const second = await (await api('/api/auth/user', { headers: bearer(user.accessToken) })).json();
    expect(second).toEqual(body);
  });

  it('creates exactly one record when first calls race', async () => {
    const racer = await createTestUser(stack.urls.cognito, stack.userPool);
    const responses = await Promise.all(Array.from({ length: 5 }, () => api('/api/auth/user', { headers: bearer(racer.accessToken) })));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as User[];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(bodies.map((b) => b.createdAt)).size).toBe(1);
  });

  it('sends one welcome e-mail through the mail queue, worker and SES', async () => {
    const newcomer = await createTestUser(stack.urls.cognito, stack.userPool, { firstName: '<b>Zoë</b>' });
    await api('/api/auth/user', { headers: bearer(newcomer.accessToken) });
    await api('/api/auth/user', { headers: bearer(newcomer.accessToken) });
    let mails: { destination: { to: string[] }; subject: string; body: { html: string } }[] = [];
    for (let i = 0; i < 50; i++) {
      const store = (await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: typeof mails };
      mails = store.emails.filter((m) => m.destination.to.includes(newcomer.email));
      if (mails.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Welcome to BulkOnboard');
    expect(mails[0]!.body.html).toContain('&#60;b&#62;Zoë&#60;/b&#62;');
    expect(mails[0]!.body.html).not.toContain('<b>Zoë');
  });
});

describe('public routes and unknown paths', () => {
  it('/api/login sends the browser to the sign-in screen', async () => {
    const response = await api('/api/login');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/sign-in');
  });

  it('an unknown API path answers 404 JSON', async () => {
    const response = await api('/api/does-not-exist');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
  });

  it('serves the web app configuration', async () => {
    const config = await (await api('/config.json')).json();
    expect(config).toMatchObject({ userPoolId: stack.userPool.userPoolId, authFlow: 'USER_PASSWORD_AUTH', stage: 'local' });
  });
});
