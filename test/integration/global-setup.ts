import type { TestProject } from 'vitest/node';
import { startTestStacks } from '../support/test-stack';

export default async function setup(project: TestProject) {
  const stacks = await startTestStacks(project, 'integration', 10_000, 'none');
  return () => stacks.stop();
}
