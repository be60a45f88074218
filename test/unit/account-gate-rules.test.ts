import { describe, expect, it } from 'vitest';
import { securityRefusal } from '../../functions/core/account-gate';
import { defaultSecuritySettings, type SecuritySettings } from '../../shared/schemas/security';

const now = new Date('2026-06-01T12:00:00.000Z');
const nowS = now.getTime() / 1000;
const HOUR = 3600;
const DAY = 24 * HOUR;
const settings = (changes: Partial<SecuritySettings>): SecuritySettings => ({ ...defaultSecuritySettings, ...changes });
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY * 1000).toISOString();

describe('securityRefusal: the Security Center rules the account gate applies', () => {
  it('passes a fresh sign-in with the defaults', () => {
    expect(securityRefusal({ createdAt: daysAgo(1) }, { authTime: nowS - 60, now })).toBeUndefined();
  });

  it('session timeout: a sign-in exactly sessionTimeout hours old has expired, one second younger has not', () => {
    const item = { securitySettings: settings({ sessionTimeout: 2 }) };
    expect(securityRefusal(item, { authTime: nowS - 2 * HOUR + 1, now })).toBeUndefined();
    expect(securityRefusal(item, { authTime: nowS - 2 * HOUR, now })).toEqual({
      code: 'SESSION_EXPIRED',
      expiredAt: now,
      sessionTimeoutHours: 2,
    });
    // The default (24 h) applies when nothing is saved.
    expect(securityRefusal({}, { authTime: nowS - 24 * HOUR, now })?.code).toBe('SESSION_EXPIRED');
    expect(securityRefusal({}, { authTime: nowS - 23 * HOUR, now })).toBeUndefined();
  });

  it('concurrent sessions off: a sign-in before the latest one (sessionsNotBefore) is replaced; on, it is not', () => {
    const off = { securitySettings: settings({ allowConcurrentSessions: false }), sessionsNotBefore: nowS - 60 };
    expect(securityRefusal(off, { authTime: nowS - 61, now })?.code).toBe('SESSION_REPLACED');
    expect(securityRefusal(off, { authTime: nowS - 60, now })).toBeUndefined();
    // DynamoDB hands numbers back as numbers, API Gateway claims as strings: both read.
    expect(securityRefusal({ ...off, sessionsNotBefore: String(nowS - 60) }, { authTime: nowS - 61, now })?.code).toBe('SESSION_REPLACED');
    expect(securityRefusal({ ...off, securitySettings: settings({}) }, { authTime: nowS - 61, now })).toBeUndefined();
  });

  it('password expiry: passwordChangedAt, else createdAt, passwordExpiryDays old or more; allowed routes pass', () => {
    const item = { securitySettings: settings({ passwordExpiryDays: 30 }), createdAt: daysAgo(400) };
    expect(securityRefusal({ ...item, passwordChangedAt: daysAgo(29) }, { authTime: nowS, now })).toBeUndefined();
    expect(securityRefusal({ ...item, passwordChangedAt: daysAgo(30) }, { authTime: nowS, now })?.code).toBe('PASSWORD_EXPIRED');
    expect(securityRefusal(item, { authTime: nowS, now })?.code).toBe('PASSWORD_EXPIRED');
    expect(securityRefusal(item, { authTime: nowS, now, passwordExpired: 'allow' })).toBeUndefined();
    // An item without either date (never written by this app) cannot be judged.
    expect(securityRefusal({ securitySettings: settings({ passwordExpiryDays: 30 }) }, { authTime: nowS, now })).toBeUndefined();
  });

  it('an expired session is refused as such before an expired password (the sign-in comes first)', () => {
    const item = { securitySettings: settings({ sessionTimeout: 1, passwordExpiryDays: 30 }), createdAt: daysAgo(100) };
    expect(securityRefusal(item, { authTime: nowS - 2 * HOUR, now, passwordExpired: 'allow' })?.code).toBe('SESSION_EXPIRED');
    expect(securityRefusal(item, { authTime: nowS - 2 * HOUR, now })?.code).toBe('SESSION_EXPIRED');
  });
});
