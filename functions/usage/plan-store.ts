import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PlanId } from '../../shared/plans';
import { keys } from '../core/keys';
import { effectivePlan } from './plan-usage';

/** The plan whose features and limits apply to a user now (read consistently: a fresh upgrade counts). */
export function dynamoPlanReader(db: DynamoDBDocumentClient, tableName: string): (userId: string) => Promise<PlanId> {
  return async (userId) => {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.user(userId), ProjectionExpression: 'subscriptionPlan, subscriptionStatus', ConsistentRead: true }),
    );
    return effectivePlan(Item?.subscriptionPlan, Item?.subscriptionStatus);
  };
}
