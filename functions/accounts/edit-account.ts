import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { changedFieldLabel, type AccountEditRequest, type AccountEditResult, type EditableAccountField } from '../../shared/schemas/account-edit';
import type { EmailStatus } from '../../shared/schemas/email-status';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import { usernamesFor } from '../bulk/usernames';
import { ConflictError } from '../core/errors';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { recordSecurityEvent, type RequestOrigin } from '../security/security-events';
import { accountChange, fieldChanges, projectTouch, type TransactItem } from './account-change';
import { accountView } from './account-item';
import { isProvisioned, loadAccount, platformNameOf, type LoadedAccount } from './account-record';
import { blockHolding, takenUsernamesOfBase } from './username-claims';

export interface EditAccountDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now?: () => Date;
}

/** E-mail states in which the credentials went (or are going) to the address: a new address may want them too. */
const SENT_STATES: ReadonlySet<EmailStatus> = new Set(['queued', 'sent', 'delivered', 'bounced', 'complained']);

/** Tries of one edit: another edit of the same account, or a username taken in between, reads again. */
const EDIT_ATTEMPTS = 6;

export const ACCOUNT_ACTION_RUNNING = 'Accounts of this project are being deactivated, reactivated, updated or deleted: edit them when that has finished.';
export const PROVISIONING_RUNNING = 'This project is being provisioned to its platform: edit its accounts when the run has finished.';
export const BULK_CREATION_RUNNING = 'A bulk creation of yours is running and is handing out usernames: regenerate this username when it has finished.';

/**
 * PUT /api/accounts/{id}. One transaction writes the account (its fields and its four search
 * index keys: the old terms leave the index as the new ones enter it), its history entry and,
 * when the username is regenerated, gives the old name back and claims the new one (conditional:
 * no other account may hold it). Conditional on the fields read, so two edits of one account
 * cannot lose one another's change or record a wrong "from".
 */
export function editAccount(deps: EditAccountDeps) {
  const now = deps.now ?? (() => new Date());

  /** The username the bulk creator would give this name now, unique among the user's names (the account's own counts as free). */
  const freshUsername = async (userId: string, loaded: LoadedAccount, input: AccountEditRequest, at: Date): Promise<string> => {
    const base = baseUsername(input.firstName, input.lastName, usernameYear(at));
    const taken = await takenUsernamesOfBase(deps.db, deps.tableName, userId, base);
    taken.delete(String(loaded.item.username));
    return usernamesFor([{ base, k: 0 }], taken)[0]!;
  };

  return async (userId: string, accountId: string, input: AccountEditRequest, origin: Partial<RequestOrigin> = {}): Promise<AccountEditResult> => {
    for (let attempt = 1; ; attempt++) {
      const loaded = await loadAccount(deps.db, deps.tableName, userId, accountId);
      const { item, current } = loaded;
      // A run reads the accounts as it goes: an edit meanwhile could reach the platform or not,
      // and the account could not say which.
      if (typeof loaded.project.activeProvisioningJob === 'string') throw new ConflictError(PROVISIONING_RUNNING);
      // The same for an account action (an update sending the accounts' values to the platform, a deactivation, a delete).
      if (typeof loaded.project.activeAccountAction === 'string') throw new ConflictError(ACCOUNT_ACTION_RUNNING);
      const at = now();
      const before: Record<EditableAccountField, string> = { firstName: String(item.firstName), lastName: String(item.lastName), email: String(item.email), username: String(item.username) };
      const after: Record<EditableAccountField, string> = {
        firstName: input.firstName,
        lastName: input.lastName,
        email: input.email,
        username: input.regenerateUsername ? await freshUsername(userId, loaded, input, at) : before.username,
      };
      // The extra columns, when sent: the whole map as it should be (a key left out is removed).
      // Nothing changed: nothing more to read or write.
      if (fieldChanges(item, after, input.attributes).length === 0) return { account: accountView(current), changes: [], credentialsSentToOldAddress: false };
      // A provisioned account's platform does not have the change yet: the account says so until
      // 'Update on <platform>' sends it.
      const platform = isProvisioned(current) ? await platformNameOf(deps.db, deps.tableName, loaded) : undefined;
      const write = accountChange(deps.tableName, {
        userId,
        projectId: loaded.projectId,
        row: loaded.row,
        accountId,
        item,
        after,
        ...(input.attributes ? { attributes: input.attributes } : {}),
        ...(platform ? { platform } : {}),
        at,
        historyId: timeOrderedId(at),
      });
      const { changes, set, emailChanged } = write;
      const credentialsSentToOldAddress = emailChanged && SENT_STATES.has(current.emailStatus as EmailStatus);
      // The project as read: no provisioning run or account action started since; accountsVersion:
      // a sync preview read before the edit is stale after it; new extra columns join the project's.
      const transactItems: TransactItem[] = [write.items[0]!, projectTouch(deps.tableName, userId, loaded.projectId, write.newKeys, true), ...write.items.slice(1)];
      const usernameChanged = after.username !== before.username;
      if (usernameChanged) {
        // The old name goes back to the pool: its name item, or its place in the username block
        // of the large import that gave it (conditional on the block still listing it there).
        const { Item: oldName } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.username(userId, before.username), ConsistentRead: true }));
        if (oldName?.accountId === accountId) {
          transactItems.push({ Delete: { TableName: deps.tableName, Key: keys.username(userId, before.username), ConditionExpression: 'accountId = :account', ExpressionAttributeValues: { ':account': accountId } } });
        } else if (!oldName) {
          const block = await blockHolding(deps.db, deps.tableName, userId, before.username, loaded.projectId);
          if (block) {
            transactItems.push({
              Update: {
                TableName: deps.tableName,
                Key: block.key,
                UpdateExpression: `REMOVE #names[${block.index}]`,
                ConditionExpression: `#names[${block.index}] = :name`,
                ExpressionAttributeNames: { '#names': 'names' },
                ExpressionAttributeValues: { ':name': before.username },
              },
            });
          }
        }
        transactItems.push(
          {
            Put: {
              TableName: deps.tableName,
              // The bulk creator's name item (functions/bulk/bulk-store.ts usernameItem).
              Item: { ...keys.username(userId, after.username), entityType: 'Username', username: after.username, projectId: loaded.projectId, accountId },
              ConditionExpression: 'attribute_not_exists(PK) OR accountId = :account',
              ExpressionAttributeValues: { ':account': accountId },
            },
          },
          {
            // A bulk creation holding the user's lock hands out names from what it read (some
            // without name items): a name claimed now could be handed out again.
            ConditionCheck: {
              TableName: deps.tableName,
              Key: keys.user(userId),
              ConditionExpression: 'attribute_not_exists(bulkLock) OR bulkLock.#until < :now',
              ExpressionAttributeNames: { '#until': 'until' },
              ExpressionAttributeValues: { ':now': at.getTime() },
            },
          },
        );
      }

      try {
        await deps.db.send(new TransactWriteCommand({ TransactItems: transactItems }));
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
        if (usernameChanged && reasons.at(-1) === 'ConditionalCheckFailed') throw new ConflictError(BULK_CREATION_RUNNING);
        // A run that started since the read: the next reading says so (PROVISIONING_RUNNING).
        // The account changed since it was read, the new name was taken, or another transaction
        // held an item: read again and decide again.
        if (attempt >= EDIT_ATTEMPTS) throw new ConflictError('The account was being changed by another request. Try again.');
        logger.info('Account edit read again', { accountId, reasons });
        continue;
      }

      await recordSecurityEvent(
        { db: deps.db, tableName: deps.tableName },
        {
          userId,
          type: 'account_edited',
          description: `Account ${before.username} (${accountId}) edited: ${changes.map((c) => changedFieldLabel(c.field)).join(', ')}`,
          severity: emailChanged ? 'medium' : 'low',
          at,
          ...origin,
        },
      );
      return { account: accountView({ ...current, ...set }), changes, credentialsSentToOldAddress };
    }
  };
}
