import { describe, expect, inject, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { BulkJob, CreatedAccount } from '../../shared/schemas/bulk';
import type { AccountView, Page, Project, SubscriptionStatus } from '../../shared/schemas/project';
import type { Analytics } from '../../shared/schemas/analytics';
import type { DashboardStats } from '../../shared/schemas/project';
import type { Integration } from '../../shared/schemas/integrations';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { MailSend } from '../../shared/schemas/mail-send';
import type { BulkUpload, BulkUploadForm } from '../../shared/schemas/bulk-upload';
import { PROJECT_COMPLETED_MESSAGE } from '../../shared/schemas/project';
import { keys } from '../../functions/core/keys';
import { apiUser, people, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { until } from '../support/until';

/**
 * Projects after their creation (issue 27, part 3): Edit, Complete / Reopen, Add people. Through
 * the API and the workers of the test stack, as in use.
 */
type Created = { project: Project; accounts: CreatedAccount[]; summary: { successful: number; failedCount: number; failed: { row: number; message: string }[]; provisioningJobId?: string } };
type Queued = { project: Project; job: BulkJob; summary: { successful: number; failedCount: number } };

const create = (user: ApiUser, name: string, rows: { firstName: string; lastName: string; email: string }[], extra: Record<string, unknown> = {}) =>
  user.json<Created>('/api/bulk-create', { body: { projectName: name, csvData: rows, ...extra } });
const add = (user: ApiUser, projectId: string, rows: unknown[], extra: Record<string, unknown> = {}) =>
  user.call('/api/bulk-create', { body: { projectName: 'ignored', projectId, csvData: rows, ...extra } });
const projectOf = async (user: ApiUser, id: string) => {
  const found = (await user.json<Project[]>('/api/projects')).find((p) => p.id === id);
  if (!found) throw new Error(`project ${id} not listed`);
  return found;
};
async function allAccounts(user: ApiUser, projectId: string): Promise<AccountView[]> {
  const all: AccountView[] = [];
  let cursor: string | undefined;
  do {
    const page = await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}
const userItem = async (user: ApiUser) => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.user(user.sub), ConsistentRead: true }))).Item!;

describe('Edit a project', () => {
  it('stores and shows the new fields, clears emptied ones, records a security event', async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Before', people(2, 'Ed'), { description: 'Old', platformUrl: 'https://old.example.com', expirationDate: '2099-01-01' });
    const edited = await user.json<Project>(`/api/projects/${project.id}`, { method: 'PUT', body: { name: 'After', description: '', platformUrl: 'https://new.example.com/x', accountType: 'Training Account', expirationDate: '2099-06-30' } });
    expect(edited).toMatchObject({ id: project.id, name: 'After', platformUrl: 'https://new.example.com/x', accountType: 'Training Account', expirationDate: '2099-06-30', accountCount: 2 });
    expect(edited).not.toHaveProperty('description');
    expect(await projectOf(user, project.id)).toMatchObject({ name: 'After', accountType: 'Training Account', expirationDate: '2099-06-30' });
    // The accounts show the project's name now, in the Account Database too.
    const { accounts } = await user.json<{ items: AccountView[] }>(`/api/accounts/search?q=${encodeURIComponent((await allAccounts(user, project.id))[0]!.username)}`).then((r) => ({ accounts: r.items }));
    expect(accounts.map((a) => a.projectName)).toEqual(['After']);
    const { events } = await user.json<{ events: { type: string; description: string }[] }>('/api/security/events');
    expect(events.find((e) => e.type === 'project_changed')?.description).toBe('Project "After" edited (name, description, platform URL, account type, expiration date)');
  });

  it('validates as at creation: the same messages, never a 500', async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Valid', people(1, 'Va'));
    const bad = await user.call(`/api/projects/${project.id}`, { method: 'PUT', body: { name: '  ', platformUrl: 'ftp://x', accountType: 'Boss', expirationDate: '31/12/2099' } });
    expect(bad.status).toBe(400);
    const text = JSON.stringify(await bad.json());
    for (const message of ['Project name is required', 'Platform URL must be a valid http(s) URL', 'Choose a valid account type', 'Expiration date must be a date (YYYY-MM-DD)']) expect(text).toContain(message);
    expect((await user.call(`/api/projects/${project.id}`, { method: 'PUT', body: [] })).status).toBe(400);
    expect((await projectOf(user, project.id)).name).toBe('Valid');
  });

  it("answers 404 for another user's project and an unknown id", async () => {
    const [owner, stranger] = await Promise.all([apiUser(), apiUser()]);
    const { project } = await create(owner, 'Mine', people(1, 'Mi'));
    const body = { name: 'Taken', accountType: 'Standard User' };
    expect((await stranger.call(`/api/projects/${project.id}`, { method: 'PUT', body })).status).toBe(404);
    expect((await stranger.call(`/api/projects/${project.id}/status`, { method: 'PUT', body: { status: 'completed' } })).status).toBe(404);
    expect((await owner.call('/api/projects/no-such-project', { method: 'PUT', body })).status).toBe(404);
    expect((await projectOf(owner, project.id)).name).toBe('Mine');
  });
});

describe('Complete / Reopen', () => {
  it('a completed project shows Completed everywhere, takes no new people (409), and Reopen brings it back', async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Finishing', people(3, 'Fi'), { expirationDate: '2099-12-31' });
    await create(user, 'Other', people(1, 'Ot'));
    const before = await user.json<Analytics>('/api/analytics');
    expect(before.activeProjects).toBe(2);

    const completed = await user.json<Project>(`/api/projects/${project.id}/status`, { method: 'PUT', body: { status: 'completed' } });
    expect(completed.status).toBe('completed');
    expect((await projectOf(user, project.id)).status).toBe('completed');
    expect((await user.json<DashboardStats>('/api/dashboard/stats')).activeProjects).toBe(1);
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(1);
    // Completing twice changes nothing (no double count).
    await user.json<Project>(`/api/projects/${project.id}/status`, { method: 'PUT', body: { status: 'completed' } });
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(1);

    const refused = await add(user, project.id, people(1, 'Late'));
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ message: PROJECT_COMPLETED_MESSAGE });
    // A large file's start is refused as well, before the file is read; another user's project is 404.
    const form = await user.json<{ id: string }>('/api/bulk-uploads', { method: 'POST' });
    const uploadStart = await user.call(`/api/bulk-uploads/${form.id}/start`, { body: { projectName: 'ignored', projectId: project.id } });
    expect(uploadStart.status).toBe(409);
    expect(await uploadStart.json()).toMatchObject({ message: PROJECT_COMPLETED_MESSAGE });
    const stranger = await apiUser();
    const strangerForm = await stranger.json<{ id: string }>('/api/bulk-uploads', { method: 'POST' });
    expect((await stranger.call(`/api/bulk-uploads/${strangerForm.id}/start`, { body: { projectName: 'ignored', projectId: project.id } })).status).toBe(404);
    expect((await projectOf(user, project.id)).accountCount).toBe(3);
    expect((await userItem(user)).accountCount).toBe(4);
    expect(await userItem(user)).not.toHaveProperty('bulkLock');

    // Editing the date of a completed project does not count it active again.
    await user.json<Project>(`/api/projects/${project.id}`, { method: 'PUT', body: { name: 'Finishing', accountType: 'Standard User', expirationDate: '2098-01-01' } });
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(1);

    const reopened = await user.json<Project>(`/api/projects/${project.id}/status`, { method: 'PUT', body: { status: 'active' } });
    expect(reopened.status).toBe('active');
    expect((await user.json<DashboardStats>('/api/dashboard/stats')).activeProjects).toBe(2);
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(2);
    expect((await add(user, project.id, people(1, 'Late'))).status).toBe(200);

    // A past expiration date makes it inactive in both, an edit to a future one active again.
    await user.json<Project>(`/api/projects/${project.id}`, { method: 'PUT', body: { name: 'Finishing', accountType: 'Standard User', expirationDate: '2020-01-01' } });
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(1);
    expect((await user.json<DashboardStats>('/api/dashboard/stats')).activeProjects).toBe(1);
    await user.json<Project>(`/api/projects/${project.id}`, { method: 'PUT', body: { name: 'Finishing', accountType: 'Standard User', expirationDate: '' } });
    expect((await user.json<Analytics>('/api/analytics')).activeProjects).toBe(2);
  });

  it('refuses an unknown status', async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Status', people(1, 'St'));
    const bad = await user.call(`/api/projects/${project.id}/status`, { method: 'PUT', body: { status: 'archived' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('Status must be active or completed');
  });
});

describe('Add people to a project', () => {
  it('appends rows after the last, keeps usernames unique against existing ones, counts everything', async () => {
    const user = await apiUser();
    // Two of the same name already: the added ones must get -3 and -4.
    const { project, accounts: first } = await create(user, 'Team', [...people(3, 'Base'), { firstName: 'Ann', lastName: 'Lee', email: 'ann1@example.com' }, { firstName: 'Ann', lastName: 'Lee', email: 'ann2@example.com' }]);
    const other = await create(user, 'Elsewhere', [{ firstName: 'Bob', lastName: 'Ray', email: 'bob@example.com' }]);
    const response = await add(user, project.id, [
      { firstName: 'Ann', lastName: 'Lee', email: 'ann3@example.com' },
      { firstName: 'Ann', lastName: 'Lee', email: 'ann4@example.com' },
      { firstName: 'Bob', lastName: 'Ray', email: 'bob2@example.com' },
      { firstName: '', lastName: 'NoFirst', email: 'x@example.com' },
    ]);
    expect(response.status).toBe(200);
    const added = (await response.json()) as Created;
    expect(added.summary).toMatchObject({ successful: 3, failedCount: 1 });
    expect(added.summary.failed[0]).toMatchObject({ row: 4, message: 'First name is required' });
    expect(added.project).toMatchObject({ id: project.id, name: 'Team', accountCount: 8, failedCount: 1 });

    const all = await allAccounts(user, project.id);
    expect(all).toHaveLength(8);
    // Rows after the project's last, in order: the first five untouched.
    expect(all.slice(0, 5).map((a) => a.id)).toEqual(first.map((a) => a.id));
    expect(new Set(all.map((a) => a.id)).size).toBe(8);
    expect(all.slice(5).map((a) => a.email)).toEqual(['ann3@example.com', 'ann4@example.com', 'bob2@example.com']);
    const usernames = [...all.map((a) => a.username), other.accounts[0]!.username];
    expect(new Set(usernames).size).toBe(usernames.length);
    const year = new Date().getUTCFullYear();
    expect(all.slice(5).map((a) => a.username)).toEqual([`annlee${year}-3`, `annlee${year}-4`, `bobray${year}-2`]);

    // The project count did not go up; the user's accounts and the project's did.
    expect(await userItem(user)).toMatchObject({ projectCount: 2, accountCount: 9 });
    expect(await userItem(user)).not.toHaveProperty('bulkLock');
    const status = await user.json<SubscriptionStatus>('/api/subscription/status');
    expect(status.usage).toMatchObject({ projectsUsed: 2, accountsUsed: 9 });
    const listed = await projectOf(user, project.id);
    expect(listed).toMatchObject({ accountCount: 8, syncPendingCount: 8, failedCount: 1 });
    expect(listed.emailCounts).toBeTruthy();
    const analytics = await user.json<Analytics>('/api/analytics');
    expect(analytics).toMatchObject({ totalAccounts: 9, activeProjects: 2 });
    expect(analytics.recentActivity.map((a) => a.action)).toContain('3 accounts added to "Team"');

    // A second add goes after the first one's rows.
    const again = (await (await add(user, project.id, [{ firstName: 'Ann', lastName: 'Lee', email: 'ann5@example.com' }])).json()) as Created;
    expect(again.accounts[0]!.username).toBe(`annlee${year}-5`);
    const after = await allAccounts(user, project.id);
    expect(after).toHaveLength(9);
    expect(after.at(-1)!.email).toBe('ann5@example.com');
    const { events } = await user.json<{ events: { type: string; description: string }[] }>('/api/security/events');
    expect(events.filter((e) => e.type === 'accounts_added').map((e) => e.description)).toContain('1 account added to the project "Team"');
  });

  it("keeps an add's refused rows in the project's rejected-rows report, after the creation's, as its failed count says", async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Reported', [...people(2, 'Rep'), { firstName: 'Creation', lastName: 'Refused', email: 'not-an-address' }]);
    const response = await add(user, project.id, [{ firstName: '', lastName: 'Nofirst', email: 'nofirst@example.com' }, ...people(1, 'RepNew'), { firstName: 'Add', lastName: 'Refused', email: 'also-not-an-address' }]);
    expect(response.status).toBe(200);
    const added = (await response.json()) as Created & { summary: { rejectedRowsUrl?: string } };
    expect(added.summary).toMatchObject({ successful: 1, failedCount: 2, rejectedRowsUrl: `/api/projects/${project.id}/rejected-rows` });
    expect((await projectOf(user, project.id)).failedCount).toBe(3);
    const report = await user.call(`/api/projects/${project.id}/rejected-rows`);
    expect(report.status).toBe(200);
    const lines = (await report.text()).replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    // The header, the creation's row, then the add's two (numbered as in what was added).
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('not-an-address');
    expect(lines[2]).toContain('Nofirst');
    expect(lines[2]).toContain('First name is required');
    expect(lines[3]).toContain('also-not-an-address');
  });

  it("answers 404 for another user's project, writing nothing", async () => {
    const [owner, stranger] = await Promise.all([apiUser(), apiUser()]);
    const { project } = await create(owner, 'Private', people(2, 'Pr'));
    const response = await add(stranger, project.id, people(1, 'In'));
    expect(response.status).toBe(404);
    expect((await projectOf(owner, project.id)).accountCount).toBe(2);
    expect(await userItem(stranger)).not.toHaveProperty('bulkLock');
    expect(Number((await userItem(stranger)).accountCount ?? 0)).toBe(0);
    expect((await add(owner, 'not-a-project', people(1, 'In'))).status).toBe(404);
  });

  it('keeps the free plan at 100 per project and 300 in all, atomically with two adds at once', async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Edge', people(60, 'Edge'));
    // Two adds of 30 at once: 60 + 30 + 30 = 120 > 100: at most one goes through.
    const [a, b] = await Promise.all([add(user, project.id, people(30, 'A')), add(user, project.id, people(30, 'B'))]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    expect((await projectOf(user, project.id)).accountCount).toBe(90);
    // To exactly 100 is fine, one more is not.
    expect((await add(user, project.id, people(10, 'C'))).status).toBe(200);
    const over = await add(user, project.id, people(1, 'D'));
    expect(over.status).toBe(403);
    expect(((await over.json()) as { message: string }).message).toContain('at most 100 accounts per project');
    expect((await projectOf(user, project.id)).accountCount).toBe(100);

    // 300 in all: two more projects of 100 and 90, then adds of 10 at once to the second: one fits.
    const second = await create(user, 'Second', people(100, 'S'));
    const third = await create(user, 'Third', people(90, 'T'));
    expect(second.summary.successful + third.summary.successful).toBe(190);
    const [c, d] = await Promise.all([add(user, third.project.id, people(10, 'E')), add(user, third.project.id, people(10, 'F'))]);
    expect([c.status, d.status].filter((s) => s === 200)).toHaveLength(1);
    const last = await add(user, third.project.id, people(1, 'G'));
    expect(last.status).toBe(403);
    expect(await userItem(user)).toMatchObject({ projectCount: 3, accountCount: 300 });
    expect(await userItem(user)).not.toHaveProperty('bulkLock');
    let stored = 0;
    for (const p of [project.id, second.project.id, third.project.id]) stored += (await allAccounts(user, p)).length;
    expect(stored).toBe(300);
  });

  it('adds a large file as a job into the project’s partitions, after its last row, with unique names', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { project } = await create(user, 'Big', people(5, 'Big'));
    const rows = people(1500, 'Big');
    const response = await add(user, project.id, rows);
    expect(response.status).toBe(202);
    const queued = (await response.json()) as Queued;
    expect(queued.job.id).not.toBe(project.id);
    expect(queued.job.projectId).toBe(project.id);
    const job = await until('the add job to end', () => user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (j) => j.status === 'completed' || j.status === 'failed');
    expect(job).toMatchObject({ status: 'completed', done: 1500, failedCount: 0, total: 1500 });
    await until('the project count', () => projectOf(user, project.id), (p) => p.accountCount === 1505);
    const all = await allAccounts(user, project.id);
    expect(all).toHaveLength(1505);
    expect(new Set(all.map((a) => a.id)).size).toBe(1505);
    expect(new Set(all.map((a) => a.username)).size).toBe(1505);
    // The project keeps its one partition (created at once): the added accounts are in it, after row 5.
    const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(user.sub, project.id) }));
    expect(Item?.accountShards ?? 1).toBe(1);
    expect(Item?.lastRow).toBe(1505);
    expect(all.slice(0, 5).map((a) => a.email)).toEqual(people(5, 'Big').map((p) => p.email));
    await until('the lock given back', () => userItem(user), (u) => u.bulkLock === undefined);
    expect(await userItem(user)).toMatchObject({ projectCount: 1, accountCount: 1505 });
    const analytics = await user.json<Analytics>('/api/analytics');
    expect(analytics.totalAccounts).toBe(1505);
    expect(analytics.recentActivity.map((a) => a.action)).toContain('1,500 accounts added to "Big"');
  });

  it('adds the people of an uploaded file (the large-file path) after the last row', async () => {
    const user = await apiUser();
    const { project } = await create(user, 'Uploaded into', people(4, 'Up'));
    const form = await user.json<BulkUploadForm>('/api/bulk-uploads', { method: 'POST' });
    const data = new FormData();
    for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
    const csv = ['First Name,Last Name,Email', ...people(6, 'Up').map((p) => `${p.firstName},${p.lastName},${p.email.replace('@', '.new@')}`), 'Bad,Row,not-an-address'].join('\n');
    data.append('file', new Blob([csv], { type: 'text/csv' }), 'people.csv');
    expect((await fetch(form.url, { method: 'POST', body: data })).status).toBeLessThan(300);
    const started = await user.call(`/api/bulk-uploads/${form.id}/start`, { body: { projectName: 'ignored', projectId: project.id } });
    expect(started.status).toBe(202);
    const read = await until('the upload to start its job', () => user.json<BulkUpload>(`/api/bulk-uploads/${form.id}`), (u) => u.status === 'queued' || u.status === 'failed' || u.status === 'checked');
    expect(read.status).toBe('queued');
    expect(read.job?.projectId).toBe(project.id);
    const job = await until('the job to end', () => user.json<BulkJob>(`/api/bulk-jobs/${form.id}`), (j) => j.status === 'completed' || j.status === 'failed');
    expect(job).toMatchObject({ status: 'completed', done: 6, total: 6 });
    const all = await allAccounts(user, project.id);
    expect(all).toHaveLength(10);
    expect(all.slice(4).map((a) => a.email)).toEqual(people(6, 'Up').map((p) => p.email.replace('@', '.new@')));
    // The same names as the first four get their next free number.
    const year = new Date().getUTCFullYear();
    expect(all[4]!.username).toBe(`up0tester${year}-2`);
    expect(new Set(all.map((a) => a.username)).size).toBe(10);
    await until('the project counts', () => projectOf(user, project.id), (p) => p.accountCount === 10 && p.failedCount === 1);
    await until('the lock given back', () => userItem(user), (u) => u.bulkLock === undefined);
    expect(await userItem(user)).toMatchObject({ projectCount: 1, accountCount: 10 });
  });

  it('e-mails the added people when asked (the holders not e-mailed yet)', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const created = await user.json<Created & { summary: { mailSendId?: string } }>('/api/bulk-create', { body: { projectName: 'Mailed', csvData: people(2, 'Ml'), sendCredentials: { delivery: 'password' } } });
    const waitSend = (id: string) => until('the send to end', () => user.json<MailSend>(`/api/mail-sends/${id}`), (m) => m.status === 'completed' || m.status === 'failed');
    await waitSend(created.summary.mailSendId!);
    const added = (await (await add(user, created.project.id, people(3, 'MlNew'), { sendCredentials: { delivery: 'password' } })).json()) as Created & { summary: { mailSendId?: string } };
    expect(added.summary.mailSendId).toBeTruthy();
    const send = await waitSend(added.summary.mailSendId!);
    // Only the three new holders: the first two were e-mailed already.
    expect(send).toMatchObject({ status: 'completed', scope: 'unsent', total: 3 });
  });

  it('e-mails only the added people, not older accounts never e-mailed (at once and as a job)', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const { project } = await create(user, 'Not mailed', people(2, 'Old'));
    const waitSend = (id: string) => until('the send to end', () => user.json<MailSend>(`/api/mail-sends/${id}`), (m) => m.status === 'completed' || m.status === 'failed');
    const added = (await (await add(user, project.id, people(3, 'OldNew'), { sendCredentials: { delivery: 'password' } })).json()) as Created & { summary: { mailSendId?: string } };
    expect(await waitSend(added.summary.mailSendId!)).toMatchObject({ status: 'completed', scope: 'unsent', total: 3, sent: 3 });
    const statuses = async () => Object.fromEntries((await allAccounts(user, project.id)).map((a) => [a.email, a.emailStatus]));
    const first = await statuses();
    // Never e-mailed: no status.
    expect(people(2, 'Old').map((p) => first[p.email])).toEqual([undefined, undefined]);
    expect(people(3, 'OldNew').map((p) => first[p.email]).every((status) => status !== undefined)).toBe(true);

    // A large add (a job): its send waits for the accounts, then takes only its rows.
    const many = people(1001, 'OldJob');
    const queued = await add(user, project.id, many, { sendCredentials: { delivery: 'password' } });
    expect(queued.status).toBe(202);
    const { job } = (await queued.json()) as Queued;
    const done = await until('the add to end', () => user.json<BulkJob & { mailSendId?: string }>(`/api/bulk-jobs/${job.id}`), (j) => j.status === 'completed' || j.status === 'failed', 180_000, 300);
    expect(done.status).toBe('completed');
    const sendId = await until('its send', async () => (await user.json<Project[]>('/api/projects')).find((p) => p.id === project.id)?.mailSendId, (id) => typeof id === 'string' && id !== added.summary.mailSendId);
    expect(await waitSend(sendId!)).toMatchObject({ status: 'completed', total: 1001, sent: 1001 });
    const after = await statuses();
    expect(people(2, 'Old').map((p) => after[p.email])).toEqual([undefined, undefined]);
  });

  it('provisions the added people to the project’s integration after the import', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const scim = inject('stack').scim;
    const integration = (await (await user.call('/api/integrations', { body: { name: 'Directory', platform: 'custom', baseUrl: scim.url, authMethod: 'bearer_token', authConfig: { token: scim.token }, apiConfig: { testPath: '/ServiceProviderConfig' } } })).json()) as Integration;
    const created = await create(user, 'Provisioned', people(2, 'Pv'), { apiIntegrationId: integration.id, createExternalAccounts: true });
    const waitRun = (id: string) => until('the run to end', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${id}`), (j) => j.status === 'completed' || j.status === 'failed');
    expect((await waitRun(created.summary.provisioningJobId!)).status).toBe('completed');
    const added = (await (await add(user, created.project.id, people(3, 'PvNew'))).json()) as Created;
    expect(added.summary.provisioningJobId).toBeTruthy();
    const run = await waitRun(added.summary.provisioningJobId!);
    expect(run).toMatchObject({ status: 'completed', synced: 3, mode: 'provision' });
    const listed = await projectOf(user, created.project.id);
    expect(listed).toMatchObject({ accountCount: 5, syncedCount: 5, syncPendingCount: 0 });

    // A large add is a job: the run starts once the job has ended, and the job names it.
    const big = (await (await add(user, created.project.id, people(1200, 'PvJob'))).json()) as Queued;
    const ended = await until('the add job to name its run', () => user.json<BulkJob>(`/api/bulk-jobs/${big.job.id}`), (j) => j.status === 'failed' || j.provisioningJobId !== undefined || j.provisioningError !== undefined);
    expect(ended).toMatchObject({ status: 'completed', done: 1200 });
    expect(ended.provisioningError).toBeUndefined();
    const jobRun = await until('the run to end', () => user.json<ProvisioningJob>(`/api/provisioning-jobs/${ended.provisioningJobId!}`), (j) => j.status === 'completed' || j.status === 'failed', 120_000);
    expect(jobRun).toMatchObject({ status: 'completed', synced: 1200, total: 1200 });
    expect(await projectOf(user, created.project.id)).toMatchObject({ accountCount: 1205, syncedCount: 1205, syncPendingCount: 0 });
  });
});
