import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { sesCredentialMailer } from '../../functions/mail/credential-mailer';
import { MailPausedError, NOTIFICATION_PAUSE_SECONDS, pacedMailer, requeuePaused } from '../../functions/mail/paced-mailer';
import { sesMailer } from '../../functions/mail/ses-mailer';
import type { MailMessage } from '../../functions/mail/mail-message';

/**
 * SES v2 SendEmail's documented errors, as the SDK makes them from SES's answers: a local HTTP
 * server answers with the status, the `x-amzn-ErrorType` header and the JSON body of each error
 * (restJson1, as SES sends them), and @aws-sdk/client-sesv2 turns them into its exception classes
 * (TooManyRequestsException 429; LimitExceededException, SendingPausedException,
 * AccountSuspendedException, MessageRejected 400). What each one means for a credential e-mail
 * and for a notification e-mail.
 */
type Answer = { status: number; type?: string; message?: string };
let answers: Answer[] = [];
let calls = 0;
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    calls++;
    const answer = answers.shift() ?? { status: 200 };
    if (answer.status === 200) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ MessageId: `m-${calls}` }));
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json', 'x-amzn-errortype': `${answer.type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/` });
    response.end(JSON.stringify({ message: answer.message }));
  });
});
let client: SESv2Client;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // One attempt: what SES answered, not the SDK's own retries, reaches our code.
  client = new SESv2Client({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const email = { to: 'holder@example.com', subject: 'Hi', html: '<p>Hi</p>', text: 'Hi' };
const sendOnce = async (answer: Answer) => {
  answers = [answer];
  return sesCredentialMailer(client, 'no-reply@example.com').send(email, { userId: 'u' });
};

describe("SES v2 SendEmail's errors, as the SDK makes them", () => {
  it('a credential e-mail: the sending rate is a wait, the daily quota, a paused or suspended account a pause of the send, a rejected message a refusal in SES words', async () => {
    expect(await sendOnce({ status: 200 })).toMatchObject({ kind: 'sent' });
    expect(await sendOnce({ status: 429, type: 'TooManyRequestsException', message: 'Maximum sending rate exceeded.' })).toEqual({ kind: 'throttled', message: 'Maximum sending rate exceeded.' });
    expect(await sendOnce({ status: 400, type: 'LimitExceededException', message: 'Maximum sending rate exceeded.' })).toEqual({ kind: 'throttled', message: 'Maximum sending rate exceeded.' });
    expect(await sendOnce({ status: 400, type: 'LimitExceededException', message: 'Daily message quota exceeded.' })).toEqual({ kind: 'paused', reason: 'quota', message: 'Daily message quota exceeded.' });
    expect(await sendOnce({ status: 429, type: 'TooManyRequestsException', message: 'Daily message quota exceeded.' })).toMatchObject({ kind: 'paused', reason: 'quota' });
    expect(await sendOnce({ status: 400, type: 'SendingPausedException', message: 'Email sending is disabled for your entire account.' })).toMatchObject({ kind: 'paused', reason: 'paused' });
    expect(await sendOnce({ status: 400, type: 'AccountSuspendedException', message: 'Your account has been suspended.' })).toMatchObject({ kind: 'paused', reason: 'suspended' });
    expect(await sendOnce({ status: 400, type: 'MessageRejected', message: 'Email address is not verified.' })).toEqual({ kind: 'refused', message: 'Email address is not verified.' });
    expect(await sendOnce({ status: 500, type: 'InternalFailure', message: 'Internal error' })).toMatchObject({ kind: 'retryable' });
  });

  const paced = (sleeps: number[]) =>
    pacedMailer(
      // Unpaced (rate 0): the shared window is not asked (no table); the throttling waits are what is looked at.
      { db: undefined as never, tableName: 't', rate: () => 0, limits: () => ({ reservedShare: 0.1 }), sleep: async (ms) => void sleeps.push(ms), random: () => 0 },
      sesMailer(client, 'no-reply@example.com'),
    )('user-1');

  it('a notification e-mail: a throttled answer is waited out and sent once; a quota or pause answer is MailPausedError (the message waits), a refusal stays an error', async () => {
    const sleeps: number[] = [];
    answers = [
      { status: 429, type: 'TooManyRequestsException', message: 'Maximum sending rate exceeded.' },
      { status: 400, type: 'LimitExceededException', message: 'Maximum sending rate exceeded.' },
      { status: 200 },
    ];
    const before = calls;
    await paced(sleeps).send(email);
    expect(calls - before).toBe(3);
    expect(sleeps).toHaveLength(2);
    for (const [type, status, message, reason] of [
      ['LimitExceededException', 400, 'Daily message quota exceeded.', 'quota'],
      ['SendingPausedException', 400, 'Sending paused for this configuration set.', 'paused'],
      ['AccountSuspendedException', 400, 'Your account has been suspended.', 'suspended'],
    ] as const) {
      answers = [{ status, type, message }];
      const error = await paced([]).send(email).catch((e: unknown) => e);
      expect(error, type).toBeInstanceOf(MailPausedError);
      expect(error).toMatchObject({ reason, message });
    }
    answers = [{ status: 400, type: 'MessageRejected', message: 'Email address is not verified.' }];
    await expect(paced([]).send(email)).rejects.toMatchObject({ name: 'MessageRejected' });
  });

  it('a paused notification e-mail goes back on the mail queue for 15 minutes, counted; after 36 hours of pauses it is given up (logged), never retried for ever', async () => {
    const queued: { message: MailMessage; delay: number }[] = [];
    const queue = async (message: MailMessage, delay: number) => void queued.push({ message, delay });
    const digest = { type: 'weekly-digest', userId: 'user-1', week: '2026-11-23' } as const;
    await requeuePaused(queue, digest, new MailPausedError('quota', 'Daily message quota exceeded.'));
    expect(queued).toEqual([{ message: { ...digest, pauses: 1 }, delay: NOTIFICATION_PAUSE_SECONDS }]);
    await requeuePaused(queue, { ...digest, pauses: 144 }, new MailPausedError('quota', 'Daily message quota exceeded.'));
    expect(queued).toHaveLength(1);
  });
});
