import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  ACCOUNT_HISTORY_PAGE_DEFAULT,
  ACCOUNT_HISTORY_PAGE_MAX,
  accountHistoryKinds,
  type AccountHistoryEntry,
  type AccountHistoryKind,
  type AccountHistoryPage,
  type FieldChange,
} from '../../shared/schemas/account-edit';
import { ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { historyBlockEntries } from './account-history-blocks';
import { isProvisioned, loadAccount, platformNameOf, type LoadedAccount } from './account-record';

/*
 * An account's history (GET /api/accounts/{id}/history): what the work already records about it,
 * put in order, and the entries written for what nothing else records (edits, and the lifecycle
 * actions to come).
 *
 * From records that exist: created (the account item), the latest provisioning outcome (the PROV
 * state: provisionedAt, its run's platform), the latest credential e-mail (the MAIL state:
 * emailSentAt, then delivered / bounced / complained / failed at emailStatusAt), the one-time
 * link's reveal (credentialsViewedAt) and the latest password reset (passwordResetAt). These
 * records keep only the latest of each: an earlier e-mail or provisioning outcome replaced by a
 * later one is not in the history. Edits are history items of their own (keys.accountHistory);
 * the account actions' (deactivated, reactivated, expired, updated on the platform) are entries
 * of one item per block of accounts and job (account-history-blocks.ts).
 */

const cursorKey = (entry: Pick<AccountHistoryEntry, 'at' | 'id'>) => `${entry.at}#${entry.id}`;
const encodeCursor = (key: string) => Buffer.from(key, 'utf8').toString('base64url');
function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const key = cursor.length <= 400 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z#[A-Za-z0-9_.-]{1,80}$/.test(key)) throw new ValidationError('The history cursor is not valid');
  return key;
}

export function parseHistoryLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return ACCOUNT_HISTORY_PAGE_DEFAULT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > ACCOUNT_HISTORY_PAGE_MAX) throw new ValidationError(`limit must be a whole number from 1 to ${ACCOUNT_HISTORY_PAGE_MAX}`);
  return limit;
}

const isoOf = (value: unknown): string | undefined => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined);

/** The entries that follow from the account item and its states (a handful at most). */
export function recordedEntries(loaded: Pick<LoadedAccount, 'current' | 'project' | 'projectId'>, platform: string): AccountHistoryEntry[] {
  const { current, project } = loaded;
  const entries: AccountHistoryEntry[] = [];
  const add = (id: string, kind: AccountHistoryKind, at: unknown, title: string, detail?: string) => {
    const iso = isoOf(at);
    if (iso) entries.push({ id, kind, at: iso, title, ...(detail ? { detail } : {}) });
  };
  // The project's id is the id of the import that made it; accounts added later name their own (importId).
  const projectName = String(project.name ?? 'the project');
  const importId = typeof current.importId === 'string' && current.importId !== loaded.projectId ? current.importId : undefined;
  add('created', 'created', current.createdAt, 'Created', importId ? `Added to ${projectName} by import ${importId}` : `Imported into ${projectName} by the import that created the project`);

  const prov = current.externalStatus;
  if (prov === 'success') add('provisioned', 'provisioned', current.provisionedAt, `Synced on ${platform}`, typeof current.externalAccountId === 'string' ? `Platform id ${current.externalAccountId}` : undefined);
  else if (prov === 'failed') add('provisioned', 'provision_failed', current.provisionedAt, `Sync failed on ${platform}`, typeof current.externalError === 'string' ? current.externalError : undefined);
  else if (prov === 'removed') add('provisioned', 'removed_from_platform', current.provisionedAt, `Removed from ${platform}`);

  add('emailed', 'emailed', current.emailSentAt, 'Credentials e-mailed');
  const mailAt = current.emailStatusAt ?? current.emailSentAt;
  const mailError = typeof current.emailError === 'string' ? current.emailError : undefined;
  switch (current.emailStatus) {
    case 'delivered':
      add('mail-status', 'delivered', mailAt, 'E-mail delivered');
      break;
    case 'bounced':
      add('mail-status', 'bounced', mailAt, 'E-mail bounced', mailError);
      break;
    case 'complained':
      add('mail-status', 'complained', mailAt, 'Marked as spam by the recipient', mailError);
      break;
    case 'failed':
      add('mail-status', 'email_failed', mailAt ?? current.editedAt, 'E-mail not sent', mailError);
      break;
    case 'suppressed':
      add('mail-status', 'email_skipped', mailAt, 'E-mail skipped: the address is suppressed', mailError);
      break;
  }
  add('viewed', 'credentials_viewed', current.credentialsViewedAt, 'Credentials viewed through the one-time link');
  if (current.passwordResetStatus === 'failed') add('password-reset', 'password_reset_failed', current.passwordResetAt, 'Password reset failed', typeof current.passwordResetError === 'string' ? current.passwordResetError : undefined);
  else if (current.passwordResetStatus === 'updated') add('password-reset', 'password_reset', current.passwordResetAt, 'Password reset', `Also changed on ${platform}`);
  else if (current.passwordResetStatus === 'local') add('password-reset', 'password_reset', current.passwordResetAt, 'Password reset', 'Here only: the account was not on a platform');
  return entries;
}

const titles: Partial<Record<AccountHistoryKind, string>> = { edited: 'Edited', updated_on_platform: 'Updated on the platform', deactivated: 'Deactivated', reactivated: 'Reactivated', expired: 'Expired' };

function storedEntry(item: Record<string, unknown>): AccountHistoryEntry | undefined {
  const kind = String(item.kind) as AccountHistoryKind;
  const at = isoOf(item.at);
  if (!at || !(accountHistoryKinds as readonly string[]).includes(kind)) return undefined;
  const id = String(item.SK).split('#').at(-1)!;
  const entry: AccountHistoryEntry = { id, kind, at, title: typeof item.title === 'string' ? item.title : (titles[kind] ?? kind) };
  if (typeof item.detail === 'string') entry.detail = item.detail;
  if (Array.isArray(item.changes)) entry.changes = item.changes as FieldChange[];
  return entry;
}

/** GET /api/accounts/{id}/history: newest first; each page one bounded Query plus the account's own records. */
export function accountHistory(deps: { db: DynamoDBDocumentClient; tableName: string }) {
  return async (userId: string, accountId: string, options: { limit: number; cursor?: string }): Promise<AccountHistoryPage> => {
    const before = decodeCursor(options.cursor);
    const loaded = await loadAccount(deps.db, deps.tableName, userId, accountId);
    const hasProvisioning = loaded.current.externalStatus !== undefined && loaded.current.externalStatus !== 'pending' && typeof loaded.current.provisionedAt === 'string';
    const platform = hasProvisioning || isProvisioned(loaded.current) ? await platformNameOf(deps.db, deps.tableName, loaded) : 'the platform';
    const history = keys.accountHistoryOf(userId, loaded.projectId, loaded.row);
    const { Items = [] } = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: before ? 'PK = :pk AND SK BETWEEN :first AND :before' : 'PK = :pk AND begins_with(SK, :first)',
        ExpressionAttributeValues: { ':pk': history.PK, ':first': history.SKPrefix, ...(before ? { ':before': `${history.SKPrefix}${before}` } : {}) },
        ScanIndexForward: false,
        // One more than a page tells whether there is more; one more again for the cursor's own entry (BETWEEN includes it).
        Limit: options.limit + 2,
      }),
    );
    // The account actions' entries (one item per block of accounts and job): as many as a page needs.
    const actions = await historyBlockEntries(deps, { userId, projectId: loaded.projectId, row: loaded.row, shards: loaded.shards }, { want: options.limit + 1, before }, (kind) => titles[kind] ?? kind);
    const entries = [...Items.map(storedEntry).filter((e): e is AccountHistoryEntry => e !== undefined), ...actions, ...recordedEntries(loaded, platform)]
      .filter((entry) => before === undefined || cursorKey(entry) < before)
      .sort((a, b) => (cursorKey(a) < cursorKey(b) ? 1 : -1));
    const page = entries.slice(0, options.limit);
    const more = entries.length > page.length;
    return { entries: page, ...(more ? { nextCursor: encodeCursor(cursorKey(page.at(-1)!)) } : {}) };
  };
}
