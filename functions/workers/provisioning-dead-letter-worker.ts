import { logger } from '../core/logger';
import { queueWorker } from '../core/queue-worker';
import { provisioningRuntime } from '../provisioning/deps';
import { recordDeadChunk, recordDeadStart } from '../provisioning/provision-accounts';
import { provisioningMessageSchema } from '../provisioning/provisioning-message';

const runtime = provisioningRuntime();
const deadChunk = recordDeadChunk(runtime);
const deadStart = recordDeadStart(runtime);

export const handler = queueWorker(provisioningMessageSchema, async (message) => {
  if (message.type === 'chunk') return deadChunk(message);
  if (message.type === 'start') return deadStart(message.userId, message.jobId);
  // A resume that failed every time: its runs stay paused; the next successful test resumes them.
  logger.error('Resume of paused provisioning runs failed', { integrationId: message.integrationId });
});
