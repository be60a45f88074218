import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { defaultSecuritySettings, TWO_FACTOR_NEEDS_CODE_MESSAGE } from '../../shared/schemas/security';
import { keys } from '../../functions/core/keys';
import { apiUser, testDb, type ApiUser } from '../support/api';

const settingsOf = (user: ApiUser) => user.json<typeof defaultSecuritySettings>('/api/security/settings');
const put = (user: ApiUser, body: unknown) => user.call('/api/security/settings', { method: 'PUT', body });
/** The settings changes of the user (the test user's sign-in is recorded too, as `login`, by the Cognito trigger). */
const eventsOf = async (user: ApiUser) => {
  const { PK, SKPrefix } = keys.securityEventsOf(user.sub);
  const { Items = [] } = await testDb().send(
    new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
  );
  return Items.filter((item) => item.type === 'settings_changed');
};

describe('GET and PUT /api/security/settings', () => {
  it("a new user's settings are the spec's defaults", async () => {
    const user = await apiUser();
    expect(await settingsOf(user)).toEqual(defaultSecuritySettings);
  });

  it('keeps what is left out, records the change as a security event with the caller\'s address', async () => {
    const user = await apiUser();
    const response = await put(user, { sessionTimeout: 12, allowConcurrentSessions: false });
    expect(response.status).toBe(200);
    expect(await settingsOf(user)).toEqual({ ...defaultSecuritySettings, sessionTimeout: 12, allowConcurrentSessions: false });
    const events = await eventsOf(user);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'settings_changed', severity: 'medium' });
    expect(events[0]!.description).toContain('session timeout 12 h');
    expect(events[0]!.ipAddress).not.toBe('');
    // The same values again change nothing and record nothing.
    expect((await put(user, { sessionTimeout: '12' })).status).toBe(200);
    expect(await eventsOf(user)).toHaveLength(1);
  });

  it.each([
    [{ sessionTimeout: 0 }, 'Session timeout must be between 1 and 168 hours'],
    [{ sessionTimeout: 169 }, 'Session timeout must be between 1 and 168 hours'],
    [{ sessionTimeout: 'abc' }, 'Session timeout must be between 1 and 168 hours'],
    [{ passwordExpiryDays: 29 }, 'Password expiry must be between 30 and 365 days'],
    [{ maxLoginAttempts: 11 }, 'Max login attempts must be between 3 and 10 attempts'],
    [{ maxLoginAttempts: 2.5 }, 'Max login attempts must be a whole number'],
    [{ allowConcurrentSessions: 'no' }, 'Allow concurrent sessions must be on or off'],
  ])('refuses %j with the range in words and changes nothing', async (body, message) => {
    const user = await apiUser();
    const response = await put(user, body);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(message);
    expect(await settingsOf(user)).toEqual(defaultSecuritySettings);
  });

  it('two-factor authentication is not switched by the settings form: it needs a code', async () => {
    const user = await apiUser();
    const response = await put(user, { twoFactorEnabled: true, sessionTimeout: 5 });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { message: string }).message).toBe(TWO_FACTOR_NEEDS_CODE_MESSAGE);
    expect(await settingsOf(user)).toEqual(defaultSecuritySettings);
    // Sent with its current value (the form sends all six), it is accepted.
    expect((await put(user, { ...defaultSecuritySettings, sessionTimeout: 5 })).status).toBe(200);
    expect((await settingsOf(user)).sessionTimeout).toBe(5);
  });
});
