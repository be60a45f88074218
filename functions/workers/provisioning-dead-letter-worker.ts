import { logger } from '../core/logger';
import { queueWorker } from '../core/queue-worker';
import { provisioningRuntime } from '../provisioning/deps';
import { recordDeadChunk, recordDeadStart } from '../provisioning/provision-accounts';
import { provisioningMessageSchema } from '../provisioning/provisioning-message';
import { recordDeadResetChunk, recordDeadResetStart } from '../security/reset-passwords-chunk';
import { recordDeadDeletionChunk, recordDeadDeletionStart } from '../projects/project-deletion-chunk';
import { recordDeadActionChunk, recordDeadActionStart } from '../account-actions/account-actions-chunk';

const runtime = provisioningRuntime();
const deadChunk = recordDeadChunk(runtime);
const deadStart = recordDeadStart(runtime);
const deadResetChunk = recordDeadResetChunk(runtime);
const deadResetStart = recordDeadResetStart(runtime);
const deadDeletionChunk = recordDeadDeletionChunk(runtime);
const deadDeletionStart = recordDeadDeletionStart(runtime);
const deadActionChunk = recordDeadActionChunk(runtime);
const deadActionStart = recordDeadActionStart(runtime);

export const handler = queueWorker(provisioningMessageSchema, async (message) => {
  if (message.type === 'chunk') return deadChunk(message);
  if (message.type === 'start') return deadStart(message.userId, message.jobId);
  if (message.type === 'reset-chunk') return deadResetChunk(message);
  if (message.type === 'reset-start') return deadResetStart(message.userId, message.jobId);
  if (message.type === 'delete-chunk') return deadDeletionChunk(message);
  if (message.type === 'delete-start') return deadDeletionStart(message.userId, message.jobId);
  if (message.type === 'action-chunk') return deadActionChunk(message);
  if (message.type === 'action-start') return deadActionStart(message.userId, message.jobId);
  // A recount step that failed every time: the recount stalls, and the Attribute filter's next use starts it again after RECOUNT_STALE_MS.
  if (message.type === 'attribute-recount') return logger.error('A step of an attribute counters recount failed every delivery', { projectId: message.projectId });
  // A resume that failed every time: its runs stay paused; the next successful test resumes them.
  logger.error('Resume of paused provisioning runs failed', { integrationId: message.integrationId });
});
