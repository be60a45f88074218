/**
 * Child process of bench/upload.ts: the bulk-upload-worker in a process of its own, as Lambda runs
 * it (the bench's stack leaves this worker out). bench/upload.ts bundles this file with the Lambda
 * bundles' esbuild options (lib/bundling.ts) and runs the bundle with plain `node`, so the process
 * carries what Lambda's does (the worker's bundle), not tsx's transform and source maps. Takes the
 * one start message from the queue, runs the handler on it, deletes it, and prints one JSON line:
 * the peak RSS, the RSS after the import, and the peaks of the V8 heap and of the memory outside it
 * (sampled every 20 ms while the handler runs), to see where the worker's own share goes.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { queueUrlEnv } from '../shared/routes';

const queueUrl = process.env[queueUrlEnv('bulk-uploads')]!;
const sqs = new SQSClient({});
const { handler } = await import('../functions/workers/bulk-upload-worker');
const importedRss = process.memoryUsage().rss;
const mb = (bytes: number) => Math.round(bytes / 1048576);
const waitUntil = Date.now() + 5 * 60_000;
for (;;) {
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0, AttributeNames: ['All'] }));
  const message = Messages?.[0];
  if (message) {
    let peakHeap = 0;
    let peakExternal = 0;
    const sample = setInterval(() => {
      const usage = process.memoryUsage();
      peakHeap = Math.max(peakHeap, usage.heapUsed);
      peakExternal = Math.max(peakExternal, usage.external);
    }, 20);
    const started = performance.now();
    const result = await handler({ Records: [{ messageId: message.MessageId!, receiptHandle: message.ReceiptHandle!, body: message.Body ?? '', attributes: message.Attributes ?? {} }] } as unknown as SQSEvent, {
      awsRequestId: 'bench',
      functionName: 'bulk-upload-worker',
      getRemainingTimeInMillis: () => 900_000,
    } as Context);
    const ms = Math.round(performance.now() - started);
    clearInterval(sample);
    if (!result.batchItemFailures.length) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    console.log(JSON.stringify({ ms, peakRssMb: mb(process.resourceUsage().maxRSS * 1024), importedRssMb: mb(importedRss), peakHeapUsedMb: mb(peakHeap), peakExternalMb: mb(peakExternal), failures: result.batchItemFailures.length }));
    break;
  }
  if (Date.now() > waitUntil) throw new Error('no start message on the bulk-uploads queue within 5 minutes');
  await new Promise((r) => setTimeout(r, 100));
}
