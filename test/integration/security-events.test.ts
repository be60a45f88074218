import { describe, expect, inject, it } from 'vitest';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import Papa from 'papaparse';
import type { Integration } from '../../shared/schemas/integrations';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { SECURITY_EVENTS_PAGE_MAX, type SecurityEvent, type SecurityEventPage } from '../../shared/schemas/security';
import type { SecurityOverview } from '../../shared/schemas/security-overview';
import { keys } from '../../functions/core/keys';
import { recordSecurityEvent } from '../../functions/security/security-events';
import { SECURITY_EVENTS_CURSOR_MESSAGE, SECURITY_EVENTS_LIMIT_MESSAGE } from '../../functions/security/security-event-list';
import type { ExportView } from '../../shared/exports';
import { EXPORT_EXPIRED_MESSAGE, EXPORT_NOT_READY_MESSAGE } from '../../functions/exports/download-export';
import { apiUser, exportDownloadUrl, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';
import type { NotificationList } from '../../shared/schemas/notifications';

const TABLE = 'bulkonboard';
/** Each test's browser: the events must carry it and the caller's address. */
const agent = (name: string) => `Mozilla/5.0 (SecurityEventsTest) ${name}`;

/**
 * A new user whose trail is empty: apiUser() signs in straight at Cognito, and the
 * post-authentication trigger records that sign-in (`login`); these tests count the events of
 * the actions they make, so that one is removed first.
 */
async function quietUser(...args: Parameters<typeof apiUser>): Promise<ApiUser> {
  const user = await apiUser(...args);
  const { PK, SKPrefix } = keys.securityEventsOf(user.sub);
  const { Items = [] } = await testDb().send(
    new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
  );
  for (const item of Items) await testDb().send(new DeleteCommand({ TableName: TABLE, Key: { PK: item.PK, SK: item.SK } }));
  return user;
}

const eventsOf = async (user: ApiUser, query = ''): Promise<SecurityEvent[]> => (await user.json<SecurityEventPage>(`/api/security/events${query}`)).events;
const withAgent = (user: ApiUser, name: string) => ({
  call: (path: string, init: { method?: string; body?: unknown } = {}) => user.call(path, { ...init, headers: { 'user-agent': agent(name) } }),
});
const okta = (name: string, apiKey: string) => ({ name, platform: 'okta', baseUrl: inject('stack').fakePlatformOrigin, authMethod: 'api_key', authConfig: { apiKey }, apiConfig: {} });

/** Every event was recorded with the request's address and the browser that sent it. */
const expectOrigin = (event: SecurityEvent | undefined, name: string) => {
  expect(event).toBeDefined();
  expect(event!.ipAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  expect(event!.userAgent).toBe(agent(name));
};

async function proUserWithProject(): Promise<{ user: ApiUser; project: Project; accounts: CreatedAccount[] }> {
  const user = await quietUser();
  await upgradeToPro(user);
  const created = await user.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', { body: { projectName: 'Payroll staff', csvData: people(3, 'Sec') } });
  return { user, ...created };
}

describe('security events from the actions that exist', () => {
  it('integration credentials: added, changed only when the credentials change (not a rename), removed', async () => {
    const user = await quietUser();
    await upgradeToPro(user);
    const as = withAgent(user, 'integrations');
    const created = await as.call('/api/integrations', { body: okta('Okta prod', 'first-key') });
    expect(created.status).toBe(201);
    const integration = (await created.json()) as Integration;

    // A rename with the credentials left empty (kept as stored): no event.
    expect((await as.call(`/api/integrations/${integration.id}`, { method: 'PUT', body: { ...okta('Okta production', ''), authConfig: {} } })).status).toBe(200);
    // The same key typed again: no event either.
    expect((await as.call(`/api/integrations/${integration.id}`, { method: 'PUT', body: okta('Okta production', 'first-key') })).status).toBe(200);
    let events = await eventsOf(user);
    expect(events.map((e) => e.type)).toEqual(['integration_credentials_added']);
    expect(events[0]).toMatchObject({ severity: 'low', description: 'Credentials of the integration "Okta prod" (Okta) added' });
    expectOrigin(events[0], 'integrations');

    expect((await as.call(`/api/integrations/${integration.id}`, { method: 'PUT', body: okta('Okta production', 'second-key') })).status).toBe(200);
    expect((await as.call(`/api/integrations/${integration.id}`, { method: 'DELETE' })).status).toBe(204);
    events = await eventsOf(user);
    expect(events.map((e) => [e.type, e.severity])).toEqual([
      ['integration_credentials_removed', 'medium'],
      ['integration_credentials_changed', 'medium'],
      ['integration_credentials_added', 'low'],
    ]);
    expect(events[0]!.description).toBe('Credentials of the integration "Okta production" (Okta) removed');
    for (const event of events) expectOrigin(event, 'integrations');
    // The secret itself is never in the trail.
    expect(JSON.stringify(events)).not.toMatch(/first-key|second-key/);
    // A delete of what is gone is a 404 and records nothing.
    expect((await as.call(`/api/integrations/${integration.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await eventsOf(user)).toHaveLength(3);
  });

  it('Show Passwords: one event per answer that carries passwords (project page and search), none without', async () => {
    const { user, project, accounts } = await proUserWithProject();
    const as = withAgent(user, 'reveal');
    expect((await as.call(`/api/projects/${project.id}/accounts`)).status).toBe(200);
    expect((await as.call(`/api/accounts/search?q=${encodeURIComponent(accounts[0]!.firstName)}`)).status).toBe(200);
    expect(await eventsOf(user)).toEqual([]);

    const shown = await as.call(`/api/projects/${project.id}/accounts?showPasswords=true`);
    expect(((await shown.json()) as { items: { password?: string }[] }).items.every((a) => a.password)).toBe(true);
    const searched = await as.call(`/api/accounts/search?q=sec&showPasswords=true`);
    expect(((await searched.json()) as { count: number }).count).toBe(3);
    // A search that finds nothing reveals nothing.
    expect((await as.call(`/api/accounts/search?q=nobody&showPasswords=true`)).status).toBe(200);

    const events = await eventsOf(user);
    expect(events.map((e) => [e.type, e.severity, e.description])).toEqual([
      ['passwords_revealed', 'medium', 'Passwords shown for 3 accounts found by a search'],
      ['passwords_revealed', 'medium', 'Passwords shown for 3 accounts of the project "Payroll staff"'],
    ]);
    for (const event of events) expectOrigin(event, 'reveal');
  });

  it("a project's CSV download and Export All Data are recorded", async () => {
    const { user, project } = await proUserWithProject();
    const as = withAgent(user, 'exports');
    const csv = await as.call(`/api/projects/${project.id}/export`);
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain('Password');
    const started = await as.call('/api/exports/account-data', { method: 'POST' });
    expect(started.status).toBe(202);

    const events = await eventsOf(user);
    expect(events.map((e) => [e.type, e.severity])).toEqual([
      ['data_export', 'medium'],
      ['export_downloaded', 'medium'],
    ]);
    expect(events[1]!.description).toBe('Accounts of the project "Payroll staff" downloaded as CSV with their passwords (3 accounts)');
    for (const event of events) expectOrigin(event, 'exports');
    // A download refused (a project that is not the caller's) records nothing.
    expect((await as.call('/api/projects/0190c0de-0000-7000-8000-000000000000/export')).status).toBe(404);
    expect(await eventsOf(user)).toHaveLength(2);
  });

  it("an Export Center file: each download mints a link and is recorded; not ready or expired 409, another user's 404", async () => {
    const { user, project } = await proUserWithProject();
    const other = await quietUser();
    const as = withAgent(user, 'export-center');
    const started = (await (await as.call('/api/exports', { body: { projectId: project.id, format: 'csv' } })).json()) as ExportView;
    // The history lists it without a link: a download goes through the route below.
    expect(JSON.stringify(await user.json('/api/exports/history'))).not.toContain('X-Amz-Signature');
    let done: ExportView | undefined;
    for (let i = 0; i < 150 && done?.status !== 'completed'; i++) {
      done = (await user.json<ExportView[]>('/api/exports/history')).find((e) => e.id === started.id);
      if (done?.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(done?.status).toBe('completed');
    expect(await eventsOf(user)).toEqual([]);

    const response = await as.call(`/api/exports/${started.id}/download`, { method: 'POST' });
    expect(response.status).toBe(200);
    const link = (await response.json()) as { url: string; filename: string; expiresInSeconds: number };
    expect(link).toMatchObject({ filename: 'Payroll staff_accounts.csv', expiresInSeconds: 900 });
    const file = await fetch(link.url);
    expect(file.status).toBe(200);
    expect(await file.text()).toContain('Password');
    const events = await eventsOf(user);
    expect(events.map((e) => [e.type, e.severity, e.description])).toEqual([['export_downloaded', 'medium', 'Export of the project "Payroll staff" (CSV, 3 accounts) downloaded']]);
    expectOrigin(events[0], 'export-center');

    // Another user: 404, and nothing recorded for either.
    const theirs = await other.call(`/api/exports/${started.id}/download`, { method: 'POST' });
    expect(theirs.status).toBe(404);
    expect(((await theirs.json()) as { message: string }).message).toBe('Export not found');
    // Not ready yet, and expired: refused with a message, nothing recorded.
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: keys.export(user.sub, started.id), UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'processing' } }));
    const notReady = await as.call(`/api/exports/${started.id}/download`, { method: 'POST' });
    expect(notReady.status).toBe(409);
    expect(((await notReady.json()) as { message: string }).message).toBe(EXPORT_NOT_READY_MESSAGE);
    await testDb().send(
      new UpdateCommand({
        TableName: TABLE,
        Key: keys.export(user.sub, started.id),
        UpdateExpression: 'SET #s = :s, fileExpiresAt = :past',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': 'completed', ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const expired = await as.call(`/api/exports/${started.id}/download`, { method: 'POST' });
    expect(expired.status).toBe(409);
    expect(((await expired.json()) as { message: string }).message).toBe(EXPORT_EXPIRED_MESSAGE);
    expect(await eventsOf(user)).toHaveLength(1);
    expect(await eventsOf(other)).toEqual([]);
  });

  it('account deletion started: a high event with an alert, written before the deletion job is queued', async () => {
    const user = await quietUser();
    // A bulk creation's lock holds the deletion job back (it waits for the lock), so what the
    // request wrote can be read before the job erases it.
    await testDb().send(
      new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'SET bulkLock = :lock', ExpressionAttributeValues: { ':lock': { until: Date.now() + 120_000, jobId: 'held-by-test' } } }),
    );
    const response = await withAgent(user, 'deletion').call('/api/user/account', { method: 'DELETE' });
    expect(response.status).toBe(202);
    const { PK, SKPrefix } = keys.securityEventsOf(user.sub);
    const { Items = [] } = await testDb().send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': PK, ':sk': SKPrefix }, ConsistentRead: true }),
    );
    expect(Items.map((item) => [item.type, item.severity])).toEqual([['account_deletion_started', 'high']]);
    expect(Items[0]!.userAgent).toBe(agent('deletion'));
    const notifications = keys.notificationsOf(user.sub);
    const alerts = await testDb().send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)', ExpressionAttributeValues: { ':pk': notifications.PK, ':sk': notifications.SKPrefix }, ConsistentRead: true }),
    );
    expect(alerts.Items?.map((item) => [item.kind, item.title])).toEqual([['security-alert', 'Your account is being deleted']]);
  });
});

describe('GET /api/security/events', () => {
  /** Events written through the one recorder, a millisecond apart, oldest first. */
  async function seed(user: ApiUser, count: number): Promise<void> {
    const base = Date.now() - 60_000;
    for (let i = 0; i < count; i++) {
      await recordSecurityEvent(
        { db: testDb(), tableName: TABLE },
        { userId: user.sub, type: 'settings_changed', description: `Event ${i}`, severity: i % 3 === 0 ? 'high' : i % 3 === 1 ? 'medium' : 'low', at: new Date(base + i), ipAddress: '203.0.113.7', userAgent: 'Seeder' },
      );
    }
  }

  it('newest first, 10 by default, paged by an opaque cursor to the end; another user never sees them', async () => {
    const user = await quietUser();
    const other = await quietUser();
    await seed(user, 23);
    const first = await user.json<SecurityEventPage>('/api/security/events');
    expect(first.events.map((e) => e.description)).toEqual(Array.from({ length: 10 }, (_, i) => `Event ${22 - i}`));
    expect(first.events[0]).toMatchObject({ type: 'settings_changed', ipAddress: '203.0.113.7', userAgent: 'Seeder', severity: 'medium' });
    expect(first.nextCursor).toBeTruthy();

    const seen = [...first.events];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await user.json<SecurityEventPage>(`/api/security/events?limit=7&cursor=${encodeURIComponent(cursor)}`);
      expect(page.events.length).toBeLessThanOrEqual(7);
      seen.push(...page.events);
      cursor = page.nextCursor;
    }
    expect(seen.map((e) => e.description)).toEqual(Array.from({ length: 23 }, (_, i) => `Event ${22 - i}`));
    expect(new Set(seen.map((e) => e.id)).size).toBe(23);

    // The other user: an empty list, and the first user's cursor does not reach the first user's events.
    expect(await other.json<SecurityEventPage>('/api/security/events')).toEqual({ events: [] });
    expect((await other.json<SecurityEventPage>(`/api/security/events?cursor=${first.nextCursor!}`)).events).toEqual([]);
  });

  it.each([
    ['?limit=0', SECURITY_EVENTS_LIMIT_MESSAGE],
    [`?limit=${SECURITY_EVENTS_PAGE_MAX + 1}`, SECURITY_EVENTS_LIMIT_MESSAGE],
    ['?limit=abc', SECURITY_EVENTS_LIMIT_MESSAGE],
    ['?limit=2.5', SECURITY_EVENTS_LIMIT_MESSAGE],
    ['?cursor=not-a-cursor', SECURITY_EVENTS_CURSOR_MESSAGE],
    [`?cursor=${'x'.repeat(2000)}`, SECURITY_EVENTS_CURSOR_MESSAGE],
  ])('%s is a 400 with a clear message', async (query, message) => {
    const user = await quietUser();
    const response = await user.call(`/api/security/events${query}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(message);
  });

  it("Export Logs is an Export Center export (issue 29, item 4): every event as a CSV file, streamed page by page, in the history with its count, downloaded by link, the date in the file name, formulas neutralised, no other user's events", async () => {
    const user = await quietUser();
    const other = await quietUser();
    await seed(user, 12);
    await seed(other, 1);
    // Events enough for several Query pages (1 MB each): 2,400 of ~1 KB, written as the app writes them.
    const db = testDb();
    const long = 'x'.repeat(1000);
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < 2400; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          recordSecurityEvent({ db, tableName: TABLE }, { userId: user.sub, type: 'settings_changed', description: `Old ${i + j} ${long}`, severity: 'low', at: new Date(base + i + j) }),
        ),
      );
    }
    // A browser whose name a spreadsheet would run as a formula.
    const hostile = '=HYPERLINK("http://evil.example","click")';
    expect((await user.call('/api/security/settings', { method: 'PUT', body: { sessionTimeout: 8 }, headers: { 'user-agent': hostile } })).status).toBe(200);
    // The old answer of the whole year in one response is gone.
    expect((await user.call('/api/security/events/export')).status).toBe(404);

    const response = await user.call('/api/exports/security-events', { method: 'POST' });
    expect(response.status).toBe(202);
    const started = (await response.json()) as ExportView;
    expect(started).toMatchObject({ kind: 'security-events', projectName: 'Security events', format: 'csv', status: 'pending' });
    const done = await until('the export', async () => (await user.json<ExportView[]>('/api/exports/history')).find((e) => e.id === started.id), (e) => e?.status === 'completed' || e?.status === 'failed');
    expect(done).toMatchObject({ status: 'completed', rowCount: 1 + 12 + 2400 });
    const download = await user.json<{ url: string; filename: string }>(`/api/exports/${started.id}/download`, { method: 'POST' });
    expect(download.filename).toBe(`security-events-${new Date().toISOString().slice(0, 10)}.csv`);
    const file = await fetch(download.url);
    expect(file.headers.get('content-type')).toContain('text/csv');
    // The bytes as stored (Response.text() would drop the BOM Excel needs).
    const text = Buffer.from(await file.arrayBuffer()).toString('utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const rows = Papa.parse<string[]>(text.slice(1).trim(), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual(['Time', 'Type', 'Severity', 'Description', 'IP address', 'User agent']);
    expect(rows).toHaveLength(1 + 1 + 12 + 2400);
    expect(rows[1]).toEqual([expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), 'settings_changed', 'medium', 'Security settings changed: session timeout 8 h', expect.any(String), `'${hostile}`]);
    expect(rows.slice(2, 14).map((row) => row[3])).toEqual(Array.from({ length: 12 }, (_, i) => `Event ${11 - i}`));
    expect(rows.slice(14).map((row) => row[3]!.split(' ').slice(0, 2).join(' '))).toEqual(Array.from({ length: 2400 }, (_, i) => `Old ${2399 - i}`));
    // Told in the bell like every export.
    const bell = await user.json<NotificationList>('/api/notifications');
    expect(bell.notifications).toContainEqual(expect.objectContaining({ kind: 'export-ready', title: 'Export of your security events is ready', body: 'CSV file with 2,413 security events: download it from the Export Center.', link: '/exports' }));

    // The other user's own export holds only their one event.
    const theirs = await other.json<ExportView>('/api/exports/security-events', { method: 'POST' });
    await until('their export', async () => (await other.json<ExportView[]>('/api/exports/history')).find((e) => e.id === theirs.id), (e) => e?.status === 'completed');
    const theirFile = await (await fetch(await exportDownloadUrl(other, theirs.id))).text();
    expect(Papa.parse<string[]>(theirFile.trim(), { skipEmptyLines: true }).data).toHaveLength(2);
    // Another user's export is not one to download.
    expect((await other.call(`/api/exports/${started.id}/download`, { method: 'POST' })).status).toBe(404);
  });
});

describe('GET /api/security/overview', () => {
  it('two-factor, password age against the expiry, integrations with stored credentials and their last test, events by severity', async () => {
    const user = await quietUser();
    await upgradeToPro(user);
    const fresh = await user.json<SecurityOverview>('/api/security/overview');
    expect(fresh).toMatchObject({ twoFactorEnabled: false, integrations: [], recentEvents: { high: 0, medium: 0, low: 0, total: 0, days: 30 } });
    expect(fresh.password).toMatchObject({ ageDays: 0, expiryDays: 90, daysLeft: 90, expired: false });

    // The expiry first (the account gate refuses a user whose password is past it), then the age.
    expect((await user.call('/api/security/settings', { method: 'PUT', body: { passwordExpiryDays: 120, maxLoginAttempts: 4 } })).status).toBe(200);
    const changedAt = new Date(Date.now() - 100 * 86_400_000 - 60_000).toISOString();
    await testDb().send(new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'SET passwordChangedAt = :at', ExpressionAttributeValues: { ':at': changedAt } }));
    const integration = (await (await user.call('/api/integrations', { body: okta('Okta staff', 'a-key') })).json()) as Integration;
    const tested = await user.json<Integration>(`/api/integrations/${integration.id}/test`, { method: 'POST' });
    expect(tested.lastTestDate).toBeTruthy();
    // An event older than 30 days is not counted.
    await recordSecurityEvent({ db: testDb(), tableName: TABLE }, { userId: user.sub, type: 'login', description: 'Old sign-in', severity: 'high', at: new Date(Date.now() - 31 * 86_400_000) });

    const overview = await user.json<SecurityOverview>('/api/security/overview');
    expect(overview.twoFactorEnabled).toBe(false);
    expect(overview.password).toEqual({ changedAt, ageDays: 100, expiryDays: 120, daysLeft: 20, expired: false });
    expect(overview.integrations).toEqual([{ id: integration.id, name: 'Okta staff', platform: 'okta', lastTestStatus: tested.lastTestStatus, lastTestDate: tested.lastTestDate }]);
    // integration_credentials_added (low) and settings_changed (medium: max login attempts).
    expect(overview.recentEvents).toEqual({ high: 0, medium: 1, low: 1, total: 2, days: 30 });
    const { Item } = await testDb().send(new GetCommand({ TableName: TABLE, Key: keys.user(user.sub), ConsistentRead: true }));
    expect(overview.lastSignInAt).toBe(Item?.lastSignInAt);

    // Two-factor on (as the two-factor flow stores it on the settings): the overview says so.
    await testDb().send(
      new UpdateCommand({ TableName: TABLE, Key: keys.user(user.sub), UpdateExpression: 'SET securitySettings.twoFactorEnabled = :on', ExpressionAttributeValues: { ':on': true } }),
    );
    expect((await user.json<SecurityOverview>('/api/security/overview')).twoFactorEnabled).toBe(true);
  });
});
