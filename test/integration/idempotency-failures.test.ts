import { randomBytes, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { aesGcmCipher } from '../../functions/core/encryption';
import { ConflictError, ValidationError, WriteInterruptedError } from '../../functions/core/errors';
import { keys } from '../../functions/core/keys';
import {
  ANSWER_LOST_MESSAGE,
  IDEMPOTENCY_STALE_MS,
  REQUEST_STOPPED_MESSAGE,
  idempotent,
  interruptedAnswer,
  type IdempotencyDeps,
  type StoredAnswer,
} from '../../functions/bulk/idempotency';
import { dynamoBulkStore } from '../../functions/bulk/bulk-store';
import { IDEMPOTENCY_IN_PROGRESS_MESSAGE } from '../../shared/schemas/bulk';
import { testDb } from '../support/api';

/**
 * An Idempotency-Key never runs its request twice once the request may have written something
 * (review of issue 9): a failure after writing is the answer, a request that died is not run
 * again, and an answer that could not be kept is said so. On DynamoDB Local with the real store.
 */
const TABLE = 'bulkonboard';
const key = randomBytes(32);

function deps(overrides: Partial<IdempotencyDeps> = {}): IdempotencyDeps {
  const db = testDb();
  const store = dynamoBulkStore(db, TABLE);
  return { db, tableName: TABLE, cipher: async () => aesGcmCipher(key), now: () => new Date(), writeAll: (items) => store.writeAll(items), ...overrides };
}

const fails = (error: unknown) => async (): Promise<StoredAnswer> => {
  throw error;
};
const done: StoredAnswer = { statusCode: 200, body: { ok: true } };

describe('Idempotency-Key after a failure', () => {
  it('a failure after writing began is the answer, now and to every retry: nothing runs twice', async () => {
    const once = idempotent(deps());
    const user = `idem-${randomUUID()}`;
    const first = await once(user, 'k1', 'fp', fails(new WriteInterruptedError('Spring hires', new Error('throttled'))));
    expect(first).toEqual({ ...interruptedAnswer('Spring hires'), replayed: false });
    let ranAgain = false;
    const retry = await once(user, 'k1', 'fp', async () => {
      ranAgain = true;
      return done;
    });
    expect(ranAgain).toBe(false);
    expect(retry).toEqual({ ...interruptedAnswer('Spring hires'), replayed: true });
  });

  it('a failure before anything was written gives the key back: the same request may run again', async () => {
    const once = idempotent(deps());
    const user = `idem-${randomUUID()}`;
    await expect(once(user, 'k1', 'fp', fails(new ValidationError('None of the rows can be created.')))).rejects.toThrow(ValidationError);
    expect(await once(user, 'k1', 'fp', async () => done)).toEqual({ ...done, replayed: false });
  });

  it('a request that died mid-way is never run again; one still in its time is "in progress"', async () => {
    const user = `idem-${randomUUID()}`;
    const claim = (startedAt: number, k: string) =>
      testDb().send(
        new PutCommand({
          TableName: TABLE,
          Item: { ...keys.bulkIdempotency(user, k), entityType: 'BulkIdempotency', status: 'running', fingerprint: 'fp', startedAt, expiresAt: Math.floor(Date.now() / 1000) + 3600 },
        }),
      );
    await claim(Date.now() - IDEMPOTENCY_STALE_MS - 1000, 'dead');
    await claim(Date.now(), 'live');
    const once = idempotent(deps());
    let ran = false;
    const work = async () => {
      ran = true;
      return done;
    };
    await expect(once(user, 'dead', 'fp', work)).rejects.toThrow(new ConflictError(REQUEST_STOPPED_MESSAGE));
    await expect(once(user, 'live', 'fp', work)).rejects.toThrow(new ConflictError(IDEMPOTENCY_IN_PROGRESS_MESSAGE));
    expect(ran).toBe(false);
  });

  it('an answer that could not be kept: the caller gets it, a retry learns it was done and runs nothing', async () => {
    const user = `idem-${randomUUID()}`;
    const broken = idempotent(deps({ writeAll: async () => Promise.reject(new Error('ProvisionedThroughputExceeded')) }));
    expect(await broken(user, 'k1', 'fp', async () => done)).toEqual({ ...done, replayed: false });
    let ranAgain = false;
    await expect(
      idempotent(deps())(user, 'k1', 'fp', async () => {
        ranAgain = true;
        return done;
      }),
    ).rejects.toThrow(new ConflictError(ANSWER_LOST_MESSAGE));
    expect(ranAgain).toBe(false);
  });
});
