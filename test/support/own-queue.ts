import { afterAll, beforeAll, inject } from 'vitest';
import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';

/**
 * A queue of the test file's own on the stack's SQS that no worker reads: what the deliveries a
 * test calls directly send (requeues, waits) stays there. Made before the file's tests, deleted
 * after them.
 */
export function queueNoWorkerReads(name: string): { readonly sqs: SQSClient; readonly url: string } {
  let sqs: SQSClient | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    sqs = new SQSClient({ region: 'us-east-1', endpoint: inject('stack').urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    url = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-${Date.now()}` }))).QueueUrl!;
  });
  afterAll(async () => {
    if (url) await sqs?.send(new DeleteQueueCommand({ QueueUrl: url }));
    sqs?.destroy();
  });
  return {
    get sqs() {
      if (!sqs) throw new Error('The queue is made before the tests run');
      return sqs;
    },
    get url() {
      if (!url) throw new Error('The queue is made before the tests run');
      return url;
    },
  };
}
