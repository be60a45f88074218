import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher, keyRingFromSecret, secretContext } from '../../functions/core/encryption';

const here = secretContext.account('user-a', 'p1.000001');

/** A token of the first format (v1, no key id, no additional data), made as the old code made it. */
function v1Token(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

describe('AES-256-GCM cipher bound to its item (issue 10.8)', () => {
  const cipher = aesGcmCipher(randomBytes(32));

  it('round-trips any string in its context and never repeats a ciphertext', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (plain, context) => {
        const a = cipher.encrypt(plain, context);
        expect(a.startsWith('v2.k1.')).toBe(true);
        expect(cipher.decrypt(a, context)).toBe(plain);
        expect(cipher.encrypt(plain, context)).not.toBe(a);
      }),
    );
  });

  it('a token moved to another item, another user or another kind of secret does not decrypt', () => {
    const token = cipher.encrypt('Secret#123', here);
    expect(() => cipher.decrypt(token, secretContext.account('user-a', 'p1.000002'))).toThrow();
    expect(() => cipher.decrypt(token, secretContext.account('user-b', 'p1.000001'))).toThrow();
    expect(() => cipher.decrypt(token, secretContext.integration('user-a', 'p1.000001'))).toThrow();
    // Nor with its key id changed to claim another key.
    expect(() => cipher.decrypt(token.replace('v2.k1.', 'v2.k2.'), here)).toThrow(/Unknown encryption key/);
  });

  it('detects tampering and a wrong key', () => {
    const token = cipher.encrypt('Secret#123', here);
    const [v, id, iv, tag, ct] = token.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => cipher.decrypt([v, id, iv, tag, flipped.toString('base64url')].join('.'), here)).toThrow();
    expect(() => aesGcmCipher(randomBytes(32)).decrypt(token, here)).toThrow();
    expect(() => cipher.decrypt('v3.a.b.c.d', here)).toThrow(/Unknown ciphertext format/);
  });

  it('tokens stored before (v1) still decrypt, in any context', () => {
    const secret = 'an-existing-deployment-secret-of-64-characters-0123456789abcdefgh';
    const key = createHash('sha256').update(secret).digest();
    const old = v1Token(key, 'Legacy#Pass1');
    expect(aesGcmCipher(keyRingFromSecret(secret)).decrypt(old, here)).toBe('Legacy#Pass1');
    // ... also after a rotation, through k1 of the ring.
    const rotated = keyRingFromSecret(JSON.stringify({ current: 'k2', keys: { k1: secret, k2: 'a-new-secret-string-of-at-least-32-characters!' } }));
    expect(aesGcmCipher(rotated).decrypt(old, here)).toBe('Legacy#Pass1');
  });

  it('rotation: the new key makes new tokens, every key of the ring still opens its own', () => {
    const first = 'first-secret-string-of-at-least-32-characters-long';
    const second = 'second-secret-string-of-at-least-32-characters-long';
    const before = aesGcmCipher(keyRingFromSecret(first));
    const after = aesGcmCipher(keyRingFromSecret(JSON.stringify({ current: 'k2', keys: { k1: first, k2: second } })));
    const oldToken = before.encrypt('Old#Pass12', here);
    const newToken = after.encrypt('New#Pass12', here);
    expect(newToken.startsWith('v2.k2.')).toBe(true);
    expect(after.decrypt(oldToken, here)).toBe('Old#Pass12');
    expect(after.decrypt(newToken, here)).toBe('New#Pass12');
    // A function still on the old ring (not yet restarted) cannot open k2 tokens, and says why.
    expect(() => before.decrypt(newToken, here)).toThrow(/Unknown encryption key "k2"/);
  });

  it('reads a plain secret as one key k1 and refuses a malformed ring', () => {
    expect(keyRingFromSecret('  plain-secret  ').current).toBe('k1');
    expect(() => keyRingFromSecret('{"current":"k2"}')).toThrow(/needs "current"/);
    expect(() => keyRingFromSecret('{"current":"k2","keys":{"k2":"short"}}')).toThrow(/at least 32/);
    expect(() => keyRingFromSecret('{not json')).toThrow(/neither/);
    expect(() => aesGcmCipher(keyRingFromSecret('{"current":"k3","keys":{"k1":"a-secret-string-of-at-least-32-characters"}}'))).toThrow(/not in the key ring/);
    expect(() => aesGcmCipher(keyRingFromSecret('{"current":"k.1","keys":{"k.1":"a-secret-string-of-at-least-32-characters"}}'))).toThrow(/Key id/);
  });
});
