import { SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import type { CredentialMailer } from '../../functions/mail/credential-mailer';
import { serverRenderTools } from '../../functions/mail/render-tools';
import { sqsMailSender } from '../../functions/mail/sqs-mail-queue';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { sweepExpiredProjects } from '../../functions/schedules/sweep-expired-projects';
import { applyMailEvent } from '../../functions/mail-events/apply-mail-event';
import { dynamoMailEventStore } from '../../functions/mail-events/mail-event-store';
import type { SesEvent } from '../../functions/mail-events/ses-event';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { AccountHistoryPage } from '../../shared/schemas/account-edit';
import type { EmailSuppression } from '../../shared/schemas/email-suppressions';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { expiryReminders } from '../../functions/schedules/expiry-reminder-job';
import { reminderRunner } from '../support/expiry';
import { until } from '../support/until';

/**
 * Expiry reminders (docs/lifecycle.md, "Expiry reminders"): 'Remind account holders N days before'
 * set in the project's Edit, found by the hourly expiry sweep (called here with the clock moved,
 * never waited for), e-mailed by the stack's mail worker to the SES emulator: once per account,
 * only to active accounts, moved with the date, off when turned off. Each test uses dates of its
 * own year, so one test's sweep finds no other test's reminder due.
 */
const TABLE = 'bulkonboard';
const stack = inject('stack');
const db = testDb();
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const sweepAt = (at: string) =>
  sweepExpiredProjects({
    db,
    tableName: TABLE,
    queue: sqsProvisioningQueue(sqs, stack.queueUrls.provisioning!),
    mail: sqsMailSender(sqs, stack.queueUrls.mail!),
    now: () => new Date(at),
    newId: timeOrderedId,
    integrationName: async () => undefined,
  })();

type Mail = { destination: { to: string[] }; subject: string; body: { text?: string } };
const mailsTo = async (addresses: string[]) => ((await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: Mail[] }).emails.filter((m) => m.destination.to.some((to) => addresses.includes(to)));
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;
const edit = (user: ApiUser, project: Project, body: Record<string, unknown>) =>
  user.call(`/api/projects/${project.id}`, { method: 'PUT', body: { name: project.name, accountType: project.accountType, expirationDate: project.expirationDate, ...body } });
/** The reminder entries of the expiry index that name a project. */
async function waiting(projectId: string): Promise<string[]> {
  const { Items = [] } = await db.send(new QueryCommand({ TableName: TABLE, IndexName: 'ProjectsByExpiry', KeyConditionExpression: 'ExpiryPK = :pk', ExpressionAttributeValues: { ':pk': 'REMIND' } }));
  return Items.map((i) => String(i.ExpirySK)).filter((sk) => sk.endsWith(`#${projectId}`));
}
/** A reminder's start run here to its job's end, with a mailer that counts (as the mail worker runs it). */
function walkCounting(now: string) {
  const sent: string[] = [];
  const tags: Record<string, string>[] = [];
  const prefix = timeOrderedId(new Date());
  const mailer: CredentialMailer = { send: async (email, tagged) => (sent.push(email.to), tags.push(tagged), { kind: 'sent', messageId: `${prefix}-${sent.length}` }) };
  const walk = reminderRunner({ mailer, tools: serverRenderTools, now: () => new Date(now), rate: () => 0 });
  return { sent, tags, walk };
}

/** A new user's project of three accounts that expires on `date`, reminding one day before. */
async function remindingProject(projectName: string, date: string, person: string): Promise<{ owner: ApiUser; project: Project }> {
  const owner = await apiUser();
  const project = (await owner.json<{ project: Project }>('/api/bulk-create', { body: { projectName, expirationDate: date, csvData: people(3, person) } })).project;
  await until('the accounts', () => accountsOf(owner, project.id), (list) => list.length === 3);
  expect((await edit(owner, project, { reminderDays: 1 })).status).toBe(200);
  return { owner, project };
}

describe('expiry reminders', () => {
  let user: ApiUser;
  let project: Project;
  let accounts: AccountView[];

  beforeAll(async () => {
    user = await apiUser();
    project = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminder one', expirationDate: '2041-05-20', csvData: people(3, 'Remindone') } })).project;
    accounts = await until('the accounts', () => accountsOf(user, project.id), (list) => list.length === 3);
    // One account is deactivated: it gets no reminder.
    const started = await user.json<{ job: { id: string } }>(`/api/projects/${project.id}/account-actions`, { body: { action: 'deactivate', accountIds: [accounts[2]!.id] } });
    await until('the deactivation', () => user.json<{ status: string }>(`/api/account-actions/${started.job.id}`), (job) => job.status === 'completed', 60_000);
  });

  it('is off by default; N days before is set in the Edit (1 to 90, null turns it off) and waits in the index under its day', async () => {
    expect(project.reminderDays).toBeUndefined();
    expect(project.remindersSent).toBeUndefined();
    expect(await waiting(project.id)).toEqual([]);
    for (const bad of [0, 91, 2.5, 'three']) expect((await edit(user, project, { reminderDays: bad })).status, String(bad)).toBe(400);
    const answer = await edit(user, project, { reminderDays: 3 });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as Project).reminderDays).toBe(3);
    expect(await waiting(project.id)).toEqual([`2041-05-17#${user.sub}#${project.id}`]);
    // Another user's project: 404, nothing changed.
    const other = await apiUser();
    expect((await other.call(`/api/projects/${project.id}`, { method: 'PUT', body: { name: 'x', accountType: project.accountType, reminderDays: 5 } })).status).toBe(404);
    expect(await waiting(project.id)).toEqual([`2041-05-17#${user.sub}#${project.id}`]);
  });

  it('e-mails each active account with an address once on its day (not the day before), with the date; a second sweep and a redelivered walk send nothing', async () => {
    const addresses = accounts.map((a) => a.email);
    const before = await sweepAt('2041-05-16T23:30:00Z');
    expect(before.reminders?.started.filter((s) => s.projectId === project.id)).toEqual([]);
    expect(await waiting(project.id)).toHaveLength(1);

    const due = await sweepAt('2041-05-17T00:30:00Z');
    expect(due.reminders?.started.filter((s) => s.projectId === project.id)).toHaveLength(1);
    expect(await waiting(project.id)).toEqual([]);
    const mails = await until('the reminders', () => mailsTo(addresses), (found) => found.length >= 2);
    expect(mails.map((m) => m.destination.to[0]).sort()).toEqual(addresses.slice(0, 2).sort());
    expect(mails[0]!.subject).toBe('Your Reminder one account expires on 20 May 2041');
    expect(mails[0]!.body.text).toContain('will be deactivated on 20 May 2041');

    expect((await sweepAt('2041-05-18T00:30:00Z')).reminders?.started.filter((s) => s.projectId === project.id)).toEqual([]);
    const { sent, walk } = walkCounting('2041-05-17T01:00:00Z');
    await walk({ type: 'expiry-reminder', userId: user.sub, projectId: project.id, expirationDate: '2041-05-20', days: 3, shard: 0, afterRow: 0 });
    expect(sent).toEqual([]);
    // Each account's claim records what SES said.
    const claim = (await db.send(new GetCommand({ TableName: TABLE, Key: keys.reminderSent(user.sub, project.id, '2041-05-20', 1), ConsistentRead: true }))).Item;
    expect(claim).toMatchObject({ result: 'sent' });
    expect((await mailsTo(addresses)).length).toBe(2);
    // The project counts the reminders sent (the project page shows it), once each.
    expect((await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id)?.remindersSent).toBe(2);
  });

  it('moves with the date: a later date cancels the reminder of the earlier one (its walk stops) and waits for its own day; turned off, it leaves the index', async () => {
    const second = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminder two', expirationDate: '2042-01-10', csvData: people(2, 'Remindtwo') } })).project;
    expect((await edit(user, second, { reminderDays: 5 })).status).toBe(200);
    expect(await waiting(second.id)).toEqual([`2042-01-05#${user.sub}#${second.id}`]);
    const moved = await edit(user, second, { expirationDate: '2042-02-10' });
    expect(moved.status).toBe(200);
    expect(await waiting(second.id)).toEqual([`2042-02-05#${user.sub}#${second.id}`]);
    // The old day: nothing due; a walk of the old date (queued before the edit) sends nothing.
    expect((await sweepAt('2042-01-06T12:00:00Z')).reminders?.started.filter((s) => s.projectId === second.id)).toEqual([]);
    const old = walkCounting('2042-01-06T12:00:00Z');
    await old.walk({ type: 'expiry-reminder', userId: user.sub, projectId: second.id, expirationDate: '2042-01-10', days: 5, shard: 0, afterRow: 0 });
    expect(old.sent).toEqual([]);
    // The new day, the walk of the new date: both accounts.
    const current = walkCounting('2042-02-05T12:00:00Z');
    await current.walk({ type: 'expiry-reminder', userId: user.sub, projectId: second.id, expirationDate: '2042-02-10', days: 5, shard: 0, afterRow: 0 });
    expect(current.sent.sort()).toEqual(['remindtwo0@example.com', 'remindtwo1@example.com']);

    const third = (await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminder three', expirationDate: '2043-03-10', csvData: people(1, 'Remindthree') } })).project;
    expect((await edit(user, third, { reminderDays: 2 })).status).toBe(200);
    expect(await waiting(third.id)).toHaveLength(1);
    const off = await edit(user, third, { reminderDays: null });
    expect(((await off.json()) as Project).reminderDays).toBeUndefined();
    expect(await waiting(third.id)).toEqual([]);
    // A date removed takes it out too.
    expect((await edit(user, third, { reminderDays: 2 })).status).toBe(200);
    expect((await edit(user, third, { expirationDate: '' })).status).toBe(200);
    expect(await waiting(third.id)).toEqual([]);
  });

  it('skips an address on the user\'s suppression list (it bounced or complained before): no e-mail, its claim says suppressed and why', async () => {
    // A user of its own (a free plan's three projects are taken above).
    const owner = await apiUser();
    const fourth = (await owner.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminder four', expirationDate: '2044-04-10', csvData: people(2, 'Remindfour') } })).project;
    await until('the accounts', () => accountsOf(owner, fourth.id), (list) => list.length === 2);
    expect((await edit(owner, fourth, { reminderDays: 1 })).status).toBe(200);
    const at = '2044-04-09T12:00:00.000Z';
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...keys.emailSuppression(owner.sub, 'remindfour1@example.com'), entityType: 'EmailSuppression', email: 'remindfour1@example.com', reason: 'bounced', detail: 'mailbox unknown', createdAt: at, projectId: fourth.id },
      }),
    );
    const { sent, walk } = walkCounting(at);
    await walk({ type: 'expiry-reminder', userId: owner.sub, projectId: fourth.id, expirationDate: '2044-04-10', days: 1, shard: 0, afterRow: 0 });
    expect(sent).toEqual(['remindfour0@example.com']);
    const claimOf = async (row: number) => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.reminderSent(owner.sub, fourth.id, '2044-04-10', row), ConsistentRead: true }))).Item;
    expect(await claimOf(1)).toMatchObject({ result: 'sent' });
    expect(await claimOf(2)).toMatchObject({ result: 'suppressed', detail: expect.stringContaining('bounced') });
    // Redelivered: nobody twice, the suppressed one neither.
    const again = walkCounting(at);
    await again.walk({ type: 'expiry-reminder', userId: owner.sub, projectId: fourth.id, expirationDate: '2044-04-10', days: 1, shard: 0, afterRow: 0 });
    expect(again.sent).toEqual([]);
  });

  it("is written with the user's own template when the project names one ({{expirationDate}} filled in); a template that is no one's answers 404, a bad id too; null goes back to the built-in text", async () => {
    const owner = await apiUser();
    await upgradeToPro(owner);
    const template = await owner.json<{ id: string }>('/api/email-templates', {
      body: { name: 'Reminder', subject: '{{projectName}} ends {{expirationDate}}', htmlContent: '<p>Dear {{accountHolderName}}, your account ends on {{expirationDate}}.</p>', brandLogoUrl: '', isDefault: false, isActive: true },
    });
    const sixth = (await owner.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminder six', expirationDate: '2046-07-10', csvData: people(1, 'Remindsix') } })).project;
    await until('the accounts', () => accountsOf(owner, sixth.id), (list) => list.length === 1);
    // Another user's template, an id that cannot exist: 404; a wrong type: 400. Nothing changed.
    const stranger = await apiUser();
    expect((await edit(stranger, sixth, { reminderTemplateId: template.id })).status).toBe(404);
    expect((await edit(owner, sixth, { reminderDays: 1, reminderTemplateId: '0190a0a0-0000-7000-8000-000000000000' })).status).toBe(404);
    expect((await edit(owner, sixth, { reminderDays: 1, reminderTemplateId: 'a#b' })).status).toBe(404);
    expect((await edit(owner, sixth, { reminderDays: 1, reminderTemplateId: 5 })).status).toBe(400);
    const saved = await edit(owner, sixth, { reminderDays: 1, reminderTemplateId: template.id });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as Project).reminderTemplateId).toBe(template.id);

    const rendered: { subject: string; html: string }[] = [];
    const mailer: CredentialMailer = { send: async (email) => (rendered.push({ subject: email.subject, html: email.html }), { kind: 'sent', messageId: `${timeOrderedId(new Date())}-t` }) };
    const walk = reminderRunner({ mailer, tools: serverRenderTools, now: () => new Date('2046-07-09T12:00:00Z'), rate: () => 0 });
    await walk({ type: 'expiry-reminder', userId: owner.sub, projectId: sixth.id, expirationDate: '2046-07-10', days: 1, shard: 0, afterRow: 0 });
    expect(rendered.map((r) => r.subject)).toEqual(['Reminder six ends 10 July 2046']);
    expect(rendered[0]!.html).toContain('your account ends on 10 July 2046');

    const off = await edit(owner, sixth, { reminderTemplateId: null });
    expect(((await off.json()) as Project).reminderTemplateId).toBeUndefined();
  });

  it("ties a reminder's bounce to its account: the claim says bounced, the account's history shows it, the address is suppressed; the event again changes nothing", async () => {
    const owner = await apiUser();
    const fifth = (await owner.json<{ project: Project }>('/api/bulk-create', { body: { projectName: 'Reminder five', expirationDate: '2045-06-10', csvData: people(2, 'Remindfive') } })).project;
    await until('the accounts', () => accountsOf(owner, fifth.id), (list) => list.length === 2);
    expect((await edit(owner, fifth, { reminderDays: 1 })).status).toBe(200);
    const { sent, tags, walk } = walkCounting('2045-06-09T12:00:00.000Z');
    await walk({ type: 'expiry-reminder', userId: owner.sub, projectId: fifth.id, expirationDate: '2045-06-10', days: 1, shard: 0, afterRow: 0 });
    expect([...sent].sort()).toEqual(['remindfive0@example.com', 'remindfive1@example.com']);
    expect(tags[0]).toMatchObject({ userId: owner.sub, projectId: fifth.id, reminder: '2045-06-10' });
    const claim = (await db.send(new GetCommand({ TableName: TABLE, Key: keys.reminderSent(owner.sub, fifth.id, '2045-06-10', Number(tags[0]!.row)), ConsistentRead: true }))).Item!;
    const bounce: SesEvent = {
      eventType: 'Bounce',
      mail: { messageId: String(claim.detail), destination: [sent[0]!], tags: Object.fromEntries(Object.entries(tags[0]!).map(([k, v]) => [k, [v]])) },
      bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: sent[0]!, diagnosticCode: 'smtp; 550 mailbox unknown' }], timestamp: '2045-06-09T12:01:00.000Z' },
    };
    const apply = applyMailEvent({ store: dynamoMailEventStore(db, TABLE), log: { info: () => undefined, warn: () => undefined }, now: () => new Date('2045-06-09T12:01:00.000Z') });
    expect(await apply(bounce)).toBe('moved');
    expect(await apply(bounce)).toBe('unchanged');
    const after = (await db.send(new GetCommand({ TableName: TABLE, Key: keys.reminderSent(owner.sub, fifth.id, '2045-06-10', Number(tags[0]!.row)), ConsistentRead: true }))).Item;
    expect(after).toMatchObject({ result: 'sent', eventStatus: 'bounced', eventError: 'smtp; 550 mailbox unknown' });
    const account = (await accountsOf(owner, fifth.id)).find((a) => a.email === sent[0])!;
    const history = await owner.json<AccountHistoryPage>(`/api/accounts/${account.id}/history`);
    expect(history.entries.filter((e) => e.title === 'Expiry reminder bounced')).toEqual([expect.objectContaining({ kind: 'bounced', detail: 'smtp; 550 mailbox unknown' })]);
    // Another user's reading of the account: 404.
    expect((await (await apiUser()).call(`/api/accounts/${account.id}/history`)).status).toBe(404);
    expect((await owner.json<EmailSuppression[]>('/api/email-suppressions')).map((e) => e.email)).toContain(sent[0]);
  });

  it('resumes a reminder job interrupted half-way without sending twice: the e-mail under way when its delivery died is recorded failed, the rest are sent, the job adds up; the chunk and the start delivered again send nothing', async () => {
    const { owner, project: seventh } = await remindingProject('Reminder seven', '2047-08-10', 'Remindseven');
    const at = '2047-08-09T12:00:00.000Z';
    const start = { type: 'expiry-reminder' as const, userId: owner.sub, projectId: seventh.id, expirationDate: '2047-08-10', days: 1 };
    // The worker dies while SES takes its second e-mail: the first went, the second's claim is written, its answer never recorded.
    const first: string[] = [];
    const dying = reminderRunner({
      mailer: { send: async (email) => (first.push(email.to), first.length > 1 ? Promise.reject(new Error('the worker died')) : { kind: 'sent', messageId: `${timeOrderedId(new Date())}-d` }) },
      tools: serverRenderTools,
      now: () => new Date(at),
      rate: () => 0,
    });
    await expect(dying(start)).rejects.toThrow('the worker died');
    expect(first).toEqual(['remindseven0@example.com', 'remindseven1@example.com']);
    const jobKey = keys.reminderJob(owner.sub, `${seventh.id}.2047-08-10.1`);
    const running = (await db.send(new GetCommand({ TableName: TABLE, Key: jobKey, ConsistentRead: true }))).Item!;
    expect(running).toMatchObject({ status: 'running', total: 3, chunksDone: 0 });

    // The chunk delivered again (SQS after the visibility timeout): the rest are sent, the one under way is not sent again.
    const { sent, walk } = walkCounting(at);
    for (const chunk of expiryReminders.chunks(running)) await walk.deliver(chunk);
    expect(sent).toEqual(['remindseven2@example.com']);
    const claimOf = async (row: number) => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.reminderSent(owner.sub, seventh.id, '2047-08-10', row), ConsistentRead: true }))).Item;
    expect(await claimOf(1)).toMatchObject({ result: 'sent' });
    expect(await claimOf(2)).toMatchObject({ result: 'failed', detail: expect.stringContaining('interrupted') });
    expect(await claimOf(3)).toMatchObject({ result: 'sent' });
    const done = (await db.send(new GetCommand({ TableName: TABLE, Key: jobKey, ConsistentRead: true }))).Item!;
    expect(done).toMatchObject({ status: 'completed', total: 3, sent: 2, failed: 1, suppressed: 0, skipped: 0 });

    // Delivered again once more, and the start again: nobody gets a second e-mail, nothing is counted twice.
    const again = walkCounting(at);
    for (const chunk of expiryReminders.chunks(running)) await again.walk.deliver(chunk);
    await again.walk(start);
    expect(again.sent).toEqual([]);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: jobKey, ConsistentRead: true }))).Item).toMatchObject({ sent: 2, failed: 1, skipped: 0 });
    expect((await owner.json<Project[]>('/api/projects')).find((p) => p.id === seventh.id)?.remindersSent).toBe(2);
  });

  it("keeps the customer's daily cap: a used allowance pauses the reminder's chunk (the account not sent gives its claim back), and its later delivery goes on from that account", async () => {
    const { owner, project: eighth } = await remindingProject('Reminder eight', '2048-09-10', 'Remindeight');
    const at = '2048-09-09T12:00:00.000Z';
    const sent: string[] = [];
    const capped = reminderRunner({
      mailer: { send: async (email) => (sent.push(email.to), { kind: 'sent', messageId: `${timeOrderedId(new Date())}-${sent.length}` }) },
      tools: serverRenderTools,
      now: () => new Date(at),
      rate: () => 0,
      limits: () => ({ dailyCap: 2, reservedShare: 0 }),
    });
    await capped({ type: 'expiry-reminder', userId: owner.sub, projectId: eighth.id, expirationDate: '2048-09-10', days: 1 });
    expect(sent).toEqual(['remindeight0@example.com', 'remindeight1@example.com']);
    expect(capped.later).toEqual([expect.objectContaining({ type: 'expiry-reminder-job', chunk: 0, pauses: 1 })]);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: keys.reminderSent(owner.sub, eighth.id, '2048-09-10', 3), ConsistentRead: true }))).Item).toBeUndefined();
    const jobKey = keys.reminderJob(owner.sub, `${eighth.id}.2048-09-10.1`);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: jobKey, ConsistentRead: true }))).Item).toMatchObject({ status: 'running', chunksDone: 0 });

    // The allowance back (here: no cap): the waiting chunk sends the third account only.
    const { sent: after, walk } = walkCounting(at);
    for (const message of capped.later) await walk.deliver(message);
    expect(after).toEqual(['remindeight2@example.com']);
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: jobKey, ConsistentRead: true }))).Item).toMatchObject({ status: 'completed', total: 3, sent: 3, failed: 0, skipped: 0 });
  });
});
