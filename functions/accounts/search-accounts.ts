import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { itemKey, itemsByKey } from '../core/items-by-key';
import type { AccountView } from '../../shared/schemas/project';
import type { Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import type { IndexName } from '../core/table-definition';
import { accountView, readableAccountPassword } from './account-item';
import { searchTerm } from './search-terms';
import { shardsOf } from './account-partitions';
import { withStatesByKey } from './account-states-by-key';
import { channelsWithoutStates } from './account-states';

export const SEARCH_LIMIT = 50;

const searchIndexes: { index: IndexName; pk: string; sk: string }[] = [
  { index: 'AccountsByFirstName', pk: 'GSI1PK', sk: 'GSI1SK' },
  { index: 'AccountsByLastName', pk: 'GSI2PK', sk: 'GSI2SK' },
  { index: 'AccountsByEmail', pk: 'GSI3PK', sk: 'GSI3SK' },
  { index: 'AccountsByUsername', pk: 'GSI4PK', sk: 'GSI4SK' },
];

/**
 * GET /api/accounts/search?q=: accounts of the caller whose first name, last name, e-mail or
 * username starts with q (case and accents ignored). One Query per index, each reading at most
 * SEARCH_LIMIT items from the caller's own index partition, so it costs the same for 100 or
 * 100,000 accounts.
 */
export const searchAccounts =
  (deps: { db: DynamoDBDocumentClient; tableName: string; cipher: () => Promise<Cipher> }) =>
  async (userId: string, q: string, showPasswords: boolean): Promise<{ items: AccountView[]; count: number; hasMore: boolean }> => {
    const term = searchTerm(q);
    if (!term) return { items: [], count: 0, hasMore: false };
    const partition = keys.accountSearchPartition(userId, term);
    const pages = await Promise.all(
      searchIndexes.map(({ index, pk, sk }) =>
        deps.db.send(
          new QueryCommand({
            TableName: deps.tableName,
            IndexName: index,
            KeyConditionExpression: `${pk} = :pk AND begins_with(${sk}, :term)`,
            ExpressionAttributeValues: { ':pk': partition, ':term': term },
            Limit: SEARCH_LIMIT + 1,
          }),
        ),
      ),
    );
    const byId = new Map<string, Record<string, unknown>>();
    let hasMore = false;
    for (const page of pages) {
      if ((page.Items?.length ?? 0) > SEARCH_LIMIT) hasMore = true;
      for (const item of page.Items ?? []) byId.set(String(item.id), item);
    }
    const chosen = [...byId.values()]
      .sort((a, b) => String(a.lastName).localeCompare(String(b.lastName)) || String(a.firstName).localeCompare(String(b.firstName)) || String(a.id).localeCompare(String(b.id)))
      .slice(0, SEARCH_LIMIT);
    if (byId.size > SEARCH_LIMIT) hasMore = true;
    // The indexes hold only keys, id and names (a cheap write per account): the accounts shown
    // are read from the base table by key, one BatchGetItem for at most SEARCH_LIMIT.
    const full = await itemsByKey(deps.db, deps.tableName, chosen.map((item) => ({ PK: String(item.PK), SK: String(item.SK) })));
    const found: Record<string, unknown>[] = [];
    for (const item of chosen) {
      // An account deleted between the two reads is left out.
      const stored = full.get(itemKey(item));
      if (stored) found.push(stored);
    }
    const projects = await projectsOf(deps.db, deps.tableName, userId, found);
    const withState = await withStatesByKey(deps.db, deps.tableName, userId, found, new Map([...projects].map(([id, project]) => [id, shardsOf(project)])), new Map([...projects].map(([id, project]) => [id, channelsWithoutStates(project)])));
    const cipher = showPasswords ? await deps.cipher() : undefined;
    // The project's name now (a renamed project's accounts show its new name).
    const items = withState.map((item) => {
      const name = projects.get(String(item.projectId))?.name;
      return accountView(item, cipher && readableAccountPassword(cipher, item), typeof name === 'string' ? name : undefined);
    });
    return { items, count: items.length, hasMore };
  };

/** The project item of each project among the accounts (one BatchGetItem): its shard count (the state blocks' keys follow from it) and its name now. */
async function projectsOf(db: DynamoDBDocumentClient, tableName: string, userId: string, accounts: Record<string, unknown>[]): Promise<Map<string, Record<string, unknown> | undefined>> {
  const projectIds = [...new Set(accounts.map((account) => String(account.projectId)))];
  const projects = await itemsByKey(db, tableName, projectIds.map((projectId) => keys.project(userId, projectId)));
  return new Map(projectIds.map((projectId) => [projectId, projects.get(itemKey(keys.project(userId, projectId)))]));
}

