import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailTemplate } from '../../../shared/schemas/email-templates';
import type { Integration } from '../../../shared/schemas/integrations';
import type { User } from '../../../shared/schemas/user';
import { keys } from '../../core/keys';
import { queryAllUnder } from '../../core/prefix-query';
import { integrationView, recordOf } from '../../integrations/integration-record';
import { publicUser } from '../../users/user-repository';
import { dynamoAccountPages, type AccountPages } from '../account-pages';

/** Everything Export All Data reads of one user, as the API shows it (never a secret). */
export interface AccountDataSource {
  profile(userId: string): Promise<User | undefined>;
  /** The settings item (issue 12) without its keys, when the user has one. */
  settings(userId: string): Promise<Record<string, unknown> | undefined>;
  /** Project items, newest first. */
  projects(userId: string): Promise<Record<string, unknown>[]>;
  accountPages: AccountPages;
  /** Integrations as GET /api/integrations shows them: the encrypted credentials are never read out. */
  integrations(userId: string): Promise<Integration[]>;
  templates(userId: string): Promise<EmailTemplate[]>;
  /** Export items, newest first. */
  exports(userId: string): Promise<Record<string, unknown>[]>;
  notifications(userId: string): Promise<Record<string, unknown>[]>;
  activity(userId: string): Promise<Record<string, unknown>[]>;
}

const TEMPLATE_FIELDS = ['id', 'name', 'subject', 'htmlContent', 'textContent', 'brandLogoUrl', 'isDefault', 'isActive', 'variables', 'createdAt', 'updatedAt'] as const;

/** An item without the table's own attributes (keys, index keys, entity type, TTL). */
export const withoutKeys = (item: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(item).filter(([name]) => !/^(PK|SK|GSI\d+(PK|SK)|entityType|expiresAt)$/.test(name)));

export function dynamoAccountDataSource(db: DynamoDBDocumentClient, tableName: string): AccountDataSource {
  const under = (key: { PK: string; SKPrefix: string }) => queryAllUnder(db, tableName, key, { consistent: true });
  return {
    async profile(userId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true }));
      return Item ? publicUser(Item) : undefined;
    },
    async settings(userId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.userSettings(userId), ConsistentRead: true }));
      return Item ? withoutKeys(Item) : undefined;
    },
    projects: (userId) => under(keys.projectsOf(userId)),
    accountPages: dynamoAccountPages(db, tableName),
    integrations: async (userId) => (await under(keys.integrationsOf(userId))).map((item) => integrationView(recordOf(item))),
    templates: async (userId) =>
      (await under(keys.emailTemplatesOf(userId))).map((item) => Object.fromEntries(TEMPLATE_FIELDS.filter((f) => item[f] !== undefined).map((f) => [f, item[f]])) as unknown as EmailTemplate),
    exports: (userId) => under(keys.exportsOf(userId)),
    notifications: async (userId) => (await under(keys.notificationsOf(userId))).map(withoutKeys),
    activity: async (userId) => (await under(keys.activitiesOf(userId))).map(withoutKeys),
  };
}
