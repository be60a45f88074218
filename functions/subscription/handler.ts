import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../core/clients';
import { requireEnv } from '../core/env';
import { NotFoundError } from '../core/errors';
import { httpHandler, route } from '../core/http';
import { keys } from '../core/keys';
import { subscriptionStatus } from '../usage/plan-usage';

const tableName = requireEnv('TABLE_NAME');

export const handler = httpHandler({
  'GET /api/subscription/status': route({
    run: async ({ userId }) => {
      const { Item } = await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.user(userId), ConsistentRead: true }));
      if (!Item) throw new NotFoundError('User not found');
      // The stored plan is reported; subscriptionStatus() applies the effective plan's limits.
      return subscriptionStatus(
        { plan: Item.subscriptionPlan === 'pro' ? 'pro' : 'free', projectCount: Number(Item.projectCount ?? 0), accountCount: Number(Item.accountCount ?? 0) },
        {
          status: String(Item.subscriptionStatus ?? 'active'),
          currentPeriodEnd: typeof Item.subscriptionCurrentPeriodEnd === 'string' ? Item.subscriptionCurrentPeriodEnd : undefined,
          cancelAtPeriodEnd: Item.subscriptionCancelAtPeriodEnd === true,
        },
      );
    },
  }),
});
