import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailTemplate } from '../../shared/schemas/email-templates';
import { ConflictError } from '../core/errors';
import { keys } from '../core/keys';
import { countUnder, queryAllUnder } from '../core/prefix-query';

export interface TemplateStore {
  list(userId: string): Promise<EmailTemplate[]>;
  count(userId: string): Promise<number>;
  get(userId: string, id: string): Promise<EmailTemplate | undefined>;
  /**
   * Writes a template (`mustExist`: only if it is there; otherwise only if it is not), keeping
   * exactly one default: false when the condition on the template failed.
   */
  save(userId: string, template: EmailTemplate, options: { mustExist: boolean }): Promise<boolean>;
  remove(userId: string, id: string): Promise<boolean>;
}

const FIELDS = ['id', 'name', 'subject', 'htmlContent', 'textContent', 'brandLogoUrl', 'isDefault', 'isActive', 'variables', 'createdAt', 'updatedAt'] as const;
const templateOf = (item: Record<string, unknown>): EmailTemplate => Object.fromEntries(FIELDS.map((f) => [f, item[f]])) as unknown as EmailTemplate;

/** Saves that lost a race (another save moved the default meanwhile) are tried again this often. */
const SAVE_ATTEMPTS = 4;

/**
 * The default is kept twice, consistently: a pointer item naming the default template, and the
 * templates' `isDefault` flags. Every save writes in one transaction conditioned on the pointer
 * being what it read (a save that leaves the default where it is checks it too: the flag it
 * writes is only right for that pointer), so concurrent saves serialise: the loser reads again
 * and retries, and there is never more than one default.
 */
export function dynamoTemplateStore(db: DynamoDBDocumentClient, tableName: string): TemplateStore {
  const pointerKey = (userId: string) => keys.emailTemplateDefault(userId);

  const readPointer = async (userId: string): Promise<string | undefined> => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: pointerKey(userId), ConsistentRead: true }));
    return typeof Item?.templateId === 'string' ? Item.templateId : undefined;
  };

  const pointerUnchanged = (previous: string | undefined) =>
    previous
      ? { ConditionExpression: 'templateId = :previous', ExpressionAttributeValues: { ':previous': previous } }
      : { ConditionExpression: 'attribute_not_exists(PK)' };

  const store: TemplateStore = {
    async list(userId) {
      return (await queryAllUnder(db, tableName, keys.emailTemplatesOf(userId), { consistent: true })).map(templateOf);
    },

    count: (userId) => countUnder(db, tableName, keys.emailTemplatesOf(userId)),

    async get(userId, id) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.emailTemplate(userId, id), ConsistentRead: true }));
      return Item ? templateOf(Item) : undefined;
    },

    async save(userId, template, { mustExist }) {
      for (let attempt = 1; ; attempt++) {
        const previous = await readPointer(userId);
        const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.emailTemplate(userId, template.id), entityType: 'EmailTemplate', ...template },
              ConditionExpression: mustExist ? 'attribute_exists(PK)' : 'attribute_not_exists(PK)',
            },
          },
        ];
        if (template.isDefault && previous !== template.id) {
          items.push({ Put: { TableName: tableName, Item: { ...pointerKey(userId), entityType: 'EmailTemplateDefault', templateId: template.id }, ...pointerUnchanged(previous) } });
          // The former default loses its flag (unless it was deleted meanwhile: its Update would
          // then create a stub, so it is guarded and, when gone, left out on the next attempt).
          if (previous) {
            items.push({
              Update: {
                TableName: tableName,
                Key: keys.emailTemplate(userId, previous),
                UpdateExpression: 'SET isDefault = :false',
                ConditionExpression: 'attribute_exists(PK)',
                ExpressionAttributeValues: { ':false': false },
              },
            });
          }
        } else if (!template.isDefault && previous === template.id) {
          items.push({ Delete: { TableName: tableName, Key: pointerKey(userId), ...pointerUnchanged(previous) } });
        } else {
          // The flag written is right only for the pointer read: a save that moved the default
          // meanwhile (and set or cleared this template's flag) makes this one read again.
          items.push({ ConditionCheck: { TableName: tableName, Key: pointerKey(userId), ...pointerUnchanged(previous) } });
        }
        try {
          await db.send(new TransactWriteCommand({ TransactItems: items }));
          return true;
        } catch (error) {
          if (!(error instanceof TransactionCanceledException)) throw error;
          const reasons = error.CancellationReasons ?? [];
          if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
          if (reasons[2]?.Code === 'ConditionalCheckFailed') {
            // The pointer named a template that is gone: drop the pointer, then try again.
            await db.send(new DeleteCommand({ TableName: tableName, Key: pointerKey(userId), ...pointerUnchanged(previous) })).catch((e: unknown) => {
              if (!(e instanceof ConditionalCheckFailedException)) throw e;
            });
          }
          if (attempt >= SAVE_ATTEMPTS) throw new ConflictError('Your templates were changed at the same time elsewhere. Please try again.');
        }
      }
    },

    async remove(userId, id) {
      try {
        await db.send(new DeleteCommand({ TableName: tableName, Key: keys.emailTemplate(userId, id), ConditionExpression: 'attribute_exists(PK)' }));
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
      // No default any more if it was the default (a pointer left behind is repaired by the next save).
      await db.send(new DeleteCommand({ TableName: tableName, Key: pointerKey(userId), ...pointerUnchanged(id) })).catch((e: unknown) => {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      });
      return true;
    },
  };
  return store;
}
