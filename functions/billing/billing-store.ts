import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import type { BillingAccountStore } from './billing-port';
import type { BillingUserStore, ProcessedEventStore, SubscriptionChange } from './handle-stripe-event';

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
    async applySubscription(userId, change, eventCreated, now) {
      const sets = ['subscriptionEventAt = :created', 'updatedAt = :now'];
      const values: Record<string, unknown> = { ':created': eventCreated, ':now': now.toISOString() };
      for (const [field, value] of Object.entries(change) as [keyof SubscriptionChange, unknown][]) {
        if (value === undefined) continue;
        sets.push(`${attributeOf[field]} = :${field}`);
        values[`:${field}`] = value;
      }
      try {
        await db.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.user(userId),
            UpdateExpression: `SET ${sets.join(', ')}`,
            // Never create a user; an older event never overwrites a newer state.
            ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(subscriptionEventAt) OR subscriptionEventAt <= :created)',
            ExpressionAttributeValues: values,
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'applied';
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return error.Item ? 'stale' : 'missing';
      }
    },

    linkCustomer: (customerId, userId) => linkCustomer(db, tableName, customerId, userId),

    async userOfCustomer(customerId) {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.stripeCustomer(customerId), ConsistentRead: true }));
      return typeof Item?.userId === 'string' ? Item.userId : undefined;
    },
  };
}

export function dynamoProcessedEventStore(db: DynamoDBDocumentClient, tableName: string): ProcessedEventStore {
  return {
    async markProcessed(eventId, expiresAt) {
      try {
        await db.send(
          new PutCommand({ TableName: tableName, Item: { ...keys.stripeEvent(eventId), entityType: 'StripeEvent', expiresAt }, ConditionExpression: 'attribute_not_exists(PK)' }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async unmark(eventId) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: keys.stripeEvent(eventId) }));
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
        const stored = error.Item?.stripeCustomerId;
        // Another first checkout stored its customer a moment earlier: that one is the user's.
        if (typeof stored === 'string') return stored;
        if (stored && typeof stored === 'object' && 'S' in stored && typeof stored.S === 'string') return stored.S;
        throw error;
      }
    },

    linkCustomer: (customerId, userId) => linkCustomer(db, tableName, customerId, userId),
  };
}
