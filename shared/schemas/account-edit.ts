import * as z from 'zod/mini';
import './zod-messages';
import { personSchema } from './bulk';
import { attributeLabel, checkAttributes } from './attributes';
import type { AccountView } from './project';

/**
 * PUT /api/accounts/{id}: an account's first name, last name and e-mail, checked by the very
 * schema the bulk creator checks each row with (same rules, same messages). The username stays
 * unless `regenerateUsername`: then it is made again from the new name, unique among the user's
 * usernames.
 */
export const accountEditSchema = z.extend(personSchema, {
  regenerateUsername: z._default(z.optional(z.boolean('regenerateUsername must be true or false')), false),
  /**
   * The account's extra columns as they should be (department, title...: shared/schemas/attributes.ts,
   * keys normalised, empty values removed, the same caps as a CSV row). Absent: left as they are.
   */
  attributes: z.optional(
    z.pipe(
      z.record(z.string().check(z.maxLength(200)), z.string().check(z.maxLength(1000, 'A value must be at most 1,000 characters'))),
      z.transform((values, context) => {
        const checked = checkAttributes(values);
        for (const message of checked.problems) context.issues.push({ code: 'custom', message, path: [], input: values });
        return checked.attributes;
      }),
    ),
  ),
});
export type AccountEditInput = z.input<typeof accountEditSchema>;
export type AccountEditRequest = z.output<typeof accountEditSchema>;

export const editableAccountFields = ['firstName', 'lastName', 'email', 'username'] as const;
export type EditableAccountField = (typeof editableAccountFields)[number];
export const accountFieldLabels: Record<EditableAccountField, string> = { firstName: 'First name', lastName: 'Last name', email: 'E-mail', username: 'Username' };

/** An extra column as a changed field: `attributes.<key>`. */
export type AttributeField = `attributes.${string}`;
export const attributeField = (key: string): AttributeField => `attributes.${key}`;

/** A changed field's label: the fixed fields', or the extra column's ('Department'). */
export const changedFieldLabel = (field: EditableAccountField | AttributeField): string =>
  field.startsWith('attributes.') ? attributeLabel(field.slice('attributes.'.length)) : accountFieldLabels[field as EditableAccountField];

export interface FieldChange {
  /** A fixed field, or an extra column (`attributes.department`; '' as from/to: it had none / has none now). */
  field: EditableAccountField | AttributeField;
  from: string;
  to: string;
}

/** The answer to PUT /api/accounts/{id}. */
export interface AccountEditResult {
  account: AccountView;
  /** What changed (empty: the request changed nothing, and nothing was written). */
  changes: FieldChange[];
  /**
   * The e-mail changed on an account whose credentials were e-mailed to the old address: the app
   * asks whether to send them to the new one (the existing send, scope 'account').
   */
  credentialsSentToOldAddress: boolean;
}

export { platformChangeText } from '../text/platform-change';

/**
 * The kinds of event an account's history shows. 'deactivated', 'reactivated', 'expired' and
 * 'removed' are written by the lifecycle jobs to come; the drawer already shows them.
 */
export const accountHistoryKinds = [
  'created',
  'provisioned',
  'provision_failed',
  'removed_from_platform',
  'emailed',
  'email_failed',
  'email_skipped',
  'delivered',
  'bounced',
  'complained',
  'credentials_viewed',
  'password_reset',
  'password_reset_failed',
  'edited',
  'updated_on_platform',
  'deactivated',
  'reactivated',
  'expired',
] as const;
export type AccountHistoryKind = (typeof accountHistoryKinds)[number];

export interface AccountHistoryEntry {
  /** Unique within the account's history (cursor order: `at`, then id). */
  id: string;
  kind: AccountHistoryKind;
  /** ISO 8601. */
  at: string;
  /** One line: 'Created', 'Synced on Okta', 'E-mail delivered'... */
  title: string;
  /** The platform's or the mail system's words, the import, who did it. */
  detail?: string;
  /** For 'edited': each field, old -> new. */
  changes?: FieldChange[];
}

/** GET /api/accounts/{id}/history?limit=&cursor=: newest first, paged. */
export interface AccountHistoryPage {
  entries: AccountHistoryEntry[];
  nextCursor?: string;
}
export const ACCOUNT_HISTORY_PAGE_DEFAULT = 20;
export const ACCOUNT_HISTORY_PAGE_MAX = 50;
