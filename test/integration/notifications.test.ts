import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ExportView } from '../../shared/schemas/export';
import type { NotificationList } from '../../shared/schemas/notifications';
import type { Project } from '../../shared/schemas/project';
import type { UserSettings } from '../../shared/schemas/user-settings';
import { keys } from '../../functions/core/keys';
import { sendNotificationMail } from '../../functions/mail/notification-mail';
import { sesMailer } from '../../functions/mail/ses-mailer';
import { sqsMailSender } from '../../functions/mail/sqs-mail-queue';
import { exportFailed, notifySecurityAlert } from '../../functions/notifications/events';
import { recordNotification } from '../../functions/notifications/notification-writer';
import { listNotifications, markNotificationsRead } from '../../functions/notifications/notifications';
import { newAccountDataExportRecord } from '../../functions/exports/export-item';
import { dynamoExportStore } from '../../functions/exports/export-store';
import { EXPORT_STOPPED, recordDeadExport } from '../../functions/exports/record-dead-export';
import { timeOrderedId } from '../../functions/core/ids';
import { queueWeeklyDigest } from '../../functions/schedules/queue-weekly-digest';
import { dynamoUserRepository } from '../../functions/users/user-repository';
import { readSettings } from '../../functions/users/settings-reader';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';

const stack = inject('stack');
const tag = () => randomUUID().slice(0, 8);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const local = { region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };

interface StoredMail {
  destination: { to: string[] };
  subject: string;
  body: { html: string; text?: string };
}
const mailsTo = async (email: string): Promise<StoredMail[]> =>
  ((await (await fetch(`${stack.urls.mailViewer}store`)).json()) as { emails: StoredMail[] }).emails.filter((m) => m.destination.to.includes(email));

const notifications = (user: ApiUser, query = '') => user.json<NotificationList>(`/api/notifications${query}`);
const settingsOf = (user: ApiUser) => user.json<UserSettings>('/api/user/settings');
const putSettings = (user: ApiUser, body: unknown) => user.call('/api/user/settings', { method: 'PUT', body });

/** A background bulk job (over 1,000 rows) that finished. */
async function finishedJob(user: ApiUser, projectName: string): Promise<BulkJob> {
  const response = await user.call('/api/bulk-create', { body: { projectName, csvData: people(1001, `Job${tag()}`) } });
  expect(response.status).toBe(202);
  const { job } = (await response.json()) as { job: BulkJob };
  return until('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'completed' || j.status === 'failed');
}

describe('GET and PUT /api/user/settings', () => {
  it("a new user's settings are the spec's defaults, with the profile as the account group", async () => {
    const user = await apiUser({ firstName: 'Set', lastName: 'Tings' });
    expect(await settingsOf(user)).toEqual({
      notifications: { emailNotifications: true, projectCompletionEmail: true, securityAlerts: true, weeklyDigest: false },
      preferences: { defaultProjectExpiry: 90, defaultPasswordLength: 12, timezone: 'UTC', dateFormat: 'MM/DD/YYYY' },
      account: { email: user.email, firstName: 'Set', lastName: 'Tings' },
    });
  });

  it('saves partial groups field by field and keeps the rest; the e-mail cannot change; non-numeric numbers fall back', async () => {
    const user = await apiUser({ firstName: 'Part', lastName: 'Ial' });
    let response = await putSettings(user, { notifications: { weeklyDigest: true, securityAlerts: false } });
    expect(response.status).toBe(200);
    response = await putSettings(user, { preferences: { timezone: 'America/Denver', defaultProjectExpiry: 'abc', defaultPasswordLength: '16' } });
    expect(response.status).toBe(200);
    response = await putSettings(user, { account: { email: 'someone-else@example.com', company: 'Acme <b>' } });
    expect(response.status).toBe(200);
    const saved = await settingsOf(user);
    expect(saved).toEqual({
      notifications: { emailNotifications: true, projectCompletionEmail: true, securityAlerts: false, weeklyDigest: true },
      preferences: { defaultProjectExpiry: 90, defaultPasswordLength: 16, timezone: 'America/Denver', dateFormat: 'MM/DD/YYYY' },
      account: { email: user.email, firstName: 'Part', lastName: 'Ial', company: 'Acme <b>' },
    });
    // The account group is the profile: the top bar's user shows it.
    expect(await user.json('/api/auth/user')).toMatchObject({ email: user.email, company: 'Acme <b>' });
  });

  it.each([
    [{ preferences: { defaultProjectExpiry: 29 } }, 'preferences.defaultProjectExpiry', 'Default project expiry must be between 30 and 365 days'],
    [{ preferences: { defaultProjectExpiry: 366 } }, 'preferences.defaultProjectExpiry', 'Default project expiry must be between 30 and 365 days'],
    [{ preferences: { defaultPasswordLength: 7 } }, 'preferences.defaultPasswordLength', 'Default password length must be between 8 and 128 characters'],
    [{ preferences: { defaultPasswordLength: 129 } }, 'preferences.defaultPasswordLength', 'Default password length must be between 8 and 128 characters'],
    [{ preferences: { timezone: 'Europe/Paris' } }, 'preferences.timezone', 'Timezone must be one of UTC, America/New_York, America/Chicago, America/Denver, America/Los_Angeles'],
    [{ preferences: { dateFormat: 'YYYY/MM/DD' } }, 'preferences.dateFormat', 'Date format must be one of MM/DD/YYYY, DD/MM/YYYY, YYYY-MM-DD'],
    [{ notifications: { weeklyDigest: 'yes' } }, 'notifications.weeklyDigest', 'Weekly digest must be on or off'],
    [{ account: { firstName: '   ' } }, 'account.firstName', 'First name is required'],
    [{ notifications: 'all' }, 'notifications', 'Invalid input: expected object, received string'],
  ])('refuses %j with 400 and the field\'s message, saving nothing', async (body, path, message) => {
    const user = await apiUser();
    const response = await putSettings(user, body);
    const answer = (await response.json()) as { message: string; details: { path: string; message: string }[] };
    expect(response.status).toBe(400);
    expect(answer.details).toContainEqual({ path, message });
    expect((await settingsOf(user)).preferences).toEqual({ defaultProjectExpiry: 90, defaultPasswordLength: 12, timezone: 'UTC', dateFormat: 'MM/DD/YYYY' });
  });

  it('a body that is not JSON or not an object is a 400, never a 500', async () => {
    const user = await apiUser();
    const raw = await fetch(`${stack.urls.app}/api/user/settings`, { method: 'PUT', headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' }, body: '{"notifications":' });
    expect(raw.status).toBe(400);
    const list = await putSettings(user, [1, 2]);
    expect(list.status).toBe(400);
  });

  it('the weekly digest subscription follows the switch (written with the settings)', async () => {
    const user = await apiUser();
    const subscriber = async () => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.digestSubscriber(user.sub), ConsistentRead: true }))).Item;
    expect(await subscriber()).toBeUndefined();
    await putSettings(user, { notifications: { weeklyDigest: true } });
    expect(await subscriber()).toMatchObject({ userId: user.sub });
    await putSettings(user, { notifications: { weeklyDigest: false } });
    expect(await subscriber()).toBeUndefined();
  });
});

describe('notifications', () => {
  it('a finished bulk job notifies in the bell and, on Pro with the switches on, e-mails the project completion (escaped, with a text part)', async () => {
    const user = await apiUser({ firstName: 'Jobber' });
    await upgradeToPro(user);
    const name = `<img src=x onerror=alert(1)> Job ${tag()}`;
    const job = await finishedJob(user, name);
    expect(job.status).toBe('completed');
    const list = await until('the notification', () => notifications(user), (l) => l.notifications.some((n) => n.kind === 'bulk-job-completed'));
    const note = list.notifications.find((n) => n.kind === 'bulk-job-completed')!;
    expect(note).toMatchObject({ title: `Project "${name}" is ready`, body: '1,001 accounts created.', link: `/projects/${job.projectId}`, read: false });
    expect(list.unreadCount).toBe(1);
    const mails = await until('the completion e-mail', () => mailsTo(user.email), (m) => m.length > 0 && m.some((x) => x.subject.includes('is ready')));
    const mail = mails.find((m) => m.subject.includes('is ready'))!;
    expect(mail.subject).toBe(`Your project "${name}" is ready`);
    expect(mail.body.html).not.toContain('<img');
    expect(mail.body.html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(mail.body.html).toContain(`/projects/${job.projectId}`);
    expect(mail.body.text).toContain('1,001 accounts created');
  });

  it('an export that is ready notifies, links to the Export Center; read one, then all; unread count follows', async () => {
    const user = await apiUser();
    const { project } = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: `Export me ${tag()}`, csvData: people(3) } });
    for (let i = 0; i < 2; i++) {
      const started = await user.json<ExportView>('/api/exports', { body: { projectId: project.id, format: 'csv' } });
      await until('the export', () => user.json<ExportView[]>('/api/exports/history'), (h) => h.some((e) => e.id === started.id && e.status === 'completed'));
    }
    const list = await until('two notifications', () => notifications(user), (l) => l.notifications.filter((n) => n.kind === 'export-ready').length === 2);
    expect(list.unreadCount).toBe(2);
    const [newest, older] = list.notifications;
    expect(newest!.createdAt >= older!.createdAt).toBe(true);
    expect(newest).toMatchObject({ kind: 'export-ready', link: '/exports', title: `Export of "${project.name}" is ready`, body: 'CSV file with 3 accounts: download it from the Export Center.' });

    // Pages: newest first, the cursor continues after the last one shown.
    const first = await notifications(user, '?limit=1');
    expect(first.notifications.map((n) => n.id)).toEqual([newest!.id]);
    const second = await notifications(user, `?limit=1&cursor=${first.nextCursor}`);
    expect(second.notifications.map((n) => n.id)).toEqual([older!.id]);

    expect(await user.json('/api/notifications/read', { method: 'POST', body: { ids: [older!.id] } })).toEqual({ marked: 1, unreadCount: 1 });
    // Marking it again changes nothing.
    expect(await user.json('/api/notifications/read', { method: 'POST', body: { ids: [older!.id] } })).toEqual({ marked: 1, unreadCount: 1 });
    expect(await user.json('/api/notifications/read', { method: 'POST', body: { all: true } })).toEqual({ marked: 1, unreadCount: 0 });
    const after = await notifications(user);
    expect(after.unreadCount).toBe(0);
    expect(after.notifications.every((n) => n.read)).toBe(true);
  });

  it('the unread count is one bounded read of unread items (issue 29, item 4): 120 unread answer 100 and capped, a redelivered notification read since is not counted again, older notifications without their item are counted after a one-time pass', async () => {
    const user = await apiUser();
    const db = testDb();
    const deps = { db, tableName: 'bulkonboard' };
    const base = Date.now() - 60_000;
    for (let i = 0; i < 120; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => recordNotification(deps, { userId: user.sub, kind: 'export-ready', title: `N${i + j}`, body: 'b', link: '/exports', source: `test:${i + j}`, at: new Date(base + i + j) })),
      );
    }
    const many = await notifications(user, '?limit=5');
    expect(many).toMatchObject({ unreadCount: 100, unreadCountCapped: true });
    expect(many.notifications).toHaveLength(5);
    expect(await user.json('/api/notifications/read', { method: 'POST', body: { all: true } })).toEqual({ marked: 120, unreadCount: 0 });
    // The same event written again (a redelivered job end): nothing new, and it stays read.
    expect(await recordNotification(deps, { userId: user.sub, kind: 'export-ready', title: 'N0', body: 'b', link: '/exports', source: 'test:0', at: new Date(base) })).toBeUndefined();
    expect(await notifications(user, '?limit=1')).toMatchObject({ unreadCount: 0 });

    // A user whose notifications were written before unread items existed (a plain unread item).
    const older = await apiUser();
    for (const n of [1, 2, 3]) {
      const id = timeOrderedId();
      await db.send(
        new PutCommand({
          TableName: 'bulkonboard',
          Item: { ...keys.notification(older.sub, id), entityType: 'Notification', id, kind: 'export-ready', title: `Old ${n}`, body: 'b', link: '/exports', read: n === 3, createdAt: new Date().toISOString(), expiresAt: Math.floor(Date.now() / 1000) + 86_400 },
        }),
      );
    }
    expect(await notifications(older)).toMatchObject({ unreadCount: 2 });
    expect((await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.unreadNotificationsIndexed(older.sub) }))).Item).toBeDefined();
    expect(await older.json('/api/notifications/read', { method: 'POST', body: { all: true } })).toEqual({ marked: 2, unreadCount: 0 });
  });

  it('a bell poll of an indexed user is two reads, the page and the unread items (issue 29, item 4d): no GetItem of the UNREAD_INDEXED marker, which the unread read itself brings back', async () => {
    const user = await apiUser();
    const db = testDb();
    const deps = { db, tableName: 'bulkonboard' };
    await recordNotification(deps, { userId: user.sub, kind: 'export-ready', title: 'Counted', body: 'b', link: '/exports', source: `test:${tag()}`, at: new Date() });
    // The first poll gives a user's older notifications their items once and writes the marker.
    expect(await notifications(user)).toMatchObject({ unreadCount: 1 });
    const sent: string[] = [];
    db.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    const list = listNotifications({ ...deps, now: () => new Date() });
    expect(await list(user.sub, {})).toMatchObject({ unreadCount: 1 });
    expect(sent.sort()).toEqual(['QueryCommand', 'QueryCommand']);
    sent.length = 0;
    expect(await markNotificationsRead({ ...deps, now: () => new Date() })(user.sub, { all: true })).toEqual({ marked: 1, unreadCount: 0 });
    expect(sent.filter((name) => name.startsWith('Get'))).toEqual([]);
  });

  it("Export All Data notifies in the bell like a project export (issue 26: it never did), linking to the Export Center where it is downloaded", async () => {
    const user = await apiUser();
    await user.json('/api/bulk-create', { body: { projectName: `Data ${tag()}`, csvData: people(2) } });
    const started = await user.json<ExportView>('/api/exports/account-data', { method: 'POST' });
    await until('the data export', () => user.json<ExportView[]>('/api/exports/history'), (h) => h.some((e) => e.id === started.id && e.status === 'completed'));
    const list = await until('its notification', () => notifications(user), (l) => l.notifications.some((n) => n.kind === 'export-ready'));
    expect(list.notifications.filter((n) => n.kind === 'export-ready')).toEqual([
      expect.objectContaining({ title: 'Export of all your data is ready', body: 'ZIP file of everything BulkOnboard holds on you, 2 accounts included: download it from the Export Center.', link: '/exports', read: false }),
    ]);
    // The Export Center's history is where it is downloaded.
    expect((await user.json<ExportView[]>('/api/exports/history')).find((e) => e.id === started.id)).toMatchObject({ kind: 'account-data', status: 'completed' });
  });

  it('an export that failed for good notifies once (the dead-letter record of Export All Data, or of a project export), with the reason; a second record does not', async () => {
    const user = await apiUser();
    const store = dynamoExportStore(testDb(), 'bulkonboard');
    const record = newAccountDataExportRecord({ id: timeOrderedId(), userId: user.sub, now: new Date() });
    await store.create(record);
    const dead = recordDeadExport({ exports: store, now: () => new Date(), notifyFailed: (input) => exportFailed({ db: testDb(), tableName: 'bulkonboard' }, input) });
    await dead({ userId: user.sub, exportId: record.id });
    await dead({ userId: user.sub, exportId: record.id });
    const list = await notifications(user);
    expect(list.notifications).toEqual([expect.objectContaining({ kind: 'export-failed', title: 'Export of all your data failed', body: EXPORT_STOPPED, link: '/exports' })]);
  });

  it('a provisioning run that ends notifies once with its counts', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const integration = await user.json<{ id: string }>('/api/integrations', {
      body: { name: 'Local SCIM directory', platform: 'custom', baseUrl: stack.scim.url, authMethod: 'bearer_token', authConfig: { token: stack.scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } },
    });
    const created = await user.json<{ project: Project; summary: { provisioningJobId?: string } }>('/api/bulk-create', {
      body: { projectName: `Provisioned ${tag()}`, csvData: people(3, `Prov${tag()}`), apiIntegrationId: integration.id, createExternalAccounts: true },
    });
    const list = await until('the run notification', () => notifications(user), (l) => l.notifications.some((n) => n.kind === 'provisioning-finished'));
    expect(list.notifications.filter((n) => n.kind === 'provisioning-finished')).toEqual([
      expect.objectContaining({ title: `Provisioning of "${created.project.name}" finished`, body: '3 accounts created on Local SCIM directory.', link: `/projects/${created.project.id}` }),
    ]);
  });

  it("a failed payment (Stripe's invoice.payment_failed through the webhook) notifies once and links to the subscription", async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { portalUrl } = await user.json<{ portalUrl: string }>('/api/subscription/create-portal', { method: 'POST' });
    const failed = await fetch(`${portalUrl}/fail-payment`, { method: 'POST', redirect: 'manual' });
    expect(failed.status).toBe(303);
    const list = await notifications(user);
    expect(list.notifications.filter((n) => n.kind === 'payment-failed')).toHaveLength(1);
    expect(list.notifications[0]).toMatchObject({ kind: 'payment-failed', title: 'Payment failed', link: '/settings?tab=subscription', read: false });
  });

  it.each([
    ['an empty body', {}, 400],
    ['no ids', { ids: [] }, 400],
    ['all: false', { all: false }, 400],
    ['both ids and all', { ids: ['x'], all: true }, 400],
    ['101 ids', { ids: Array.from({ length: 101 }, () => randomUUID()) }, 400],
    ['an unknown id', { ids: [randomUUID()] }, 404],
    ['an id that cannot exist', { ids: ['../../etc'] }, 404],
  ])('POST /api/notifications/read with %s answers %i', async (_label, body, status) => {
    const user = await apiUser();
    const response = await user.call('/api/notifications/read', { method: 'POST', body });
    expect(response.status).toBe(status);
    expect(typeof ((await response.json()) as { message: string }).message).toBe('string');
  });

  it('a bad limit or cursor is a 400', async () => {
    const user = await apiUser();
    expect((await user.call('/api/notifications?limit=0')).status).toBe(400);
    expect((await user.call('/api/notifications?limit=abc')).status).toBe(400);
    expect((await user.call('/api/notifications?cursor=%23PK')).status).toBe(400);
  });

  it("another user's notification id is unknown (404) and stays unread", async () => {
    const owner = await apiUser();
    const other = await apiUser();
    await owner.json('/api/bulk-create', { body: { projectName: `Owner ${tag()}`, csvData: people(1) } });
    const db = testDb();
    const mail = sqsMailSender(new SQSClient({ ...local, endpoint: stack.urls.sqs }), stack.queueUrls.mail!);
    await notifySecurityAlert({ db, tableName: 'bulkonboard', mail }, { userId: owner.sub, title: 'New sign-in', detail: 'From 203.0.113.9', source: `login:${tag()}`, at: new Date() });
    const [note] = (await notifications(owner)).notifications;
    const response = await other.call('/api/notifications/read', { method: 'POST', body: { ids: [note!.id] } });
    expect(response.status).toBe(404);
    expect((await notifications(other)).notifications).toEqual([]);
    expect((await notifications(owner)).notifications[0]).toMatchObject({ id: note!.id, read: false });
  });

  it('notifySecurityAlert: one notification and one e-mail per event (Pro, security alerts on); with them off, the notification only', async () => {
    const db = testDb();
    const mail = sqsMailSender(new SQSClient({ ...local, endpoint: stack.urls.sqs }), stack.queueUrls.mail!);
    const user = await apiUser();
    await upgradeToPro(user);
    const source = `login:${tag()}`;
    const alert = { userId: user.sub, title: 'Sign-in from a new device', detail: 'Chrome on <Linux> from 198.51.100.7', source, at: new Date() };
    await notifySecurityAlert({ db, tableName: 'bulkonboard', mail }, alert);
    await notifySecurityAlert({ db, tableName: 'bulkonboard', mail }, alert);
    const list = await notifications(user);
    expect(list.notifications.filter((n) => n.kind === 'security-alert')).toHaveLength(1);
    expect(list.notifications[0]).toMatchObject({ title: 'Sign-in from a new device', link: '/security' });
    await until('the alert e-mail', () => mailsTo(user.email), (m) => m.some((x) => x.subject.startsWith('Security alert')));
    await sleep(1500); // a second e-mail, if any, would be here by now
    const alerts = (await mailsTo(user.email)).filter((m) => m.subject.startsWith('Security alert'));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.subject).toBe('Security alert: Sign-in from a new device');
    expect(alerts[0]!.body.html).toContain('Chrome on &#60;Linux&#62;');
    expect(alerts[0]!.body.text).toContain('Chrome on <Linux> from 198.51.100.7');

    // Switched off: the mail worker's decision, with the real table and SES emulator.
    await putSettings(user, { notifications: { securityAlerts: false } });
    const send = sendNotificationMail({
      db,
      tableName: 'bulkonboard',
      users: dynamoUserRepository(db, 'bulkonboard'),
      settings: { get: (id) => readSettings(db, 'bulkonboard', id) },
      mailer: sesMailer(new SESv2Client({ ...local, endpoint: stack.urls.ses }), 'no-reply@bulkonboard.local'),
      appUrl: stack.urls.app,
    });
    expect(await send({ type: 'security-alert', userId: user.sub, title: 'Again', detail: 'x', at: new Date().toISOString() })).toBe('skipped');
    // A free user gets no notification e-mail, whatever the switches say.
    const free = await apiUser();
    expect(await send({ type: 'security-alert', userId: free.sub, title: 'Again', detail: 'x', at: new Date().toISOString() })).toBe('skipped');
    expect(await send({ type: 'project-completion', userId: free.sub, projectId: 'p', projectName: 'P', outcome: 'completed', created: 1, failed: 0 })).toBe('skipped');
  });

  it('the weekly digest goes only to opted-in Pro users, once per week, with the week\'s projects', async () => {
    const db = testDb();
    const mail = sqsMailSender(new SQSClient({ ...local, endpoint: stack.urls.sqs }), stack.queueUrls.mail!);
    const [pro, proOff, free] = await Promise.all([apiUser(), apiUser(), apiUser()]);
    await Promise.all([upgradeToPro(pro), upgradeToPro(proOff)]);
    await putSettings(pro, { notifications: { weeklyDigest: true } });
    await putSettings(free, { notifications: { weeklyDigest: true } });
    const projectName = `Digest & <co> ${tag()}`;
    await pro.json('/api/bulk-create', { body: { projectName, csvData: people(4) } });
    const week = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    const run = queueWeeklyDigest({ db, tableName: 'bulkonboard', mail, now: () => new Date() });
    const first = await run({ week });
    expect(first.queued).toContain(pro.sub);
    expect(first.queued).not.toContain(proOff.sub);
    expect(first.queued).not.toContain(free.sub);
    const mails = await until('the digest', () => mailsTo(pro.email), (m) => m.some((x) => x.subject.startsWith('Your BulkOnboard week')));
    const digest = mails.find((m) => m.subject.startsWith('Your BulkOnboard week'))!;
    expect(digest.subject).toBe('Your BulkOnboard week: 1 new project with 4 accounts this week.');
    expect(digest.body.html).toContain('Digest &#38; &#60;co&#62;');
    expect(digest.body.text).toContain(`${projectName}: 4 accounts`);

    // The same week again (a second run, a redelivery): nothing more is sent.
    expect((await run({ week })).queued).toContain(pro.sub);
    await sleep(1500);
    expect((await mailsTo(pro.email)).filter((m) => m.subject.startsWith('Your BulkOnboard week'))).toHaveLength(1);
    const digests = async (user: ApiUser) => (await mailsTo(user.email)).filter((m) => m.subject.startsWith('Your BulkOnboard week'));
    expect(await digests(free)).toEqual([]);
    expect(await digests(proOff)).toEqual([]);
  });
});
