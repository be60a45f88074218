import type { Integration } from '../../shared/schemas/integrations';

/** An integration as stored: the credentials one encrypted JSON string (never returned). */
export interface IntegrationRecord extends Omit<Integration, 'authFieldsSet'> {
  userId: string;
  /** AES-256-GCM token of JSON `authConfig`. */
  authConfigEncrypted: string;
  authFieldsSet: string[];
}

const FIELDS = ['id', 'userId', 'name', 'description', 'platform', 'apiType', 'baseUrl', 'authMethod', 'authConfigEncrypted', 'authFieldsSet', 'apiConfig', 'isActive', 'lastTestDate', 'lastTestStatus', 'lastTestMessage', 'createdAt', 'updatedAt'] as const;

export const recordOf = (item: Record<string, unknown>): IntegrationRecord => {
  const record: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) record[field] = item[field];
  return record as unknown as IntegrationRecord;
};

/** What the browser sees: everything but the credentials. */
export function integrationView(record: IntegrationRecord): Integration {
  const { authConfigEncrypted: _secret, userId: _owner, ...view } = record;
  return view;
}

