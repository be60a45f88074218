import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { inTestPortRange, portsFromEnv, projectRoot, TEST_PORT_RANGE } from '../../bin/local/settings';
import type { StackProcessMessage, StackProcessOptions, StackReady } from './stack-process';

/** What a test worker needs to reach the stack that the global setup started. */
export interface StackInfo extends StackReady {
  dataDir: string;
  /** A private origin the stack lets integrations call: tests serve a fake platform there. */
  fakePlatformOrigin: string;
  /** An ldap:// origin the stack lets integrations reach: tests run a slapd there (test/support/slapd.ts). */
  fakeDirectoryOrigin: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The stack of the worker a test file runs in (test/support/stack-lane.ts makes it so). */
    stack: StackInfo;
    /** One stack per test worker: lane n (VITEST_POOL_ID n) uses stacks[n - 1]. */
    stacks: StackInfo[];
  }
}

/** E-mails a second the test stacks send credential e-mails at (all mail workers together). */
const TEST_MAIL_SEND_RATE = 200;

/**
 * A second lane's ports sit this far above the first one's. Worktrees shift by whole thousands
 * (TEST_PORT_SHIFT) and a stack's ports end in 000, 005, 010, 077, 229/230, 250, 324, 389/390
 * and 569, so lanes 100 apart meet neither another lane's ports nor another worktree's
 * (test/unit/test-stack-ports.test.ts).
 */
const LANE_PORT_STEP = 100;
export const MAX_LANES = 9;

/** The port offset of a project's lane (0 is the first) in a worktree shifted by TEST_PORT_SHIFT. */
export const lanePortOffset = (projectOffset: number, shift: number, lane: number) => projectOffset + shift + lane * LANE_PORT_STEP;

/**
 * Every port a test stack at this offset uses: the stack's own, the fake platform and directory
 * origins it allows (slapd's ldaps:// on the next port), the second Cognito emulator of
 * test/integration/cognito-codes.test.ts on the Cognito port + 1 and the DynamoDB Local of
 * test/integration/dynamodb-start.test.ts.
 */
export function testStackPorts(portOffset: number): number[] {
  const ports = portsFromEnv({}, portOffset);
  return [
    ...Object.values(ports),
    ports.cognito + 1,
    ports.dynamodb + DYNAMODB_START_PROBE_PORT_GAP,
    portOffset + FAKE_PLATFORM_PORT,
    portOffset + FAKE_DIRECTORY_PORT,
    portOffset + FAKE_DIRECTORY_PORT + 1,
  ];
}
/** test/integration/dynamodb-start.test.ts starts a DynamoDB Local of its own this far above the stack's. */
export const DYNAMODB_START_PROBE_PORT_GAP = 77;
const FAKE_PLATFORM_PORT = 4010;
const FAKE_DIRECTORY_PORT = 4389;

/** How long a stack may take to stop before its process is killed. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * Starts fresh local stacks for a test project on their own ports and data folders (DynamoDB in
 * memory), so tests never touch the `npm start` data and can run beside it: one stack per test
 * worker the project runs at once (its maxWorkers), each in a process of its own
 * (test/support/stack-process.ts). Test files in different workers then never share a stack,
 * its fake-platform ports or its mail, as when the files ran one after another.
 */
export async function startTestStacks(project: TestProject, name: string, portOffset: number, web: 'static' | 'none') {
  // TEST_PORT_SHIFT moves a second checkout's test stacks (a git worktree) off the first one's ports.
  const shift = Number(process.env.TEST_PORT_SHIFT ?? 0);
  const lanes = project.config.maxWorkers;
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > MAX_LANES) {
    throw new Error(`The ${name} project runs ${lanes} workers; its test stacks support 1 to ${MAX_LANES}`);
  }
  // Credential e-mails are paced to MAIL_SEND_RATE (default 14 a second, SES's starting quota): a
  // 1,001-account send would sit 72 s in timers. The test stacks send as an account with a raised
  // quota does; the pacing itself (spacing, shares per worker, throttling) is tested in
  // test/unit/mail-pacing.test.ts. A rate set in the environment still wins.
  process.env.MAIL_SEND_RATE ??= String(TEST_MAIL_SEND_RATE);
  const laneOffsets = Array.from({ length: lanes }, (_, i) => lanePortOffset(portOffset, Number.isInteger(shift) ? shift : 0, i));
  const outside = laneOffsets.flatMap(testStackPorts).filter((port) => !inTestPortRange(port));
  if (outside.length > 0) {
    throw new Error(`TEST_PORT_SHIFT=${shift} puts test stacks on ports ${outside.slice(0, 3).join(', ')}..., outside ${TEST_PORT_RANGE.from}-${TEST_PORT_RANGE.to}, where npm start may run: use a shift of 0 to 9000`);
  }
  const started = await Promise.allSettled(
    laneOffsets.map((offset, i) => startStackProcess(lanes === 1 ? name : `${name}-${i + 1}`, offset, web)),
  );
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = () => Promise.all(running.map((s) => s.stop())).then(() => undefined);
  const failure = started.find((s) => s.status === 'rejected');
  if (failure) {
    await stop();
    throw (failure as PromiseRejectedResult).reason;
  }
  const stacks = running.map((s) => s.info);
  project.provide('stacks', stacks);
  project.provide('stack', stacks[0]!);
  return { stacks, stop };
}

async function startStackProcess(name: string, portOffset: number, web: 'static' | 'none') {
  const dataDir = path.join(projectRoot, '.test-data', name);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const fakePlatformOrigin = `http://127.0.0.1:${portOffset + FAKE_PLATFORM_PORT}`;
  const fakeDirectoryOrigin = `ldap://127.0.0.1:${portOffset + FAKE_DIRECTORY_PORT}`;
  const options: StackProcessOptions = { name, portOffset, dataDir, web, outboundAllowedOrigins: [fakePlatformOrigin, fakeDirectoryOrigin] };
  const child = fork(path.join(import.meta.dirname, 'stack-process.ts'), {
    cwd: projectRoot,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, TEST_STACK_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<StackReady>((resolve, reject) => {
    child.once('message', (message: StackProcessMessage) => ('ready' in message ? resolve(message.ready) : reject(new Error(message.failed))));
    child.once('exit', (code, signal) => reject(new Error(`The ${name} test stack's process ended (${signal ?? code}) before the stack started`)));
  });
  return {
    info: { ...ready, dataDir, fakePlatformOrigin, fakeDirectoryOrigin } satisfies StackInfo,
    stop: () => stopStackProcess(child, exited),
  };
}

async function stopStackProcess(child: ChildProcess, exited: Promise<void>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.send('stop');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
