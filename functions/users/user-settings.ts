import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UpdateUserSettingsInput, UserSettings } from '../../shared/schemas/user-settings';
import { ConflictError, NotFoundError } from '../core/errors';
import { keys } from '../core/keys';
import { readSettings, type StoredSettings } from './settings-reader';
import type { UserRepository } from './user-repository';

export interface SettingsStore {
  get(userId: string): Promise<StoredSettings & { version: number }>;
  /**
   * Writes both groups if the stored version is still `version` (another save in between would be
   * overwritten otherwise), and the weekly-digest subscription with them in one transaction.
   * False when the version moved.
   */
  put(userId: string, settings: StoredSettings, version: number, now: string): Promise<boolean>;
}

export function dynamoSettingsStore(db: DynamoDBDocumentClient, tableName: string): SettingsStore {
  return {
    get: (userId) => readSettings(db, tableName, userId),
    async put(userId, settings, version, now) {
      const subscriber = keys.digestSubscriber(userId);
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.userSettings(userId), entityType: 'UserSettings', userId, ...settings, version: version + 1, updatedAt: now },
                  ConditionExpression: version === 0 ? 'attribute_not_exists(PK)' : 'version = :version',
                  ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
                },
              },
              settings.notifications.weeklyDigest
                ? // An update, not a put: the week last sent (lastDigestWeek) survives a save.
                  {
                    Update: {
                      TableName: tableName,
                      Key: subscriber,
                      UpdateExpression: 'SET entityType = :type, userId = :user, since = if_not_exists(since, :now)',
                      ExpressionAttributeValues: { ':type': 'DigestSubscriber', ':user': userId, ':now': now },
                    },
                  }
                : { Delete: { TableName: tableName, Key: subscriber } },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },
  };
}

export interface UserSettingsDeps {
  users: UserRepository;
  settings: SettingsStore;
  now: () => Date;
}

/** GET /api/user/settings: notifications and preferences (defaults where never saved) and the profile as the account group. */
export const getUserSettings =
  (deps: Pick<UserSettingsDeps, 'users' | 'settings'>) =>
  async (userId: string): Promise<UserSettings> => {
    const [user, stored] = await Promise.all([deps.users.get(userId), deps.settings.get(userId)]);
    if (!user) throw new NotFoundError('User not found');
    return {
      notifications: stored.notifications,
      preferences: stored.preferences,
      account: { email: user.email, firstName: user.firstName, lastName: user.lastName, ...(user.company ? { company: user.company } : {}) },
    };
  };

/**
 * PUT /api/user/settings: the groups sent, each merged field by field over what is stored (a
 * group or field left out stays as it is). Two saves at once do not lose each other's fields: the
 * write is conditional on the version read, and read again when it moved.
 */
export const updateUserSettings =
  (deps: UserSettingsDeps) =>
  async (userId: string, input: UpdateUserSettingsInput): Promise<UserSettings> => {
    const user = await deps.users.get(userId);
    if (!user) throw new NotFoundError('User not found');
    if (input.notifications || input.preferences) {
      let saved = false;
      for (let attempt = 0; attempt < 5 && !saved; attempt++) {
        const stored = await deps.settings.get(userId);
        const next: StoredSettings = {
          notifications: { ...stored.notifications, ...input.notifications },
          preferences: { ...stored.preferences, ...input.preferences },
        };
        saved = await deps.settings.put(userId, next, stored.version, deps.now().toISOString());
      }
      if (!saved) throw new ConflictError('Your settings were changed elsewhere at the same time. Please try again.');
    }
    if (input.account && (input.account.firstName !== undefined || input.account.lastName !== undefined || input.account.company !== undefined)) {
      const company = input.account.company ?? user.company;
      const updated = await deps.users.updateProfile(
        userId,
        {
          firstName: input.account.firstName ?? user.firstName,
          lastName: input.account.lastName ?? user.lastName,
          company: company === '' ? undefined : company,
        },
        deps.now().toISOString(),
      );
      if (!updated) throw new NotFoundError('User not found');
    }
    return getUserSettings(deps)(userId);
  };
