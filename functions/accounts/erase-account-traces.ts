import { BatchWriteCommand, GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isBatchRetryable, UnprocessedItemsError, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { keys } from '../core/keys';
import { queryItems } from '../core/query-pages';
import { eraseFromHistoryBlocks } from './account-history-blocks';
import { rowOf } from './account-states';

/**
 * What an account leaves beside its own item, erased when the account is deleted (the account
 * action 'delete', account-actions-chunk.ts, calls this before its transaction erases the account;
 * a redelivery calls it again and finds what is left):
 * - its one-time credential links: each link (`CREDLINK#<hash>`), its global reference, the send's
 *   issue record, found through the account's list of links (keys.accountLinksOf, written with each
 *   link since it exists) and, for a link issued before that list, the account's latest send
 *   (`mailSend` of its MAIL state, one read);
 * - its history entries (keys.accountHistoryOf), and its entries in the account actions' history
 *   items of its block (account-history-blocks.ts: the attribute taken out, the others' kept).
 * The work is the account's own items: three Queries of the account's rows, a GetItem, the deletions.
 * The project's and the user's erasures still delete whatever a project holds (keys.projectPartitions).
 */
type Deps = { db: DynamoDBDocumentClient; tableName: string; retry?: RetryPolicy };
type Key = { PK: string; SK: string };

export async function eraseAccountTraces(deps: Deps, userId: string, projectId: string, account: Record<string, unknown>, shards: number): Promise<void> {
  const row = rowOf(account);
  const accountId = String(account.id);
  const listed = await keysOf(deps, keys.accountLinksOf(userId, projectId, row), 'PK, SK, sendId, tokenHash');
  const issues = new Map<string, Key>();
  const links: Key[] = [];
  for (const entry of listed) {
    const link = keys.credentialLink(String(entry.tokenHash));
    links.push(link, keys.globalReference(userId, link));
    const issue = keys.credentialLinkIssue(userId, String(entry.sendId), accountId);
    issues.set(issue.SK, issue);
  }
  // A link issued before the account's list of links: the latest send's, when it issued one.
  if (typeof account.mailSend === 'string' && !issues.has(keys.credentialLinkIssue(userId, account.mailSend, accountId).SK)) {
    const issue = keys.credentialLinkIssue(userId, account.mailSend, accountId);
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: issue, ProjectionExpression: 'tokenHash', ConsistentRead: true }));
    if (typeof Item?.tokenHash === 'string') {
      const link = keys.credentialLink(Item.tokenHash);
      links.push(link, keys.globalReference(userId, link));
      issues.set(issue.SK, issue);
    }
  }
  const [history] = await Promise.all([keysOf(deps, keys.accountHistoryOf(userId, projectId, row), 'PK, SK'), eraseFromHistoryBlocks(deps, { userId, projectId, row, shards })]);
  // The list of links goes last: a delivery stopped on the way finds the rest through it again.
  await deleteKeys(deps, [...links, ...issues.values(), ...history.map(keyOf)]);
  await deleteKeys(deps, listed.map(keyOf));
}

const keyOf = (item: Record<string, unknown>): Key => ({ PK: String(item.PK), SK: String(item.SK) });

async function keysOf(deps: Deps, of: { PK: string; SKPrefix: string }, projection: string): Promise<Record<string, unknown>[]> {
  return queryItems(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': of.PK, ':prefix': of.SKPrefix },
    ProjectionExpression: projection,
    ConsistentRead: true,
  });
}

async function deleteKeys(deps: Deps, itemKeys: readonly Key[]): Promise<void> {
  for (let i = 0; i < itemKeys.length; i += 25) {
    let requests: Record<string, unknown>[] = itemKeys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    await withRetry('Erasing what a deleted account leaves', deps.retry ?? workerRetry, isBatchRetryable, async () => {
      const { UnprocessedItems } = await deps.db.send(new BatchWriteCommand({ RequestItems: { [deps.tableName]: requests as never } }));
      requests = (UnprocessedItems?.[deps.tableName] ?? []) as Record<string, unknown>[];
      if (requests.length) throw new UnprocessedItemsError(requests.length);
    });
  }
}
