import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BROWSER_WAIT_MS } from './test/support/wait-limits';

/**
 * Test files the integration and e2e projects run at once. Each worker gets a test stack of its
 * own (test/support/test-stack.ts, test/support/stack-lane.ts), so two files never share one; the
 * tests mostly wait on the stack, the queues and Chromium, so two lanes fit two cores.
 */
const STACK_LANES = 2;

export default defineConfig({
  test: {
    projects: [
      {
        // Frontend modules under test import the shared code as the web app does (@shared/...).
        resolve: { alias: { '@shared': path.resolve(import.meta.dirname, 'shared') } },
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/infra/setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/support/stack-lane.ts'],
          // Waits end on their condition (test/support/until.ts); the limits only decide how long
          // a broken test takes to fail, on a machine that may run two `npm test`s at once.
          testTimeout: 120_000,
          hookTimeout: 180_000,
          expect: { poll: { timeout: 60_000 } },
          maxWorkers: STACK_LANES,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/support/stack-lane.ts'],
          // Every wait in a test ends on its condition (a heading, a count, a status); these limits
          // and the browser's (test/support/wait-limits.ts) only decide how long a
          // broken screen takes to fail, so they are set for a machine running two `npm test`s at
          // once, where a sign-in took 30 s and a screen's axe check 10 s.
          testTimeout: 300_000,
          hookTimeout: 300_000,
          expect: { poll: { timeout: BROWSER_WAIT_MS, interval: 100 } },
          maxWorkers: STACK_LANES,
          // A lane's files run one after another in one worker process: each file starts in about
          // a second instead of about five (a fresh process loading playwright-core, the AWS SDK
          // and the test support each time). Every file still opens its own browser contexts and
          // users, and no e2e file changes module state (no vi.mock, no process.env writes).
          isolate: false,
        },
      },
    ],
  },
});
