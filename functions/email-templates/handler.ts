import { emailTemplateSchema } from '../../shared/schemas/email-templates';
import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, Response, route } from '../core/http';
import { timeOrderedId } from '../core/ids';
import { dynamoPlanReader } from '../usage/plan-store';
import { templateUseCases } from './email-templates';
import { dynamoTemplateStore } from './template-store';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const templates = templateUseCases({ store: dynamoTemplateStore(db, tableName), plan: dynamoPlanReader(db, tableName), now: () => new Date(), newId: timeOrderedId });

export const handler = httpHandler({
  'GET /api/email-templates': route({ run: ({ userId }) => templates.list(userId) }),
  'POST /api/email-templates': route({ authorize: ({ userId }) => templates.assertPlan(userId), body: emailTemplateSchema, run: async ({ userId, body }) => new Response(201, await templates.create(userId, body)) }),
  'PUT /api/email-templates/{id}': route({
    authorize: ({ userId }) => templates.assertPlan(userId),
    body: emailTemplateSchema, run: ({ userId, pathParameters, body }) => templates.update(userId, pathParameters.id ?? '', body) }),
  'DELETE /api/email-templates/{id}': route({
    run: async ({ userId, pathParameters }) => {
      await templates.remove(userId, pathParameters.id ?? '');
      return new Response(204);
    },
  }),
});
