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
