import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { emailCounterAttribute } from '../../shared/schemas/email-status';
import { keys } from '../core/keys';
import type { AccountEmailState, MailEventStore, MailMessageRecord, SuppressionEntry } from './apply-mail-event';

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/**
 * The suppression entry as an Update: created with this event's reason, or left exactly as it is
 * when the address is on the list already (the first reason and date stay). Unconditional, so it
 * never cancels the status move it rides with.
 */
function suppressionUpdate(tableName: string, userId: string, entry: SuppressionEntry) {
  return {
    TableName: tableName,
    Key: keys.emailSuppression(userId, entry.email),
    UpdateExpression:
      'SET entityType = if_not_exists(entityType, :type), email = if_not_exists(email, :email), reason = if_not_exists(reason, :reason), detail = if_not_exists(detail, :detail), createdAt = if_not_exists(createdAt, :createdAt), projectId = if_not_exists(projectId, :projectId)',
    ExpressionAttributeValues: {
      ':type': 'EmailSuppression',
      ':email': entry.email,
      ':reason': entry.reason,
      ':detail': entry.detail,
      ':createdAt': entry.createdAt,
      ':projectId': entry.projectId,
    },
  };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function dynamoMailEventStore(db: DynamoDBDocumentClient, tableName: string): MailEventStore {
  return {
    async findMessage(messageId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.mailMessage(messageId) }));
      if (!Item) return undefined;
      const record: Partial<MailMessageRecord> = {
        messageId,
        userId: str(Item.userId),
        projectId: str(Item.projectId),
        accountId: str(Item.accountId),
        accountPK: str(Item.accountPK),
        accountSK: str(Item.accountSK),
        email: str(Item.email),
        sentAt: str(Item.sentAt),
      };
      const missing = (['userId', 'projectId', 'accountId', 'accountPK', 'accountSK', 'email'] as const).filter((field) => !record[field]);
      if (missing.length) throw new Error(`Mail message ${messageId} lacks ${missing.join(', ')}`);
      return record as MailMessageRecord;
    },

    async readAccount(message) {
      const { Item } = await db.send(
        new GetCommand({
          TableName: tableName,
          Key: { PK: message.accountPK, SK: message.accountSK },
          ConsistentRead: true,
          ProjectionExpression: 'emailStatus, emailMessageId',
        }),
      );
      return Item ? ({ emailStatus: Item.emailStatus, emailMessageId: Item.emailMessageId } as AccountEmailState) : undefined;
    },

    async moveStatus(message, move) {
      const items: TransactItems = [
        {
          Update: {
            TableName: tableName,
            Key: { PK: message.accountPK, SK: message.accountSK },
            UpdateExpression: `SET emailStatus = :to, emailStatusAt = :at${move.error === undefined ? '' : ', emailError = :error'}`,
            ConditionExpression: 'emailStatus = :from AND emailMessageId = :messageId',
            ExpressionAttributeValues: {
              ':to': move.to,
              ':from': move.from,
              ':at': move.at,
              ':messageId': message.messageId,
              ...(move.error === undefined ? {} : { ':error': move.error }),
            },
          },
        },
        {
          // The project's counters (shared/schemas/email-status.ts): one count from the old
          // status to the new. Never creates a project that is gone.
          Update: {
            TableName: tableName,
            Key: keys.project(message.userId, message.projectId),
            UpdateExpression: 'ADD #from :minusOne, #to :one',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: { '#from': emailCounterAttribute[move.from], '#to': emailCounterAttribute[move.to] },
            ExpressionAttributeValues: { ':minusOne': -1, ':one': 1 },
          },
        },
      ];
      if (move.suppression) items.push({ Update: suppressionUpdate(tableName, message.userId, move.suppression) });
      try {
        await db.send(new TransactWriteCommand({ TransactItems: items }));
        return 'moved';
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        if (error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return 'account-changed';
        if (error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed') return 'project-gone';
        throw error;
      }
    },

    async suppress(userId, entry) {
      await db.send(new UpdateCommand(suppressionUpdate(tableName, userId, entry)));
    },
  };
}
