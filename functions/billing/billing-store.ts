import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { ENDED_SUBSCRIPTION_STATES, type BillingAccountStore } from './billing-port';
import type { BillingUserStore, SubscriptionChange } from './handle-stripe-event';

const attributeOf: Record<keyof SubscriptionChange, string> = {
  plan: 'subscriptionPlan',
  status: 'subscriptionStatus',
  currentPeriodEnd: 'subscriptionCurrentPeriodEnd',
  cancelAtPeriodEnd: 'subscriptionCancelAtPeriodEnd',
  stripeCustomerId: 'stripeCustomerId',
  stripeSubscriptionId: 'stripeSubscriptionId',
};

export function dynamoBillingUserStore(db: DynamoDBDocumentClient, tableName: string): BillingUserStore {
  return {
    async applyEvent({ eventId, expiresAt, userId, change, eventCreated, guards, now }) {
      const sets = ['subscriptionEventAt = :created', 'updatedAt = :now'];
      const values: Record<string, unknown> = { ':created': eventCreated, ':now': now.toISOString() };
      for (const [field, value] of Object.entries(change) as [keyof SubscriptionChange, unknown][]) {
        if (value === undefined) continue;
        sets.push(`${attributeOf[field]} = :${field}`);
        values[`:${field}`] = value;
      }
      // Never create a user; an older event never overwrites a newer state (a weak one not even
      // one of the same second).
      const conditions = [`attribute_exists(PK)`, `(attribute_not_exists(subscriptionEventAt) OR subscriptionEventAt ${guards.weak ? '<' : '<='} :created)`];
      if (guards.subscriptionId) {
        conditions.push('(attribute_not_exists(stripeSubscriptionId) OR stripeSubscriptionId = :guardSubscription OR subscriptionStatus IN (:ended0, :ended1))');
        values[':guardSubscription'] = guards.subscriptionId;
        values[':ended0'] = ENDED_SUBSCRIPTION_STATES[0];
        values[':ended1'] = ENDED_SUBSCRIPTION_STATES[1];
      }
      if (guards.customerId) {
        conditions.push('(attribute_not_exists(stripeCustomerId) OR stripeCustomerId = :guardCustomer)');
        values[':guardCustomer'] = guards.customerId;
      }
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.stripeEvent(eventId), entityType: 'StripeEvent', expiresAt },
                  ConditionExpression: 'attribute_not_exists(PK)',
                },
              },
              {
                Update: {
                  TableName: tableName,
                  Key: keys.user(userId),
                  UpdateExpression: `SET ${sets.join(', ')}`,
                  ConditionExpression: conditions.join(' AND '),
                  ExpressionAttributeValues: values,
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
            ],
          }),
        );
        return 'applied';
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const [event, user] = error.CancellationReasons ?? [];
        if (event?.Code === 'ConditionalCheckFailed') return 'duplicate';
        if (user?.Code === 'ConditionalCheckFailed') return user.Item ? 'stale' : 'missing';
        throw error;
      }
    },

    linkCustomer: (customerId, userId) => linkCustomer(db, tableName, customerId, userId),

    async userOfCustomer(customerId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.stripeCustomer(customerId), ConsistentRead: true }));
      return typeof Item?.userId === 'string' ? Item.userId : undefined;
    },
  };
}

async function linkCustomer(db: DynamoDBDocumentClient, tableName: string, customerId: string, userId: string): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName, Item: { ...keys.stripeCustomer(customerId), entityType: 'StripeCustomer', userId } }));
}

export function dynamoBillingAccountStore(db: DynamoDBDocumentClient, tableName: string): BillingAccountStore {
  return {
    async billingUser(userId) {
      const { Item } = await db.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.user(userId),
          ProjectionExpression: 'email, firstName, lastName, subscriptionPlan, subscriptionStatus, stripeCustomerId',
          ConsistentRead: true,
        }),
      );
      if (!Item) return undefined;
      const name = [Item.firstName, Item.lastName].filter((part) => typeof part === 'string' && part.trim()).join(' ');
      return {
        email: String(Item.email ?? ''),
        ...(name ? { name } : {}),
        plan: Item.subscriptionPlan === 'pro' ? 'pro' : 'free',
        status: typeof Item.subscriptionStatus === 'string' ? Item.subscriptionStatus : 'active',
        ...(typeof Item.stripeCustomerId === 'string' ? { stripeCustomerId: Item.stripeCustomerId } : {}),
      };
    },

    async storeCustomer(userId, customerId) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET stripeCustomerId = :customer',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(stripeCustomerId)',
            ExpressionAttributeValues: { ':customer': customerId },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return customerId;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Another first checkout stored its customer a moment earlier: that one is the user's.
        const stored = storedString(error.Item?.stripeCustomerId);
        if (stored) return stored;
        throw error;
      }
    },

    async replaceCustomer(userId, missingId, customerId) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET stripeCustomerId = :customer',
            ConditionExpression: 'stripeCustomerId = :missing',
            ExpressionAttributeValues: { ':customer': customerId, ':missing': missingId },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return customerId;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const stored = storedString(error.Item?.stripeCustomerId);
        if (stored) return stored;
        throw error;
      }
    },

    linkCustomer: (customerId, userId) => linkCustomer(db, tableName, customerId, userId),
  };
}

/** An attribute of ReturnValuesOnConditionCheckFailure: plain, or still in DynamoDB's { S } form. */
function storedString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'S' in value && typeof value.S === 'string') return value.S;
  return undefined;
}
