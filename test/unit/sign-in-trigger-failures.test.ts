import type { PostAuthenticationTriggerEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../functions/core/logger';
import { AccountLockedRefusal, reportingFailures, TRIGGER_FAILED_MESSAGE, type signInTrigger } from '../../functions/security/sign-in-trigger';

const event = {
  triggerSource: 'PostAuthentication_Authentication',
  request: { userAttributes: { sub: 'user-1', email: 'a@example.com' } },
  response: {},
} as unknown as PostAuthenticationTriggerEvent;

const failingWith = (error: Error) => (async () => Promise.reject(error)) as unknown as ReturnType<typeof signInTrigger>;

describe('the Cognito trigger reports its own failures for the CognitoTriggerFailures alarm', () => {
  afterEach(() => vi.restoreAllMocks());

  it('an unexpected failure is logged at ERROR with the message the metric filter counts, and still fails the sign-in', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    await expect(reportingFailures(failingWith(new Error('table throttled')))(event)).rejects.toThrow('table throttled');
    expect(errors).toHaveBeenCalledWith(TRIGGER_FAILED_MESSAGE, { triggerSource: 'PostAuthentication_Authentication', error: 'table throttled' });
  });

  it("a locked account's refusal is the trigger doing its job: refused, not logged as a failure", async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    await expect(reportingFailures(failingWith(new AccountLockedRefusal('locked')))(event)).rejects.toThrow('locked');
    expect(errors).not.toHaveBeenCalled();
  });

  it('a sign-in that passes is answered unchanged', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const passing = (async (e: PostAuthenticationTriggerEvent) => e) as unknown as ReturnType<typeof signInTrigger>;
    await expect(reportingFailures(passing)(event)).resolves.toBe(event);
    expect(errors).not.toHaveBeenCalled();
  });
});
