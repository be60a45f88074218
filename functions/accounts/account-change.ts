import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { attributeField, editableAccountFields, platformChangeText, type EditableAccountField, type FieldChange } from '../../shared/schemas/account-edit';
import type { AccountAttributes } from '../../shared/schemas/attributes';
import { keys } from '../core/keys';
import { attributesOf } from './account-item';
import { attributeIndexChanges } from './attribute-index-items';
import { searchTerm } from './search-terms';

/**
 * The one writer of a changed account: the Edit dialog (edit-account.ts) and a sync's apply
 * (functions/sync/sync-apply-worker.ts) both build their write here. It compares the account as
 * read with what it should become (first name, last name, e-mail, username and the whole
 * `attributes` map, key by key) and answers the transaction's items:
 *  - the account item: its fields, its four search index keys, `attributes` when a column
 *    changed, `editedAt`, `emailChangedAt` for a new address, and for a provisioned account
 *    `platformChange` (not yet updated on the platform; the fields gather until the update);
 *    conditional on the fields as read (the map compared whole when it changes), so two writers
 *    cannot lose one another's change or record a wrong "from";
 *  - its history entry (`edited`, one change per field and per extra column);
 *  - the Attribute filter's entries moved (functions/accounts/attribute-index.ts, pattern 76c);
 * and `newKeys`, the extra columns the project's `attributeKeys` must gain (projectTouch).
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface AccountChangeInput {
  userId: string;
  projectId: string;
  row: number;
  accountId: string;
  /** The account item as read (consistently): PK, SK, the fields, `attributes`, `platformChange`. */
  item: Record<string, unknown>;
  /** The fixed fields as they should be. */
  after: Record<EditableAccountField, string>;
  /** The extra columns as they should be, the whole map (a key left out is removed); undefined: as they are. */
  attributes?: AccountAttributes;
  /** The platform's name when the account is provisioned: it is marked not yet updated there. */
  platform?: string;
  at: Date;
  /** The history entry's id (a redelivered writer that passes the same id rewrites the same entry). */
  historyId: string;
  /** The history entry's words; the platform's mark is added after them. */
  detail?: string;
}

export interface AccountChangeWrite {
  /** What changed, fixed fields first, then the extra columns by key (empty: nothing to write). */
  changes: FieldChange[];
  /** What the account item gets (for the answer's view). */
  set: Record<string, unknown>;
  items: TransactItem[];
  /** Extra columns the account gains that the project may not list yet (its `attributeKeys`). */
  newKeys: string[];
  emailChanged: boolean;
}

export function accountChange(tableName: string, input: AccountChangeInput): AccountChangeWrite {
  const { item, after, at } = input;
  const read = asRead(item);
  const { fields: before, attributes: attributesBefore } = read;
  const changes = changesFrom(read, after, input.attributes);
  const attributesAfter = input.attributes ?? attributesBefore;
  const attributesChanged = changes.some((change) => change.field.startsWith('attributes.'));
  const emailChanged = changes.some((change) => change.field === 'email');
  if (changes.length === 0) return { changes, set: {}, items: [], newKeys: [], emailChanged };

  const atIso = at.toISOString();
  const earlier = (item.platformChange as { fields?: string[]; since?: string } | undefined) ?? {};
  const search = keys.accountSearch(input.userId, { firstName: searchTerm(after.firstName), lastName: searchTerm(after.lastName), email: searchTerm(after.email), username: after.username }, input.accountId);
  const set: Record<string, unknown> = { firstName: after.firstName, lastName: after.lastName, email: after.email, username: after.username, editedAt: atIso, ...search };
  if (input.platform) set.platformChange = { platform: input.platform, since: String(earlier.since ?? atIso), fields: [...new Set([...(earlier.fields ?? []), ...changes.map((c) => c.field)])] };
  if (attributesChanged) set.attributes = attributesAfter;
  // The e-mail status shown is that of the last e-mail, which went to the old address: the lists say so.
  if (emailChanged) set.emailChangedAt = atIso;
  const names = Object.fromEntries(Object.keys(set).map((name, i) => [`#s${i}`, name]));
  const values = Object.fromEntries(Object.values(set).map((value, i) => [`:s${i}`, value]));
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName,
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
      Put: {
        TableName: tableName,
        Item: {
          ...keys.accountHistory(input.userId, input.projectId, input.row, atIso, input.historyId),
          entityType: 'AccountHistory',
          userId: input.userId,
          projectId: input.projectId,
          accountId: input.accountId,
          kind: 'edited',
          at: atIso,
          changes,
          ...(input.detail || input.platform ? { detail: [input.detail, input.platform ? platformChangeText(input.platform) : undefined].filter(Boolean).join('; ') } : {}),
        },
      },
    },
  ];
  // The Attribute filter's entries follow the values.
  if (attributesChanged) {
    const index = attributeIndexChanges(input.userId, input.projectId, input.row, attributesBefore, attributesAfter);
    for (const Key of index.remove) items.push({ Delete: { TableName: tableName, Key } });
    for (const Item of index.put) items.push({ Put: { TableName: tableName, Item } });
  }
  const newKeys = Object.keys(attributesAfter).filter((key) => !(key in attributesBefore));
  return { changes, set, items, newKeys, emailChanged };
}

/**
 * The project after changes of its accounts: `accountsVersion` one more (a sync preview read
 * before is stale: functions/sync) and the new extra columns added to `attributeKeys` (its exports
 * show them). `guarded`: also conditional on no provisioning run or account action holding the
 * project (an edit; their start sets the lock in one write).
 */
export function projectTouch(tableName: string, userId: string, projectId: string, newKeys: readonly string[], guarded: boolean): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.project(userId, projectId),
      UpdateExpression: `ADD accountsVersion :one${newKeys.length ? ', attributeKeys :keys' : ''}`,
      ConditionExpression: `attribute_exists(PK)${guarded ? ' AND attribute_not_exists(activeProvisioningJob) AND attribute_not_exists(activeAccountAction)' : ''}`,
      ExpressionAttributeValues: { ':one': 1, ...(newKeys.length ? { ':keys': new Set(newKeys) } : {}) },
    },
  };
}

/**
 * What an edit changes, field by field (the names and e-mail, the username, then each extra column
 * by key; `attributes` absent: the columns as they are). Nothing to write when empty: the caller
 * can stop before reading anything else.
 */
export const fieldChanges = (item: Record<string, unknown>, after: Record<EditableAccountField, string>, attributes?: Record<string, string>): FieldChange[] => changesFrom(asRead(item), after, attributes);

/** The account's editable fields and extra columns as read: what an edit compares with, and its write's condition. */
type AsRead = { fields: Record<EditableAccountField, string>; attributes: Record<string, string> };
const asRead = (item: Record<string, unknown>): AsRead => ({
  fields: Object.fromEntries(editableAccountFields.map((field) => [field, String(item[field] ?? '')])) as Record<EditableAccountField, string>,
  attributes: attributesOf(item) ?? {},
});

function changesFrom(read: AsRead, after: Record<EditableAccountField, string>, attributes?: Record<string, string>): FieldChange[] {
  const { fields: before, attributes: attributesBefore } = read;
  const changes: FieldChange[] = editableAccountFields.filter((field) => before[field] !== after[field]).map((field) => ({ field, from: before[field], to: after[field] }));
  const attributesAfter = attributes ?? attributesBefore;
  for (const key of [...new Set([...Object.keys(attributesBefore), ...Object.keys(attributesAfter)])].sort()) {
    const from = attributesBefore[key] ?? '';
    const to = attributesAfter[key] ?? '';
    if (from !== to) changes.push({ field: attributeField(key), from, to });
  }
  return changes;
}
