import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IDEMPOTENCY_IN_PROGRESS_MESSAGE } from '../../shared/schemas/bulk';
import type { Cipher } from '../core/encryption';
import { ConflictError, UnprocessableError, ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import type { Item } from './bulk-store';

/** An answer as it went out, kept to answer a retry with the same key. */
export interface StoredAnswer {
  statusCode: number;
  body: unknown;
}

/** How long a key answers with its first result (and is refused for another body). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** A key still "running" after this long belongs to a request that died: a retry may run again. */
export const IDEMPOTENCY_STALE_MS = 15 * 60 * 1000;
/** Characters of the encrypted answer per item, under DynamoDB's 400 KB. */
export const ANSWER_PART_CHARS = 300 * 1024;

export const KEY_REUSED_MESSAGE = 'This Idempotency-Key was already used for a different request.';
export const BAD_KEY_MESSAGE = 'Idempotency-Key must be 1 to 255 letters, digits, dots, colons, dashes or underscores.';

/** UUIDs and the like; '#' is kept out so a key can never read as another key's part. */
const KEY_PATTERN = /^[A-Za-z0-9._:-]{1,255}$/;

/** The header's key, checked; undefined when the request has none. */
export function idempotencyKeyOf(headers: Record<string, string | undefined> | undefined): string | undefined {
  const value = headers?.['idempotency-key']?.trim();
  if (value === undefined) return undefined;
  if (!KEY_PATTERN.test(value)) throw new ValidationError(BAD_KEY_MESSAGE);
  return value;
}

/** A request's identity under its key: the same key with another body is refused (422). */
export const fingerprintOf = (body: unknown): string => createHash('sha256').update(JSON.stringify(body)).digest('base64url');

export interface IdempotencyDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  cipher: () => Promise<Cipher>;
  now: () => Date;
  writeAll: (items: readonly Item[]) => Promise<void>;
}

/**
 * Runs `work` once per (user, Idempotency-Key):
 * 1. A conditional put claims the key ('running'); it fails when the key is already known.
 * 2. Known key: another body -> 422; still running -> 409; done -> the stored answer again, and
 *    nothing is created twice.
 * 3. The answer is stored encrypted (it holds the new passwords in clear), in parts when large,
 *    with a 24 h TTL. A request that fails gives its key up, so the client may retry it.
 */
export const idempotent =
  (deps: IdempotencyDeps) =>
  async (userId: string, key: string, fingerprint: string, work: () => Promise<StoredAnswer>): Promise<StoredAnswer & { replayed: boolean }> => {
    const main = keys.bulkIdempotency(userId, key);
    for (let attempt = 0; ; attempt++) {
      const now = deps.now().getTime();
      try {
        await deps.db.send(
          new PutCommand({
            TableName: deps.tableName,
            Item: { ...main, entityType: 'BulkIdempotency', status: 'running', fingerprint, startedAt: now, expiresAt: Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS },
            // TTL deletes late: an expired key is free again, and so is one whose request died.
            ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :nowSeconds OR (#status = :running AND startedAt < :stale)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':running': 'running', ':stale': now - IDEMPOTENCY_STALE_MS },
          }),
        );
        break;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      const { Item: known } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: main, ConsistentRead: true }));
      if (!known) {
        if (attempt < 2) continue; // given up between our put and this read: claim it again
        throw new ConflictError(IDEMPOTENCY_IN_PROGRESS_MESSAGE);
      }
      if (known.fingerprint !== fingerprint) throw new UnprocessableError(KEY_REUSED_MESSAGE);
      if (known.status !== 'done') throw new ConflictError(IDEMPOTENCY_IN_PROGRESS_MESSAGE);
      return { ...(await readAnswer(deps, userId, key, Number(known.parts))), replayed: true };
    }

    let answer: StoredAnswer;
    try {
      answer = await work();
    } catch (error) {
      await deps.db
        .send(new DeleteCommand({ TableName: deps.tableName, Key: main, ConditionExpression: 'fingerprint = :fingerprint AND #status = :running', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':fingerprint': fingerprint, ':running': 'running' } }))
        .catch((releaseError: unknown) => logger.warn('Could not give up an idempotency key', { error: String(releaseError) }));
      throw error;
    }
    try {
      await storeAnswer(deps, userId, key, answer);
    } catch (error) {
      // The work is done and its answer must reach the caller; a retry meets 'in progress' until the key goes stale.
      logger.error('Could not store an idempotent answer', { error: error instanceof Error ? error.message : String(error) });
    }
    return { ...answer, replayed: false };
  };

async function storeAnswer(deps: IdempotencyDeps, userId: string, key: string, answer: StoredAnswer): Promise<void> {
  const token = (await deps.cipher()).encrypt(JSON.stringify(answer));
  const expiresAt = Math.floor(deps.now().getTime() / 1000) + IDEMPOTENCY_TTL_SECONDS;
  const parts: Item[] = [];
  for (let i = 0; i * ANSWER_PART_CHARS < token.length; i++) {
    parts.push({ ...keys.bulkIdempotencyPart(userId, key, i), entityType: 'BulkIdempotencyPart', data: token.slice(i * ANSWER_PART_CHARS, (i + 1) * ANSWER_PART_CHARS), expiresAt });
  }
  await deps.writeAll(parts);
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.bulkIdempotency(userId, key),
      UpdateExpression: 'SET #status = :done, parts = :parts, expiresAt = :expiresAt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':done': 'done', ':parts': parts.length, ':expiresAt': expiresAt },
    }),
  );
}

async function readAnswer(deps: IdempotencyDeps, userId: string, key: string, parts: number): Promise<StoredAnswer> {
  const prefix = keys.bulkIdempotencyPart(userId, key, 0).SK.replace(/\d+$/, '');
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  // Parts past `parts` are leftovers of an expired earlier use of the key (TTL deletes late).
  if (items.length < parts) throw new Error(`Stored answer has ${items.length} of ${parts} parts`);
  return JSON.parse((await deps.cipher()).decrypt(items.slice(0, parts).map((item) => String(item.data)).join(''))) as StoredAnswer;
}
