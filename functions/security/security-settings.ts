import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  securitySettingsWithDefaults,
  TWO_FACTOR_NEEDS_CODE_MESSAGE,
  type SecuritySettings,
  type UpdateSecuritySettingsInput,
} from '../../shared/schemas/security';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from './security-events';

/**
 * The user's security settings live on the user item (attribute SECURITY_SETTINGS_ATTRIBUTE), so
 * the account gate that every route passes (functions/core/account-gate.ts) reads them with the
 * same GetItem it already makes.
 */
export const SECURITY_SETTINGS_ATTRIBUTE = 'securitySettings';

export interface SecuritySettingsStore {
  /** The stored settings completed with the defaults; undefined when the user has no item. */
  get(userId: string): Promise<SecuritySettings | undefined>;
  /** Writes the whole group if it is still `expected` as read (another save in between is not overwritten). False when it moved. */
  put(userId: string, settings: SecuritySettings, expected: unknown, now: string): Promise<boolean>;
}

export function dynamoSecuritySettingsStore(db: DynamoDBDocumentClient, tableName: string): SecuritySettingsStore & { raw(userId: string): Promise<{ exists: boolean; stored: unknown }> } {
  const raw = async (userId: string) => {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true, ProjectionExpression: 'PK, #s', ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE } }),
    );
    return { exists: Boolean(Item), stored: Item?.[SECURITY_SETTINGS_ATTRIBUTE] };
  };
  return {
    raw,
    async get(userId) {
      const { exists, stored } = await raw(userId);
      return exists ? securitySettingsWithDefaults(stored) : undefined;
    },
    async put(userId, settings, expected, now) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET #s = :settings, updatedAt = :now',
            ConditionExpression: expected === undefined ? 'attribute_exists(PK) AND attribute_not_exists(#s)' : 'attribute_exists(PK) AND #s = :expected',
            ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE },
            ExpressionAttributeValues: { ':settings': settings, ':now': now, ...(expected === undefined ? {} : { ':expected': expected }) },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
  };
}

export interface SecuritySettingsDeps {
  store: ReturnType<typeof dynamoSecuritySettingsStore>;
  events: SecurityEventDeps;
  now: () => Date;
}

/** GET /api/security/settings: the six settings, the defaults where never saved. */
export const getSecuritySettings =
  (deps: Pick<SecuritySettingsDeps, 'store'>) =>
  async (userId: string): Promise<SecuritySettings> => {
    const settings = await deps.store.get(userId);
    if (!settings) throw new NotFoundError('User not found');
    return settings;
  };

const labels: Record<keyof SecuritySettings, (value: never) => string> = {
  twoFactorEnabled: (v: boolean) => `two-factor authentication ${v ? 'on' : 'off'}`,
  sessionTimeout: (v: number) => `session timeout ${v} h`,
  passwordExpiryDays: (v: number) => `password expiry ${v} days`,
  maxLoginAttempts: (v: number) => `max login attempts ${v}`,
  requirePasswordChange: (v: boolean) => `require password change ${v ? 'on' : 'off'}`,
  allowConcurrentSessions: (v: boolean) => `concurrent sessions ${v ? 'allowed' : 'not allowed'}`,
};

/**
 * PUT /api/security/settings: the fields sent, merged over what is stored. Two-factor
 * authentication is not switched here (it needs a code: functions/security/two-factor); a value
 * other than the current one is refused. A change is recorded as a security event.
 */
export const updateSecuritySettings =
  (deps: SecuritySettingsDeps) =>
  async (userId: string, input: UpdateSecuritySettingsInput, origin: RequestOrigin): Promise<SecuritySettings> => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { exists, stored } = await deps.store.raw(userId);
      if (!exists) throw new NotFoundError('User not found');
      const current = securitySettingsWithDefaults(stored);
      if (input.twoFactorEnabled !== undefined && input.twoFactorEnabled !== current.twoFactorEnabled) throw new ConflictError(TWO_FACTOR_NEEDS_CODE_MESSAGE);
      const next: SecuritySettings = { ...current, ...input, twoFactorEnabled: current.twoFactorEnabled };
      const changed = (Object.keys(labels) as (keyof SecuritySettings)[]).filter((key) => next[key] !== current[key]);
      if (changed.length === 0) return current;
      const at = deps.now();
      if (!(await deps.store.put(userId, next, stored, at.toISOString()))) continue;
      await recordSecurityEvent(deps.events, {
        userId,
        type: 'settings_changed',
        description: `Security settings changed: ${changed.map((key) => (labels[key] as (value: unknown) => string)(next[key])).join(', ')}`,
        severity: changed.some((key) => key === 'allowConcurrentSessions' || key === 'maxLoginAttempts' || key === 'sessionTimeout') ? 'medium' : 'low',
        at,
        ...origin,
      });
      return next;
    }
    throw new ConflictError('The security settings changed meanwhile. Reload them and try again.');
  };
