import { afterAll, describe, expect, it, inject } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startPoller, type Delivery } from '../../bin/local/poller';

const stack = inject('stack');
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

async function queuePair(name: string) {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: { VisibilityTimeout: '2', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }) },
    }),
  );
  return { queueUrl: queue.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

const until = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
};

describe('local SQS poller (event source mapping)', () => {
  afterAll(() => sqs.destroy());

  it('delivers batches, deletes successes, retries failures and moves a poison message to the DLQ', async () => {
    const { queueUrl, dlqUrl } = await queuePair(`poller-test-${Date.now()}`);
    const processed: string[] = [];
    const receiveCounts = new Map<string, number>();
    const poller = startPoller({
      name: 'test-worker',
      client: sqs,
      queueUrl,
      batchSize: 10,
      log: () => undefined,
      loadHandler: async () => async (event: SQSEvent): Promise<SQSBatchResponse> => {
        const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
        for (const record of event.Records) {
          receiveCounts.set(record.body, Number(record.attributes.ApproximateReceiveCount));
          if (record.body === 'poison') batchItemFailures.push({ itemIdentifier: record.messageId });
          else processed.push(record.body);
        }
        return { batchItemFailures };
      },
    });
    try {
      for (const body of ['one', 'poison', 'two']) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      const dead = await until(async () => {
        const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 1 }));
        return Messages?.[0];
      });
      expect(dead.Body).toBe('poison');
      expect(processed.sort()).toEqual(['one', 'two']);
      expect(receiveCounts.get('poison')).toBe(2);
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      expect(Number(Attributes?.ApproximateNumberOfMessages)).toBe(0);
    } finally {
      await poller.stop();
    }
  });

  it('long-polls a queue of one-message batches: each message delivered in its own batch, failures retried, every batch told to the observer, stopped mid-poll', async () => {
    const { queueUrl, dlqUrl } = await queuePair(`poller-long-${Date.now()}`);
    const processed: string[] = [];
    const batchSizes: number[] = [];
    const deliveries: Delivery[] = [];
    const poller = startPoller({
      name: 'test-single-worker',
      client: sqs,
      queueUrl,
      batchSize: 1,
      concurrency: 2,
      log: () => undefined,
      observe: (delivery) => deliveries.push(delivery),
      loadHandler: async () => async (event: SQSEvent): Promise<SQSBatchResponse> => {
        batchSizes.push(event.Records.length);
        const record = event.Records[0]!;
        if (record.body === 'poison') return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
        processed.push(record.body);
        return { batchItemFailures: [] };
      },
    });
    try {
      for (const body of ['one', 'poison', 'two', 'three']) await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      const dead = await until(async () => {
        const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 1 }));
        return Messages?.[0];
      });
      expect(dead.Body).toBe('poison');
      await until(async () => (processed.length === 3 ? true : undefined));
      expect(processed.sort()).toEqual(['one', 'three', 'two']);
      expect(new Set(batchSizes)).toEqual(new Set([1]));
      // Three successes and the poison message's two receives, each with its body and its times in order.
      await until(async () => (deliveries.length === 5 ? true : undefined));
      expect(deliveries.map((d) => d.messages[0]!.body).sort()).toEqual(['one', 'poison', 'poison', 'three', 'two']);
      for (const d of deliveries) {
        expect(d.worker).toBe('test-single-worker');
        expect(d.messages[0]!.sentAt).toBeLessThanOrEqual(d.receivedAt);
        expect(d.receivedAt).toBeLessThanOrEqual(d.handledAt);
      }
    } finally {
      // Both receive loops are waiting in a long poll on the empty queue now: stopping ends them.
      await poller.stop();
    }
  });
});
