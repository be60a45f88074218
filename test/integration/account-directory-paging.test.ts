import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { accountItem } from '../../functions/accounts/account-item';
import { browseAccounts, PROJECTS_PER_PAGE } from '../../functions/accounts/browse-accounts';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { directoryQuerySchema, type DirectoryPage } from '../../shared/schemas/account-directory';
import { apiUser, testDb, type ApiUser } from '../support/api';

const TABLE = 'bulkonboard';

/**
 * The Account Database for a user with many projects: a later page newest first carries the first
 * page's count and reads the user's projects from its own on, a page of them at a time, not every
 * project item of the user; the listing is still whole, in order, each account once.
 */
describe('GET /api/accounts across many projects', () => {
  let user: ApiUser;
  const PROJECTS = PROJECTS_PER_PAGE * 2 + 5;
  const ids: string[] = [];

  beforeAll(async () => {
    user = await apiUser();
    const items: Record<string, unknown>[] = [];
    // Oldest first: project p is created p minutes after the first; two accounts each.
    for (let p = 0; p < PROJECTS; p++) {
      const at = new Date(Date.now() - (PROJECTS - p) * 60_000);
      const projectId = timeOrderedId(at);
      items.push({ ...keys.project(user.sub, projectId), entityType: 'Project', id: projectId, userId: user.sub, name: `Many ${p}`, accountType: 'Standard User', status: 'active', accountCount: 2, failedCount: 0, createdAt: at.toISOString(), updatedAt: at.toISOString() });
      for (const row of [1, 2]) {
        const id = keys.accountId(projectId, row);
        items.push(accountItem({ id, userId: user.sub, projectId, projectName: `Many ${p}`, row, firstName: `Many${p}`, lastName: `Row${row}`, email: `many.${p}.${row}.${randomUUID().slice(0, 6)}@example.com`, username: `many${p}r${row}${randomUUID().slice(0, 4)}`, passwordCiphertext: 'x', accountType: 'Standard User', isActive: true, externalStatus: 'pending', createdAt: at.toISOString() }));
        // Newest first: the newest project's row 2, then its row 1, then the next older project's.
        ids.unshift(id);
      }
    }
    for (let i = 0; i < items.length; i += 25) await testDb().send(new BatchWriteCommand({ RequestItems: { [TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  });

  it('lists every account newest first, page after page, each once, the count the same on every page', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await user.json<DirectoryPage>(`/api/accounts?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page).toMatchObject({ count: PROJECTS * 2, countIs: 'exact' });
      seen.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor;
      expect(++pages).toBeLessThan(40);
    } while (cursor);
    expect(seen).toEqual(ids);
    // Another user's cursor continues nothing of theirs.
    const first = await user.json<DirectoryPage>('/api/accounts?limit=7');
    const other = await apiUser();
    expect((await other.call(`/api/accounts?cursor=${first.nextCursor}`)).status).toBe(400);
  });

  it('reads at most a page of project items on a later page, and with a term only the projects of its hits', async () => {
    const { dynamodb } = inject('stack').urls;
    const counted = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), { marshallOptions: { removeUndefinedValues: true } });
    let projectItems = 0;
    counted.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const output = result.output as { Items?: Record<string, unknown>[]; Responses?: Record<string, Record<string, unknown>[]> };
        projectItems += [...(output.Items ?? []), ...Object.values(output.Responses ?? {}).flat()].filter((item) => item.entityType === 'Project').length;
        return result;
      },
      { step: 'initialize', name: 'countProjectItems' },
    );
    const browse = browseAccounts({ db: counted, tableName: TABLE, cipher: () => Promise.reject(new Error('no passwords here')) });
    const first = await browse(user.sub, directoryQuerySchema.parse({ limit: '7' }));
    expect(projectItems).toBe(PROJECTS);
    projectItems = 0;
    const second = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', cursor: first.nextCursor }));
    expect(second.items).toHaveLength(7);
    expect(second.count).toBe(PROJECTS * 2);
    expect(projectItems).toBeLessThanOrEqual(PROJECTS_PER_PAGE + 1);

    // A term: only the projects of the hits the page reads, by key.
    projectItems = 0;
    const found = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', q: 'many' }));
    expect(found.items).toHaveLength(7);
    expect(projectItems).toBeLessThanOrEqual(7);
    projectItems = 0;
    const more = await browse(user.sub, directoryQuerySchema.parse({ limit: '7', q: 'many', cursor: found.nextCursor }));
    expect(more.items.map((a) => a.id).filter((id) => found.items.some((a) => a.id === id))).toEqual([]);
    expect(projectItems).toBeLessThanOrEqual(7);
  });
});
