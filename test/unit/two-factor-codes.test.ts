import { generate, generateSecret } from 'otplib';
import { describe, expect, it } from 'vitest';
import { checkCode, otpauthUri } from '../../functions/security/two-factor-codes';

const secret = generateSecret();
const at = new Date('2026-06-01T12:00:10.000Z');
const epoch = at.getTime() / 1000;
const codeAt = (seconds: number) => generate({ secret, epoch: seconds });
const step = (seconds: number) => Math.floor(seconds / 30);

describe('checkCode: TOTP codes for turning two-factor authentication off', () => {
  it("accepts the current code, and the neighbouring periods' (a code typed as it changes), with its time step", async () => {
    expect(await checkCode(secret, await codeAt(epoch), undefined, at)).toEqual({ valid: true, timeStep: step(epoch) });
    expect(await checkCode(secret, await codeAt(epoch - 30), undefined, at)).toEqual({ valid: true, timeStep: step(epoch) - 1 });
    expect(await checkCode(secret, await codeAt(epoch + 30), undefined, at)).toEqual({ valid: true, timeStep: step(epoch) + 1 });
  });

  it('refuses a code two periods old, another secret\'s code and anything not 6 digits as wrong', async () => {
    expect(await checkCode(secret, await codeAt(epoch - 90), undefined, at)).toEqual({ valid: false, reason: 'wrong' });
    expect(await checkCode(generateSecret(), await codeAt(epoch), undefined, at)).toEqual({ valid: false, reason: 'wrong' });
    for (const code of ['', '12345', '1234567', 'abcdef']) expect(await checkCode(secret, code, undefined, at)).toEqual({ valid: false, reason: 'wrong' });
  });

  it('refuses a code at or before the last accepted time step as reused; a later one passes', async () => {
    const current = await codeAt(epoch);
    expect(await checkCode(secret, current, step(epoch), at)).toEqual({ valid: false, reason: 'reused' });
    expect(await checkCode(secret, await codeAt(epoch - 30), step(epoch), at)).toEqual({ valid: false, reason: 'reused' });
    expect(await checkCode(secret, await codeAt(epoch + 30), step(epoch), at)).toEqual({ valid: true, timeStep: step(epoch) + 1 });
  });

  it('otpauth URI: issuer BulkOnboard, the e-mail as the account', () => {
    const uri = new URL(otpauthUri(secret, 'ada@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/BulkOnboard:ada@example.com');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('BulkOnboard');
  });
});
