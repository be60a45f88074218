import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from 'vite';
import { projectRoot } from '../../bin/local/settings';
import { startTestStacks } from '../support/test-stack';
import { startChromiumServers } from '../support/browser';

/**
 * Builds the web app as it is deployed and serves it with the API from one origin (as
 * CloudFront does), on ports of its own, against fresh emulators: one stack per test worker, and
 * one Chromium per worker that its test files connect to (test/support/browser.ts).
 */
export default async function setup(project: TestProject) {
  // Progress polls at most every second (frontend/src/lib/poll-cap.ts): a screen waiting on a job sees its end within a second, not within 5.
  await build({ configFile: path.join(projectRoot, 'frontend', 'vite.config.ts'), logLevel: 'warn', define: { 'import.meta.env.VITE_POLL_MAX_MS': JSON.stringify('1000') } });
  const starting = startChromiumServers(project.config.maxWorkers);
  starting.catch(() => undefined); // handled below, once the stacks are up
  const stacks = await startTestStacks(project, 'e2e', 20_000, 'static').catch(async (error: unknown) => {
    await (await starting).stop();
    throw error;
  });
  const chromiums = await starting.catch(async (error: unknown) => {
    await stacks.stop();
    throw error;
  });
  project.provide('chromiumEndpoints', chromiums.endpoints);
  return () => Promise.all([stacks.stop(), chromiums.stop()]).then(() => undefined);
}
