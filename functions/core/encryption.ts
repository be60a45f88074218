import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { env } from './env';

/**
 * Application-level encryption of stored secrets (generated passwords, integration credentials,
 * stored answers): AES-256-GCM with a random 96-bit IV per value, bound to the item it belongs to.
 *
 * Tokens read `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url). The additional authenticated
 * data is the version, the key id and the value's context (`account:<user>:<account id>`, see
 * `secretContext`), so a token copied into another item, or another user's item, fails to
 * decrypt, and the key id says which key of the ring opens it: a new key can become the current
 * one while older tokens still decrypt (docs/deploy.md, "Rotating the encryption key").
 * Tokens of the first format, `v1.<iv>.<tag>.<ciphertext>`, had neither; they still decrypt with
 * the ring's first key (the one every v1 token was made with).
 *
 * The key ring comes from Secrets Manager in AWS and from a key file under the local data folder
 * in `npm start`; it is loaded once per cold start and never logged.
 */
export interface Cipher {
  encrypt(plain: string, context: string): string;
  /** Throws for a token made for another context, with another key, or tampered with. */
  decrypt(token: string, context: string): string;
}

/** What a stored secret belongs to: its token decrypts only there. */
export const secretContext = {
  account: (userId: string, accountId: string) => `account:${userId}:${accountId}`,
  integration: (userId: string, integrationId: string) => `integration:${userId}:${integrationId}`,
  storedAnswer: (userId: string, key: string) => `answer:${userId}:${key}`,
  /** The token of the one-time credential link a send issued for an account (functions/credential-links). */
  credentialLink: (userId: string, sendId: string, accountId: string) => `credential-link:${userId}:${sendId}:${accountId}`,
  /** A signed-in session's refresh token, kept to revoke it when concurrent sessions are off (functions/security/sign-in-sessions.ts). */
  session: (userId: string, sessionId: string) => `session:${userId}:${sessionId}`,
  /** The sign-in in progress between the password and the TOTP code, handed to the browser (opaque to it). */
  signInChallenge: (emailHash: string) => `sign-in-challenge:${emailHash}`,
  /** The user's TOTP secret (functions/security/two-factor): kept to check the code that turns it off. */
  twoFactor: (userId: string) => `two-factor:${userId}`,
};

export interface KeyRing {
  /** Id of the key new tokens are made with. */
  current: string;
  /** Every key that may still open a token, by id. The first is the one v1 tokens were made with. */
  keys: ReadonlyMap<string, Buffer>;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export function aesGcmCipher(ring: KeyRing | Buffer): Cipher {
  const { current, keys } = Buffer.isBuffer(ring) ? { current: 'k1', keys: new Map([['k1', ring]]) } : ring;
  for (const [id, key] of keys) {
    if (!KEY_ID.test(id)) throw new Error(`Key id "${id}" must be 1-32 letters, digits, _ or -`);
    if (key.length !== 32) throw new Error('The encryption key must be 32 bytes');
  }
  // Key objects made once: Node checks a raw key Buffer anew on every cipher made with it (about
  // 60 µs each, the larger part of decrypting a password: 10,000 of them in a credential send).
  const keyObjects = new Map([...keys].map(([id, key]) => [id, createSecretKey(key)]));
  const currentKey = keyObjects.get(current);
  if (!currentKey) throw new Error(`The current key "${current}" is not in the key ring`);
  // v1 tokens were all made with the deployment's first key, k1 in a ring.
  const legacyKey = keyObjects.get('k1') ?? keyObjects.values().next().value!;
  const aad = (keyId: string, context: string) => Buffer.from(`v2.${keyId}.${context}`, 'utf8');

  return {
    encrypt(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
      cipher.setAAD(aad(current, context));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v2', current, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    decrypt(token, context) {
      const parts = token.split('.');
      if (parts[0] === 'v1' && parts.length === 4) return open(legacyKey, parts[1]!, parts[2]!, parts[3]!);
      if (parts[0] !== 'v2' || parts.length !== 5) throw new Error('Unknown ciphertext format');
      const [, keyId, iv, tag, ciphertext] = parts as [string, string, string, string, string];
      const key = keyObjects.get(keyId);
      if (!key) throw new Error(`Unknown encryption key "${keyId}"`);
      return open(key, iv, tag, ciphertext, aad(keyId, context));
    },
  };
}

function open(key: KeyObject, iv: string, tag: string, ciphertext: string, additionalData?: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (additionalData) decipher.setAAD(additionalData);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A secret string of any length becomes a 32-byte key. */
const keyFromSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/**
 * The key ring a secret holds: a plain string is one key, id `k1` (how every deployment began);
 * JSON `{"current":"k2","keys":{"k1":"<old string>","k2":"<new string>"}}` is a ring, the old
 * string first, under `k1`, so v1 tokens and k1 tokens keep decrypting.
 */
export function keyRingFromSecret(secret: string): KeyRing {
  const text = secret.trim();
  if (!text.startsWith('{')) return { current: 'k1', keys: new Map([['k1', keyFromSecret(text)]]) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('The encryption secret is neither a key string nor key ring JSON');
  }
  const { current, keys } = (parsed ?? {}) as { current?: unknown; keys?: unknown };
  if (typeof current !== 'string' || typeof keys !== 'object' || keys === null || Array.isArray(keys)) {
    throw new Error('Key ring JSON needs "current" (a key id) and "keys" (key id -> secret string)');
  }
  const entries = Object.entries(keys as Record<string, unknown>);
  if (entries.length === 0 || entries.some(([, value]) => typeof value !== 'string' || value.length < 32)) {
    throw new Error('Every key of the ring must be a secret string of at least 32 characters');
  }
  return { current, keys: new Map(entries.map(([id, value]) => [id, keyFromSecret(value as string)])) };
}

let cipher: Promise<Cipher> | undefined;

/** The process's cipher, created on first use from ENCRYPTION_KEY_FILE or ENCRYPTION_KEY_SECRET_ARN. */
export function appCipher(): Promise<Cipher> {
  cipher ??= (async () => {
    const { ENCRYPTION_KEY_FILE, ENCRYPTION_KEY_SECRET_ARN } = env();
    if (ENCRYPTION_KEY_FILE) return aesGcmCipher(keyRingFromSecret(await readFile(ENCRYPTION_KEY_FILE, 'utf8')));
    if (ENCRYPTION_KEY_SECRET_ARN) {
      const client = new SecretsManagerClient({});
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: ENCRYPTION_KEY_SECRET_ARN }));
      client.destroy();
      if (!SecretString) throw new Error('The encryption secret is empty');
      return aesGcmCipher(keyRingFromSecret(SecretString));
    }
    throw new Error('No encryption key configured (ENCRYPTION_KEY_FILE or ENCRYPTION_KEY_SECRET_ARN)');
  })();
  cipher.catch(() => (cipher = undefined));
  return cipher;
}
