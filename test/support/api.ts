import { inject } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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

/**
 * Upgrades the user the way a person does: create-checkout, then 'Pay' on the local test checkout,
 * which posts the signed Stripe events to the webhook. Returns the checkout URL it paid.
 */
export async function upgradeToPro(user: ApiUser): Promise<string> {
  const { checkoutUrl } = await user.json<{ checkoutUrl: string }>('/api/subscription/create-checkout', { method: 'POST' });
  const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  if (paid.status !== 303) throw new Error(`Local checkout answered ${paid.status}: ${await paid.text()}`);
  return checkoutUrl;
}

export const people = (count: number, prefix = 'Person') =>
  Array.from({ length: count }, (_, i) => ({ firstName: `${prefix}${i}`, lastName: 'Tester', email: `${prefix.toLowerCase()}${i}@example.com` }));

/** A finished export's download link, as the app asks for one (POST /api/exports/{id}/download; recorded as a security event). */
export async function exportDownloadUrl(user: ApiUser, exportId: string): Promise<string> {
  return (await user.json<{ url: string }>(`/api/exports/${exportId}/download`, { method: 'POST' })).url;
}
