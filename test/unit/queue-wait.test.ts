import { describe, expect, it } from 'vitest';
import { SQSClient } from '@aws-sdk/client-sqs';
import { otherChunks, queueWaitReason, sqsQueueWait } from '../../functions/bulk/queue-wait';

describe('why a queued bulk job waits', () => {
  it('names how many chunks of other jobs are ahead of it, in words', () => {
    expect(queueWaitReason(6)).toEqual({
      chunksAhead: 6,
      waitReason: 'Queued behind about 6 chunks of other jobs on the shared bulk queue. Jobs take turns chunk by chunk, so this one starts as soon as a worker is free.',
    });
    expect(queueWaitReason(1).waitReason).toMatch(/^Queued behind about 1 chunk of other jobs/);
    expect(queueWaitReason(0)).toEqual({ chunksAhead: 0, waitReason: 'Queued: starting as soon as a worker picks it up.' });
  });

  it("counts the other jobs' chunks waiting and in flight, not the job's own, and in-flight ones once", () => {
    // SQS: 3 chunks of another job being written, its 3 next and the job's own 3 waiting.
    expect(otherChunks({ visible: 6, inFlight: 3 }, 3, false)).toBe(6);
    // The local emulator counts the 3 in flight among the 9 "visible" as well.
    expect(otherChunks({ visible: 9, inFlight: 3 }, 3, true)).toBe(6);
    // Approximate counts can lag behind the job's own messages: never below 0.
    expect(otherChunks({ visible: 1, inFlight: 0 }, 3, false)).toBe(0);
  });

  it('says it is queued without a count when the queue cannot be read, instead of failing the status read', async () => {
    // Nothing listens on this port: GetQueueAttributes fails at once.
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
    expect(await sqsQueueWait(sqs, 'http://127.0.0.1:9/000000000000/bulk', 3)).toEqual({ waitReason: 'Queued: waiting for a free worker on the shared bulk queue.' });
  });
});
