import type { AccountType, CreatedAccount } from '../../shared/schemas/bulk';
import type { AccountView } from '../../shared/schemas/project';
import { platformChangeText } from '../../shared/text/platform-change';
import { secretContext, type Cipher } from '../core/encryption';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { searchTerm } from './search-terms';
import type { AccountAttributes } from '../../shared/schemas/attributes';

/** An account as stored: the password only encrypted (AES-256-GCM token). */
export interface AccountRecord {
  id: string;
  userId: string;
  projectId: string;
  projectName: string;
  row: number;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  passwordCiphertext: string;
  accountType: AccountType;
  isActive: boolean;
  externalStatus: 'pending' | 'success' | 'failed' | 'removed';
  externalAccountId?: string;
  externalError?: string;
  createdAt: string;
  /** The person's extra columns (department, title...): one map, normalised keys (shared/schemas/attributes.ts); absent when none. */
  attributes?: AccountAttributes;
}

/** The stored item; `shards`: the project's shard count (the partition follows from the row). */
export function accountItem(record: AccountRecord, shards = 1): Record<string, unknown> & { PK: string; SK: string } {
  return {
    ...keys.account(record.userId, record.projectId, record.row, shards),
    ...keys.accountSearch(
      record.userId,
      {
        firstName: searchTerm(record.firstName),
        lastName: searchTerm(record.lastName),
        email: searchTerm(record.email),
        username: record.username,
      },
      record.id,
    ),
    entityType: 'Account',
    ...record,
  };
}

/** An account item's password in clear; throws when its token does not open for this account (moved, tampered, unknown key). */
export const accountPassword = (cipher: Cipher, item: Record<string, unknown>): string =>
  cipher.decrypt(String(item.passwordCiphertext), secretContext.account(String(item.userId), String(item.id)));

/**
 * For lists that show passwords: an unreadable one is left out (and logged, without the token)
 * rather than failing every other account of the page.
 */
export function readableAccountPassword(cipher: Cipher, item: Record<string, unknown>): string | undefined {
  try {
    return accountPassword(cipher, item);
  } catch (error) {
    logger.error('Unreadable stored password', { accountId: String(item.id), reason: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/**
 * An account as the API shows it. `projectName`: the project's name now, where the caller has the
 * project at hand (an account keeps the name its project had when it was made; a renamed
 * project's accounts show the new one).
 */
export function accountView(item: Record<string, unknown>, password?: string, projectName?: string): AccountView {
  const view: AccountView = {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: projectName ?? String(item.projectName),
    firstName: String(item.firstName),
    lastName: String(item.lastName),
    email: String(item.email),
    username: String(item.username),
    accountType: item.accountType as AccountType,
    isActive: item.isActive !== false,
    externalStatus: (item.externalStatus as AccountView['externalStatus']) ?? 'pending',
    createdAt: String(item.createdAt),
  };
  if (typeof item.externalAccountId === 'string') view.externalAccountId = item.externalAccountId;
  if (typeof item.externalError === 'string') view.externalError = item.externalError;
  if (typeof item.emailStatus === 'string') view.emailStatus = item.emailStatus as AccountView['emailStatus'];
  if (typeof item.emailError === 'string') view.emailError = item.emailError;
  if (typeof item.emailSentAt === 'string') view.emailSentAt = item.emailSentAt;
  if (typeof item.credentialsViewedAt === 'string') view.credentialsViewedAt = item.credentialsViewedAt;
  if (typeof item.editedAt === 'string') view.editedAt = item.editedAt;
  if (item.isActive === false && typeof item.expiredAt === 'string') view.expiredAt = item.expiredAt;
  if (item.actionResult === 'failed' && typeof item.actionError === 'string') view.actionError = item.actionError;
  if (typeof item.emailSentAt === 'string' && typeof item.emailChangedAt === 'string' && item.emailChangedAt > item.emailSentAt) view.emailSentToPreviousAddress = true;
  const change = item.platformChange as { platform?: unknown; since?: unknown; fields?: unknown } | undefined;
  if (change && typeof change.platform === 'string') {
    view.platformChange = { platform: change.platform, since: String(change.since ?? ''), fields: Array.isArray(change.fields) ? change.fields.map(String) : [], text: platformChangeText(change.platform) };
  }
  const attributes = attributesOf(item);
  if (attributes) view.attributes = attributes;
  if (password !== undefined) view.password = password;
  return view;
}

/** An item's extra columns as strings (undefined: none). */
export function attributesOf(item: Record<string, unknown>): AccountAttributes | undefined {
  const stored = item.attributes;
  if (!stored || typeof stored !== 'object') return undefined;
  const attributes: AccountAttributes = {};
  for (const [key, value] of Object.entries(stored as Record<string, unknown>)) if (typeof value === 'string' && value) attributes[key] = value;
  return Object.keys(attributes).length ? attributes : undefined;
}

export const createdAccount = (record: AccountRecord, plainPassword: string): CreatedAccount => ({
  id: record.id,
  projectId: record.projectId,
  firstName: record.firstName,
  lastName: record.lastName,
  email: record.email,
  username: record.username,
  plainPassword,
  accountType: record.accountType,
  externalStatus: record.externalStatus,
  createdAt: record.createdAt,
});
