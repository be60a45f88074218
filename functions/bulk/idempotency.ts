import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryItems } from '../core/query-pages';
import { IDEMPOTENCY_IN_PROGRESS_MESSAGE } from '../../shared/schemas/bulk';
import { secretContext, type Cipher } from '../core/encryption';
import { ConflictError, UnprocessableError, ValidationError, WriteInterruptedError } from '../core/errors';
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
/**
 * A key still "running" after this long belongs to a request that died (Lambda stops a request
 * after 10 s, API Gateway after 30 s). It is not run again: it may have written part of its work.
 */
export const IDEMPOTENCY_STALE_MS = 60 * 1000;
/** Characters of the encrypted answer per item, under DynamoDB's 400 KB. */
export const ANSWER_PART_CHARS = 300 * 1024;

export const KEY_REUSED_MESSAGE = 'This Idempotency-Key was already used for a different request.';
export const REQUEST_STOPPED_MESSAGE =
  'The earlier request with this Idempotency-Key stopped before it finished, and may have created part of the accounts. Check Projects, then create what is missing.';
export const ANSWER_LOST_MESSAGE = 'The earlier request with this Idempotency-Key was carried out, but its answer could not be kept. Check Projects for the accounts it created.';
/** The answer a retry gets when the first request failed after it began writing. */
export const interruptedAnswer = (projectName: string): StoredAnswer => ({
  statusCode: 500,
  body: {
    message: `Creating "${projectName}" stopped part-way, and some accounts may have been created. Check Projects before trying again.`,
  },
});
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
            // TTL deletes late: an expired key is free again.
            ConditionExpression: 'attribute_not_exists(PK) OR expiresAt < :nowSeconds',
            ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000) },
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
      if (known.status === 'lost') throw new ConflictError(ANSWER_LOST_MESSAGE);
      if (known.status === 'running') throw new ConflictError(Number(known.startedAt) < now - IDEMPOTENCY_STALE_MS ? REQUEST_STOPPED_MESSAGE : IDEMPOTENCY_IN_PROGRESS_MESSAGE);
      return { ...(await readAnswer(deps, userId, key, Number(known.parts))), replayed: true };
    }

    let answer: StoredAnswer;
    try {
      answer = await work();
    } catch (error) {
      if (!(error instanceof WriteInterruptedError)) {
        // Nothing was written: the key is given up, so the same request may be sent again.
        await deps.db
          .send(new DeleteCommand({ TableName: deps.tableName, Key: main, ConditionExpression: 'fingerprint = :fingerprint AND #status = :running', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':fingerprint': fingerprint, ':running': 'running' } }))
          .catch((releaseError: unknown) => logger.warn('Could not give up an idempotency key', { error: String(releaseError) }));
        throw error;
      }
      // Part of the work is stored: running it again would create it twice. The failure is the answer, now and to a retry.
      logger.error('Unhandled error', { error: { name: error.name, message: error.message } });
      answer = interruptedAnswer(error.projectName);
    }
    try {
      await storeAnswer(deps, userId, key, answer);
    } catch (error) {
      // The work is done and its answer must reach the caller; a retry learns that it was done, never runs it again.
      logger.error('Could not store an idempotent answer', { error: error instanceof Error ? error.message : String(error) });
      await deps.db
        .send(new UpdateCommand({ TableName: deps.tableName, Key: main, UpdateExpression: 'SET #status = :lost', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':lost': 'lost' } }))
        .catch((markError: unknown) => logger.error('Could not mark an idempotent answer lost', { error: String(markError) }));
    }
    return { ...answer, replayed: false };
  };

async function storeAnswer(deps: IdempotencyDeps, userId: string, key: string, answer: StoredAnswer): Promise<void> {
  const token = (await deps.cipher()).encrypt(JSON.stringify(answer), secretContext.storedAnswer(userId, key));
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
  const items = await queryItems(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': prefix },
    ConsistentRead: true,
  });
  // Parts past `parts` are leftovers of an expired earlier use of the key (TTL deletes late).
  if (items.length < parts) throw new Error(`Stored answer has ${items.length} of ${parts} parts`);
  const token = items.slice(0, parts).map((item) => String(item.data)).join('');
  return JSON.parse((await deps.cipher()).decrypt(token, secretContext.storedAnswer(userId, key))) as StoredAnswer;
}
