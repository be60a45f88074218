/**
 * Child process of bench/upload.ts: the bulk-upload-worker in a process of its own, as Lambda runs
 * it (the bench's stack leaves this worker out). Takes the one start message from the queue, runs
 * the handler on it, deletes it, and prints the worker's peak RSS as one JSON line.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { queueUrlEnv } from '../shared/routes';

const queueUrl = process.env[queueUrlEnv('bulk-uploads')]!;
const sqs = new SQSClient({});
const { handler } = await import('../functions/workers/bulk-upload-worker');
const importedRss = process.memoryUsage().rss;
const waitUntil = Date.now() + 5 * 60_000;
for (;;) {
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0, AttributeNames: ['All'] }));
  const message = Messages?.[0];
  if (message) {
    const started = performance.now();
    const result = await handler({ Records: [{ messageId: message.MessageId!, receiptHandle: message.ReceiptHandle!, body: message.Body ?? '', attributes: message.Attributes ?? {} }] } as unknown as SQSEvent, {
      awsRequestId: 'bench',
      functionName: 'bulk-upload-worker',
      getRemainingTimeInMillis: () => 900_000,
    } as Context);
    if (!result.batchItemFailures.length) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    console.log(JSON.stringify({ ms: Math.round(performance.now() - started), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), importedRssMb: Math.round(importedRss / 1048576), failures: result.batchItemFailures.length }));
    break;
  }
  if (Date.now() > waitUntil) throw new Error('no start message on the bulk-uploads queue within 5 minutes');
  await new Promise((r) => setTimeout(r, 100));
}
