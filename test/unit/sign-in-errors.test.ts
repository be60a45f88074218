import { describe, expect, it } from 'vitest';
import { HttpError } from '../../functions/core/errors';
import { COGNITO_LOCKOUT_MESSAGE, SIGN_IN_UNAVAILABLE_MESSAGE, signInUseCases, type SignInDeps } from '../../functions/security/sign-in';
import type { SignInGuard } from '../../functions/security/sign-in-guard';

/**
 * Cognito answers that are not "wrong password" (AWS-only shapes the local emulator never gives):
 * an in-memory guard and an identity that throws what AWS throws. What is under test is how the
 * route answers and whether it counts, not the stores.
 */
const named = (name: string, message: string) => Object.assign(new Error(message), { name });

function useCases(thrown: Error, guard: SignInGuard = { failures: 0 }) {
  const failures: string[] = [];
  const deps = {
    guards: {
      begin: async () => ({ locked: false, guard }),
      fail: async () => {
        failures.push('counted');
        return { failures: 1, lockedNow: false };
      },
      succeed: async () => true,
      isUsedTotp: () => false,
      read: async () => guard,
    },
    accounts: {} as SignInDeps['accounts'],
    identity: {
      passwordSignIn: async () => {
        throw thrown;
      },
    } as unknown as SignInDeps['identity'],
    events: {} as SignInDeps['events'],
    cipher: async () => {
      throw new Error('not used');
    },
    now: () => new Date('2026-11-23T08:00:00Z'),
  } as unknown as SignInDeps;
  return { signIn: signInUseCases(deps).signIn, failures };
}

const origin = { ipAddress: '203.0.113.9', userAgent: 'test' };
const answerOf = async (run: Promise<unknown>) => {
  const error = await run.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(HttpError);
  return { status: (error as HttpError).statusCode, message: (error as HttpError).message, code: (error as HttpError).code };
};

describe('sign-in: Cognito refusals that are not a wrong password', () => {
  it("Cognito's own lockout ('Password attempts exceeded') is a 429 with its own message, not counted as a failure", async () => {
    const { signIn, failures } = useCases(named('NotAuthorizedException', 'Password attempts exceeded'));
    expect(await answerOf(signIn({ email: 'a@example.com', password: 'x' }, origin))).toMatchObject({ status: 429, message: COGNITO_LOCKOUT_MESSAGE });
    expect(failures).toEqual([]);
  });

  it('a wrong password (NotAuthorizedException) is still counted', async () => {
    const { signIn, failures } = useCases(named('NotAuthorizedException', 'Incorrect username or password.'));
    expect((await answerOf(signIn({ email: 'a@example.com', password: 'x' }, origin))).status).toBe(401);
    expect(failures).toEqual(['counted']);
  });

  it('a trigger failure without a lock is an outage (503), never "your account is locked"', async () => {
    const { signIn } = useCases(named('UserLambdaValidationException', 'PostAuthentication failed with error Task timed out.'));
    expect(await answerOf(signIn({ email: 'a@example.com', password: 'x' }, origin))).toMatchObject({ status: 503, message: SIGN_IN_UNAVAILABLE_MESSAGE });
  });

  it('a trigger refusal while the guard holds a lock is the lock (423 ACCOUNT_LOCKED)', async () => {
    const lockedUntil = Date.parse('2026-11-23T08:10:00Z') / 1000;
    const { signIn } = useCases(named('UserLambdaValidationException', 'PostAuthentication failed with error locked.'), { failures: 5, lockedUntil });
    expect(await answerOf(signIn({ email: 'a@example.com', password: 'x' }, origin))).toMatchObject({ status: 423, code: 'ACCOUNT_LOCKED' });
  });
});
