import { appCipher } from '../core/encryption';
import { queueWorker } from '../core/queue-worker';
import { queues } from '../../shared/routes';
import { adapterFactory, pacingOf } from '../provisioning/adapters';
import { provisioningRuntime } from '../provisioning/deps';
import { provisionChunk } from '../provisioning/provision-accounts';
import { planRun, resumeRuns } from '../provisioning/provisioning-jobs';
import { provisioningMessageSchema } from '../provisioning/provisioning-message';

const runtime = provisioningRuntime();
const workers = queues.find((q) => q.name === 'provisioning')?.maxConcurrency ?? 1;
const chunk = provisionChunk({
  ...runtime,
  cipher: appCipher,
  integration: (userId, id) => runtime.integrations.get(userId, id),
  adapterFor: adapterFactory(runtime.outbound),
  pacingOf,
  workers,
});
const plan = planRun(runtime);
const resume = resumeRuns(runtime);

export const handler = queueWorker(provisioningMessageSchema, async (message) => {
  if (message.type === 'start') return plan(message.userId, message.jobId);
  if (message.type === 'resume') {
    await resume(message.userId, message.integrationId);
    return;
  }
  return chunk(message);
});
