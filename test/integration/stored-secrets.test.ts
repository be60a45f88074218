import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { keys } from '../../functions/core/keys';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { AccountView, Project } from '../../shared/schemas/project';
import { apiUser, testDb } from '../support/api';

/**
 * Stored passwords are bound to their account (issue 10.8): a ciphertext copied into another
 * account's item no longer opens there, and passwords stored before the change (v1 tokens) still
 * show. Through the real handlers, with the local stack's own key file.
 */
const TABLE = 'bulkonboard';

async function twoAccounts() {
  const user = await apiUser();
  const created = await user.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', {
    body: { projectName: 'Secrets', csvData: [{ firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' }, { firstName: 'Bob', lastName: 'Ray', email: 'bob@example.com' }] },
  });
  const [ann, bob] = created.accounts;
  const key = (account: CreatedAccount) => keys.account(user.sub, created.project.id, Number(account.id.split('.')[1]));
  const stored = async (account: CreatedAccount) => (await testDb().send(new GetCommand({ TableName: TABLE, Key: key(account) }))).Item!;
  const setToken = (account: CreatedAccount, token: string) =>
    testDb().send(new UpdateCommand({ TableName: TABLE, Key: key(account), UpdateExpression: 'SET passwordCiphertext = :t', ExpressionAttributeValues: { ':t': token } }));
  const shown = async () => {
    const response = await user.call(`/api/projects/${created.project.id}/accounts?showPasswords=true`);
    expect(response.status).toBe(200);
    const { items } = (await response.json()) as { items: AccountView[] };
    return Object.fromEntries(items.map((item) => [item.firstName, item.password]));
  };
  return { user, ann: ann!, bob: bob!, stored, setToken, shown };
}

describe('stored passwords are bound to their account', () => {
  it('are stored as v2 tokens with a key id, and show as created', async () => {
    const { ann, bob, stored, shown } = await twoAccounts();
    expect(String((await stored(ann)).passwordCiphertext)).toMatch(/^v2\.k1\./);
    expect(await shown()).toEqual({ Ann: ann.plainPassword, Bob: bob.plainPassword });
  });

  it("a token copied into another account's item does not open there; the page still answers, without that password", async () => {
    const { ann, bob, stored, setToken, shown } = await twoAccounts();
    await setToken(bob, String((await stored(ann)).passwordCiphertext));
    const passwords = await shown();
    expect(passwords.Bob).toBeUndefined();
    // Ann's own item still opens.
    expect(passwords.Ann).toBe(ann.plainPassword);
  });

  it('a password stored before the change (v1, no key id, no binding) still shows', async () => {
    const { ann, setToken, shown } = await twoAccounts();
    const secret = readFileSync(path.join(inject('stack').dataDir, 'encryption.key'), 'utf8').trim();
    const key = createHash('sha256').update(secret, 'utf8').digest();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ciphertext = Buffer.concat([cipher.update('Legacy#Pass12', 'utf8'), cipher.final()]);
    await setToken(ann, ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.'));
    expect((await shown()).Ann).toBe('Legacy#Pass12');
  });
});
