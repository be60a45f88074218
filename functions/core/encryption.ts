import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { env } from './env';

/**
 * Application-level encryption of stored secrets (generated passwords, integration credentials):
 * AES-256-GCM with a random 96-bit IV per value. Tokens read `v1.<iv>.<tag>.<ciphertext>`
 * (base64url). The key comes from Secrets Manager in AWS and from a key file under the local
 * data folder in `npm start`; it is loaded once per cold start and never logged.
 */
export interface Cipher {
  encrypt(plain: string): string;
  decrypt(token: string): string;
}

export function aesGcmCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new Error('The encryption key must be 32 bytes');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    decrypt(token) {
      const [version, iv, tag, ciphertext] = token.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('Unknown ciphertext format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** A secret string of any length becomes a 32-byte key. */
const keyFromSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

let cipher: Promise<Cipher> | undefined;

/** The process's cipher, created on first use from ENCRYPTION_KEY_FILE or ENCRYPTION_KEY_SECRET_ARN. */
export function appCipher(): Promise<Cipher> {
  cipher ??= (async () => {
    const { ENCRYPTION_KEY_FILE, ENCRYPTION_KEY_SECRET_ARN } = env();
    if (ENCRYPTION_KEY_FILE) return aesGcmCipher(keyFromSecret((await readFile(ENCRYPTION_KEY_FILE, 'utf8')).trim()));
    if (ENCRYPTION_KEY_SECRET_ARN) {
      const client = new SecretsManagerClient({});
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: ENCRYPTION_KEY_SECRET_ARN }));
      client.destroy();
      if (!SecretString) throw new Error('The encryption secret is empty');
      return aesGcmCipher(keyFromSecret(SecretString));
    }
    throw new Error('No encryption key configured (ENCRYPTION_KEY_FILE or ENCRYPTION_KEY_SECRET_ARN)');
  })();
  cipher.catch(() => (cipher = undefined));
  return cipher;
}
