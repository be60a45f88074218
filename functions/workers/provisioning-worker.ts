import { appCipher } from '../core/encryption';
import { queueWorker } from '../core/queue-worker';
import { adapterFactory, pacingOf } from '../provisioning/adapters';
import { provisioningRuntime } from '../provisioning/deps';
import { provisionChunk } from '../provisioning/provision-accounts';
import { planRun, resumeRuns } from '../provisioning/provisioning-jobs';
import { provisioningMessageSchema } from '../provisioning/provisioning-message';
import { resetChunk } from '../security/reset-passwords-chunk';
import { planReset } from '../security/reset-passwords';
import { randomBytes } from 'node:crypto';
import { deletionChunk } from '../projects/project-deletion-chunk';
import { planDeletion, resumeDeletionsOf } from '../projects/project-deletion';
import { planAccountAction } from '../account-actions/account-actions';
import { accountActionChunk } from '../account-actions/account-actions-chunk';
import { attributeRecountWorker } from '../accounts/attribute-recount';

const runtime = provisioningRuntime();
// What every kind's chunks on this queue need of the platform: the integration, its adapter and pacing.
const platformWork = {
  ...runtime,
  cipher: appCipher,
  integration: (userId: string, id: string) => runtime.integrations.get(userId, id),
  adapterFor: adapterFactory(runtime.outbound),
  pacingOf,
};
const chunk = provisionChunk(platformWork);
const plan = planRun(runtime);
// Reset Passwords jobs share the queue: the same chunks, lease and pacing as a run.
const planPasswordReset = planReset(runtime);
const passwordResetChunk = resetChunk({ ...platformWork, randomBytes: (n) => randomBytes(n) });
const resume = resumeRuns(runtime);
// Project deletions share it too: their accounts are removed from the platform with the same pacing.
const planProjectDeletion = planDeletion(runtime);
const projectDeletionChunk = deletionChunk(platformWork);
// Account actions (deactivate, reactivate, delete) share it too.
const planAction = planAccountAction(runtime);
const actionChunk = accountActionChunk(platformWork);
// The recount of a project's Attribute filter counters: table work, a step at a time.
const attributeRecount = attributeRecountWorker(runtime);

export const handler = queueWorker(provisioningMessageSchema, async (message) => {
  if (message.type === 'start') return plan(message.userId, message.jobId);
  if (message.type === 'reset-start') return planPasswordReset(message.userId, message.jobId);
  if (message.type === 'reset-chunk') return passwordResetChunk(message);
  if (message.type === 'delete-start') return planProjectDeletion(message.userId, message.jobId);
  if (message.type === 'delete-chunk') return projectDeletionChunk(message);
  if (message.type === 'action-start') return planAction(message.userId, message.jobId);
  if (message.type === 'action-chunk') return actionChunk(message);
  if (message.type === 'attribute-recount') return attributeRecount(message);
  if (message.type === 'resume') {
    await resume(message.userId, message.integrationId);
    await resumeDeletionsOf(runtime, message.userId, message.integrationId);
    return;
  }
  return chunk(message);
});
