import { generate } from 'otplib';
import { describe, expect, inject, it } from 'vitest';
import { AdminGetUserCommand, CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { TWO_FACTOR_SECRET } from '../../functions/security/two-factor-adapters';
import type { SecuritySettings } from '../../shared/schemas/security';
import {
  TWO_FACTOR_ALREADY_OFF_MESSAGE,
  TWO_FACTOR_CODE_FORMAT_MESSAGE,
  TWO_FACTOR_NO_SETUP_MESSAGE,
  TWO_FACTOR_REUSED_CODE_MESSAGE,
  TWO_FACTOR_SETUP_BUSY_MESSAGE,
  TWO_FACTOR_WRONG_CODE_MESSAGE,
  type TwoFactorSetup,
} from '../../shared/schemas/two-factor';
import { apiUser, testDb, type ApiUser } from '../support/api';

const cognitoClient = () =>
  new CognitoIdentityProviderClient({ region: 'us-east-1', endpoint: inject('stack').urls.cognito, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const mfaOf = async (user: ApiUser) => {
  const client = cognitoClient();
  const answer = await client.send(new AdminGetUserCommand({ UserPoolId: inject('stack').userPool.userPoolId, Username: user.email }));
  client.destroy();
  return { methods: answer.UserMFASettingList ?? [], preferred: answer.PreferredMfaSetting };
};
const signInChallenge = async (user: ApiUser) => {
  const client = cognitoClient();
  const answer = await client.send(
    new InitiateAuthCommand({ ClientId: inject('stack').userPool.userPoolClientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: user.email, PASSWORD: user.password } }),
  );
  client.destroy();
  return answer.ChallengeName;
};
const securityEvents = async (user: ApiUser) => {
  const { PK, SKPrefix } = keys.securityEventsOf(user.sub);
  const { Items = [] } = await testDb().send(
    new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
  );
  return Items;
};
const post = (user: ApiUser, step: 'setup' | 'enable' | 'disable', body?: unknown) => user.call(`/api/security/two-factor/${step}`, { method: 'POST', ...(body === undefined ? {} : { body }) });
const messageOf = async (response: Response) => ((await response.json()) as { message: string }).message;
const now = () => Math.floor(Date.now() / 1000);
const twoFactorOn = async (user: ApiUser) => (await user.json<SecuritySettings>('/api/security/settings')).twoFactorEnabled;

describe('two-factor authentication', () => {
  it('setup gives a secret and its QR URI; only a right code turns it on (Cognito then asks for the code at sign-in); turning it off takes a fresh code', async () => {
    const user = await apiUser();
    const setup = await user.json<TwoFactorSetup>('/api/security/two-factor/setup', { method: 'POST' });
    expect(setup.secret).toMatch(/^[A-Z2-7]{16,}$/);
    const uri = new URL(setup.otpauthUri);
    expect(decodeURIComponent(uri.pathname)).toBe(`/BulkOnboard:${user.email}`);
    expect(uri.searchParams.get('secret')).toBe(setup.secret);
    expect(uri.searchParams.get('issuer')).toBe('BulkOnboard');

    // Wrong codes: a clear 400, nothing changes.
    const wrong = await post(user, 'enable', { code: (Number(await generate({ secret: setup.secret })) + 1).toString().padStart(6, '0').slice(-6) });
    expect(wrong.status).toBe(400);
    expect(await messageOf(wrong)).toBe(TWO_FACTOR_WRONG_CODE_MESSAGE);
    const malformed = await post(user, 'enable', { code: '12ab' });
    expect(malformed.status).toBe(400);
    expect(await messageOf(malformed)).toBe(TWO_FACTOR_CODE_FORMAT_MESSAGE);
    expect(await twoFactorOn(user)).toBe(false);
    expect(await signInChallenge(user)).toBeUndefined();

    // The right code (typed with the space apps show) turns it on, in Cognito too.
    const code = await generate({ secret: setup.secret });
    const enabled = await post(user, 'enable', { code: `${code.slice(0, 3)} ${code.slice(3)}` });
    expect(enabled.status).toBe(200);
    expect(((await enabled.json()) as SecuritySettings).twoFactorEnabled).toBe(true);
    expect(await twoFactorOn(user)).toBe(true);
    expect(await mfaOf(user)).toEqual({ methods: ['SOFTWARE_TOKEN_MFA'], preferred: 'SOFTWARE_TOKEN_MFA' });
    expect(await signInChallenge(user)).toBe('SOFTWARE_TOKEN_MFA');
    // The secret is kept encrypted, never as typed into the app.
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), ConsistentRead: true }));
    expect(Item?.[TWO_FACTOR_SECRET]).toMatch(/^v2\./);
    expect(JSON.stringify(Item)).not.toContain(setup.secret);

    // Off: a wrong code and the code already used are refused, and it stays on.
    const wrongOff = await post(user, 'disable', { code: '000000' === code ? '111111' : '000000' });
    expect(wrongOff.status).toBe(400);
    expect(await messageOf(wrongOff)).toBe(TWO_FACTOR_WRONG_CODE_MESSAGE);
    const reused = await post(user, 'disable', { code });
    expect(reused.status).toBe(400);
    expect(await messageOf(reused)).toBe(TWO_FACTOR_REUSED_CODE_MESSAGE);
    expect(await twoFactorOn(user)).toBe(true);
    expect(await signInChallenge(user)).toBe('SOFTWARE_TOKEN_MFA');

    // The next period's code (the app's next one) turns it off, once.
    const next = await generate({ secret: setup.secret, epoch: now() + 30 });
    expect((await post(user, 'disable', { code: next })).status).toBe(200);
    expect(await twoFactorOn(user)).toBe(false);
    expect((await mfaOf(user)).methods).toEqual([]);
    expect(await signInChallenge(user)).toBeUndefined();
    const again = await post(user, 'disable', { code: next });
    expect(again.status).toBe(409);
    expect(await messageOf(again)).toBe(TWO_FACTOR_ALREADY_OFF_MESSAGE);

    const events = (await securityEvents(user)).map((e) => [e.type, e.severity]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['two_factor_enabled', 'medium'],
        ['two_factor_disabled', 'high'],
        ['two_factor_failed', 'medium'],
      ]),
    );
    // The wrong code on, the wrong and the reused code off (the malformed one never reached the check).
    expect(events.filter(([type]) => type === 'two_factor_failed')).toHaveLength(3);
    // Both switches are security alerts: they reach the notifications.
    const { notifications } = await user.json<{ notifications: { title: string }[] }>('/api/notifications');
    expect(notifications.map((n) => n.title)).toEqual(expect.arrayContaining(['Two-factor authentication turned on', 'Two-factor authentication turned off']));
  });

  it('enable without a setup, or with only the settings form, changes nothing', async () => {
    const user = await apiUser();
    const response = await post(user, 'enable', { code: '123456' });
    expect(response.status).toBe(409);
    expect(await messageOf(response)).toBe(TWO_FACTOR_NO_SETUP_MESSAGE);
    expect((await post(user, 'disable', { code: '123456' })).status).toBe(409);
    expect(await twoFactorOn(user)).toBe(false);
    expect((await mfaOf(user)).methods).toEqual([]);
  });

  it('two setups at once (a double click, two windows): one is refused, so Cognito and the item keep the same secret', async () => {
    const user = await apiUser();
    const answers = await Promise.all([post(user, 'setup'), post(user, 'setup')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(await messageOf(refused)).toBe(TWO_FACTOR_SETUP_BUSY_MESSAGE);
    const setup = (await answers.find((a) => a.status === 200)!.json()) as TwoFactorSetup;
    expect((await post(user, 'enable', { code: await generate({ secret: setup.secret }) })).status).toBe(200);
    expect(await mfaOf(user)).toEqual({ methods: ['SOFTWARE_TOKEN_MFA'], preferred: 'SOFTWARE_TOKEN_MFA' });
  });

  it('the settings saved in between are kept: turning two-factor on changes only that setting', async () => {
    const user = await apiUser();
    const setup = await user.json<TwoFactorSetup>('/api/security/two-factor/setup', { method: 'POST' });
    expect((await user.call('/api/security/settings', { method: 'PUT', body: { sessionTimeout: 7 } })).status).toBe(200);
    expect((await post(user, 'enable', { code: await generate({ secret: setup.secret }) })).status).toBe(200);
    expect(await user.json<SecuritySettings>('/api/security/settings')).toMatchObject({ sessionTimeout: 7, twoFactorEnabled: true });
  });
});
