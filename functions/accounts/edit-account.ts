import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { attributeField, changedFieldLabel, editableAccountFields, platformChangeText, type AccountEditRequest, type AccountEditResult, type EditableAccountField, type FieldChange } from '../../shared/schemas/account-edit';
import type { EmailStatus } from '../../shared/schemas/email-status';
import { baseUsername, usernameYear } from '../../shared/generation/username';
import { usernamesFor } from '../bulk/usernames';
import { ConflictError } from '../core/errors';
import { timeOrderedId } from '../core/ids';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { recordSecurityEvent, type RequestOrigin } from '../security/security-events';
import { accountView, attributesOf } from './account-item';
import { isProvisioned, loadAccount, platformNameOf, type LoadedAccount } from './account-record';
import { searchTerm } from './search-terms';
import { attributeIndexChanges } from './attribute-index-items';
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
      const changes: FieldChange[] = editableAccountFields.filter((field) => before[field] !== after[field]).map((field) => ({ field, from: before[field], to: after[field] }));
      // The extra columns, when sent: the whole map as it should be (a key left out is removed).
      const attributesBefore = attributesOf(item) ?? {};
      const attributesAfter = input.attributes ?? attributesBefore;
      const attributeKeys = [...new Set([...Object.keys(attributesBefore), ...Object.keys(attributesAfter)])].sort();
      for (const key of attributeKeys) {
        const from = attributesBefore[key] ?? '';
        const to = attributesAfter[key] ?? '';
        if (from !== to) changes.push({ field: attributeField(key), from, to });
      }
      const attributesChanged = changes.some((change) => change.field.startsWith('attributes.'));
      const newKeys = Object.keys(attributesAfter).filter((key) => !(key in attributesBefore));
      if (changes.length === 0) return { account: accountView(current), changes, credentialsSentToOldAddress: false };

      const atIso = at.toISOString();
      const emailChanged = changes.some((change) => change.field === 'email');
      const credentialsSentToOldAddress = emailChanged && SENT_STATES.has(current.emailStatus as EmailStatus);
      // A provisioned account's platform does not have the change yet (the update job comes with
      // the provisioning port's update): the account says so until it does.
      const platform = isProvisioned(current) ? await platformNameOf(deps.db, deps.tableName, loaded) : undefined;
      const earlierFields = (item.platformChange as { fields?: string[] } | undefined)?.fields ?? [];
      const platformChange = platform ? { platform, since: String((item.platformChange as { since?: string } | undefined)?.since ?? atIso), fields: [...new Set([...earlierFields, ...changes.map((c) => c.field)])] } : undefined;

      const search = keys.accountSearch(userId, { firstName: searchTerm(after.firstName), lastName: searchTerm(after.lastName), email: searchTerm(after.email), username: after.username }, accountId);
      const set: Record<string, unknown> = { firstName: after.firstName, lastName: after.lastName, email: after.email, username: after.username, editedAt: atIso, ...search };
      if (platformChange) set.platformChange = platformChange;
      if (attributesChanged) set.attributes = attributesAfter;
      // The e-mail status shown is that of the last e-mail, which went to the old address: the lists say so.
      if (emailChanged) set.emailChangedAt = atIso;
      const names = Object.fromEntries(Object.keys(set).map((name, i) => [`#s${i}`, name]));
      const values = Object.fromEntries(Object.values(set).map((value, i) => [`:s${i}`, value]));
      const transactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
        {
          Update: {
            TableName: deps.tableName,
            Key: { PK: item.PK, SK: item.SK },
            UpdateExpression: `SET ${Object.keys(names).map((name, i) => `${name} = :s${i}`).join(', ')}`,
            // The extra columns as read too (a map compares whole), when they change.
            ConditionExpression: `firstName = :oldFirst AND lastName = :oldLast AND email = :oldEmail AND username = :oldUsername${
              attributesChanged ? (item.attributes === undefined ? ' AND attribute_not_exists(#oldAttributes)' : ' AND #oldAttributes = :oldAttributes') : ''
            }`,
            ExpressionAttributeNames: { ...names, ...(attributesChanged ? { '#oldAttributes': 'attributes' } : {}) },
            ExpressionAttributeValues: {
              ...values,
              ':oldFirst': before.firstName,
              ':oldLast': before.lastName,
              ':oldEmail': before.email,
              ':oldUsername': before.username,
              ...(attributesChanged && item.attributes !== undefined ? { ':oldAttributes': item.attributes } : {}),
            },
          },
        },
        {
          // The project as read: no provisioning run or account action started since (their start
          // sets the lock in one write); accountsVersion: a sync preview read before the edit is
          // stale after it (functions/sync); new extra columns join the project's (its exports show them).
          Update: {
            TableName: deps.tableName,
            Key: keys.project(userId, loaded.projectId),
            UpdateExpression: `ADD accountsVersion :one${newKeys.length ? ', attributeKeys :keys' : ''}`,
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(activeProvisioningJob) AND attribute_not_exists(activeAccountAction)',
            ExpressionAttributeValues: { ':one': 1, ...(newKeys.length ? { ':keys': new Set(newKeys) } : {}) },
          },
        },
        {
          Put: {
            TableName: deps.tableName,
            Item: {
              ...keys.accountHistory(userId, loaded.projectId, loaded.row, atIso, timeOrderedId(at)),
              entityType: 'AccountHistory',
              userId,
              projectId: loaded.projectId,
              accountId,
              kind: 'edited',
              at: atIso,
              changes,
              ...(platform ? { detail: platformChangeText(platform) } : {}),
            },
          },
        },
      ];
      // The Attribute filter's entries follow the values (functions/accounts/attribute-index.ts).
      if (attributesChanged) {
        const index = attributeIndexChanges(userId, loaded.projectId, loaded.row, attributesBefore, attributesAfter);
        for (const Key of index.remove) transactItems.push({ Delete: { TableName: deps.tableName, Key } });
        for (const Item of index.put) transactItems.push({ Put: { TableName: deps.tableName, Item } });
      }
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
