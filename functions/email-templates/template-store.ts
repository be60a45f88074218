import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailTemplate } from '../../shared/schemas/email-templates';
import { keys } from '../core/keys';

export interface TemplateStore {
  list(userId: string): Promise<EmailTemplate[]>;
  /**
   * Writes a template (`mustExist`: only if it is there, else false); when it is the default,
   * the user's other defaults are cleared in the same transaction.
   */
  save(userId: string, template: EmailTemplate, options: { mustExist: boolean; otherDefaults: string[] }): Promise<boolean>;
  remove(userId: string, id: string): Promise<boolean>;
}

const FIELDS = ['id', 'name', 'subject', 'htmlContent', 'textContent', 'brandLogoUrl', 'isDefault', 'isActive', 'variables', 'createdAt', 'updatedAt'] as const;
const templateOf = (item: Record<string, unknown>): EmailTemplate => Object.fromEntries(FIELDS.map((f) => [f, item[f]])) as unknown as EmailTemplate;

export function dynamoTemplateStore(db: DynamoDBDocumentClient, tableName: string): TemplateStore {
  return {
    async list(userId) {
      const key = keys.emailTemplatesOf(userId);
      const items: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
            ExpressionAttributeValues: { ':pk': key.PK, ':prefix': key.SKPrefix },
            ConsistentRead: true,
            ScanIndexForward: false,
            ExclusiveStartKey: startKey,
          }),
        );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return items.map(templateOf);
    },

    async save(userId, template, { mustExist, otherDefaults }) {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.emailTemplate(userId, template.id), entityType: 'EmailTemplate', ...template },
                  ConditionExpression: mustExist ? 'attribute_exists(PK)' : 'attribute_not_exists(PK)',
                },
              },
              ...otherDefaults.map((id) => ({
                Update: {
                  TableName: tableName,
                  Key: keys.emailTemplate(userId, id),
                  UpdateExpression: 'SET isDefault = :false',
                  ConditionExpression: 'attribute_exists(PK)',
                  ExpressionAttributeValues: { ':false': false },
                },
              })),
            ],
          }),
        );
        return true;
      } catch (error) {
        const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
        // Another default was deleted meanwhile: nothing left to clear, write again without it.
        if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) {
          const remaining = (await this.list(userId)).filter((t) => t.isDefault && t.id !== template.id).map((t) => t.id);
          return this.save(userId, template, { mustExist, otherDefaults: remaining });
        }
        throw error;
      }
    },

    async remove(userId, id) {
      try {
        await db.send(new DeleteCommand({ TableName: tableName, Key: keys.emailTemplate(userId, id), ConditionExpression: 'attribute_exists(PK)' }));
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}
