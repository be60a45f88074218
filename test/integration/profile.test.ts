import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { User } from '../../shared/schemas/user';
import { createTestUser, type TestUser } from '../support/cognito-users';

const stack = inject('stack');
const call = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${stack.urls.app}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

describe('PUT /api/user/profile', () => {
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([
      createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Alice', lastName: 'Able' }),
      createTestUser(stack.urls.cognito, stack.userPool, { firstName: 'Bob', lastName: 'Baker' }),
    ]);
    await call(alice.accessToken, '/api/auth/user');
    await call(bob.accessToken, '/api/auth/user');
  });

  it("updates the caller's names and company and nobody else's", async () => {
    const response = await call(alice.accessToken, '/api/user/profile', {
      method: 'PUT',
      body: JSON.stringify({ firstName: ' Alicia ', lastName: 'Able-Smith', company: 'Acme' }),
    });
    expect(response.status).toBe(200);
    const updated = (await response.json()) as User;
    expect(updated).toMatchObject({ id: alice.sub, firstName: 'Alicia', lastName: 'Able-Smith', company: 'Acme', email: alice.email });
    expect(updated.updatedAt > updated.createdAt || updated.updatedAt === updated.createdAt).toBe(true);

    const bobNow = await (await call(bob.accessToken, '/api/auth/user')).json();
    expect(bobNow).toMatchObject({ firstName: 'Bob', lastName: 'Baker' });
    expect(bobNow).not.toHaveProperty('company');
  });

  it('ignores an e-mail or id in the body: identity comes from the token', async () => {
    const response = await call(bob.accessToken, '/api/user/profile', {
      method: 'PUT',
      body: JSON.stringify({ firstName: 'Bob', lastName: 'Baker', email: alice.email, id: alice.sub }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: bob.sub, email: bob.email });
  });

  it('answers 400 with the field message for a blank first name', async () => {
    const response = await call(alice.accessToken, '/api/user/profile', {
      method: 'PUT',
      body: JSON.stringify({ firstName: '   ', lastName: 'Able' }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { message: string; details?: unknown };
    expect(body.message).toBe('First name is required');
    expect(body.details).toEqual([{ path: 'firstName', message: 'First name is required' }]);
  });

  it('answers 400 for malformed JSON and 415 for a non-JSON body, never 500', async () => {
    const malformed = await call(alice.accessToken, '/api/user/profile', { method: 'PUT', body: '{"firstName":' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ message: 'Request body is not valid JSON' });
    const text = await call(alice.accessToken, '/api/user/profile', {
      method: 'PUT',
      body: 'firstName=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
  });

  it('answers 401 to a signed-in user without a record (never signed in through the app, or deleted): nothing is written for them', async () => {
    const stranger = await createTestUser(stack.urls.cognito, stack.userPool);
    const response = await call(stranger.accessToken, '/api/user/profile', {
      method: 'PUT',
      body: JSON.stringify({ firstName: 'No', lastName: 'Record' }),
    });
    expect(response.status).toBe(401);
  });
});
