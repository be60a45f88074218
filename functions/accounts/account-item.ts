import type { AccountType, CreatedAccount } from '../../shared/schemas/bulk';
import type { AccountView } from '../../shared/schemas/project';
import { keys } from '../core/keys';
import { searchTerm } from './search-terms';

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
  externalStatus: 'pending' | 'success' | 'failed';
  externalAccountId?: string;
  externalError?: string;
  createdAt: string;
}

export function accountItem(record: AccountRecord): Record<string, unknown> & { PK: string; SK: string } {
  return {
    ...keys.account(record.userId, record.projectId, record.row),
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

export function accountView(item: Record<string, unknown>, password?: string): AccountView {
  const view: AccountView = {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: String(item.projectName),
    firstName: String(item.firstName),
    lastName: String(item.lastName),
    email: String(item.email),
    username: String(item.username),
    accountType: item.accountType as AccountType,
    isActive: item.isActive !== false,
    externalStatus: (item.externalStatus as AccountView['externalStatus']) ?? 'pending',
    createdAt: String(item.createdAt),
  };
  if (password !== undefined) view.password = password;
  return view;
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
