import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isIdShaped } from '../../shared/schemas/ids';
import { NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { shardsOf } from './account-partitions';
import { withStates } from './account-states';

/** An account id is `<projectId>.<row, 6 digits>` (keys.accountId); anything else names nothing. */
export function parseAccountId(accountId: string): { projectId: string; row: number } | undefined {
  const match = /^(.+)\.(\d{6})$/.exec(accountId);
  if (!match || !isIdShaped(match[1]!)) return undefined;
  const row = Number(match[2]);
  return row >= 1 ? { projectId: match[1]!, row } : undefined;
}

export interface LoadedAccount {
  userId: string;
  projectId: string;
  row: number;
  shards: number;
  project: Record<string, unknown>;
  /** The account item as stored. */
  item: Record<string, unknown>;
  /** The same with what the delivery jobs recorded (provisioning, e-mail) overlaid: what lists show. */
  current: Record<string, unknown>;
}

/**
 * One account of the caller, by its id: the project item (its shard count says where the account
 * lives), the account item and its state blocks. Every key starts from the caller's id, so another
 * user's account id reads nothing and answers 404, like an id that never existed.
 */
export async function loadAccount(db: DynamoDBDocumentClient, tableName: string, userId: string, accountId: string): Promise<LoadedAccount> {
  const parsed = parseAccountId(accountId);
  if (!parsed) throw new NotFoundError('Account not found');
  const { projectId, row } = parsed;
  const { Item: project } = await db.send(new GetCommand({ TableName: tableName, Key: keys.project(userId, projectId), ConsistentRead: true }));
  if (!project || project.entityType !== 'Project') throw new NotFoundError('Account not found');
  const shards = shardsOf(project);
  const { Item: item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.account(userId, projectId, row, shards), ConsistentRead: true }));
  if (!item || item.entityType !== 'Account' || item.id !== accountId) throw new NotFoundError('Account not found');
  const [current] = await withStates(db, tableName, { userId, projectId, shards }, [item], { consistent: true });
  return { userId, projectId, row, shards, project, item, current: current! };
}

/**
 * The platform's name for an account: the integration of the run that provisioned it (its
 * `provisionRun`), else the project's integration, else 'the platform'.
 */
export async function platformNameOf(db: DynamoDBDocumentClient, tableName: string, loaded: LoadedAccount): Promise<string> {
  const run = loaded.current.provisionRun;
  if (typeof run === 'string' && isIdShaped(run)) {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.provisioningJob(loaded.userId, run), ProjectionExpression: 'integrationName' }));
    if (typeof Item?.integrationName === 'string' && Item.integrationName) return Item.integrationName;
  }
  const integrationId = loaded.project.integrationId;
  if (typeof integrationId === 'string' && isIdShaped(integrationId)) {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.integration(loaded.userId, integrationId), ProjectionExpression: '#name', ExpressionAttributeNames: { '#name': 'name' } }));
    if (typeof Item?.name === 'string' && Item.name) return Item.name;
  }
  return 'the platform';
}

/** The account is on a platform (Synced, or its platform id is known and it was not taken off again). */
export const isProvisioned = (current: Record<string, unknown>): boolean =>
  current.externalStatus === 'success' || (typeof current.externalAccountId === 'string' && current.externalStatus !== 'removed');
