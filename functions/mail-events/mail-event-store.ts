import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { emailCounterAttribute, emailStatuses, type EmailStatus } from '../../shared/schemas/email-status';
import { isIdShaped } from '../../shared/schemas/ids';
import { stateBlockKey } from '../accounts/account-states';
import { MAX_ACCOUNT_SHARDS } from '../accounts/account-partitions';
import { keys } from '../core/keys';
import { isBatchRetryable, withRetry, workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { itemKey, itemsByKey } from '../core/items-by-key';
import type { AccountEmailState, MailEventStore, MailMessageRecord, ReminderMessageRecord, StatusMove, SuppressionEntry } from './apply-mail-event';
import type { SesEvent } from './ses-event';

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

/**
 * The account a credential e-mail was for, from its SES tags (functions/mail/send-credentials.ts
 * mailTags); undefined when the tags do not name one (an e-mail sent before the tags, or another
 * kind of e-mail).
 */
export function taggedMessage(messageId: string, event: SesEvent | undefined): MailMessageRecord | undefined {
  const tag = (name: string) => event?.mail.tags?.[name]?.[0];
  const [userId, projectId, sendId, row, shards] = [tag('userId'), tag('projectId'), tag('sendId'), Number(tag('row')), Number(tag('shards'))];
  if (!userId || !/^[A-Za-z0-9_-]{1,128}$/.test(userId) || !projectId || !isIdShaped(projectId) || !sendId || !isIdShaped(sendId)) return undefined;
  if (!Number.isInteger(row) || row < 1 || !Number.isInteger(shards) || shards < 1 || shards > MAX_ACCOUNT_SHARDS) return undefined;
  const account = keys.account(userId, projectId, row, shards);
  return {
    messageId,
    tagged: { sendId, row, shards },
    userId,
    projectId,
    accountId: keys.accountId(projectId, row),
    accountPK: account.PK,
    accountSK: account.SK,
    email: event?.mail.destination?.[0] ?? '',
  };
}

/** An expiry reminder's account, from its SES tags (functions/schedules/reminder-claims.ts reminderTags); undefined for any other e-mail. */
export function reminderMessage(messageId: string, event: SesEvent | undefined): ReminderMessageRecord | undefined {
  const tag = (name: string) => event?.mail.tags?.[name]?.[0];
  const [userId, projectId, date, row, shards] = [tag('userId'), tag('projectId'), tag('reminder'), Number(tag('row')), Number(tag('shards'))];
  if (!userId || !/^[A-Za-z0-9_-]{1,128}$/.test(userId) || !projectId || !isIdShaped(projectId) || !date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  if (!Number.isInteger(row) || row < 1 || !Number.isInteger(shards) || shards < 1 || shards > MAX_ACCOUNT_SHARDS) return undefined;
  return { messageId, userId, projectId, row, shards, date, email: event?.mail.destination?.[0] ?? '' };
}

/** The history entry of a reminder that bounced or was marked as spam (account-history.ts shows its title). */
const reminderTitles = { bounced: 'Expiry reminder bounced', complained: 'Expiry reminder marked as spam by the recipient' } as const;

const isStatus = (value: unknown): value is EmailStatus => (emailStatuses as readonly unknown[]).includes(value);

export function dynamoMailEventStore(db: DynamoDBDocumentClient, tableName: string, retry: RetryPolicy = workerRetry): MailEventStore {
  /**
   * A tagged e-mail's state as every reader sees it: its MAIL entry (one entry of the block read,
   * strongly consistent), SES's events on the account item over it. An entry about another
   * e-mail (a later send claimed the account) answers that e-mail; this send's claim without a
   * result yet answers 'queued' (the event waits on the queue).
   */
  async function readTaggedAccount(message: MailMessageRecord): Promise<AccountEmailState | undefined> {
    const { row, shards } = message.tagged!;
    const [{ Item: block }, { Item: account }] = await Promise.all([
      db.send(
        new GetCommand({
          TableName: tableName,
          Key: stateBlockKey(message.userId, message.projectId, 'MAIL', row, shards),
          ConsistentRead: true,
          ProjectionExpression: '#rows.#row',
          ExpressionAttributeNames: { '#rows': 'rows', '#row': String(row) },
        }),
      ),
      db.send(
        new GetCommand({
          TableName: tableName,
          Key: { PK: message.accountPK, SK: message.accountSK },
          ConsistentRead: true,
          ProjectionExpression: 'PK, emailEventMessageId, emailEventStatus',
        }),
      ),
    ]);
    return taggedState(message, block, account);
  }

  /** A tagged e-mail's state from its block (with at least its row's entry) and its account item's event attributes. */
  function taggedState(message: MailMessageRecord, block: Record<string, unknown> | undefined, account: Record<string, unknown> | undefined): AccountEmailState | undefined {
    const { sendId, row } = message.tagged!;
    const entry = (block?.rows as Record<string, Record<string, unknown>> | undefined)?.[String(row)];
    if (!account || !entry) return undefined;
    if (entry.emailMessageId === message.messageId) {
      return { emailMessageId: message.messageId, emailStatus: account.emailEventMessageId === message.messageId && isStatus(account.emailEventStatus) ? account.emailEventStatus : 'sent' };
    }
    if (entry.mailSend === sendId && entry.mailClaim === 'sending') return { emailMessageId: message.messageId, emailStatus: 'queued' };
    return { emailMessageId: str(entry.emailMessageId), emailStatus: isStatus(entry.emailStatus) ? entry.emailStatus : undefined };
  }

  /** The project's counters moved by one or more status moves (each -1 from, +1 to, summed). Never creates a project that is gone. */
  function counterUpdate(userId: string, projectId: string, moves: readonly StatusMove[]) {
    const by = new Map<EmailStatus, number>();
    for (const move of moves) {
      by.set(move.from, (by.get(move.from) ?? 0) - 1);
      by.set(move.to, (by.get(move.to) ?? 0) + 1);
    }
    const changes = [...by.entries()].filter(([, n]) => n !== 0);
    return {
      TableName: tableName,
      Key: keys.project(userId, projectId),
      UpdateExpression: `ADD ${changes.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.fromEntries(changes.map(([status], i) => [`#c${i}`, emailCounterAttribute[status]])),
      ExpressionAttributeValues: Object.fromEntries(changes.map(([, n], i) => [`:c${i}`, n])),
    };
  }

  /**
   * A tagged e-mail's status move, on the account item's own event attributes (never in the
   * block: a running send holds it, and its version check would stop that send). The first
   * event of an e-mail (from 'sent') only if none of this e-mail and none of a later send is
   * there; the next ones only from the status the last one left.
   */
  function eventUpdate(message: MailMessageRecord, move: StatusMove) {
    const first = move.from === 'sent';
    return {
      TableName: tableName,
      Key: { PK: message.accountPK, SK: message.accountSK },
      UpdateExpression: `SET emailEventMessageId = :messageId, emailEventSendId = :send, emailEventStatus = :to, emailEventAt = :at${move.error === undefined ? ' REMOVE emailEventError' : ', emailEventError = :error'}`,
      ConditionExpression: first
        ? 'attribute_exists(PK) AND (attribute_not_exists(emailEventMessageId) OR (emailEventMessageId <> :messageId AND emailEventSendId <= :send))'
        : 'emailEventMessageId = :messageId AND emailEventStatus = :from',
      ExpressionAttributeValues: {
        ':messageId': message.messageId,
        ':send': message.tagged!.sendId,
        ':to': move.to,
        ':at': move.at,
        ...(first ? {} : { ':from': move.from }),
        ...(move.error === undefined ? {} : { ':error': move.error }),
      },
    };
  }

  return {
    async reminderEvent(message, move) {
      const claim = keys.reminderSent(message.userId, message.projectId, message.date, message.row);
      const update = {
        TableName: tableName,
        Key: claim,
        UpdateExpression: `SET eventStatus = :to, eventAt = :at${move.error === undefined ? '' : ', eventError = :error'}`,
        // Only this message's claim, and only forward: delivered once, then a bounce or a complaint once.
        ConditionExpression: `#result = :sent AND detail = :messageId AND ${move.to === 'delivered' ? 'attribute_not_exists(eventStatus)' : '(attribute_not_exists(eventStatus) OR eventStatus = :delivered)'}`,
        ExpressionAttributeNames: { '#result': 'result' },
        ExpressionAttributeValues: {
          ':to': move.to,
          ':at': move.at,
          ':sent': 'sent',
          ':messageId': message.messageId,
          ...(move.to === 'delivered' ? {} : { ':delivered': 'delivered' }),
          ...(move.error === undefined ? {} : { ':error': move.error.slice(0, 500) }),
        },
      };
      const items: TransactItems = [{ Update: update }];
      if (move.to !== 'delivered') {
        items.push({
          Put: {
            TableName: tableName,
            Item: {
              ...keys.accountHistory(message.userId, message.projectId, message.row, move.at, `reminder-${message.date}`),
              entityType: 'AccountHistory',
              userId: message.userId,
              projectId: message.projectId,
              accountId: keys.accountId(message.projectId, message.row),
              kind: move.to,
              at: move.at,
              title: reminderTitles[move.to],
              ...(move.error === undefined ? {} : { detail: move.error.slice(0, 500) }),
            },
          },
        });
      }
      try {
        await withRetry('Recording a reminder event', retry, isBatchRetryable, () => db.send(new TransactWriteCommand({ TransactItems: items })));
        return 'moved';
      } catch (error) {
        if (error instanceof TransactionCanceledException && error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return 'unchanged';
        throw error;
      }
    },

    async findMessage(messageId, event) {
      const tagged = taggedMessage(messageId, event);
      if (tagged) return tagged;
      // Strongly consistent: the sender wrote it just before; an eventually consistent miss would drop the event for good.
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.mailMessage(messageId), ConsistentRead: true }));
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
      if (message.tagged) return readTaggedAccount(message);
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
      // An e-mail recorded on the account item (before state blocks) moves the item's own status.
      const accountUpdate = message.tagged
        ? eventUpdate(message, move)
        : {
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
          };
      const items: TransactItems = [
        { Update: accountUpdate },
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

    async readAccounts(messages) {
      // One BatchGetItem (strongly consistent): each message's block, projected to its rows, and
      // its account's event attributes, as readTaggedAccount reads them one by one.
      const names: Record<string, string> = { '#rows': 'rows' };
      const rows = [...new Set(messages.map((m) => String(m.tagged!.row)))];
      rows.forEach((row, i) => (names[`#r${i}`] = row));
      const wanted = messages.flatMap((m) => [stateBlockKey(m.userId, m.projectId, 'MAIL', m.tagged!.row, m.tagged!.shards), { PK: m.accountPK, SK: m.accountSK }]);
      // Keys DynamoDB left unprocessed (a throttled partition) are read again, with backoff, inside the worker's budget.
      const found = await itemsByKey(db, tableName, wanted, {
        consistent: true,
        projection: { ProjectionExpression: ['emailEventMessageId', 'emailEventStatus', ...rows.map((_, i) => `#rows.#r${i}`)].join(', '), ExpressionAttributeNames: names },
        retry,
        what: 'Reading the state blocks and accounts of SES events',
      });
      const states = new Map<string, AccountEmailState | undefined>();
      for (const m of messages) {
        const block = stateBlockKey(m.userId, m.projectId, 'MAIL', m.tagged!.row, m.tagged!.shards);
        states.set(m.messageId, taggedState(m, found.get(itemKey(block)), found.get(itemKey({ PK: m.accountPK, SK: m.accountSK }))));
      }
      return states;
    },

    async moveStatuses(moves) {
      const byProject = new Map<string, { userId: string; projectId: string; moves: StatusMove[] }>();
      for (const { message, move } of moves) {
        const key = `${message.userId}\n${message.projectId}`;
        const entry = byProject.get(key) ?? { userId: message.userId, projectId: message.projectId, moves: [] };
        entry.moves.push(move);
        byProject.set(key, entry);
      }
      const items: TransactItems = [
        ...moves.map(({ message, move }) => ({ Update: eventUpdate(message, move) })),
        ...[...byProject.values()].map(({ userId, projectId, moves: projectMoves }) => ({ Update: counterUpdate(userId, projectId, projectMoves) })),
      ];
      try {
        await db.send(new TransactWriteCommand({ TransactItems: items }));
        return 'moved';
      } catch (error) {
        if (error instanceof TransactionCanceledException) return 'not-moved';
        throw error;
      }
    },
  };
}
