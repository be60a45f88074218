import type { TestProject } from 'vitest/node';
import { startTestStack } from '../support/test-stack';

export default async function setup(project: TestProject) {
  const stack = await startTestStack(project, 'integration', 10_000, 'none');
  return () => stack.stop();
}
