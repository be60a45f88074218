import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountView } from '../../shared/schemas/project';
import type { Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import type { IndexName } from '../core/table-definition';
import { accountView, readableAccountPassword } from './account-item';
import { searchTerm } from './search-terms';

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
    const found = [...byId.values()]
      .sort((a, b) => String(a.lastName).localeCompare(String(b.lastName)) || String(a.firstName).localeCompare(String(b.firstName)) || String(a.id).localeCompare(String(b.id)))
      .slice(0, SEARCH_LIMIT);
    if (byId.size > SEARCH_LIMIT) hasMore = true;
    const cipher = showPasswords ? await deps.cipher() : undefined;
    const items = found.map((item) => accountView(item, cipher && readableAccountPassword(cipher, item)));
    return { items, count: items.length, hasMore };
  };
