import { startProvisioningSchema } from '../../shared/schemas/provisioning-requests';
import { appCipher } from '../core/encryption';
import { NotFoundError } from '../core/errors';
import { isIdShaped } from '../../shared/schemas/ids';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { dynamoPlanReader } from '../usage/plan-store';
import { provisioningRuntime } from './deps';
import { jobView, readJob, startProvisioning } from './provisioning-jobs';
import { sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { sqsRunWait } from './run-wait';
import { accountActionSchema } from '../../shared/schemas/account-actions';
import { countAccountSelection, getAccountAction, startAccountAction } from '../account-actions/account-action-routes';
import { requestOrigin } from '../security/security-events';
import { directoryActionSchema } from '../../shared/schemas/directory-actions';
import { getDirectoryAction, startDirectoryAction } from '../account-jobs/directory-actions';
import { directoryActionKinds } from '../account-actions/directory-action-kinds';
import { browseAccounts } from '../accounts/browse-accounts';
import { matchingAccounts } from '../accounts/directory-matching';
import { getPasswordReset, startPasswordReset } from '../security/reset-passwords';
import { credentialsRuntime } from '../mail/credentials-runtime';
import { readSend, sendView, startSend } from '../mail/credential-sends';

const runtime = provisioningRuntime();
const start = startProvisioning({
  ...runtime,
  newId: timeOrderedId,
  plan: dynamoPlanReader(runtime.db, runtime.tableName),
  integration: (userId, id) => runtime.integrations.get(userId, id),
});

const actionDeps = {
  ...runtime,
  events: { db: runtime.db, tableName: runtime.tableName },
  plan: dynamoPlanReader(runtime.db, runtime.tableName),
  integrationName: async (userId: string, id: string) => (await runtime.integrations.get(userId, id))?.name,
};
const startAction = startAccountAction({ ...actionDeps, newId: timeOrderedId });
const getAction = getAccountAction(runtime);
const countSelection = countAccountSelection(runtime);

// Actions over the Account Database: a job of the usual kind per project, started through each kind's own start.
const planOf = dynamoPlanReader(runtime.db, runtime.tableName);
const integrationName = async (userId: string, id: string) => (await runtime.integrations.get(userId, id))?.name;
const mail = credentialsRuntime();
const readReset = getPasswordReset(runtime);
/** Ids for a start whose job takes the id the directory action chose for it (its first id), fresh ones after. */
const jobIdFirst = (jobId: string) => {
  let given = false;
  return (now: Date) => (given ? timeOrderedId(now) : ((given = true), jobId));
};
const kinds = directoryActionKinds({
  action: (userId, projectId, input, origin, jobId) => startAccountAction({ ...actionDeps, newId: jobIdFirst(jobId) })(userId, projectId, input, origin),
  readAction: getAction,
  reset: (userId, projectId, origin, selection, jobId) =>
    startPasswordReset({ ...runtime, newId: jobIdFirst(jobId), events: { db: runtime.db, tableName: runtime.tableName }, plan: planOf, integrationName })(userId, projectId, origin, selection),
  readReset,
  send: (userId, projectId, input, options, jobId) => startSend({ ...mail, newId: jobIdFirst(jobId), plan: planOf, linksAvailable: true, events: { db: runtime.db, tableName: runtime.tableName } })(userId, projectId, input, options),
  readSend: async (userId, id) => {
    const send = isIdShaped(id) ? await readSend(runtime, userId, id) : undefined;
    return send && sendView(send);
  },
  retry: (userId, projectId, input, options, jobId) =>
    startProvisioning({ ...runtime, newId: jobIdFirst(jobId), plan: planOf, integration: (user, id) => runtime.integrations.get(user, id) })(userId, projectId, input, options),
  readRun: async (userId, id) => {
    const job = isIdShaped(id) ? await readJob(runtime, userId, id) : undefined;
    return job && job.entityType === 'ProvisioningJob' ? jobView(job) : undefined;
  },
});
const directoryDeps = {
  ...runtime,
  newId: timeOrderedId,
  plan: planOf,
  matching: matchingAccounts(browseAccounts({ db: runtime.db, tableName: runtime.tableName, cipher: appCipher })),
  kinds,
};
const startDirectory = startDirectoryAction(directoryDeps);
const getDirectory = getDirectoryAction(directoryDeps);

export const handler = httpHandler({
  // Free and Pro alike; a project whose accounts are on a platform needs Pro (the platform is changed first).
  'POST /api/projects/{id}/account-actions': route({
    body: accountActionSchema,
    run: async ({ userId, pathParameters, body, event }) => new Response(202, { job: await startAction(userId, pathParameters.id ?? '', body, requestOrigin(event)) }),
  }),
  'GET /api/projects/{id}/account-selection': route({
    run: ({ userId, pathParameters, query }) => countSelection(userId, pathParameters.id ?? '', query.filter),
  }),
  // The Account Database's bulk actions: the ticked rows or "all N matching", across projects (functions/account-jobs/directory-actions.ts).
  'POST /api/directory-actions': route({
    body: directoryActionSchema,
    run: async ({ userId, body, event }) => new Response(202, { action: await startDirectory(userId, body, requestOrigin(event)) }),
  }),
  'GET /api/directory-actions/{id}': route({
    run: ({ userId, pathParameters }) => getDirectory(userId, pathParameters.id ?? ''),
  }),
  'GET /api/account-actions/{id}': route({
    run: ({ userId, pathParameters }) => getAction(userId, pathParameters.id ?? ''),
  }),
  'POST /api/projects/{id}/provision': route({
    body: startProvisioningSchema,
    run: async ({ userId, pathParameters, body }) => new Response(202, await start(userId, pathParameters.id ?? '', body)),
  }),
  'GET /api/provisioning-jobs/{id}': route({
    run: async ({ userId, pathParameters }) => {
      const id = pathParameters.id ?? '';
      const job = isIdShaped(id) ? await readJob(runtime, userId, id) : undefined;
      if (!job || job.entityType !== 'ProvisioningJob') throw new NotFoundError('Provisioning run not found');
      // Not picked up yet: why it waits (the shared queue's other runs), instead of a silent 0.
      return { ...jobView(job), ...(await sqsRunWait(sqs(), requireEnv('PROVISIONING_QUEUE_URL'), job)) };
    },
  }),
});
