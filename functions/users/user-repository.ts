import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { User } from '../../shared/schemas/user';
import { keys } from '../core/keys';

export interface UserRepository {
  get(userId: string): Promise<User | undefined>;
  /** Creates the record unless it exists; returns the stored record either way. `attributes`: stored beside the user's fields, never shown (passwordChangedAt). */
  createIfAbsent(user: User, attributes?: Record<string, unknown>): Promise<{ user: User; created: boolean }>;
  updateProfile(userId: string, profile: { firstName: string; lastName: string; company?: string }, now: string): Promise<User | undefined>;
  /** Records a sign-in (the token's auth_time) when it is newer than the one stored; one write per sign-in, not per request. */
  recordSignIn(userId: string, at: string): Promise<void>;
  /** Sets flags and fields of the profile; undefined when the user does not exist. `remove` drops attributes. */
  patch(userId: string, set: Record<string, unknown>, now: string, remove?: readonly string[]): Promise<User | undefined>;
  /** The stored key of the profile photo (never sent to the browser: it gets a signed link). */
  photoKey(userId: string): Promise<string | undefined>;
}

type UserItem = User & { PK: string; SK: string; entityType: 'User' };

/**
 * The user as the browser sees it: the profile and plan fields only. The item also holds usage
 * counters, the bulk lock and Stripe ids, which never leave the server.
 */
const publicFields = [
  'id',
  'email',
  'firstName',
  'lastName',
  'company',
  'profileImageUrl',
  'subscriptionPlan',
  'subscriptionStatus',
  'subscriptionCancelAtPeriodEnd',
  'subscriptionCurrentPeriodEnd',
  'createdAt',
  'updatedAt',
  'lastSignInAt',
  'welcomeDismissed',
  'onboarded',
] as const satisfies readonly (keyof User)[];

export const publicUser = (item: Record<string, unknown>): User => {
  const user: Record<string, unknown> = {};
  for (const field of publicFields) if (item[field] !== undefined) user[field] = item[field];
  user.subscriptionCancelAtPeriodEnd ??= false;
  return user as User;
};

/**
 * `photoUrl`: a signed link to the stored photo (profilePhotoKey), for the functions that show the
 * user to the browser; the bucket is private, so the link is made on each read.
 */
export function dynamoUserRepository(db: DynamoDBDocumentClient, tableName: string, options: { photoUrl?: (key: string) => Promise<string> } = {}): UserRepository {
  const toUser = async (item: Record<string, unknown>): Promise<User> => {
    const user = publicUser(item);
    if (typeof item.profilePhotoKey === 'string' && options.photoUrl) user.profileImageUrl = await options.photoUrl(item.profilePhotoKey);
    return user;
  };
  const get = async (userId: string) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true }));
    return Item ? toUser(Item) : undefined;
  };
  return {
    get,
    async createIfAbsent(user, attributes = {}) {
      const item: UserItem = { ...attributes, ...keys.user(user.id), entityType: 'User', ...user };
      try {
        await db.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
        return { user, created: true };
      } catch (error) {
        // Two first requests raced: the other one created it; read what it stored.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const existing = await get(user.id);
        if (!existing) throw error;
        return { user: existing, created: false };
      }
    },
    async recordSignIn(userId, at) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastSignInAt) OR lastSignInAt < :at)',
            UpdateExpression: 'SET lastSignInAt = :at',
            ExpressionAttributeValues: { ':at': at },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
    async patch(userId, set, now, remove = []) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':now': now };
      const assignments = Object.entries(set).map(([field, value], i) => {
        names[`#f${i}`] = field;
        values[`:v${i}`] = value;
        return `#f${i} = :v${i}`;
      });
      const removals = remove.map((field, i) => {
        names[`#r${i}`] = field;
        return `#r${i}`;
      });
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            ConditionExpression: 'attribute_exists(PK)',
            UpdateExpression: `SET ${[...assignments, 'updatedAt = :now'].join(', ')}${removals.length ? ` REMOVE ${removals.join(', ')}` : ''}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? toUser(Attributes) : undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },
    async photoKey(userId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true, ProjectionExpression: 'profilePhotoKey' }));
      return typeof Item?.profilePhotoKey === 'string' ? Item.profilePhotoKey : undefined;
    },
    async updateProfile(userId, profile, now) {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            ConditionExpression: 'attribute_exists(PK)',
            UpdateExpression:
              profile.company === undefined
                ? 'SET firstName = :f, lastName = :l, updatedAt = :now REMOVE company'
                : 'SET firstName = :f, lastName = :l, company = :c, updatedAt = :now',
            ExpressionAttributeValues: {
              ':f': profile.firstName,
              ':l': profile.lastName,
              ':now': now,
              ...(profile.company === undefined ? {} : { ':c': profile.company }),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes ? toUser(Attributes) : undefined;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return undefined;
        throw error;
      }
    },
  };
}
