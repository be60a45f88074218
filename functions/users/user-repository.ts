import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { User } from '../../shared/schemas/user';
import { keys } from '../core/keys';

export interface UserRepository {
  get(userId: string): Promise<User | undefined>;
  /** Creates the record unless it exists; returns the stored record either way. */
  createIfAbsent(user: User): Promise<{ user: User; created: boolean }>;
  updateProfile(userId: string, profile: { firstName: string; lastName: string; company?: string }, now: string): Promise<User | undefined>;
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
] as const satisfies readonly (keyof User)[];

export const toUser = (item: Record<string, unknown>): User => {
  const user: Record<string, unknown> = {};
  for (const field of publicFields) if (item[field] !== undefined) user[field] = item[field];
  user.subscriptionCancelAtPeriodEnd ??= false;
  return user as User;
};

export function dynamoUserRepository(db: DynamoDBDocumentClient, tableName: string): UserRepository {
  const get = async (userId: string) => {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true }));
    return Item ? toUser(Item) : undefined;
  };
  return {
    get,
    async createIfAbsent(user) {
      const item: UserItem = { ...keys.user(user.id), entityType: 'User', ...user };
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
