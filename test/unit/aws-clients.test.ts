import { describe, expect, it } from 'vitest';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { cognito, dynamo, s3, ses, sqs } from '../../functions/core/clients';

describe('AWS clients', () => {
  it('carry no logger middleware (it filtered every call for a no-op logger), where a stock client has one', () => {
    const named = (stack: { identify(): string[] }) => stack.identify().filter((name) => name.startsWith('loggerMiddleware'));
    expect(named(new SESv2Client({ region: 'us-east-1' }).middlewareStack)).toHaveLength(1);
    for (const client of [dynamo(), sqs(), ses(), cognito(), s3()]) expect(named(client.middlewareStack)).toEqual([]);
  });
});
