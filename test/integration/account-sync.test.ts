import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';
import type { BulkUploadForm } from '../../shared/schemas/bulk-upload';
import type { SyncChangedRow, SyncPreview, SyncRejectedRow, SyncRowsPage } from '../../shared/schemas/account-sync';
import { syncMessages } from '../../shared/schemas/account-sync';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { AccountHistoryEntry } from '../../shared/schemas/account-edit';
import { SCIM_ENTERPRISE_USER } from '../../shared/schemas/attribute-mapping';
import type { SecurityEventPage } from '../../shared/schemas/security';
import { apiUser, people, upgradeToPro, type ApiUser } from '../support/api';
import type { MailSend } from '../../shared/schemas/mail-send';
import { provisionedProject } from '../support/provisioned-project';
import { until } from '../support/until';

/**
 * Sync a changed list into a project (docs/sync.md) through the API and the bulk-uploads worker of
 * the local stack: the preview's counts that add up, matching by e-mail and by id, rejected rows,
 * the apply (new created, changed updated, missing deactivated or deleted), a changed name reaching
 * the local SCIM directory, sync twice = nothing the second time, redelivery, a stale preview and
 * tenant isolation.
 */
const stack = inject('stack');
const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

async function upload(user: ApiUser, body: string): Promise<string> {
  const response = await user.call('/api/bulk-uploads', { method: 'POST' });
  expect(response.status).toBe(201);
  const form = (await response.json()) as BulkUploadForm;
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
  data.append('file', new Blob([body], { type: 'text/csv' }), 'people.csv');
  const answer = await fetch(form.url, { method: 'POST', body: data });
  expect(answer.status, await answer.clone().text()).toBeLessThan(300);
  return form.id;
}

async function preview(user: ApiUser, projectId: string, csv: string): Promise<SyncPreview> {
  const uploadId = await upload(user, csv);
  const started = await user.call(`/api/projects/${projectId}/sync-previews`, { body: { uploadId } });
  expect(started.status, await started.clone().text()).toBe(202);
  return until('the preview', () => user.json<SyncPreview>(`/api/sync-previews/${uploadId}`), (p) => p.status !== 'reading');
}

const applied = (user: ApiUser, id: string) => until('the apply', () => user.json<SyncPreview>(`/api/sync-previews/${id}`), (p) => p.status === 'applied', 180_000, 250);
const accountsOf = async (user: ApiUser, projectId: string) => (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=500`)).items;
const csvOf = (rows: string[][]) => ['First Name,Last Name,Email', ...rows.map((r) => r.join(','))].join('\n') + '\n';

async function projectOf(user: ApiUser, name: string, count: number, prefix: string): Promise<Project> {
  const created = await user.json<{ project: Project }>('/api/bulk-create', { body: { projectName: name, csvData: people(count, prefix) } });
  return created.project;
}

/** Every count adds up: rows of the file, and accounts of the project. */
function expectAddsUp(p: SyncPreview) {
  const c = p.counts!;
  expect(c.new + c.changed + c.unchanged + c.rejected).toBe(c.rows);
  expect(c.matched + c.missing).toBe(c.accounts);
  expect(c.matched).toBe(c.changed + c.unchanged);
}

describe('sync a changed list into a project', () => {
  it('previews by e-mail (case-insensitive): new, changed with old and new values, unchanged, missing, rejected with reasons; applies them; twice finds nothing to do', async () => {
    const user = await apiUser();
    const project = await projectOf(user, 'Roster', 6, 'Syn');
    const file = csvOf([
      ['Syn0', 'Tester', 'syn0@example.com'],
      ['Syn1', 'Changed', 'syn1@example.com'],
      ['Syn2', 'Tester', 'SYN2@Example.com'],
      ['Syn3', 'Tester', 'syn3@example.com'],
      ['Nina', 'New', 'nina.new@example.com'],
      ['Otto', 'New', 'otto.new@example.com'],
      ['=HYPERLINK("x")', 'Bad', 'not-an-address'],
      ['Again', 'Twice', 'nina.new@example.com'],
    ]);
    const first = await preview(user, project.id, file);
    expect(first).toMatchObject({ status: 'ready', matchKey: 'email', counts: { rows: 8, new: 2, changed: 2, unchanged: 2, rejected: 2, accounts: 6, matched: 4, missing: 2, missingActive: 2 } });
    expectAddsUp(first);

    const changed = await user.json<SyncRowsPage>(`/api/sync-previews/${first.id}/rows?section=changed&page=0`);
    expect(changed.total).toBe(2);
    const byRow = new Map((changed.rows as SyncChangedRow[]).map((r) => [r.row, r]));
    expect(byRow.get(3)!.changes).toEqual([{ field: 'lastName', label: 'Last name', from: 'Tester', to: 'Changed' }]);
    expect(byRow.get(4)!.changes).toEqual([{ field: 'email', label: 'E-mail', from: 'syn2@example.com', to: 'SYN2@Example.com' }]);
    const rejected = (await user.json<SyncRowsPage>(`/api/sync-previews/${first.id}/rows?section=rejected`)).rows as SyncRejectedRow[];
    expect(rejected.map((r) => r.row)).toEqual([8, 9]);
    expect(rejected[1]!.problem).toMatch(/Duplicate email \(also in row 6\)/);
    const missing = await user.json<SyncRowsPage>(`/api/sync-previews/${first.id}/rows?section=missing`);
    expect(missing.rows.map((r) => (r as { username: string }).username).length).toBe(2);
    expect((await user.call(`/api/sync-previews/${first.id}/rows?section=everything`)).status).toBe(400);

    const csv = await user.call(`/api/sync-previews/${first.id}/csv`);
    expect(csv.status).toBe(200);
    const text = await csv.text();
    expect(text).toContain('Last name: Tester -> Changed');
    expect(text).toContain(`'=HYPERLINK`);
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(1 + 8 + 2);

    const apply = await user.call(`/api/sync-previews/${first.id}/apply`, { body: { createNew: true, updateChanged: true, missing: 'deactivate' } });
    expect(apply.status, await apply.clone().text()).toBe(202);
    const done = await applied(user, first.id);
    expect(done.apply).toMatchObject({ toUpdate: 2, updatedHere: 2, updateFailed: 0, toCreate: 2, created: 2, errors: [], missingAction: { status: 'completed', total: 2, done: 2, failed: 0 } });
    const accounts = await accountsOf(user, project.id);
    expect(accounts).toHaveLength(8);
    expect(accounts.find((a) => a.email === 'syn1@example.com')!.lastName).toBe('Changed');
    expect(accounts.filter((a) => a.isActive === false).map((a) => a.email).sort()).toEqual(['syn4@example.com', 'syn5@example.com']);
    expect(accounts.filter((a) => a.email.endsWith('.new@example.com'))).toHaveLength(2);
    // Applied once: a second apply of the same preview is refused.
    expect((await user.call(`/api/sync-previews/${first.id}/apply`, { body: { createNew: true } })).status).toBe(409);
    const events = (await user.json<SecurityEventPage>('/api/security/events?limit=50')).events;
    expect(events.some((e) => e.type === 'accounts_synced' && /updated from a file/.test(e.description))).toBe(true);

    // The same file again: nothing new, nothing changed; the missing are already deactivated.
    const second = await preview(user, project.id, file);
    expect(second.counts).toMatchObject({ rows: 8, new: 0, changed: 0, unchanged: 6, rejected: 2, accounts: 8, matched: 6, missing: 2, missingActive: 0 });
    expectAddsUp(second);
    const again = await user.call(`/api/sync-previews/${second.id}/apply`, { body: { createNew: true, updateChanged: true, missing: 'deactivate' } });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { message: string }).message).toBe(syncMessages.nothingToDo);
  });

  it('matches by an id column (unknown ids rejected, rows without one by e-mail) and deletes the missing; a redelivered step changes nothing twice', async () => {
    const user = await apiUser();
    const project = await projectOf(user, 'By id', 4, 'Ider');
    const [a0, a1] = await accountsOf(user, project.id);
    const file = ['id,First Name,Last Name,Email', `${a0!.id},Ider0,Tester,ider0.renamed@example.com`, `${project.id}.000099,Ghost,Row,ghost@example.com`, `,Ider1,Tester,ider1@example.com`, `,Neo,Person,neo@example.com`].join('\n');
    const p = await preview(user, project.id, file);
    expect(p).toMatchObject({ matchKey: 'id', counts: { rows: 4, new: 1, changed: 1, unchanged: 1, rejected: 1, accounts: 4, matched: 2, missing: 2 } });
    expectAddsUp(p);
    const changed = (await user.json<SyncRowsPage>(`/api/sync-previews/${p.id}/rows?section=changed`)).rows as SyncChangedRow[];
    expect(changed[0]).toMatchObject({ accountId: a0!.id, matchedBy: 'id', changes: [{ field: 'email', from: 'ider0@example.com', to: 'ider0.renamed@example.com' }] });
    expect(((await user.json<SyncRowsPage>(`/api/sync-previews/${p.id}/rows?section=rejected`)).rows[0] as SyncRejectedRow).problem).toMatch(/No account of this project has the id/);

    expect((await user.call(`/api/sync-previews/${p.id}/apply`, { body: { createNew: true, updateChanged: true, missing: 'delete' } })).status).toBe(202);
    // The same step delivered again at once (SQS may): nothing is done twice.
    for (let i = 0; i < 2; i++) await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls['bulk-uploads']!, MessageBody: JSON.stringify({ type: 'sync-apply', userId: user.sub, previewId: p.id }) }));
    const done = await applied(user, p.id);
    expect(done.apply).toMatchObject({ updatedHere: 1, created: 1, missingAction: { status: 'completed', total: 2, done: 2, failed: 0 } });
    const accounts = await accountsOf(user, project.id);
    expect(accounts.map((a) => a.email).sort()).toEqual(['ider0.renamed@example.com', 'ider1@example.com', 'neo@example.com']);
    expect(accounts.find((a) => a.id === a1!.id)).toBeDefined();
    const after = (await user.json<Project[]>('/api/projects')).find((x) => x.id === project.id)!;
    expect(after.accountCount).toBe(3);
  });

  it('refuses a stale preview (the project changed after it) in clear words, and answers 404 for another user\'s project and preview', async () => {
    const user = await apiUser();
    const other = await apiUser();
    const project = await projectOf(user, 'Stale', 3, 'Stale');
    const p = await preview(user, project.id, csvOf([['Stale0', 'Renamed', 'stale0@example.com']]));
    const [account] = await accountsOf(user, project.id);
    expect((await user.call(`/api/accounts/${account!.id}`, { method: 'PUT', body: { firstName: 'Edited', lastName: 'Here', email: account!.email } })).status).toBe(200);
    const stale = await user.call(`/api/sync-previews/${p.id}/apply`, { body: { updateChanged: true } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { message: string }).message).toBe(syncMessages.stale);

    for (const path of [`/api/sync-previews/${p.id}`, `/api/sync-previews/${p.id}/rows?section=new`, `/api/sync-previews/${p.id}/csv`]) expect((await other.call(path)).status, path).toBe(404);
    expect((await other.call(`/api/sync-previews/${p.id}/apply`, { body: { updateChanged: true } })).status).toBe(404);
    const theirUpload = await upload(other, csvOf([['A', 'B', 'a@example.com']]));
    expect((await other.call(`/api/projects/${project.id}/sync-previews`, { body: { uploadId: theirUpload } })).status).toBe(404);
    // Someone else's upload for one's own project: 404 as well.
    expect((await user.call(`/api/projects/${project.id}/sync-previews`, { body: { uploadId: theirUpload } })).status).toBe(404);
    expect((await user.call(`/api/projects/${project.id}/sync-previews`, { body: { uploadId: 'no/such' } })).status).toBe(404);
  });

  it('sends a changed name to the local SCIM directory for a provisioned project', async () => {
    const user = await apiUser();
    const { project } = await provisionedProject(user, 'Synced roster', people(3, 'Scimsync'));
    const [account] = await accountsOf(user, project.id);
    const p = await preview(user, project.id, csvOf([['Scimsync0', 'Married', 'scimsync0@example.com'], ['Scimsync1', 'Tester', 'scimsync1@example.com'], ['Scimsync2', 'Tester', 'scimsync2@example.com']]));
    expect(p.counts).toMatchObject({ changed: 1, unchanged: 2, missing: 0 });
    expect((await user.call(`/api/sync-previews/${p.id}/apply`, { body: { updateChanged: true } })).status).toBe(202);
    const done = await applied(user, p.id);
    expect(done.apply).toMatchObject({ updatedHere: 1, updateOnPlatform: { status: 'completed', total: 1, done: 1, failed: 0 } });
    const { scim } = stack;
    const there = (await (await fetch(`${scim.url}/Users/${account!.externalAccountId!}`, { headers: { authorization: `Bearer ${scim.token}` } })).json()) as { name?: { familyName?: string } };
    expect(there.name?.familyName).toBe('Married');
    const after = (await accountsOf(user, project.id)).find((a) => a.id === account!.id)!;
    expect(after.lastName).toBe('Married');
    expect(after.platformChange).toBeUndefined();
  });

  it('compares the extra columns and applies them through the accounts\' writer: a changed department reaches the local SCIM directory, history per column, the Attribute filter and the project\'s columns follow; redelivered, nothing twice; twice, nothing to do', async () => {
    const user = await apiUser();
    const folks = [0, 1, 2].map((i) => ({ firstName: `Attr${i}`, lastName: 'Tester', email: `attr${i}@example.com`, attributes: { department: 'Sales', title: 'Rep' } }));
    const { project } = await provisionedProject(user, 'Columns roster', folks);
    const ann = (await accountsOf(user, project.id)).find((a) => a.email === 'attr0@example.com')!;
    expect(ann.attributes).toEqual({ department: 'Sales', title: 'Rep' });
    const file = ['First Name,Last Name,Email,Department,Job Title,Cost Center', 'Attr0,Tester,attr0@example.com,Marketing,,C1', 'Attr1,Tester,attr1@example.com,Sales,Rep,', 'Attr2,Tester,attr2@example.com,Sales,Rep,'].join('\n');
    const p = await preview(user, project.id, file);
    expect(p.counts).toMatchObject({ rows: 3, changed: 1, unchanged: 2, rejected: 0 });
    const [changed] = (await user.json<SyncRowsPage>(`/api/sync-previews/${p.id}/rows?section=changed`)).rows as SyncChangedRow[];
    expect(changed!.changes).toEqual([
      { field: 'attributes.department', label: 'Department', from: 'Sales', to: 'Marketing' },
      { field: 'attributes.title', label: 'Title', from: 'Rep', to: '' },
      { field: 'attributes.costCenter', label: 'Cost Center', from: '', to: 'C1' },
    ]);
    expect(await (await user.call(`/api/sync-previews/${p.id}/csv`)).text()).toContain('Department: Sales -> Marketing; Title: Rep -> ; Cost Center:  -> C1');

    expect((await user.call(`/api/sync-previews/${p.id}/apply`, { body: { updateChanged: true } })).status).toBe(202);
    for (let i = 0; i < 2; i++) await sqs.send(new SendMessageCommand({ QueueUrl: stack.queueUrls['bulk-uploads']!, MessageBody: JSON.stringify({ type: 'sync-apply', userId: user.sub, previewId: p.id }) }));
    const done = await applied(user, p.id);
    expect(done.apply).toMatchObject({ updatedHere: 1, updateFailed: 0, updateOnPlatform: { status: 'completed', total: 1, done: 1, failed: 0 } });

    const { scim } = stack;
    const found = (await (await fetch(`${scim.url}/Users?filter=${encodeURIComponent(`userName eq "${ann.username}"`)}`, { headers: { authorization: `Bearer ${scim.token}` } })).json()) as { Resources: Record<string, unknown>[] };
    const there = found.Resources[0]!;
    expect(there[SCIM_ENTERPRISE_USER]).toMatchObject({ department: 'Marketing' });
    expect(there.title).toBeUndefined();

    const after = (await accountsOf(user, project.id)).find((a) => a.id === ann.id)!;
    expect(after.attributes).toEqual({ department: 'Marketing', costCenter: 'C1' });
    expect(after.platformChange).toBeUndefined();
    // One history entry, one change per column, however often the step was delivered.
    const history = await user.json<{ entries: AccountHistoryEntry[] }>(`/api/accounts/${ann.id}/history`);
    const edits = history.entries.filter((e) => e.kind === 'edited');
    expect(edits).toHaveLength(1);
    const byField = (a: { field: string }, b: { field: string }) => a.field.localeCompare(b.field);
    expect([...edits[0]!.changes!].sort(byField)).toEqual(changed!.changes.map(({ field, from, to }) => ({ field, from, to })).sort(byField));
    // The Attribute filter finds the new value, no longer the old one; the project lists the new column.
    const byDepartment = async (value: string) => (await user.json<Page<AccountView>>(`/api/accounts?attributeName=department&attributeValue=${value}&projectId=${project.id}`)).items.map((a) => a.email).sort();
    expect(await byDepartment('Marketing')).toEqual(['attr0@example.com']);
    expect(await byDepartment('Sales')).toEqual(['attr1@example.com', 'attr2@example.com']);
    expect((await user.json<Project[]>('/api/projects')).find((x) => x.id === project.id)!.attributeKeys).toEqual(expect.arrayContaining(['department', 'title', 'costCenter']));

    // The same file again finds nothing; a file without the columns leaves them as they are.
    const second = await preview(user, project.id, file);
    expect(second.counts).toMatchObject({ changed: 0, unchanged: 3 });
    expect((await user.call(`/api/sync-previews/${second.id}/apply`, { body: { updateChanged: true } })).status).toBe(409);
    const plain = await preview(user, project.id, csvOf(folks.map((f) => [f.firstName, f.lastName, f.email])));
    expect(plain.counts).toMatchObject({ changed: 0, unchanged: 3 });
  }, 180_000);

  it('e-mails the new people their credentials when asked, as Add people does (the local SES emulator receives them; the others get none); Pro only', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const project = await projectOf(user, 'Mailed roster', 2, 'Mailsync');
    const file = csvOf([
      ['Mailsync0', 'Tester', 'mailsync0@example.com'],
      ['Mailsync1', 'Tester', 'mailsync1@example.com'],
      ['Newmail', 'One', 'newmail.one@example.com'],
      ['Newmail', 'Two', 'newmail.two@example.com'],
    ]);
    const p = await preview(user, project.id, file);
    expect(p.counts).toMatchObject({ new: 2, unchanged: 2 });
    expect((await user.call(`/api/sync-previews/${p.id}/apply`, { body: { createNew: true, sendCredentials: { delivery: 'carrier pigeon' } } })).status).toBe(400);
    expect((await user.call(`/api/sync-previews/${p.id}/apply`, { body: { createNew: true, sendCredentials: {} } })).status).toBe(202);
    const done = await applied(user, p.id);
    expect(done.apply).toMatchObject({ created: 2, errors: [] });
    expect(done.apply!.mailSendId).toBeTruthy();
    const send = await until('the send', () => user.json<MailSend>(`/api/mail-sends/${done.apply!.mailSendId!}`), (s) => s.status === 'completed' || s.status === 'failed', 60_000, 250);
    expect(send).toMatchObject({ status: 'completed', total: 2, sent: 2, failed: 0 });
    const mails = async () => ((await (await fetch(`${stack.urls.ses}/store`)).json()) as { emails: { destination: { to: string[] } }[] }).emails;
    const to = (address: string, all: { destination: { to: string[] } }[]) => all.filter((m) => m.destination.to.includes(address)).length;
    const all = await until('the two e-mails', mails, (list) => to('newmail.one@example.com', list) > 0 && to('newmail.two@example.com', list) > 0);
    expect([to('newmail.one@example.com', all), to('newmail.two@example.com', all), to('mailsync0@example.com', all), to('mailsync1@example.com', all)]).toEqual([1, 1, 0, 0]);
    const accounts = await accountsOf(user, project.id);
    expect(accounts.filter((a) => a.email.startsWith('newmail.')).map((a) => a.emailStatus)).toEqual(expect.arrayContaining([expect.stringMatching(/sent|delivered|queued/)]));

    // Credential e-mails are Pro: a free user's apply that asks for them is refused before anything is written.
    const free = await apiUser();
    const freeProject = await projectOf(free, 'Free roster', 1, 'Freesync');
    const q = await preview(free, freeProject.id, csvOf([['Freesync0', 'Tester', 'freesync0@example.com'], ['Freenew', 'Person', 'freenew@example.com']]));
    expect((await free.call(`/api/sync-previews/${q.id}/apply`, { body: { createNew: true, sendCredentials: {} } })).status).toBe(403);
    expect((await free.json<SyncPreview>(`/api/sync-previews/${q.id}`)).status).toBe('ready');
  }, 180_000);
});
