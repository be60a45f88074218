import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { EmailSuppression } from '../../shared/schemas/email-suppressions';
import type { Project } from '../../shared/schemas/project';
import { sesEventsOf, snsEnvelope } from '../../bin/local/ses-events';
import { apiUser, testDb, type ApiUser } from '../support/api';

/**
 * SES events end to end on the local stack: a real SendEmail to the SES emulator, the events the
 * stack publishes for it (as SES's configuration set does through SNS), the mail-events worker
 * moving the account's status and the project's counters, and the suppression list.
 *
 * The credentials sender records each accepted message (keys.mailMessage) and marks the account
 * 'sent'; until it lands on this branch, `sendAsTheSender` does both exactly as documented.
 */
const stack = inject('stack');
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const ses = new SESv2Client({ region: 'us-east-1', endpoint: stack.urls.ses, credentials });
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials });
const TABLE = 'bulkonboard';
const db = testDb();

interface StoredAccount {
  PK: string;
  SK: string;
  id: string;
  email: string;
  emailStatus?: string;
  emailError?: string;
  emailMessageId?: string;
}

async function accountsOf(user: ApiUser, projectId: string): Promise<StoredAccount[]> {
  const { Items } = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': keys.accountsOf(user.sub, projectId).PK, ':sk': 'ACCOUNT#' }, ConsistentRead: true }));
  return (Items ?? []) as StoredAccount[];
}

const projectItem = async (user: ApiUser, projectId: string) =>
  (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), ConsistentRead: true }))).Item ?? {};

const countersOf = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([name, value]) => /^email[A-Z]\w*Count$/.test(name) && value !== 0));

/** A real SendEmail to the emulator, then what the sender writes once SES accepted it. */
async function sendAsTheSender(user: ApiUser, projectId: string, account: StoredAccount): Promise<string> {
  const { MessageId } = await ses.send(
    new SendEmailCommand({
      FromEmailAddress: 'no-reply@bulkonboard.local',
      Destination: { ToAddresses: [account.email] },
      ConfigurationSetName: 'bulkonboard',
      Content: { Simple: { Subject: { Data: 'Your account' }, Body: { Text: { Data: 'Hello' } } } },
    }),
  );
  if (!MessageId) throw new Error('SendEmail answered no MessageId');
  const sentAt = new Date().toISOString();
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: {
        ...keys.mailMessage(MessageId),
        entityType: 'MailMessage',
        userId: user.sub,
        projectId,
        accountId: account.id,
        accountPK: account.PK,
        accountSK: account.SK,
        email: account.email,
        sentAt,
        expiresAt: Math.floor(Date.now() / 1000) + 30 * 24 * 3600,
      },
    }),
  );
  await db.send(new UpdateCommand({ TableName: TABLE, Key: { PK: account.PK, SK: account.SK }, UpdateExpression: 'SET emailStatus = :sent, emailMessageId = :id, emailSentAt = :at', ExpressionAttributeValues: { ':sent': 'sent', ':id': MessageId, ':at': sentAt } }));
  await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), UpdateExpression: 'ADD emailSentCount :one', ExpressionAttributeValues: { ':one': 1 } }));
  return MessageId;
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const statusOf = async (user: ApiUser, projectId: string, email: string) => (await accountsOf(user, projectId)).find((a) => a.email === email);

/**
 * Nothing waits on the mail-events queue or its dead-letter queue (every event handled, none
 * handed back). The SQS emulator counts a message sent a moment ago only once its zero delay has
 * passed (a timer): the first look waits a little, so a message just sent is never missed.
 */
async function queuesSettled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 250));
  const counts = async () => {
    const attributes = await Promise.all(
      ['mail-events', 'mail-events-dlq'].map(async (name) => (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: stack.queueUrls[name], AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }))).Attributes ?? {}),
    );
    return attributes.map((a) => Number(a.ApproximateNumberOfMessages ?? 0) + Number(a.ApproximateNumberOfMessagesNotVisible ?? 0));
  };
  await waitFor('the mail-events queues', counts, (c) => c.every((n) => n === 0));
}

/** Puts SES records on the queue again, in SNS envelopes, as a redelivery or a late event would come. */
async function replay(messageId: string, email: string, types: string[]) {
  const { send, outcomes } = sesEventsOf({ messageId, from: 'no-reply@bulkonboard.local', to: [email], subject: 'Your account', at: new Date() }, new Date());
  for (const type of types) {
    const record = [send, ...outcomes].find((r) => r.eventType === type);
    if (!record) throw new Error(`no ${type} record for ${email}`);
    await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls['mail-events'], MessageBody: JSON.stringify(snsEnvelope(record, new Date())) }));
  }
}

describe('SES events on the local stack', () => {
  let user: ApiUser;
  let project: Project;
  beforeAll(async () => {
    user = await apiUser();
    const created = await user.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', {
      body: {
        projectName: 'Mailbox simulator',
        csvData: [
          { firstName: 'Bo', lastName: 'Unce', email: 'bounce@simulator.amazonses.com' },
          { firstName: 'Com', lastName: 'Plaint', email: 'complaint@simulator.amazonses.com' },
          { firstName: 'Suc', lastName: 'Cess', email: 'success@simulator.amazonses.com' },
          { firstName: 'Re', lastName: 'Sent', email: 'success+resent@simulator.amazonses.com' },
        ],
      },
    });
    project = created.project;
  });

  it('a bounce: the account is bounced with SES\'s diagnostic, the address is on the list, the counters moved; the events again change nothing', async () => {
    const account = (await statusOf(user, project.id, 'bounce@simulator.amazonses.com'))!;
    const messageId = await sendAsTheSender(user, project.id, account);
    const bounced = await waitFor('the bounce', () => statusOf(user, project.id, account.email), (a) => a?.emailStatus === 'bounced');
    expect(bounced).toMatchObject({ emailStatus: 'bounced', emailError: 'smtp; 550 5.1.1 user unknown', emailMessageId: messageId });
    expect(countersOf(await projectItem(user, project.id))).toEqual({ emailBouncedCount: 1 });

    const list = await user.json<EmailSuppression[]>('/api/email-suppressions');
    expect(list).toEqual([{ email: 'bounce@simulator.amazonses.com', reason: 'bounced', detail: 'smtp; 550 5.1.1 user unknown', createdAt: expect.any(String), projectId: project.id }]);

    // Redelivered, and a Delivery that comes late: nothing moves, nothing is counted twice.
    await replay(messageId, account.email, ['Bounce', 'Bounce', 'Send']);
    await replay(messageId, account.email.replace('bounce@', 'success@'), ['Delivery']);
    await queuesSettled();
    expect(await statusOf(user, project.id, account.email)).toMatchObject({ emailStatus: 'bounced' });
    expect(countersOf(await projectItem(user, project.id))).toEqual({ emailBouncedCount: 1 });
    expect(await user.json<EmailSuppression[]>('/api/email-suppressions')).toEqual(list);
  });

  it('a complaint after the delivery, and a plain delivery; an event for a message nobody recorded is dropped', async () => {
    const complaint = (await statusOf(user, project.id, 'complaint@simulator.amazonses.com'))!;
    const success = (await statusOf(user, project.id, 'success@simulator.amazonses.com'))!;
    const successId = await sendAsTheSender(user, project.id, success);
    await sendAsTheSender(user, project.id, complaint);
    await waitFor('the complaint', () => statusOf(user, project.id, complaint.email), (a) => a?.emailStatus === 'complained');
    await waitFor('the delivery', () => statusOf(user, project.id, success.email), (a) => a?.emailStatus === 'delivered');
    await queuesSettled();
    expect((await statusOf(user, project.id, complaint.email))?.emailError).toBe('The recipient marked the e-mail as spam (abuse)');
    expect(countersOf(await projectItem(user, project.id))).toEqual({ emailBouncedCount: 1, emailComplainedCount: 1, emailDeliveredCount: 1 });
    expect((await user.json<EmailSuppression[]>('/api/email-suppressions')).map((s) => [s.email, s.reason]).sort()).toEqual([
      ['bounce@simulator.amazonses.com', 'bounced'],
      ['complaint@simulator.amazonses.com', 'complained'],
    ]);

    // A delivered address is not suppressed; its Delivery again changes nothing.
    await replay(successId, success.email, ['Delivery', 'Delivery']);
    // SES accepted this one, but no sender recorded it (a welcome e-mail, a Cognito code): dropped, not retried.
    await ses.send(new SendEmailCommand({ FromEmailAddress: 'no-reply@bulkonboard.local', Destination: { ToAddresses: ['bounce@simulator.amazonses.com'] }, Content: { Simple: { Subject: { Data: 'Not recorded' }, Body: { Text: { Data: 'x' } } } } }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await queuesSettled();
    expect(countersOf(await projectItem(user, project.id))).toEqual({ emailBouncedCount: 1, emailComplainedCount: 1, emailDeliveredCount: 1 });
  });

  it('DELETE /api/email-suppressions/{email} removes an address (any case, encoded or not); one not on the list answers 404', async () => {
    const other = await apiUser();
    // Another user's list does not hold it: 404, and the owner's entry stays.
    const foreign = await other.call('/api/email-suppressions/bounce%40simulator.amazonses.com', { method: 'DELETE' });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ message: 'This address is not on your suppression list' });
    expect(await other.json<EmailSuppression[]>('/api/email-suppressions')).toEqual([]);

    const removed = await user.call(`/api/email-suppressions/${encodeURIComponent('Bounce@Simulator.AmazonSES.com')}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect((await user.json<EmailSuppression[]>('/api/email-suppressions')).map((s) => s.email)).toEqual(['complaint@simulator.amazonses.com']);
    const again = await user.call('/api/email-suppressions/bounce@simulator.amazonses.com', { method: 'DELETE' });
    expect(again.status).toBe(404);
    for (const bad of ['not-an-address', 'a%2Fb%40x.test', `${'a'.repeat(300)}@x.test`]) {
      const response = await user.call(`/api/email-suppressions/${bad}`, { method: 'DELETE' });
      expect(response.status, bad).toBe(404);
    }
    expect((await user.json<EmailSuppression[]>('/api/email-suppressions')).map((s) => s.email)).toEqual(['complaint@simulator.amazonses.com']);
  });

  it('an event about an older e-mail of an account sent a newer one leaves its status to the newer one (the address is still suppressed)', async () => {
    const email = 'success+resent@simulator.amazonses.com';
    const account = (await statusOf(user, project.id, email))!;
    const first = await sendAsTheSender(user, project.id, account);
    await waitFor('the first delivery', () => statusOf(user, project.id, email), (a) => a?.emailStatus === 'delivered' && a.emailMessageId === first);
    const second = await sendAsTheSender(user, project.id, account);
    await waitFor('the second delivery', () => statusOf(user, project.id, email), (a) => a?.emailStatus === 'delivered' && a.emailMessageId === second);
    // The first e-mail bounces late (its record names this account): the status stays the second's.
    await replay(first, 'bounce@simulator.amazonses.com', ['Bounce']);
    const listed = await waitFor('the suppression', () => user.json<EmailSuppression[]>('/api/email-suppressions'), (list) => list.some((entry) => entry.email === email));
    await queuesSettled();
    expect(await statusOf(user, project.id, email)).toMatchObject({ emailStatus: 'delivered', emailMessageId: second });
    expect(listed.map((s) => [s.email, s.reason]).sort()).toEqual([
      ['complaint@simulator.amazonses.com', 'complained'],
      [email, 'bounced'],
    ]);
  });
});
