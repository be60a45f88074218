import { dynamo } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { ValidationError } from '../core/errors';
import { httpHandler, Response, route } from '../core/http';
import { accountView, readableAccountPassword } from '../accounts/account-item';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { exportProjectCsv } from './export-project-csv';
import { editProject, setProjectStatus } from './project-changes';
import { projectEditSchema, projectStatusSchema } from '../../shared/schemas/project';
import { projectView } from './project-item';
import { dynamoProjectStore } from './project-store';
import { plural } from '../../shared/text/plural';
import { projectDeletionRoutes } from './project-deletion-routes';
import { dynamoPlanReader } from '../usage/plan-store';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const projects = dynamoProjectStore(db, tableName);
const exportCsv = exportProjectCsv({ projects, cipher: appCipher });
const events = { db, tableName };
const changes = { db, tableName, now: () => new Date(), plan: dynamoPlanReader(db, tableName) };
const edit = editProject(changes);
const setStatus = setProjectStatus(changes);

const pageLimit = (value: string | undefined): number => {
  if (value === undefined) return 50;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new ValidationError('limit must be a whole number from 1 to 500');
  return limit;
};

const accounts = (n: number) => plural(n, 'account');
const fieldLabels: Record<string, string> = { name: 'name', description: 'description', platformUrl: 'platform URL', accountType: 'account type', expirationDate: 'expiration date', groups: 'groups', createGroups: 'creating missing groups', reminderDays: 'expiry reminder', reminderTemplateId: 'expiry reminder template' };

export const handler = httpHandler({
  ...projectDeletionRoutes(),
  'GET /api/projects': route({ run: async ({ userId }) => (await projects.list(userId)).map(projectView) }),
  'GET /api/projects/{id}/accounts': route({
    run: async ({ userId, pathParameters, query, event }) => {
      const projectId = pathParameters.id ?? '';
      const page = await projects.accountsPage(userId, projectId, pageLimit(query.limit), query.cursor);
      const cipher = query.showPasswords === 'true' ? await appCipher() : undefined;
      // Show Passwords: one security event per page of passwords sent to the browser (not one per account).
      if (cipher && page.items.length > 0) {
        const project = await projects.get(userId, projectId);
        await recordSecurityEvent(events, {
          userId,
          type: 'passwords_revealed',
          description: `Passwords shown for ${accounts(page.items.length)} of the project "${String(project.name)}"`,
          severity: 'medium',
          at: new Date(),
          ...requestOrigin(event),
        });
      }
      return {
        items: page.items.map((item) => accountView(item, cipher && readableAccountPassword(cipher, item))),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
  }),
  'PUT /api/projects/{id}': route({
    body: projectEditSchema,
    run: async ({ userId, pathParameters, body, event }) => {
      const { project, changed } = await edit(userId, pathParameters.id ?? '', body);
      if (changed.length) {
        await recordSecurityEvent(events, {
          userId,
          type: 'project_changed',
          description: `Project "${project.name}" edited (${changed.map((field) => fieldLabels[field] ?? field).join(', ')})`,
          severity: 'low',
          at: new Date(),
          ...requestOrigin(event),
        });
      }
      return project;
    },
  }),
  'PUT /api/projects/{id}/status': route({
    body: projectStatusSchema,
    run: async ({ userId, pathParameters, body, event }) => {
      const { project, changed } = await setStatus(userId, pathParameters.id ?? '', body.status);
      if (changed) {
        await recordSecurityEvent(events, {
          userId,
          type: 'project_changed',
          description: `Project "${project.name}" ${body.status === 'completed' ? 'completed' : 'reopened'}`,
          severity: 'low',
          at: new Date(),
          ...requestOrigin(event),
        });
      }
      return project;
    },
  }),
  'GET /api/projects/{id}/export': route({
    run: async ({ userId, pathParameters, event }) => {
      const { filename, body, projectName, rows } = await exportCsv(userId, pathParameters.id ?? '');
      await recordSecurityEvent(events, {
        userId,
        type: 'export_downloaded',
        description: `Accounts of the project "${projectName}" downloaded as CSV with their passwords (${accounts(rows)})`,
        severity: 'medium',
        at: new Date(),
        ...requestOrigin(event),
      });
      return new Response(200, body, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${filename.replace(/"/g, '')}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      });
    },
  }),
});
