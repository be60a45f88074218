/**
 * One test stack in a process of its own (started by test/support/test-stack.ts). The handlers
 * read their settings from `process.env`, as in Lambda, so a process holds one stack: the
 * integration and e2e projects run one stack per test worker (lane), each in such a process.
 *
 * Reads its options from TEST_STACK_OPTIONS (JSON), answers the parent over IPC with
 * `{ ready: { ...stack, env } }` (env: what the stack changed in process.env, for the test workers)
 * or `{ failed: message }`, and stops the stack on 'stop' or when the parent goes away.
 */
import '../../bin/local/log-level';
import { startLocalStack, type LocalStack } from '../../bin/local/stack';
import { portsFromEnv } from '../../bin/local/settings';

export interface StackProcessOptions {
  name: string;
  portOffset: number;
  dataDir: string;
  web: 'static' | 'none';
  outboundAllowedOrigins: string[];
}

/** What the stack process answers once its stack is up. */
export interface StackReady {
  urls: LocalStack['urls'];
  userPool: LocalStack['userPool'];
  queueUrls: Record<string, string>;
  /** The stack's local SCIM directory: base URL and bearer token. */
  scim: LocalStack['scim'];
  /** The variables the stack set in process.env, and the ones it removed. */
  env: { set: Record<string, string>; unset: string[] };
}

export type StackProcessMessage = { ready: StackReady } | { failed: string };

const send = (message: StackProcessMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

async function main() {
  const options = JSON.parse(process.env.TEST_STACK_OPTIONS ?? '') as StackProcessOptions;
  const log = (m: string) => process.stderr.write(`[${options.name} stack] ${m}\n`);
  const before = { ...process.env };
  let stack: LocalStack;
  try {
    stack = await startLocalStack({
      ports: portsFromEnv({}, options.portOffset),
      outboundAllowedOrigins: options.outboundAllowedOrigins,
      dataDir: options.dataDir,
      persistDynamoDb: false,
      web: options.web,
      log,
      // Tests run the scheduled functions themselves, with the clock they need.
      schedules: false,
    });
  } catch (error) {
    await send({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
  const env = {
    set: Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && before[entry[0]] !== entry[1])),
    unset: Object.keys(before).filter((key) => process.env[key] === undefined),
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stack.stop().finally(() => process.exit(0));
    return stopping;
  };
  process.on('message', (message) => {
    if (message === 'stop') void stop();
  });
  // The test run ended without stopping us (killed, crashed): stop the emulators all the same.
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  await send({ ready: { urls: stack.urls, userPool: stack.userPool, queueUrls: stack.queueUrls, scim: stack.scim, env } });
}

void main();
