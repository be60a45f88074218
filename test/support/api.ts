import { inject } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createTestUser, type TestUser } from './cognito-users';

/** A signed-in test user with a user record, and a fetch that carries their token. */
export interface ApiUser extends TestUser {
  call(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  json<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T>;
}

export function testDb(): DynamoDBDocumentClient {
  const stack = inject('stack');
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

export async function apiUser(names: { firstName?: string; lastName?: string } = {}): Promise<ApiUser> {
  const stack = inject('stack');
  const user = await createTestUser(stack.urls.cognito, stack.userPool, names);
  const call: ApiUser['call'] = (path, init = {}) =>
    fetch(`${stack.urls.app}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${user.accessToken}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const json: ApiUser['json'] = async (path, init) => {
    const response = await call(path, init);
    if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
    return (await response.json()) as never;
  };
  await json('/api/auth/user');
  return { ...user, call, json };
}

/** Billing arrives later: tests that need Pro set the plan on the user record directly. */
export async function makePro(userId: string): Promise<void> {
  await testDb().send(
    new UpdateCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${userId}`, SK: 'PROFILE' }, UpdateExpression: 'SET subscriptionPlan = :pro', ExpressionAttributeValues: { ':pro': 'pro' } }),
  );
}

export const people = (count: number, prefix = 'Person') =>
  Array.from({ length: count }, (_, i) => ({ firstName: `${prefix}${i}`, lastName: 'Tester', email: `${prefix.toLowerCase()}${i}@example.com` }));
