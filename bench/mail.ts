/**
 * Credential e-mails to the local SES emulator (aws-ses-v2-local), measured in the same run:
 *  - 10,000 e-mails through the send path (POST /api/projects/{id}/send-credentials until the send
 *    is completed: the mail queue, the mail workers, claims, rendering, SES, status writes, counts),
 *    pacing off (MAIL_SEND_RATE=0), against a bare SendEmail loop of the same 10,000 rendered
 *    e-mails at the same concurrency (the mail queue's workers x MAIL_SEND_CONCURRENCY in flight),
 *    with the DynamoDB requests of the send (workers and SES events worker) counted by operation;
 *  - at MAIL_SEND_RATE=14, 300 e-mails: the busiest one-second window of SendEmail calls (the SES
 *    client's own calls, timed as they leave);
 *  - redelivery: every chunk of a 1,000-account send delivered three times (two at once) in this
 *    process, against the same DynamoDB and SES emulator: e-mails per address, and none to the
 *    100 suppressed addresses among them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { builtInTemplate } from '../shared/email/default-template';
import { renderEmail } from '../shared/email/render-email';
import { sendCredentialsSchema } from '../shared/schemas/mail-send';
import { keys } from '../functions/core/keys';
import { dynamo, ses, withoutLogFilter } from '../functions/core/clients';
import { appCipher } from '../functions/core/encryption';
import { resetEnvForTests } from '../functions/core/env';
import { timeOrderedId } from '../functions/core/ids';
import { mapBounded } from '../functions/provisioning/pacing';
import { MAIL_WINDOW, planOf, planSend, readSend, sendView, startSend } from '../functions/mail/credential-sends';
import { MAIL_SEND_CONCURRENCY, sendChunk } from '../functions/mail/send-credentials';
import { sesCredentialMailer } from '../functions/mail/credential-mailer';
import { serverRenderTools } from '../functions/mail/render-tools';
import type { CredentialsChunkMessage, CredentialsMessage } from '../functions/mail/mail-message';
import { createTestUser } from '../test/support/cognito-users';
import { benchOffset } from './ports';

const COUNT = 10_000;
const PACED = 300;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/**
 * MAIL_BENCH_CPU_PROFILE=<path prefix>: the CPU profiles of this process (the workers, the SES and
 * SQS emulators and the events worker all run here) over the bare loop and over our send, written
 * to <prefix>-bare.cpuprofile and <prefix>-send.cpuprofile (open them in Chrome's DevTools). The
 * figures of a profiled run are slower than the others.
 */
async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const prefix = process.env.MAIL_BENCH_CPU_PROFILE;
  if (!prefix) return work();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(`${prefix}-${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}

export async function mailBench(): Promise<void> {
  console.log('\n== Credential e-mails to the local SES emulator, against a bare SendEmail loop in the same run');
  const offset = benchOffset(50_000);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-mail');
  fs.rmSync(dataDir, { recursive: true, force: true });
  // Pacing off for the overhead measurement (read by the workers at every chunk).
  process.env.MAIL_SEND_RATE = '0';
  resetEnvForTests();
  const stack = await startLocalStack({ ports: portsFromEnv({}, offset), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    // Every SendEmail call of this process (the workers run here) is timed as it leaves.
    const calls: number[] = [];
    ses().middlewareStack.add((next) => async (args) => {
      calls.push(performance.now());
      return next(args);
    }, { step: 'initialize', name: 'benchSendTimes' });

    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const user = await createTestUser(stack.urls.cognito, stack.userPool);
    const api = async <T>(p: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${stack.urls.app}${p}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    await api('/api/auth/user');
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p, company = :c', ExpressionAttributeValues: { ':p': 'pro', ':c': 'Bench Co' } }));
    const project = async (tag: string, count: number) => {
      const rows = Array.from({ length: count }, (_, i) => ({ firstName: `Mail${tag}`, lastName: `Person${i}`, email: `mail.${tag}.${i}@example.com` }));
      const created = await api<{ project: { id: string }; job?: { id: string } }>('/api/bulk-create', { projectName: `Mail ${tag}`, csvData: rows });
      for (let status = created.job ? '' : 'completed'; status !== 'completed'; ) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await api<{ status: string }>(`/api/bulk-jobs/${created.job!.id}`)).status;
        if (status === 'failed') throw new Error('bulk job failed');
      }
      return created.project.id;
    };
    const send = async (projectId: string) => {
      const began = performance.now();
      const started = await api<{ id: string }>(`/api/projects/${projectId}/send-credentials`, { scope: 'all' });
      let view: { status: string; total: number; sent: number; failed: number; suppressed: number };
      for (;;) {
        await new Promise((r) => setTimeout(r, 100));
        view = await api(`/api/mail-sends/${started.id}`);
        if (view.status === 'completed' || view.status === 'failed') break;
      }
      return { ms: performance.now() - began, view };
    };
    const store = async () => ((await (await fetch(`${stack.urls.ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] }).emails;
    const clearStore = () => fetch(`${stack.urls.ses}/clear-store`, { method: 'POST' });

    // A send works MAIL_WINDOW chunks at once (the queue's other workers are for other customers).
    const workers = MAIL_WINDOW;
    const concurrency = workers * MAIL_SEND_CONCURRENCY;
    const big = await project('big', COUNT);

    // The bare loop: SendEmail only, of an e-mail rendered before the clock starts (the built-in
    // template), to 10,000 addresses, with a client set up as ours are (no logger middleware).
    const client = withoutLogFilter(new SESv2Client({ region: 'us-east-1', endpoint: stack.urls.ses, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const email = renderEmail(builtInTemplate('password'), { accountHolderName: 'Bare Person', email: 'bare@example.com', username: 'bareperson', password: 'Bare-password-1234', projectName: 'Bare', companyName: 'Bench Co' }, serverRenderTools);
    const bareStart = performance.now();
    const bareCpu = process.cpuUsage();
    await profiled('bare', () => mapBounded(
      Array.from({ length: COUNT }, (_, i) => i),
      concurrency,
      async (i) => {
        await client.send(
          new SendEmailCommand({
            FromEmailAddress: 'no-reply@bulkonboard.local',
            Destination: { ToAddresses: [`bare.${i}@example.com`] },
            Content: { Simple: { Subject: { Data: email.subject }, Body: { Html: { Data: email.html }, Text: { Data: email.text } } } },
          }),
        );
      },
    ));
    const bareMs = performance.now() - bareStart;
    const bareCpuMs = cpuMs(process.cpuUsage(bareCpu));
    client.destroy();
    await clearStore();
    // The bare loop's e-mails get SES events too (dropped as unknown messages): they are drained
    // before our send starts, so the events worker meanwhile applies only our own e-mails' events.
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const eventsWaiting = async () => {
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls['mail-events'], AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    };
    const drainStart = performance.now();
    await new Promise((r) => setTimeout(r, 1500));
    while ((await eventsWaiting()) > 0) await new Promise((r) => setTimeout(r, 250));
    console.log(`  the bare loop's ${(2 * COUNT).toLocaleString('en-US')} SES events drained before our send: ${seconds(performance.now() - drainStart)}`);

    // Where the time goes: every DynamoDB request of this process during the send (the mail
    // workers, and the mail-events worker applying SES's events as they come), by operation.
    const requests = new Map<string, number>();
    let counting = false;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (counting) requests.set(context.commandName ?? '?', (requests.get(context.commandName ?? '?') ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'benchDynamoRequests' },
    );
    // The bytes of those requests' bodies as sent (what the SDK serialised and signed).
    let requestBytes = 0;
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const body = (args.request as { body?: unknown }).body;
        if (counting && typeof body === 'string') requestBytes += Buffer.byteLength(body);
        else if (counting && body instanceof Uint8Array) requestBytes += body.byteLength;
        return next(args);
      },
      { step: 'finalizeRequest', name: 'benchDynamoBytes' },
    );
    counting = true;
    const sendCpu = process.cpuUsage();
    const ours = await profiled('send', () => send(big));
    const sendCpuMs = cpuMs(process.cpuUsage(sendCpu));
    counting = false;
    // Our e-mails' own events, applied by then or still waiting (they are part of the product's cost).
    const ourEventsWaiting = await eventsWaiting();
    sqs.destroy();
    const delivered = await store();
    console.log(
      `  mail: send ${COUNT.toLocaleString('en-US')} credential e-mails ${seconds(ours.ms)} (${ours.view.status}, ${ours.view.sent} sent, ${ours.view.failed} failed; ${delivered.length} in the emulator's store); ` +
        `bare SendEmail loop at ${concurrency} in flight ${seconds(bareMs)}; ratio ${(ours.ms / bareMs).toFixed(2)}x (target <= 1.25x); ${ourEventsWaiting.toLocaleString('en-US')} of its SES events not applied yet when it completed`,
    );
    console.log(
      `  mail DynamoDB requests during the send (mail workers and the SES events worker): ${[...requests.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([name, n]) => `${name.replace(/Command$/, '')} ${n.toLocaleString('en-US')}`)
        .join(', ')}; ${(requestBytes / 1048576).toFixed(1)} MB of request bodies`,
    );
    // CPU time of this process (workers, emulators, pollers: not DynamoDB Local), steadier than the
    // wall time when other work shares the machine.
    console.log(`  mail CPU of the bench process: send ${seconds(sendCpuMs)} (${(sendCpuMs / COUNT).toFixed(2)} ms an e-mail), bare loop ${seconds(bareCpuMs)}; CPU ratio ${(sendCpuMs / bareCpuMs).toFixed(2)}x`);

    // Paced: 300 e-mails at 14 a second over both workers.
    process.env.MAIL_SEND_RATE = '14';
    resetEnvForTests();
    const paced = await project('paced', PACED);
    calls.length = 0;
    const pacedRun = await send(paced);
    const times = [...calls].sort((a, b) => a - b);
    let busiest = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[j]! < times[i]! - 1000 + 1e-9) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    console.log(
      `  mail paced: ${PACED} e-mails at MAIL_SEND_RATE=14 over ${workers} workers: ${seconds(pacedRun.ms)} (${pacedRun.view.sent} sent, ${times.length} SendEmail calls); ` +
        `busiest one-second window ${busiest} sends (limit 14)`,
    );

    // Redelivery and suppression, the chunk step run in this process (as the worker runs it).
    const replay = await project('replay', 1000);
    const suppressedAddresses = Array.from({ length: 100 }, (_, i) => `mail.replay.${i * 10}@example.com`);
    for (let i = 0; i < suppressedAddresses.length; i += 25) {
      await db.send(
        new BatchWriteCommand({
          RequestItems: {
            bulkonboard: suppressedAddresses.slice(i, i + 25).map((email) => ({
              PutRequest: { Item: { ...keys.emailSuppression(user.sub, email), entityType: 'EmailSuppression', email, reason: 'bounced', detail: 'bench', createdAt: new Date().toISOString() } },
            })),
          },
        }),
      );
    }
    await clearStore();
    const queued: CredentialsMessage[] = [];
    const deps = {
      db,
      tableName: 'bulkonboard',
      queue: { send: async (messages: readonly CredentialsMessage[]) => void queued.push(...messages) },
      now: () => new Date(),
      cipher: appCipher,
      mailer: sesCredentialMailer(ses(), 'no-reply@bulkonboard.local'),
      tools: serverRenderTools,
      rate: () => 0,
      workers,
    };
    const started = await startSend({ ...deps, newId: timeOrderedId, plan: async () => 'pro', linksAvailable: false })(user.sub, replay, sendCredentialsSchema.parse({ scope: 'all' }));
    await planSend(deps)(user.sub, started.id);
    // Every chunk of the plan (the queue was given its first window; each done chunk releases the next).
    const chunks = planOf((await readSend(deps, user.sub, started.id))!);
    const run = sendChunk(deps);
    await Promise.all(chunks.flatMap((chunk) => [run(chunk), run(chunk)]));
    await Promise.all(chunks.map((chunk) => run(chunk)));
    // What the queue was given (the first window, released chunks, copies that found their chunk held): delivered too.
    for (const copy of queued.filter((m): m is CredentialsChunkMessage => typeof m.chunk === 'number')) await run(copy);
    const mails = await store();
    const perAddress = new Map<string, number>();
    for (const mail of mails) for (const to of mail.destination.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    const duplicates = [...perAddress.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
    const toSuppressed = suppressedAddresses.reduce((sum, address) => sum + (perAddress.get(address) ?? 0), 0);
    const result = sendView((await readSend(deps, user.sub, started.id))!);
    console.log(
      `  mail redelivery: 1,000 accounts (100 suppressed), every chunk delivered 3 times (2 at once): ${mails.length} e-mails to ${perAddress.size} addresses; ` +
        `duplicates ${duplicates}; e-mails to suppressed addresses ${toSuppressed}; send ${result.status}: ${result.sent} sent, ${result.suppressed} suppressed, ${result.failed} failed of ${result.total}`,
    );
  } finally {
    await stack.stop();
    delete process.env.MAIL_SEND_RATE;
    resetEnvForTests();
  }
}
