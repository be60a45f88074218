/**
 * `npm run bench -- bulk-request` (issue 29, item 4): the bulk API function's largest JSON request,
 * measured in the function as deployed. POST /api/bulk-create with 50,000 rows gzipped
 * (csvDataGzip) is handed straight to the `bulk` bundle (built as lib/lambda-bundles.ts builds it)
 * in a plain Node process of its own, against the local stack's emulators, and that process's
 * peak RSS (what Lambda's memory setting must hold, the runtime included), its CPU time, its wall
 * time and the AWS requests it sent are printed, for:
 *  - a plain list: 50,000 people (names and e-mail), as the web app sends a large file;
 *  - the largest the request takes: 50,000 rows with 2 extra columns each, just under
 *    REQUEST_ROWS_JSON_MAX_BYTES (8 MB of JSON);
 *  - what the limits let through before (25 extra columns a row: ~46 MB of JSON in a ~5.4 MB body,
 *    under the old 48 MB gunzip limit), now refused with 413 (the upload path).
 * A Lambda function gets CPU in proportion to its memory (one vCPU at 1,769 MB), so each figure is
 * also given as the time it would take at the deployed memory: CPU time x 1,769 / memory, plus
 * 10 ms per AWS request as if none overlapped (an upper bound; here the emulators' own time, under
 * the machine's load, is printed apart). The deployed memory and timeout are lib/stateless-stack.ts's
 * `groupMemory` / `groupTimeouts` for `bulk` (docs/deploy.md). The bulk queue is not polled here
 * (its worker is left out), so only the request is measured.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { createTestUser } from '../test/support/cognito-users';
import { keys } from '../functions/core/keys';
import { MAX_ROWS_PER_REQUEST, REQUEST_BODY_MAX_BYTES, REQUEST_ROWS_JSON_MAX_BYTES } from '../shared/schemas/bulk';
import { bundleLikeLambda } from './lambda-bundle';
import { benchOffset } from './ports';
import { groupMemory, groupTimeouts } from '../lib/stateless-stack';

/** Lambda's CPU share: one vCPU at 1,769 MB, in proportion below. */
const FULL_VCPU_MB = 1769;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** Runs in the child: the bundled handler, one invocation, then its figures as JSON. */
const CHILD = `
import fs from 'node:fs';
import diagnostics from 'node:diagnostics_channel';
const event = JSON.parse(fs.readFileSync(process.env.BENCH_EVENT_FILE, 'utf8'));
const { handler } = await import(process.env.BENCH_BUNDLE);
let requests = 0;
diagnostics.subscribe('http.client.request.start', () => requests++);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await handler(event, { awsRequestId: 'bench', functionName: 'bulk', getRemainingTimeInMillis: () => 600000 });
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
console.log(JSON.stringify({ status: result.statusCode, body: String(result.body).slice(0, 300), wallMs, cpuMs: (cpu.user + cpu.system) / 1000, requests, peakRssBytes: process.resourceUsage().maxRSS * 1024 }));
`;

interface ChildFigures {
  status: number;
  body: string;
  wallMs: number;
  cpuMs: number;
  requests: number;
  peakRssBytes: number;
}

/** 50,000 rows; `extraColumns` each with that many extra columns (values that vary like real ones). */
function rowsOf(count: number, extraColumns: number, valueLength: number) {
  const departments = ['Sales', 'Finance', 'Engineering', 'Operations', 'Human Resources', 'Legal', 'Marketing', 'Support'];
  return Array.from({ length: count }, (_, i) => ({
    firstName: `First${i}`,
    lastName: `Last${i % 997}`,
    email: `person${i}.bench@example.com`,
    ...(extraColumns
      ? {
          attributes: Object.fromEntries(
            Array.from({ length: extraColumns }, (_, c) => [`Column ${c + 1}`, `${departments[(i + c) % departments.length]} ${(i + c) % 50}`.padEnd(valueLength, '.')]),
          ),
        }
      : {}),
  }));
}

export async function bulkRequestBench(): Promise<void> {
  const sizes = { memoryMb: groupMemory.bulk ?? 512, timeoutSeconds: groupTimeouts.bulk?.toSeconds() ?? 10 };
  console.log(
    `\n== The bulk API function's largest request (POST /api/bulk-create, ${MAX_ROWS_PER_REQUEST.toLocaleString('en-US')} rows gzipped), in the bundled handler, in a process of its own; ` +
      `deployed: ${sizes.memoryMb} MB, ${sizes.timeoutSeconds} s (peak RSS target <= 60% of the memory, time at the deployed memory <= half the timeout)`,
  );
  const dataDir = path.join(projectRoot, '.test-data', 'bench-bulk-request');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const out = path.join(projectRoot, 'bench', 'out');
  fs.mkdirSync(out, { recursive: true });
  const bundle = path.join(out, 'bulk-request-handler.mjs');
  await bundleLikeLambda(path.join(projectRoot, 'functions', 'bulk', 'handler.ts'), bundle, 'bulk');
  // The bulk queue's worker is not run: the chunks the request queues stay there, nothing else uses the CPU.
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(40_000)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined, externalWorkers: ['bulk-worker'], schedules: false });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    const cases = [
      { name: 'plain list (names, e-mail)', rows: rowsOf(MAX_ROWS_PER_REQUEST, 0, 0), answer: 202 },
      // 2 extra columns of 17 characters: ~7.9 MB of JSON, just under REQUEST_ROWS_JSON_MAX_BYTES.
      { name: 'largest taken (2 extra columns a row)', rows: rowsOf(MAX_ROWS_PER_REQUEST, 2, 17), answer: 202 },
      // 25 extra columns of 20 characters: ~46 MB of JSON (the old gunzip limit was 48) in a ~5.4 MB body (the limit is 5.5).
      { name: 'what the old limits let through (25 extra columns a row)', rows: rowsOf(MAX_ROWS_PER_REQUEST, 25, 20), answer: 413 },
    ];
    for (const { name, rows, answer } of cases) {
      const user = await createTestUser(stack.urls.cognito, stack.userPool);
      // The user's item, as the first sign-in writes it; Pro (a free plan takes 100 accounts).
      await fetch(`${stack.urls.app}/api/auth/user`, { headers: { authorization: `Bearer ${user.accessToken}` } });
      await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), UpdateExpression: 'SET subscriptionPlan = :p', ExpressionAttributeValues: { ':p': 'pro' } }));
      const json = JSON.stringify(rows);
      const csvDataGzip = gzipSync(json).toString('base64');
      if ((answer === 202 && json.length > REQUEST_ROWS_JSON_MAX_BYTES) || csvDataGzip.length > REQUEST_BODY_MAX_BYTES) throw new Error(`${name}: over the limits (${mb(json.length)} JSON, ${mb(csvDataGzip.length)} body)`);
      const body = JSON.stringify({ projectName: `Bench request ${name}`, csvDataGzip });
      const event = {
        version: '2.0',
        routeKey: 'POST /api/bulk-create',
        rawPath: '/api/bulk-create',
        rawQueryString: '',
        headers: { 'content-type': 'application/json' },
        body,
        isBase64Encoded: false,
        requestContext: {
          accountId: '000000000000',
          apiId: 'bench',
          domainName: 'localhost',
          http: { method: 'POST', path: '/api/bulk-create', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
          requestId: 'bench',
          routeKey: 'POST /api/bulk-create',
          stage: '$default',
          time: new Date().toUTCString(),
          timeEpoch: Date.now(),
          authorizer: { jwt: { claims: { sub: user.sub, email: user.email }, scopes: [] } },
        },
      };
      const eventFile = path.join(out, 'bulk-request-event.json');
      fs.writeFileSync(eventFile, JSON.stringify(event));
      const load = os.loadavg()[0]!.toFixed(1);
      // Not spawnSync: the emulators (SQS, S3) run in this process, whose event loop must keep turning.
      const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
        env: { ...process.env, BENCH_EVENT_FILE: eventFile, BENCH_BUNDLE: bundle },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-3000)));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      fs.rmSync(eventFile, { force: true });
      if (code !== 0) throw new Error(`${name}: the handler's process failed\n${stderr.slice(-1500)}`);
      const figures = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildFigures;
      if (figures.status !== answer) throw new Error(`${name}: answered ${figures.status}, not ${answer}: ${figures.body}`);
      const lambdaSeconds = (memoryMb: number) => (figures.cpuMs * Math.max(1, FULL_VCPU_MB / memoryMb) + figures.requests * 10) / 1000;
      const atDeployed = lambdaSeconds(sizes.memoryMb);
      console.log(
        `  ${name}: ${mb(json.length)} JSON, body ${mb(body.length)}; ${figures.status} in ${(figures.wallMs / 1000).toFixed(1)} s here ` +
          `(CPU ${(figures.cpuMs / 1000).toFixed(2)} s, ${figures.requests} AWS requests, the rest the emulators' time; load ${load}); ` +
          `peak RSS ${mb(figures.peakRssBytes)} (${((figures.peakRssBytes / (sizes.memoryMb * 1048576)) * 100).toFixed(0)}% of ${sizes.memoryMb} MB); ` +
          `on Lambda at most about ${atDeployed.toFixed(1)} s at ${sizes.memoryMb} MB (${((atDeployed / sizes.timeoutSeconds) * 100).toFixed(0)}% of ${sizes.timeoutSeconds} s)`,
      );
    }
  } finally {
    await stack.stop();
  }
}
