import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { portsFromEnv, projectRoot } from '../../bin/local/settings';
import { startLocalStack, type LocalStack } from '../../bin/local/stack';

/** What a test worker needs to reach the stack that the global setup started. */
export interface StackInfo {
  urls: LocalStack['urls'];
  userPool: LocalStack['userPool'];
  queueUrls: Record<string, string>;
  dataDir: string;
  /** A private origin the stack lets integrations call: tests serve a fake platform there. */
  fakePlatformOrigin: string;
  /** The stack's local SCIM directory: base URL and bearer token. */
  scim: LocalStack['scim'];
  /** An ldap:// origin the stack lets integrations reach: tests run a slapd there (test/support/slapd.ts). */
  fakeDirectoryOrigin: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/** E-mails a second the test stacks send credential e-mails at (all mail workers together). */
const TEST_MAIL_SEND_RATE = 200;

/**
 * Starts a fresh local stack for a test project on its own ports and data folder (DynamoDB in
 * memory), so tests never touch the `npm start` data and can run beside it.
 */
export async function startTestStack(project: TestProject, name: string, portOffset: number, web: 'static' | 'none') {
  // TEST_PORT_SHIFT moves a second checkout's test stacks (a git worktree) off the first one's ports.
  const shift = Number(process.env.TEST_PORT_SHIFT ?? 0);
  portOffset += Number.isInteger(shift) ? shift : 0;
  const dataDir = path.join(projectRoot, '.test-data', name);
  fs.rmSync(dataDir, { recursive: true, force: true });
  const fakePlatformOrigin = `http://127.0.0.1:${portOffset + 4010}`;
  const fakeDirectoryOrigin = `ldap://127.0.0.1:${portOffset + 4389}`;
  // Credential e-mails are paced to MAIL_SEND_RATE (default 14 a second, SES's starting quota): a
  // 1,001-account send would sit 72 s in timers. The test stacks send as an account with a raised
  // quota does; the pacing itself (spacing, shares per worker, throttling) is tested in
  // test/unit/mail-pacing.test.ts. A rate set in the environment still wins.
  process.env.MAIL_SEND_RATE ??= String(TEST_MAIL_SEND_RATE);
  const stack = await startLocalStack({
    ports: portsFromEnv({}, portOffset),
    outboundAllowedOrigins: [fakePlatformOrigin, fakeDirectoryOrigin],
    dataDir,
    persistDynamoDb: false,
    web,
    log: (m) => process.stderr.write(`[${name} stack] ${m}\n`),
  });
  project.provide('stack', { urls: stack.urls, userPool: stack.userPool, queueUrls: stack.queueUrls, dataDir, fakePlatformOrigin, fakeDirectoryOrigin, scim: stack.scim });
  return stack;
}
