import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { REGION } from './settings';
import type { Stoppable } from './emulators';

type WorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

/** One batch a worker was handed, with its times (Date.now()): what a bench reads to say where a job's time went. */
export interface Delivery {
  worker: string;
  /** The messages' bodies and when each was sent (SentTimestamp). */
  messages: { body: string; sentAt: number }[];
  receivedAt: number;
  /** The handler returned (before the delete). */
  handledAt: number;
}

/** A receive for one message waits at most this long for it (Lambda's poller: 20 s; stopping aborts it). */
const LONG_POLL_SECONDS = 5;
/** After an empty short poll (batches of more than one message). */
const EMPTY_PAUSE_MS = 200;

/**
 * What Lambda's SQS event source mapping does: long-poll the queue, hand a batch to the worker as
 * an SQSEvent, delete what succeeded and leave the reported failures to become visible again
 * (and reach the dead-letter queue after maxReceiveCount).
 */
export function startPoller(options: {
  name: string;
  client: SQSClient;
  queueUrl: string;
  batchSize: number;
  /** Receive loops running at once, like Lambda's concurrent invocations for one queue. */
  concurrency?: number;
  loadHandler: () => Promise<WorkerHandler>;
  log: (message: string) => void;
  /** Told of every batch once its handler returned (benches only). */
  observe?: (delivery: Delivery) => void;
}): Stoppable {
  const abort = new AbortController();
  let running = true;
  const queueArn = `arn:aws:sqs:${REGION}:000000000000:${options.queueUrl.split('/').pop()}`;
  const longPoll = Math.min(options.batchSize, 10) === 1;

  const loop = async () => {
    while (running) {
      let messages: import("@aws-sdk/client-sqs").Message[] | undefined;
      try {
        ({ Messages: messages } = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: Math.min(options.batchSize, 10),
            // One message per batch: a long poll, as Lambda's poller does (the emulator answers it
            // within 10 ms of a message arriving, so no pause adds to a job's time, and an idle
            // queue costs one receive per LONG_POLL_SECONDS instead of five a second). Larger
            // batches: short polls with a pause when empty, as the emulator's long poll waits out
            // the whole wait time unless the batch fills, where Lambda's poller would hand over
            // what arrived at once.
            WaitTimeSeconds: longPoll ? LONG_POLL_SECONDS : 0,
            AttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        ));
      } catch (error) {
        if (!running) return;
        options.log(`${options.name}: receive failed: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (!messages?.length) {
        if (!longPoll) await new Promise((r) => setTimeout(r, EMPTY_PAUSE_MS));
        continue;
      }
      const receivedAt = Date.now();

      const records: SQSRecord[] = messages.map((m) => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body ?? '',
        attributes: {
          ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
          SenderId: m.Attributes?.SenderId ?? 'local',
          ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: m.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: REGION,
      }));
      let failed = new Set(records.map((r) => r.messageId));
      try {
        const handler = await options.loadHandler();
        const result = await handler({ Records: records }, {
          awsRequestId: crypto.randomUUID(),
          functionName: options.name,
          getRemainingTimeInMillis: () => 60_000,
        } as Context);
        failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (error) {
        options.log(`${options.name}: invocation failed, the whole batch will be retried: ${error instanceof Error ? error.message : String(error)}`);
      }
      options.observe?.({
        worker: options.name,
        messages: messages.map((m) => ({ body: m.Body ?? '', sentAt: Number(m.Attributes?.SentTimestamp ?? receivedAt) })),
        receivedAt,
        handledAt: Date.now(),
      });
      const done = messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length) {
        await options.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: options.queueUrl,
            Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
          }),
        );
      }
    }
  };
  const finished = Promise.all(Array.from({ length: options.concurrency ?? 1 }, () => loop()));
  return {
    name: `${options.name} poller`,
    stop: async () => {
      running = false;
      abort.abort();
      await finished.catch(() => undefined);
    },
  };
}
