import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from 'vite';
import { projectRoot } from '../../bin/local/settings';
import { startTestStacks } from '../support/test-stack';

/**
 * Builds the web app as it is deployed and serves it with the API from one origin (as
 * CloudFront does), on ports of its own, against fresh emulators: one stack per test worker.
 */
export default async function setup(project: TestProject) {
  await build({ configFile: path.join(projectRoot, 'frontend', 'vite.config.ts'), logLevel: 'warn' });
  const stacks = await startTestStacks(project, 'e2e', 20_000, 'static');
  return () => stacks.stop();
}
