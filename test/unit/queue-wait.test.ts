import { describe, expect, it } from 'vitest';
import { SQSClient } from '@aws-sdk/client-sqs';
import { queueWaitReason, sqsQueueWait } from '../../functions/bulk/queue-wait';

describe('why a queued bulk job waits', () => {
  it('names how many chunks of other jobs are ahead of it, in words', () => {
    expect(queueWaitReason(6)).toEqual({
      chunksAhead: 6,
      waitReason: 'Queued behind about 6 chunks of other jobs on the shared bulk queue. Jobs take turns chunk by chunk, so this one starts as soon as a worker is free.',
    });
    expect(queueWaitReason(1).waitReason).toMatch(/^Queued behind about 1 chunk of other jobs/);
    expect(queueWaitReason(0)).toEqual({ chunksAhead: 0, waitReason: 'Queued: starting as soon as a worker picks it up.' });
  });

  it('says it is queued without a count when the queue cannot be read, instead of failing the status read', async () => {
    // Nothing listens on this port: GetQueueAttributes fails at once.
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
    expect(await sqsQueueWait(sqs, 'http://127.0.0.1:9/000000000000/bulk', 3)).toEqual({ waitReason: 'Queued: waiting for a free worker on the shared bulk queue.' });
  });
});
