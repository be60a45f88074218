import { attributeMappingPreviewSchema, createIntegrationSchema, updateIntegrationSchema } from '../../shared/schemas/integrations';
import { checkPeopleSchema } from '../../shared/schemas/provisioning-requests';
import { adapterFactory } from '../provisioning/adapters';
import { checkPeople } from '../provisioning/check-people';
import { attributePreview } from './attribute-preview';
import { dynamo, sqs } from '../core/clients';
import { sqsProvisioningQueue } from '../provisioning/sqs-provisioning-queue';
import { failRunsOf } from '../provisioning/provisioning-jobs';
import { appCipher } from '../core/encryption';
import { env, requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { requestOrigin } from '../security/security-events';
import { timeOrderedId } from '../core/ids';
import { dynamoPlanReader } from '../usage/plan-store';
import { dynamoIntegrationStore } from './integration-store';
import { integrationTemplates, localDirectoryTemplate } from './integration-templates';
import { integrationUseCases } from './integrations';
import { withRequestTurn } from '../account-jobs/integration-turn';
import { pacingOf } from '../provisioning/adapters/pacing-defaults';

const db = dynamo();
const provisioningQueue = sqsProvisioningQueue(sqs(), requireEnv('PROVISIONING_QUEUE_URL'));
const tableName = requireEnv('TABLE_NAME');
const outbound = { allowedOrigins: (env().OUTBOUND_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean) };
/** The integration's turn, taken by the connection test and 'Check against platform' alike. */
const turnDeps = { db, tableName, now: () => new Date() };
const integrations = integrationUseCases({
  store: dynamoIntegrationStore(db, tableName),
  plan: dynamoPlanReader(db, tableName),
  cipher: appCipher,
  now: () => new Date(),
  newId: timeOrderedId,
  securityEvents: { db, tableName },
  outbound,
  // The test's call on the integration's turn, one request of its pace (a job running on it gives the turn up at its next call).
  onTurn: (record, call) =>
    withRequestTurn(turnDeps, { userId: record.userId, integrationId: record.id, platformName: record.name }, pacingOf(record), async (turn) => {
      await turn.bucket.take();
      return call();
    }),
  onTestPassed: (userId, integrationId) => provisioningQueue.send([{ type: 'resume', userId, integrationId }]),
  onDeleted: async (userId, integrationId) => {
    await failRunsOf({ db, tableName, now: () => new Date() }, userId, integrationId, 'The integration was deleted: the accounts not reached stay pending.');
  },
});

const integrationStore = dynamoIntegrationStore(db, tableName);
const preview = attributePreview({ integration: (userId, id) => integrationStore.get(userId, id) });
// 'Check against platform': the people looked up on the platform, on the integration's turn.
const check = checkPeople({
  plan: dynamoPlanReader(db, tableName),
  integration: (userId, id) => integrationStore.get(userId, id),
  cipher: appCipher,
  adapterFor: adapterFactory(outbound),
  now: () => new Date(),
  turn: turnDeps,
  pacingOf,
});

export const handler = httpHandler({
  'GET /api/integrations': route({ run: ({ userId }) => integrations.list(userId) }),
  'GET /api/integration-templates': route({
    run: async ({ userId }) => {
      const localDirectory = localDirectoryTemplate(env().LOCAL_SCIM_URL, env().LOCAL_SCIM_TENANT_KEY, userId);
      return [...integrationTemplates, ...(localDirectory ? [localDirectory] : [])];
    },
  }),
  'POST /api/integrations': route({
    authorize: ({ userId }) => integrations.assertPlan(userId),
    body: createIntegrationSchema, run: async ({ userId, body, event }) => new Response(201, await integrations.create(userId, body, requestOrigin(event))),
  }),
  'PUT /api/integrations/{id}': route({
    authorize: ({ userId }) => integrations.assertPlan(userId),
    body: updateIntegrationSchema,
    run: ({ userId, pathParameters, body, event }) => integrations.update(userId, pathParameters.id ?? '', body, requestOrigin(event)),
  }),
  // What one person would look like on the platform with a mapping of extra columns (Pro, as integrations).
  'POST /api/integrations/{id}/attribute-preview': route({
    authorize: ({ userId }) => integrations.assertPlan(userId),
    body: attributeMappingPreviewSchema,
    run: ({ userId, pathParameters, body }) => preview(userId, pathParameters.id ?? '', body),
  }),
  'POST /api/integrations/{id}/check': route({
    body: checkPeopleSchema,
    run: ({ userId, pathParameters, body }) => check(userId, pathParameters.id ?? '', body),
  }),
  'POST /api/integrations/{id}/test': route({ run: ({ userId, pathParameters }) => integrations.test(userId, pathParameters.id ?? '') }),
  'DELETE /api/integrations/{id}': route({
    run: async ({ userId, pathParameters, event }) => {
      await integrations.remove(userId, pathParameters.id ?? '', requestOrigin(event));
      return new Response(204);
    },
  }),
});
