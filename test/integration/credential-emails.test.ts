import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { aesGcmCipher, keyRingFromSecret } from '../../functions/core/encryption';
import { MAIL_WINDOW, planOf, startSend, planSend, readSend, sendView } from '../../functions/mail/credential-sends';
import { recentBounceRate } from '../../functions/mail/bounce-rate';
import { bouncesByCustomer, countBounces } from '../../functions/mail-events/count-bounces';
import { INTERRUPTED_MESSAGE, mailTags, recordDeadCredentials, sendChunk, STOPPED_ON_OUR_SIDE, type SendChunkDeps } from '../../functions/mail/send-credentials';
import { accountsPageInOrder } from '../../functions/accounts/account-partitions';
import { sesEventsOf, snsEnvelope, type SesEventRecord } from '../../bin/local/ses-events';
import { applyMailEvents } from '../../functions/mail-events/apply-mail-event';
import { dynamoMailEventStore } from '../../functions/mail-events/mail-event-store';
import { sesEventOf } from '../../functions/mail-events/ses-event';
import { sesCredentialMailer, type CredentialMailer } from '../../functions/mail/credential-mailer';
import { serverRenderTools } from '../../functions/mail/render-tools';
import type { CredentialsChunkMessage, CredentialsMessage } from '../../functions/mail/mail-message';
import { timeOrderedId } from '../../functions/core/ids';
import { sendCredentialsSchema, type MailSend } from '../../shared/schemas/mail-send';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';

/**
 * Credential e-mails through the API, the mail queue, the mail worker and the local SES emulator
 * (its store, GET /store, is what account holders would receive); and the worker's chunk step
 * replayed in this process against the same DynamoDB and SES emulator, as redelivered queue
 * messages would run it.
 */
let user: ApiUser;
let other: ApiUser;
let free: ApiUser;

beforeAll(async () => {
  [user, other, free] = await Promise.all([apiUser({ firstName: 'Sender' }), apiUser(), apiUser()]);
  await upgradeToPro(user);
  await upgradeToPro(other);
  await user.json('/api/user/profile', { method: 'PUT', body: { firstName: 'Sender', lastName: 'Tester', company: 'Acme <Corp> & "Sons"' } });
});

interface StoredMail {
  messageId: string;
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
}
const mailStore = async (): Promise<StoredMail[]> => {
  const response = await fetch(`${inject('stack').urls.ses}/store`);
  return ((await response.json()) as { emails: StoredMail[] }).emails;
};
const mailsTo = async (address: string) => (await mailStore()).filter((m) => m.destination.to.includes(address));

async function waitForSend(who: ApiUser, sendId: string, timeoutMs = 30_000): Promise<MailSend> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const send = await who.json<MailSend>(`/api/mail-sends/${sendId}`);
    // Every account of the send is accounted for at every moment.
    expect(send.queued + send.sent + send.failed + send.suppressed + send.pending).toBe(send.total);
    if (send.status === 'completed' || send.status === 'failed') return send;
    if (Date.now() > deadline) throw new Error(`send ${sendId} still ${send.status}: ${JSON.stringify(send)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function projectOf(who: ApiUser, id: string): Promise<Project> {
  const found = (await who.json<Project[]>('/api/projects')).find((p) => p.id === id);
  if (!found) throw new Error(`project ${id} not listed`);
  const { notSent, ...statuses } = found.emailCounts;
  // The statuses and the accounts never e-mailed add up to the accounts, always.
  expect(Object.values(statuses).reduce((a, b) => a + b, 0) + notSent).toBe(found.accountCount);
  return found;
}
/** Accepted by SES: sent, or delivered since (the stack publishes SES's Delivery event a second after the send). */
const accepted = (counts: Project['emailCounts']) => counts.sent + counts.delivered;
const accountsOf = async (who: ApiUser, projectId: string) => (await who.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=100`)).items;

const suppress = (who: ApiUser, email: string, reason: 'bounced' | 'complained') =>
  testDb().send(new PutCommand({ TableName: 'bulkonboard', Item: { ...keys.emailSuppression(who.sub, email), entityType: 'EmailSuppression', email, reason, detail: 'smtp; 550 5.1.1 user unknown', createdAt: new Date().toISOString() } }));

describe('sending credentials through the API and the mail worker', () => {
  it('e-mails every account holder once, rendered and escaped with a text part, skips a suppressed address with the reason, and the counts add up', async () => {
    const rows = [
      { firstName: '<img src=x onerror=alert(1)>', lastName: '{{password}}', email: 'hostile.holder@example.com' },
      { firstName: 'Ann', lastName: 'Lee', email: 'ann.lee@example.com' },
      { firstName: 'Bob', lastName: 'Ray', email: 'Bounced.Bob@example.com' },
    ];
    const created = await user.json<{ project: Project; accounts: (AccountView & { plainPassword: string })[] }>('/api/bulk-create', { body: { projectName: 'Mail <Team>', csvData: rows } });
    await suppress(user, 'bounced.bob@example.com', 'bounced');

    const started = await user.call(`/api/projects/${created.project.id}/send-credentials`, { body: { scope: 'all', delivery: 'password' } });
    expect(started.status).toBe(202);
    const send = await waitForSend(user, ((await started.json()) as MailSend).id);
    expect(send).toMatchObject({ status: 'completed', total: 3, sent: 2, failed: 0, suppressed: 1, queued: 0, pending: 0, templateName: 'Built-in default' });

    const hostile = await mailsTo('hostile.holder@example.com');
    expect(hostile).toHaveLength(1);
    const mail = hostile[0]!;
    expect(mail.subject).toBe('Your Mail <Team> account at Acme <Corp> & "Sons"');
    expect(mail.body.html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(mail.body.html).not.toContain('<img src=x');
    // A value that looks like a variable stays text: the holder's own password is shown once, in its place.
    expect(mail.body.html).toContain('{{password}}');
    const password = created.accounts[0]!.plainPassword;
    expect(mail.body.html).toContain(password.replace(/&/g, '&#38;').replace(/</g, '&#60;').replace(/>/g, '&#62;').replace(/"/g, '&#34;').replace(/'/g, '&#39;'));
    expect(mail.body.text).toContain(password);
    expect(mail.body.text).toContain(created.accounts[0]!.username);
    expect(mail.body.text).not.toContain('<table');
    // The text part's heading keeps the project's name as written; a project without a platform
    // URL is told to sign in with the details, no address and no "Here is how to sign in.".
    expect(mail.body.text?.split('\n')[0]).toBe('Your Mail <Team> account is ready');
    expect(mail.body.text?.replace(/\s+/g, ' ')).toContain('has created an account for you in Mail <Team>. Sign in with the details below.');
    expect(await mailsTo('Bounced.Bob@example.com')).toHaveLength(0);

    const accounts = await accountsOf(user, created.project.id);
    const byEmail = new Map(accounts.map((a) => [a.email, a]));
    // Sent, or delivered already: the stack publishes SES's Delivery event a second after the send.
    expect(['sent', 'delivered']).toContain(byEmail.get('ann.lee@example.com')!.emailStatus);
    expect(byEmail.get('ann.lee@example.com')!.emailSentAt).toBeTruthy();
    expect(byEmail.get('Bounced.Bob@example.com')).toMatchObject({ emailStatus: 'suppressed' });
    expect(byEmail.get('Bounced.Bob@example.com')!.emailError).toContain('suppression list');
    const project = await projectOf(user, created.project.id);
    expect(accepted(project.emailCounts)).toBe(2);
    expect(project.emailCounts).toMatchObject({ suppressed: 1, notSent: 0, failed: 0, queued: 0 });
    expect(project.mailSendActive).toBeUndefined();

    // No record of the message is written (SES's events find the account by the e-mail's tags),
    // and no account item: what the send recorded lives in the project's MAIL state blocks.
    const { Item: message } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.mailMessage(mail.messageId), ConsistentRead: true }));
    expect(message).toBeUndefined();
    const { Item: item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.account(user.sub, created.project.id, 1), ConsistentRead: true }));
    expect(item).toMatchObject({ email: 'hostile.holder@example.com' });
    for (const name of ['emailStatus', 'emailMessageId', 'emailSentAt', 'mailSend', 'mailClaim', 'mailSendResult']) expect(item, name).not.toHaveProperty(name);

    // Nothing is left never sent: 'Not sent yet' has nothing to do; one account can be sent again,
    // the suppressed one only with the override.
    const unsent = await user.call(`/api/projects/${created.project.id}/send-credentials`, { body: { scope: 'unsent' } });
    expect(unsent.status).toBe(409);
    expect(((await unsent.json()) as { message: string }).message).toContain('e-mailed already');
    const bob = byEmail.get('Bounced.Bob@example.com')!;
    const again = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'account', accountId: bob.id } });
    expect(await waitForSend(user, again.id)).toMatchObject({ total: 1, sent: 0, suppressed: 1 });
    const forced = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'account', accountId: bob.id, overrideSuppression: true } });
    expect(await waitForSend(user, forced.id)).toMatchObject({ total: 1, sent: 1, suppressed: 0 });
    expect(await mailsTo('Bounced.Bob@example.com')).toHaveLength(1);
    const counts = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(counts)).toBe(3);
    expect(counts).toMatchObject({ suppressed: 0, notSent: 0 });
  });

  it("sends to those not sent yet only, and to one account with the user's default template", async () => {
    const template = await user.json<{ id: string }>('/api/email-templates', {
      method: 'POST',
      body: { name: 'Team welcome', subject: 'Hello {{accountHolderName}}', htmlContent: '<p>Hi {{accountHolderName}}, you are {{username}} / {{password}} at {{companyName}}</p>', isDefault: true },
    });
    const created = await user.json<{ project: Project; accounts: AccountView[] }>('/api/bulk-create', { body: { projectName: 'Unsent', csvData: people(3, 'Unsent') } });
    const [first] = created.accounts;
    const one = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'account', accountId: first!.id } });
    expect(one).toMatchObject({ templateId: template.id, templateName: 'Team welcome', total: 1 });
    await waitForSend(user, one.id);
    const rest = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'unsent' } });
    expect(await waitForSend(user, rest.id)).toMatchObject({ status: 'completed', total: 2, sent: 2 });
    for (const account of created.accounts) {
      const mails = await mailsTo(account.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe(`Hello ${account.firstName} ${account.lastName}`);
      expect(mails[0]!.body.html).toContain('Acme &#60;Corp&#62; &#38; &#34;Sons&#34;');
    }
    const counts = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(counts)).toBe(3);
    expect(counts).toMatchObject({ notSent: 0 });
    await user.call(`/api/email-templates/${template.id}`, { method: 'DELETE' });
  });

  it('refuses a second send while one is under way, unknown ids, bad input and the free plan, with clear messages', async () => {
    const created = await user.json<{ project: Project; accounts: AccountView[] }>('/api/bulk-create', { body: { projectName: 'Locked', csvData: people(2, 'Locked') } });
    const db = testDb();
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, created.project.id), UpdateExpression: 'SET activeMailSend = :s', ExpressionAttributeValues: { ':s': 'someone' } }));
    const locked = await user.call(`/api/projects/${created.project.id}/send-credentials`, { body: { scope: 'all' } });
    expect(locked.status).toBe(409);
    expect(((await locked.json()) as { message: string }).message).toContain('being e-mailed already');
    await db.send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, created.project.id), UpdateExpression: 'REMOVE activeMailSend' }));

    const post = (body: unknown, projectId = created.project.id, who = user) => who.call(`/api/projects/${projectId}/send-credentials`, { body });
    expect((await post({ scope: 'everyone' })).status).toBe(400);
    expect((await post({ scope: 'all', linkExpiresInDays: 31, delivery: 'link' })).status).toBe(400);
    expect((await post({ scope: 'all', overrideSuppression: true })).status).toBe(400);
    expect((await post({ scope: 'account' })).status).toBe(400);
    expect((await post({ scope: 'account', accountId: `${created.project.id}.000999` })).status).toBe(404);
    expect((await post({ scope: 'account', accountId: 'x'.repeat(250) })).status).toBe(404);
    expect((await post({ scope: 'all', templateId: 'no-such-template' })).status).toBe(404);
    expect((await post({ scope: 'failed' })).status).toBe(409);
    expect((await post({ scope: 'all' }, 'no-such-project')).status).toBe(404);
    // Another user's project and send answer as if they did not exist.
    expect((await post({ scope: 'all' }, created.project.id, other)).status).toBe(404);
    const mine = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'all' } });
    expect((await other.call(`/api/mail-sends/${mine.id}`)).status).toBe(404);
    expect((await user.call('/api/mail-sends/not-a-send')).status).toBe(404);
    await waitForSend(user, mine.id);
    // The free plan gets the Pro gate's message.
    const freeProject = await free.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Free', csvData: people(1, 'Free') } });
    const refused = await post({ scope: 'all' }, freeProject.project.id, free);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain('Upgrade to Pro');
  });

  it('bulk creation with sendCredentials e-mails the new accounts once they exist', async () => {
    const created = await user.json<{ project: Project; summary: { mailSendId?: string } }>('/api/bulk-create', {
      body: { projectName: 'Created and mailed', csvData: people(4, 'Mailed'), sendCredentials: { delivery: 'password' } },
    });
    expect(created.summary.mailSendId).toBeTruthy();
    expect(await waitForSend(user, created.summary.mailSendId!)).toMatchObject({ status: 'completed', total: 4, sent: 4 });
    for (let i = 0; i < 4; i++) expect(await mailsTo(`mailed${i}@example.com`)).toHaveLength(1);
  });

  it('with a one-time link the e-mail carries the link instead of the password, and the link reveals the credentials once', async () => {
    const created = await user.json<{ project: Project; accounts: (AccountView & { plainPassword: string })[] }>('/api/bulk-create', {
      body: { projectName: 'Linked', platformUrl: 'https://lms.example.com/login', csvData: people(1, 'Linked') },
    });
    const account = created.accounts[0]!;
    const started = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'all', delivery: 'link', linkExpiresInDays: 3 } });
    expect(started).toMatchObject({ delivery: 'link', linkExpiresInDays: 3 });
    expect(await waitForSend(user, started.id)).toMatchObject({ status: 'completed', sent: 1 });
    const [mail] = await mailsTo(account.email);
    expect(mail!.body.html).not.toContain(account.plainPassword.replace(/&/g, '&#38;'));
    expect(mail!.body.text).not.toContain(account.plainPassword);
    const url = /href="([^"]*\/credentials#[^"]+)"/.exec(mail!.body.html ?? '')?.[1];
    expect(url).toBeTruthy();
    expect(mail!.body.text).toContain(url!);
    // The sign-in address: the project's platform URL.
    expect(mail!.body.html).toContain('Sign in at <a href="https://lms.example.com/login"');
    expect(mail!.body.text?.replace(/\s+/g, ' ')).toContain('Sign in at https://lms.example.com/login with the details below.');
    const token = url!.split('#').pop()!;
    const linkCall = (path: string) =>
      fetch(`${inject('stack').urls.app}/api/credential-links/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const state = await linkCall('state');
    expect(state.status).toBe(200);
    // The page names the sender the e-mail names (the company), the project as what it is for.
    expect(await state.json()).toMatchObject({ status: 'ready', companyName: 'Acme <Corp> & "Sons"', projectName: 'Linked' });
    const revealed = await linkCall('reveal');
    expect(revealed.status).toBe(200);
    expect(await revealed.json()).toMatchObject({
      username: account.username,
      password: account.plainPassword,
      companyName: 'Acme <Corp> & "Sons"',
      projectName: 'Linked',
      platformUrl: 'https://lms.example.com/login',
    });
    const again = await linkCall('reveal');
    expect(again.status).not.toBe(200);
  });

  it("a bounce (SES's mailbox simulator) shows on the account, puts the address on the suppression list, and the next send skips it with the reason", async () => {
    const created = await user.json<{ project: Project; accounts: AccountView[] }>('/api/bulk-create', {
      body: { projectName: 'Bouncing', csvData: [{ firstName: 'Bo', lastName: 'Unce', email: 'bounce@simulator.amazonses.com' }, { firstName: 'Del', lastName: 'Ivered', email: 'success@simulator.amazonses.com' }] },
    });
    const first = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'all' } });
    expect(await waitForSend(user, first.id)).toMatchObject({ status: 'completed', sent: 2 });
    await expect
      .poll(async () => (await accountsOf(user, created.project.id)).map((a) => [a.email, a.emailStatus]).sort(), { timeout: 20_000, interval: 250 })
      .toEqual([['bounce@simulator.amazonses.com', 'bounced'], ['success@simulator.amazonses.com', 'delivered']]);
    expect((await projectOf(user, created.project.id)).emailCounts).toMatchObject({ bounced: 1, delivered: 1, sent: 0, notSent: 0 });
    const bounced = (await accountsOf(user, created.project.id)).find((a) => a.emailStatus === 'bounced')!;
    const again = await user.json<MailSend>(`/api/projects/${created.project.id}/send-credentials`, { method: 'POST', body: { scope: 'account', accountId: bounced.id } });
    expect(await waitForSend(user, again.id)).toMatchObject({ total: 1, sent: 0, suppressed: 1 });
    const skipped = (await accountsOf(user, created.project.id)).find((a) => a.id === bounced.id)!;
    expect(skipped).toMatchObject({ emailStatus: 'suppressed' });
    expect(skipped.emailError).toContain('bounced');
    expect((await projectOf(user, created.project.id)).emailCounts).toMatchObject({ bounced: 0, suppressed: 1, delivered: 1 });
  });

  it('a bulk creation that becomes a job: the send waits for the accounts, then e-mails every one of them once', async () => {
    const rows = people(1001, 'Queued');
    const created = await user.call('/api/bulk-create', { body: { projectName: 'Queued and mailed', csvData: rows, sendCredentials: {} } });
    expect(created.status).toBe(202);
    const { project, summary } = (await created.json()) as { project: Project; summary: { mailSendId?: string } };
    expect(summary.mailSendId).toBeTruthy();
    expect((await user.json<MailSend>(`/api/mail-sends/${summary.mailSendId}`)).status).toBe('waiting');
    // 1,001 e-mails at the default 14 a second take 72 s at the least; the rest is the shared machine's.
    const send = await waitForSend(user, summary.mailSendId!, 150_000);
    expect(send).toMatchObject({ status: 'completed', total: 1001, sent: 1001, failed: 0 });
    const counts = (await projectOf(user, project.id)).emailCounts;
    expect(accepted(counts)).toBe(1001);
    expect(counts.notSent).toBe(0);
    const store = await mailStore();
    const perAddress = new Map<string, number>();
    for (const mail of store) for (const to of mail.destination.to) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    expect(rows.filter((row) => perAddress.get(row.email) !== 1)).toEqual([]);
  }, 180_000);
});

describe('the chunk step replayed (redelivered queue messages)', () => {
  const stack = () => inject('stack');
  let deps: SendChunkDeps;
  const queued: CredentialsMessage[] = [];
  const ses = () => new SESv2Client({ region: 'us-east-1', endpoint: stack().urls.ses, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  let client: SESv2Client;

  beforeAll(() => {
    client = ses();
    const cipher = aesGcmCipher(keyRingFromSecret(readFileSync(path.join(stack().dataDir, 'encryption.key'), 'utf8')));
    deps = {
      db: testDb(),
      tableName: 'bulkonboard',
      queue: { send: async (messages) => void queued.push(...messages) },
      now: () => new Date(),
      cipher: async () => cipher,
      mailer: sesCredentialMailer(client, 'no-reply@bulkonboard.local'),
      tools: serverRenderTools,
      rate: () => 0,
      workers: 2,
    };
  });
  const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack().urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  afterAll(() => {
    client?.destroy();
    sqs.destroy();
  });

  /** A send started and planned as the route and the first message do; its chunk messages. */
  async function plannedSend(projectId: string, body: unknown, chunkAccounts?: number) {
    queued.length = 0;
    const start = startSend({ ...deps, newId: timeOrderedId, plan: async () => 'pro', linksAvailable: false });
    const send = await start(user.sub, projectId, sendCredentialsSchema.parse(body));
    await planSend({ ...deps, ...(chunkAccounts ? { chunkAccounts: () => chunkAccounts } : {}) })(user.sub, send.id);
    // Every chunk of the plan (the queue was given its first window: MAIL_WINDOW).
    return { send, chunks: planOf((await readSend(deps, user.sub, send.id))!) };
  }
  /** A delivery of the chunk that dies right after SES took its second e-mail, before recording it. */
  async function diesAfterSecondEmail(chunk: CredentialsChunkMessage) {
    let calls = 0;
    const real = deps.mailer;
    const crashing: CredentialMailer = {
      async send(email, tags) {
        const outcome = await real.send(email, tags);
        if (++calls === 2) throw new Error('worker killed');
        return outcome;
      },
    };
    await expect(sendChunk({ ...deps, mailer: crashing, concurrency: 1 })(chunk)).rejects.toThrow('worker killed');
  }
  const queuedChunks = () => queued.filter((m): m is CredentialsChunkMessage => typeof m.chunk === 'number').map((m) => m.chunk);

  it("takes turns on the shared mail queue: a window of the send's chunks, each chunk done releasing the next once", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Turns', csvData: people(250, 'Turns') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'all' }, 50);
    expect(chunks).toHaveLength(5);
    expect(MAIL_WINDOW).toBe(2);
    expect(queuedChunks()).toEqual([0, 1]);
    const run = sendChunk(deps);
    await run(chunks[0]!);
    expect(queuedChunks()).toEqual([0, 1, 2]);
    // Redelivered once done: nothing released twice.
    await run(chunks[0]!);
    expect(queuedChunks()).toEqual([0, 1, 2]);
    for (const chunk of chunks.slice(1)) await run(chunk);
    expect(queuedChunks()).toEqual([0, 1, 2, 3, 4]);
    const perAddress = new Map<string, number>();
    for (const mail of await mailStore()) for (const to of mail.destination.to) if (to.startsWith('turns')) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    expect(perAddress.size).toBe(250);
    expect([...perAddress.values()].every((n) => n === 1)).toBe(true);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'completed', total: 250, sent: 250, failed: 0 });
  });

  it('the same chunk delivered three times (two at once) sends each e-mail once and counts it once', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Replayed', csvData: people(12, 'Replay') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'all' });
    expect(chunks).toHaveLength(1);
    const run = sendChunk(deps);
    await Promise.all([run(chunks[0]!), run(chunks[0]!)]);
    await run(chunks[0]!);
    // The copy that found the chunk held was put back on the queue; delivered again, it sends nothing.
    for (const copy of queued.filter((m) => m.chunk === 0)) await run(copy as CredentialsChunkMessage);
    for (let i = 0; i < 12; i++) expect(await mailsTo(`replay${i}@example.com`)).toHaveLength(1);
    const done = sendView((await readSend(deps, user.sub, send.id))!);
    expect(done).toMatchObject({ status: 'completed', total: 12, sent: 12, failed: 0 });
    const counts = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(counts)).toBe(12);
    expect(counts).toMatchObject({ notSent: 0 });
  });

  it('chunks sized by the plan (200 accounts) cover every account once, and each chunk delivered twice at once sends each e-mail once', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Large chunks', csvData: people(250, 'Large') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'all' }, 200);
    expect(chunks.map((c) => [c.fromRow, c.toRow])).toEqual([
      [1, 200],
      [201, 250],
    ]);
    expect((await readSend(deps, user.sub, send.id))?.chunkAccounts).toBe(200);
    const run = sendChunk(deps);
    await Promise.all(chunks.flatMap((chunk) => [run(chunk), run(chunk)]));
    for (const copy of queued.filter((m): m is CredentialsChunkMessage => typeof m.chunk === 'number').slice(chunks.length)) await run(copy);
    const perAddress = new Map<string, number>();
    for (const mail of await mailStore()) for (const to of mail.destination.to) if (to.startsWith('large')) perAddress.set(to, (perAddress.get(to) ?? 0) + 1);
    expect(perAddress.size).toBe(250);
    expect([...perAddress.values()].every((n) => n === 1)).toBe(true);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'completed', total: 250, sent: 250, failed: 0 });
    expect(accepted((await projectOf(user, created.project.id)).emailCounts)).toBe(250);
  });

  it('a delivery that read the chunk before another one recorded e-mails (its lease taken after that one gave the chunk back) sends none of them again: it stops, and the next delivery sends the rest once', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Stale reads', csvData: people(40, 'Stale') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'all' });
    // Delivery A: its lease request is held back until delivery B has run; its reads are not.
    let releaseLease!: () => void;
    const leaseHeld = new Promise<void>((resolve) => (releaseLease = resolve));
    const leaseKey = keys.mailSendChunk(user.sub, send.id, chunks[0]!.chunk);
    let reads = 0;
    let inFlight = 0;
    const slowLease = {
      send: async (command: { input: { Key?: { SK?: string } } }) => {
        if (command instanceof UpdateCommand && command.input.Key?.SK === leaseKey.SK) {
          await leaseHeld;
          return deps.db.send(command as never);
        }
        inFlight++;
        try {
          return await deps.db.send(command as never);
        } finally {
          inFlight--;
          reads++;
        }
      },
    } as unknown as SendChunkDeps['db'];
    const a = sendChunk({ ...deps, db: slowLease })(chunks[0]!);
    // A's reads (the chunk's marker and send, then its accounts, block and the suppression list: nothing claimed yet) are done before B starts.
    await expect.poll(() => inFlight === 0 && reads >= 5, { timeout: 10_000, interval: 20 }).toBe(true);
    // Delivery B sends 5 e-mails, then SES throttles it past its budget: it records the 5, gives the lease back and requeues the rest.
    let calls = 0;
    const throttledAfterFive: CredentialMailer = {
      send: async (email, tags) => (++calls <= 5 ? deps.mailer.send(email, tags) : { kind: 'throttled', message: 'Maximum sending rate exceeded.' }),
    };
    await sendChunk({ ...deps, mailer: throttledAfterFive, concurrency: 1, budgetMs: 1500, random: () => 0 })(chunks[0]!);
    const requeued = queued.filter((m): m is CredentialsChunkMessage => m.chunk === chunks[0]!.chunk && m.requeues === 1);
    expect(requeued).toHaveLength(1);
    releaseLease();
    // A takes the lease now, with what it read before B's writes: its claim finds B's block changed.
    await expect(a).rejects.toThrow('An account state block was written by another delivery');
    await sendChunk(deps)(requeued[0]!);
    for (let i = 0; i < 40; i++) expect(await mailsTo(`stale${i}@example.com`)).toHaveLength(1);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'completed', total: 40, sent: 40, failed: 0 });
    expect(accepted((await projectOf(user, created.project.id)).emailCounts)).toBe(40);
  });

  it('a chunk that failed every delivery is given up by the dead-letter worker: its accounts fail with the reason, the next chunk goes on, the send ends and adds up', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Dead letter', csvData: people(120, 'Dead') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'all' }, 50);
    expect(chunks).toHaveLength(3);
    // Every delivery of chunk 0 dies right after SES took its second e-mail (before recording it).
    await diesAfterSecondEmail(chunks[0]!);
    // The dead-letter worker has no mailer, renderer or link issuer (credentialRecordDeps: its bundle holds no SES client).
    const sendsNothing = (): never => {
      throw new Error('the dead-letter worker sends nothing');
    };
    const deadDeps: SendChunkDeps = { ...deps, mailer: { send: async () => sendsNothing() }, tools: { sanitize: sendsNothing, toText: sendsNothing }, issueLink: undefined };
    await recordDeadCredentials(deadDeps)(chunks[0]!);
    // Nothing sent twice, nobody else of the chunk sent; its successor (chunk 2) released.
    expect((await Promise.all([0, 1, 2].map((i) => mailsTo(`dead${i}@example.com`)))).map((m) => m.length)).toEqual([1, 1, 0]);
    expect(queuedChunks()).toEqual([0, 1, 2]);
    for (const chunk of chunks.slice(1)) await sendChunk(deps)(chunk);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'completed', total: 120, sent: 71, failed: 49, pending: 0 });
    const accounts = await accountsOf(user, created.project.id);
    const failed = accounts.filter((a) => a.emailStatus === 'failed');
    expect(failed.filter((a) => a.emailError === INTERRUPTED_MESSAGE)).toHaveLength(1);
    expect(failed.filter((a) => a.emailError === STOPPED_ON_OUR_SIDE)).toHaveLength(48);
    const counts = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(counts)).toBe(71);
    expect(counts).toMatchObject({ failed: 49, notSent: 0 });

    // A send whose first message failed every delivery, before it planned anything, fails and frees the project.
    // Started as the route starts it, its first message kept here (not on the stack's queue, whose worker would plan it).
    const started = await startSend({ ...deps, newId: timeOrderedId, plan: async () => 'pro', linksAvailable: false })(user.sub, created.project.id, sendCredentialsSchema.parse({ scope: 'failed' }));
    expect(started.status).toBe('queued');
    await recordDeadCredentials(deadDeps)({ type: 'credentials', userId: user.sub, sendId: started.id });
    expect(sendView((await readSend(deps, user.sub, started.id))!)).toMatchObject({ status: 'failed' });
    const { Item: project } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, created.project.id), ConsistentRead: true }));
    expect(project?.activeMailSend).toBeUndefined();
  });

  it('a delivery that died after SES took an e-mail does not send it again: the account fails with the reason; Resend failed sends it and a refusal keeps SES\'s words', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Interrupted', csvData: people(3, 'Crash') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'all' });
    // The worker dies right after SES accepted its second e-mail (before recording it).
    await diesAfterSecondEmail(chunks[0]!);
    await sendChunk(deps)(chunks[0]!);
    const total = (await Promise.all([0, 1, 2].map((i) => mailsTo(`crash${i}@example.com`)))).map((m) => m.length);
    expect(total).toEqual([1, 1, 1]);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'completed', total: 3, sent: 2, failed: 1 });
    const failed = (await accountsOf(user, created.project.id)).find((a) => a.emailStatus === 'failed')!;
    expect(failed.emailError).toBe(INTERRUPTED_MESSAGE);
    const counts = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(counts)).toBe(2);
    expect(counts).toMatchObject({ failed: 1, notSent: 0 });

    // Resend failed: SES refuses it permanently this time (an AWS-only answer: the emulator takes everything).
    const refusing: CredentialMailer = { send: async () => ({ kind: 'refused', message: 'Email address is not verified. The following identities failed the check: crash' }) };
    const retry = await plannedSend(created.project.id, { scope: 'failed' });
    expect(retry.send.total).toBe(1);
    await sendChunk({ ...deps, mailer: refusing })(retry.chunks[0]!);
    const refused = (await accountsOf(user, created.project.id)).find((a) => a.id === failed.id)!;
    expect(refused).toMatchObject({ emailStatus: 'failed', emailError: 'Email address is not verified. The following identities failed the check: crash' });
    const resend = await plannedSend(created.project.id, { scope: 'failed' });
    await sendChunk(deps)(resend.chunks[0]!);
    expect(sendView((await readSend(deps, user.sub, resend.send.id))!)).toMatchObject({ status: 'completed', total: 1, sent: 1 });
    const after = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(after)).toBe(3);
    expect(after).toMatchObject({ failed: 0, notSent: 0 });
    expect(await mailsTo(failed.email)).toHaveLength(2);
  });

  it("SES's events find the account by the e-mail's tags; an event about an earlier send's e-mail that comes after a newer send took the account changes nothing, and the counters add up", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', {
      body: { projectName: 'Tagged events', csvData: [{ firstName: 'Suc', lastName: 'Cess', email: 'success+tagged@simulator.amazonses.com' }, { firstName: 'Bo', lastName: 'Unce', email: 'bounce+tagged@simulator.amazonses.com' }] },
    });
    const projectId = created.project.id;
    const first = await plannedSend(projectId, { scope: 'all' });
    await sendChunk(deps)(first.chunks[0]!);
    // The stack publishes SES's events (with the tags SendEmail had) a second after each send.
    await expect
      .poll(async () => (await accountsOf(user, projectId)).map((a) => [a.email, a.emailStatus]).sort(), { timeout: 20_000, interval: 250 })
      .toEqual([['bounce+tagged@simulator.amazonses.com', 'bounced'], ['success+tagged@simulator.amazonses.com', 'delivered']]);
    const bounced = (await accountsOf(user, projectId)).find((a) => a.emailStatus === 'bounced')!;
    expect(bounced.emailError).toBe('smtp; 550 5.1.1 user unknown');
    expect((await user.json<{ email: string }[]>('/api/email-suppressions')).map((s) => s.email)).toContain('bounce+tagged@simulator.amazonses.com');
    expect((await projectOf(user, projectId)).emailCounts).toMatchObject({ delivered: 1, bounced: 1, sent: 0, notSent: 0 });
    const firstMessage = (await accountsPageInOrder(testDb(), 'bulkonboard', { userId: user.sub, projectId, shards: 1 }, 10, undefined, { consistent: true })).items.find((a) => a.row === 1)!.emailMessageId as string;

    // A second send takes both accounts (the bounced address is suppressed now); its e-mail is delivered.
    const second = await plannedSend(projectId, { scope: 'all' });
    await sendChunk(deps)(second.chunks[0]!);
    await expect.poll(async () => (await accountsOf(user, projectId)).find((a) => a.email === 'success+tagged@simulator.amazonses.com')?.emailStatus, { timeout: 20_000, interval: 250 }).toBe('delivered');
    // The first e-mail's Bounce comes late, tagged as SendEmail tagged it: the account stays the second e-mail's.
    const { outcomes } = sesEventsOf(
      { messageId: firstMessage, from: 'no-reply@bulkonboard.local', to: ['bounce@simulator.amazonses.com'], subject: 'Late', at: new Date(), tags: mailTags({ userId: user.sub, projectId, row: 1, shards: 1, sendId: first.send.id }) },
      new Date(),
    );
    // (The mailbox simulator's Bounce record, made about the holder's own address.)
    const late = JSON.parse(JSON.stringify(outcomes[0]).replaceAll('bounce@simulator.amazonses.com', 'success+tagged@simulator.amazonses.com')) as SesEventRecord;
    await sqs.send(new SendMessageCommand({ QueueUrl: stack().queueUrls['mail-events'], MessageBody: JSON.stringify(snsEnvelope(late, new Date())) }));
    await expect.poll(async () => (await user.json<{ email: string }[]>('/api/email-suppressions')).map((s) => s.email), { timeout: 20_000, interval: 250 }).toContain('success+tagged@simulator.amazonses.com');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await accountsOf(user, projectId)).map((a) => [a.email, a.emailStatus]).sort()).toEqual([
      ['bounce+tagged@simulator.amazonses.com', 'suppressed'],
      ['success+tagged@simulator.amazonses.com', 'delivered'],
    ]);
    expect((await projectOf(user, projectId)).emailCounts).toMatchObject({ delivered: 1, suppressed: 1, bounced: 0, sent: 0, notSent: 0 });
  });

  it("SES's events of a batch applied together (one read, one transaction): every account moves once, the counters with them, and the same events again change nothing", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Batched events', csvData: people(30, 'Batched') } });
    const projectId = created.project.id;
    const { send, chunks } = await plannedSend(projectId, { scope: 'all' });
    for (const chunk of chunks) await sendChunk(deps)(chunk);
    // The stack's events worker applies the Deliveries in batches of up to 10.
    await expect.poll(async () => (await projectOf(user, projectId)).emailCounts, { timeout: 30_000, interval: 250 }).toMatchObject({ delivered: 30, sent: 0, notSent: 0 });
    const items = (await accountsPageInOrder(testDb(), 'bulkonboard', { userId: user.sub, projectId, shards: 1 }, 100, undefined, { consistent: true })).items;
    expect(items.map((a) => a.emailStatus)).toEqual(Array(30).fill('delivered'));
    // Then a Transient bounce of each (no suppression: the batch path), applied here in batches of 10 as the worker gets them.
    const requests = new Map<string, number>();
    const counted = { send: (command: { constructor: { name: string } }) => (requests.set(command.constructor.name, (requests.get(command.constructor.name) ?? 0) + 1), testDb().send(command as never)) } as unknown as ReturnType<typeof testDb>;
    const apply = applyMailEvents({ store: dynamoMailEventStore(counted, 'bulkonboard'), log: { info: () => undefined, warn: () => undefined }, now: () => new Date() });
    const bounces = items.map((account) => {
      const { outcomes } = sesEventsOf(
        { messageId: String(account.emailMessageId), from: 'no-reply@bulkonboard.local', to: ['bounce@simulator.amazonses.com'], subject: 'S', at: new Date(), tags: mailTags({ userId: user.sub, projectId, row: Number(account.row), shards: 1, sendId: send.id }) },
        new Date(),
      );
      const record = JSON.parse(JSON.stringify(outcomes[0]).replaceAll('bounce@simulator.amazonses.com', String(account.email))) as { bounce: { bounceType: string } };
      record.bounce.bounceType = 'Transient';
      return sesEventOf(JSON.parse(JSON.stringify(snsEnvelope(record as unknown as SesEventRecord, new Date()))));
    });
    for (let i = 0; i < bounces.length; i += 10) expect(await apply(bounces.slice(i, i + 10))).toEqual(Array(10).fill('moved'));
    // Each batch of 10: one read of its accounts and blocks, one transaction (alone: 20 reads and 10 transactions).
    expect(Object.fromEntries(requests)).toEqual({ BatchGetCommand: 3, TransactWriteCommand: 3 });
    expect((await projectOf(user, projectId)).emailCounts).toMatchObject({ delivered: 0, bounced: 30, sent: 0, notSent: 0 });
    // Redelivered: nothing moves again, nothing counts twice; a batch with a copy of one of its own events too.
    for (let i = 0; i < bounces.length; i += 10) expect(await apply([...bounces.slice(i, i + 10), bounces[i]!])).toEqual(Array(11).fill('unchanged'));
    expect((await projectOf(user, projectId)).emailCounts).toMatchObject({ delivered: 0, bounced: 30, sent: 0, notSent: 0 });
    expect((await accountsOf(user, projectId)).map((a) => a.emailStatus)).toEqual(Array(30).fill('bounced'));
    expect((await user.json<{ email: string }[]>('/api/email-suppressions')).map((s) => s.email).filter((e) => e.startsWith('batched'))).toEqual([]);
  });

  it("SES taking no e-mail for now (daily quota used) pauses the send with the reason and when it tries again: no account fails, the chunk waits 15 minutes off the requeue count, and the next delivery sends each e-mail once and clears the pause (issue 29, item 2)", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Quota', csvData: people(3, 'Quota') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'unsent' });
    queued.length = 0;
    // The first e-mail goes; then SES's daily quota is used (an AWS-only answer: the emulator has no quota).
    let calls = 0;
    const quotaAfterOne: CredentialMailer = {
      send: async (email, tags) => (++calls <= 1 ? deps.mailer.send(email, tags) : { kind: 'paused', reason: 'quota', message: 'Daily message quota exceeded.' }),
    };
    const delays: (number | undefined)[] = [];
    const queue = { send: async (messages: CredentialsMessage[], delay?: number) => void (queued.push(...messages), delays.push(delay)) };
    await sendChunk({ ...deps, queue, mailer: quotaAfterOne, concurrency: 1 })(chunks[0]!);
    const waiting = queued.filter((m): m is CredentialsChunkMessage => m.chunk === 0);
    expect(waiting).toEqual([{ ...chunks[0], pauses: 1 }]);
    expect(delays).toEqual([900]);
    const midway = sendView((await readSend(deps, user.sub, send.id))!);
    expect(midway).toMatchObject({ status: 'running', sent: 0, failed: 0, queued: 3, paused: { reason: 'quota', detail: 'Daily message quota exceeded.' } });
    expect(Date.parse(midway.paused!.resumesAt)).toBeGreaterThan(Date.now());
    // No account failed, none is left claimed; the one SES took is sent.
    expect((await accountsOf(user, created.project.id)).map((a) => a.emailStatus ?? 'none').sort()).toEqual(['none', 'none', 'sent']);
    // The API shows the pause too.
    expect((await user.json<{ paused?: unknown }>(`/api/mail-sends/${send.id}`)).paused).toMatchObject({ reason: 'quota' });

    await sendChunk(deps)(waiting[0]!);
    for (let i = 0; i < 3; i++) expect(await mailsTo(`quota${i}@example.com`)).toHaveLength(1);
    const done = sendView((await readSend(deps, user.sub, send.id))!);
    expect(done).toMatchObject({ status: 'completed', sent: 3, failed: 0 });
    expect(done.paused).toBeUndefined();
  });

  it("a customer whose recent e-mails bounce over the cut-off has its sends paused with the reason and a notification (once a day), no account failing; once the rate falls the next delivery sends each e-mail once (issue 29, item 2)", async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Bouncy', csvData: people(3, 'Bouncy') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'unsent' });
    queued.length = 0;
    // 300 e-mails yesterday and today, 30 of them bounced (10%), as the SES events worker counts them.
    const now = Date.now();
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    await testDb().send(new PutCommand({ TableName: 'bulkonboard', Item: { ...keys.mailDay(user.sub, day(now - 86_400_000)), entityType: 'MailDay', sent: 200 } }));
    await testDb().send(new PutCommand({ TableName: 'bulkonboard', Item: { ...keys.mailDay(user.sub, day(now)), entityType: 'MailDay', sent: 100 } }));
    await countBounces({ db: testDb(), tableName: 'bulkonboard' }, bouncesByCustomer(
      [0, 1, 2].map((i) => sesEventOf(JSON.parse(JSON.stringify(snsEnvelope({ eventType: 'Bounce', mail: { messageId: `b${i}`, tags: { userId: [user.sub] } } } as unknown as SesEventRecord, new Date()))))),
      ['moved', 'moved', 'unchanged'],
    ), now);
    await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.mailDay(user.sub, day(now)), UpdateExpression: 'ADD bounced :more', ExpressionAttributeValues: { ':more': 28 } }));
    expect(await recentBounceRate({ db: testDb(), tableName: 'bulkonboard' }, user.sub, now)).toEqual({ sent: 300, bounced: 30, rate: 0.1 });
    const limits = () => ({ dailyCap: 0, reservedShare: 0, bounceCutoff: 0.05 });
    await sendChunk({ ...deps, limits })(chunks[0]!);
    const midway = sendView((await readSend(deps, user.sub, send.id))!);
    expect(midway).toMatchObject({ status: 'running', sent: 0, failed: 0, queued: 3, paused: { reason: 'bounces', detail: '10.0% of your 300 e-mails of the last two days bounced (the limit is 5.0%).' } });
    expect(queued.filter((m) => m.chunk === 0)).toEqual([{ ...chunks[0], pauses: 1 }]);
    expect((await accountsOf(user, created.project.id)).map((a) => a.emailStatus ?? 'none')).toEqual(['none', 'none', 'none']);
    for (let i = 0; i < 3; i++) expect(await mailsTo(`bouncy${i}@example.com`)).toHaveLength(0);
    // The user is told, once a day however many deliveries find it so.
    await sendChunk({ ...deps, limits })({ ...chunks[0]!, pauses: 1 });
    const told = (await user.json<{ notifications: { title: string; body: string }[] }>('/api/notifications')).notifications.filter((n) => n.title === 'Credential e-mails paused: too many bounces');
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toContain('10.0% of your 300 e-mails');
    // The rate falls (more sent without bounces): the next delivery sends each e-mail once and clears the pause.
    await testDb().send(new UpdateCommand({ TableName: 'bulkonboard', Key: keys.mailDay(user.sub, day(now)), UpdateExpression: 'ADD sent :more', ExpressionAttributeValues: { ':more': 500 } }));
    await sendChunk({ ...deps, limits })({ ...chunks[0]!, pauses: 2 });
    for (let i = 0; i < 3; i++) expect(await mailsTo(`bouncy${i}@example.com`)).toHaveLength(1);
    const done = sendView((await readSend(deps, user.sub, send.id))!);
    expect(done).toMatchObject({ status: 'completed', sent: 3, failed: 0 });
    expect(done.paused).toBeUndefined();
  });

  it('an e-mail SES keeps throttling past the delivery\'s budget is given back, not lost: the chunk goes back on the queue and its next delivery sends it once', async () => {
    const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Throttled', csvData: people(2, 'Throttle') } });
    const { send, chunks } = await plannedSend(created.project.id, { scope: 'unsent' });
    queued.length = 0;
    // SES answers 429 to everything (an AWS-only answer: the emulator has no quota).
    const throttling: CredentialMailer = { send: async () => ({ kind: 'throttled', message: 'Maximum sending rate exceeded.' }) };
    await sendChunk({ ...deps, mailer: throttling, budgetMs: 1500, random: () => 0 })(chunks[0]!);
    const requeued = queued.filter((m): m is CredentialsChunkMessage => m.chunk === 0);
    expect(requeued).toEqual([{ ...chunks[0], requeues: 1 }]);
    const midway = await accountsOf(user, created.project.id);
    // Nothing is left claimed: the accounts are as they were (never sent), and nothing is counted yet.
    expect(midway.map((a) => a.emailStatus)).toEqual([undefined, undefined]);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'running', sent: 0, failed: 0, queued: 2 });
    await sendChunk(deps)(requeued[0]!);
    for (let i = 0; i < 2; i++) expect(await mailsTo(`throttle${i}@example.com`)).toHaveLength(1);
    expect(sendView((await readSend(deps, user.sub, send.id))!)).toMatchObject({ status: 'completed', sent: 2 });
    const counts = (await projectOf(user, created.project.id)).emailCounts;
    expect(accepted(counts)).toBe(2);
    expect(counts).toMatchObject({ notSent: 0 });
  });
});
