import { afterEach, describe, expect, it, vi } from 'vitest';
import { SignInError, signInWithPassword, THROTTLED } from '../../frontend/src/lib/sign-in-api';

const answer = (status: number, body: unknown) => vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));

describe("the sign-in form's words for the route's throttle (issue 29, item 4)", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("API Gateway's 429 (the sign-in route's own bucket) reads as a wait, not 'Too Many Requests'", async () => {
    vi.stubGlobal('fetch', answer(429, { message: 'Too Many Requests' }));
    const error = await signInWithPassword('a@example.com', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignInError);
    expect(error).toMatchObject({ status: 429, message: THROTTLED });
  });

  it("the API's own refusals keep their words and code", async () => {
    vi.stubGlobal('fetch', answer(423, { message: 'Too many failed sign-in attempts. Try again in 15 minutes.', code: 'ACCOUNT_LOCKED' }));
    const error = await signInWithPassword('a@example.com', 'x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 423, code: 'ACCOUNT_LOCKED', message: 'Too many failed sign-in attempts. Try again in 15 minutes.' });
  });
});
