import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { ValidationError } from '../core/errors';
import { httpHandler, Response, route } from '../core/http';
import { accountView, readableAccountPassword } from '../accounts/account-item';
import { exportProjectCsv } from './export-project-csv';
import { projectView } from './project-item';
import { dynamoProjectStore } from './project-store';

const projects = dynamoProjectStore(dynamo(), requireEnv('TABLE_NAME'));
const exportCsv = exportProjectCsv({ projects, cipher: appCipher });

const pageLimit = (value: string | undefined): number => {
  if (value === undefined) return 50;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new ValidationError('limit must be a whole number from 1 to 500');
  return limit;
};

export const handler = httpHandler({
  'GET /api/projects': route({ run: async ({ userId }) => (await projects.list(userId)).map(projectView) }),
  'GET /api/projects/{id}/accounts': route({
    run: async ({ userId, pathParameters, query }) => {
      const page = await projects.accountsPage(userId, pathParameters.id ?? '', pageLimit(query.limit), query.cursor);
      const cipher = query.showPasswords === 'true' ? await appCipher() : undefined;
      return {
        items: page.items.map((item) => accountView(item, cipher && readableAccountPassword(cipher, item))),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
  }),
  'GET /api/projects/{id}/export': route({
    run: async ({ userId, pathParameters }) => {
      const { filename, body } = await exportCsv(userId, pathParameters.id ?? '');
      return new Response(200, body, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${filename.replace(/"/g, '')}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      });
    },
  }),
});
