import { describe, expect, it } from 'vitest';
import { acceptedTotp, emailHashOf, isLocked, isUsedTotpCode, pendingOriginOf } from '../../functions/security/sign-in-guard';
import { lockedError, tokenClaims } from '../../functions/security/sign-in';

const at = (seconds: number) => new Date(seconds * 1000);
const hash = emailHashOf('Ada@Example.com ');

describe('sign-in guard rules', () => {
  it('one guard per address, whatever its case and spaces', () => {
    expect(emailHashOf('ada@example.com')).toBe(hash);
    expect(emailHashOf('eve@example.com')).not.toBe(hash);
  });

  it('a used TOTP code is refused while Cognito could still accept it (its step and the next two), not after, and only that code', () => {
    const start = 1_800_000_000; // a step boundary (divisible by 30)
    const guard = { failures: 0, ...acceptedTotp(hash, '123456', at(start + 5)) };
    expect(isUsedTotpCode(guard, hash, '123456', at(start + 29))).toBe(true);
    expect(isUsedTotpCode(guard, hash, '123456', at(start + 89))).toBe(true);
    expect(isUsedTotpCode(guard, hash, '123456', at(start + 90))).toBe(false);
    expect(isUsedTotpCode(guard, hash, '654321', at(start + 10))).toBe(false);
    // Remembered per address: the same digits for another address are another code.
    expect(isUsedTotpCode(guard, emailHashOf('eve@example.com'), '123456', at(start + 10))).toBe(false);
    expect(isUsedTotpCode({ failures: 0 }, hash, '123456', at(start))).toBe(false);
  });

  it('locked only while lockedUntil is ahead; the origin counts for the trigger only while fresh', () => {
    expect(isLocked({ failures: 0, lockedUntil: 100 }, at(99))).toBe(true);
    expect(isLocked({ failures: 0, lockedUntil: 100 }, at(100))).toBe(false);
    expect(isLocked(undefined, at(0))).toBe(false);
    const guard = { failures: 0, pendingOrigin: { ipAddress: '203.0.113.9', userAgent: 'Firefox', at: 1000 } };
    expect(pendingOriginOf(guard, at(1060))).toEqual({ ipAddress: '203.0.113.9', userAgent: 'Firefox' });
    expect(pendingOriginOf(guard, at(1061))).toBeUndefined();
  });

  it('the 423 names the minutes left (at least one) and carries ACCOUNT_LOCKED', () => {
    const error = lockedError(1000 + 15 * 60, at(1000));
    expect(error.statusCode).toBe(423);
    expect(error.code).toBe('ACCOUNT_LOCKED');
    expect(error.message).toContain('locked for 15 minutes');
    expect(lockedError(1010, at(1000)).message).toContain('locked for 1 minute.');
  });

  it('reads sub and auth_time from a token Cognito issued, and refuses one without them', () => {
    const token = (payload: object) => `h.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.s`;
    expect(tokenClaims(token({ sub: 'u-1', auth_time: 1700000000 }))).toEqual({ sub: 'u-1', authTime: 1700000000 });
    expect(() => tokenClaims(token({ sub: 'u-1' }))).toThrow();
  });
});
