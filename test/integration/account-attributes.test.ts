import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import type { BulkJob, CreatedAccount } from '../../shared/schemas/bulk';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { AccountEditResult, AccountHistoryEntry } from '../../shared/schemas/account-edit';
import type { BulkUpload, BulkUploadForm } from '../../shared/schemas/bulk-upload';
import type { ExportView } from '../../shared/schemas/export';
import { UTF8_BOM } from '../../shared/csv/write-csv';
import { apiUser, exportDownloadUrl, testDb, upgradeToPro, type ApiUser } from '../support/api';
import { browseAccounts } from '../../functions/accounts/browse-accounts';
import { directoryQuerySchema } from '../../shared/schemas/account-directory';
import { until } from '../support/until';
import { countAttributes } from '../../functions/accounts/attribute-counts';
import { attributeRecountStep, startAttributeRecount } from '../../functions/accounts/attribute-recount';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import type { SyncPreview } from '../../shared/schemas/account-sync';

/**
 * Extra columns kept per account (issue 28 item 5): a CSV's department, title, manager e-mail,
 * phone, employee id and any other column are kept on the account, shown, edited and exported,
 * through every way people arrive (CSV at creation, Add people, a file uploaded to S3).
 */
type Created = { project: Project; accounts: CreatedAccount[]; summary: { successful: number; failedCount: number; failed: { row: number; message: string }[] } };

const FILE = [
  'First Name,Last Name,Email,Department,Job Title,Manager Email,Phone,Employee ID,Cost Center',
  'Ann,Lee,ann@example.com,Sales,Rep,boss@example.com,+1 555 0100,E-1,=SUM(A1)',
  'Bob,Ray,bob@example.com,,,,,,',
  `Cid,Poe,cid@example.com,${'x'.repeat(300)},,,,,`,
].join('\n');

async function accountsOf(user: ApiUser, projectId: string): Promise<AccountView[]> {
  return (await user.json<Page<AccountView>>(`/api/projects/${projectId}/accounts?limit=100`)).items;
}
const projectOf = async (user: ApiUser, id: string) => (await user.json<Project[]>('/api/projects')).find((p) => p.id === id)!;

/** The browser's way to a large file: the form, the file straight to the bucket, the start. */
async function uploadAndStart(user: ApiUser, text: string, body: Record<string, unknown>): Promise<string> {
  const form = (await (await user.call('/api/bulk-uploads', { method: 'POST' })).json()) as BulkUploadForm;
  const data = new FormData();
  for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
  data.append('file', new Blob([text], { type: 'text/csv' }), 'people.csv');
  expect((await fetch(form.url, { method: 'POST', body: data })).status).toBeLessThan(300);
  expect((await user.call(`/api/bulk-uploads/${form.id}/start`, { method: 'POST', body })).status).toBe(202);
  return form.id;
}

async function exportFile(user: ApiUser, path: string, body: Record<string, unknown>): Promise<string> {
  const response = await user.call(path, { body });
  expect(response.status, await response.clone().text()).toBe(202);
  const started = (await response.json()) as ExportView;
  const done = await until(
    'the export',
    async () => (await user.json<ExportView[]>('/api/exports/history')).find((entry) => entry.id === started.id),
    (entry) => entry?.status === 'completed' || entry?.status === 'failed',
  );
  expect(done?.status, done?.error).toBe('completed');
  // Without its BOM (the CSV's; none in JSON).
  return (await (await fetch(await exportDownloadUrl(user, started.id))).text()).replace(/^\uFEFF/, '');
}

describe('extra columns of a CSV', () => {
  it('are kept per account at creation, shown in the lists, and a row over the caps is rejected with its reason', async () => {
    const user = await apiUser();
    const created = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Columns', csvText: FILE } });
    expect(created.summary).toMatchObject({ successful: 2, failedCount: 1, failed: [{ row: 4, message: 'Department must be at most 256 characters' }] });
    expect(created.project.attributeKeys).toEqual(['department', 'title', 'managerEmail', 'phone', 'employeeId', 'costCenter']);
    const [ann, bob] = await accountsOf(user, created.project.id);
    expect(ann!.attributes).toEqual({ department: 'Sales', title: 'Rep', managerEmail: 'boss@example.com', phone: '+1 555 0100', employeeId: 'E-1', costCenter: '=SUM(A1)' });
    expect(bob!.attributes).toBeUndefined();
    // The same rows sent as JSON (the web app's way), header names as keys: the server normalises them.
    const sent = await user.json<Created>('/api/bulk-create', {
      body: { projectName: 'Columns JSON', csvData: [{ firstName: 'Dee', lastName: 'Kay', email: 'dee@example.com', attributes: { 'Job Title': 'Lead', Department: 'Ops' } }] },
    });
    expect((await accountsOf(user, sent.project.id))[0]!.attributes).toEqual({ title: 'Lead', department: 'Ops' });
    // Too many columns for a request is a 400, never a 500.
    const tooMany = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`c${i}`, 'v']));
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Too many', csvData: [{ firstName: 'A', lastName: 'B', email: 'ab@example.com', attributes: tooMany }] } })).status).toBe(400);
  });

  it('come with people added to a project, and join the project\'s columns', async () => {
    const user = await apiUser();
    const created = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Add', csvData: [{ firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { department: 'Sales' } }] } });
    const added = await user.call('/api/bulk-create', { body: { projectName: 'ignored', projectId: created.project.id, csvText: 'First Name,Last Name,Email,Region\nBob,Ray,bob@example.com,North' } });
    expect(added.status, await added.clone().text()).toBe(200);
    const accounts = await accountsOf(user, created.project.id);
    expect(accounts.map((a) => a.attributes)).toEqual([{ department: 'Sales' }, { region: 'North' }]);
    expect((await projectOf(user, created.project.id)).attributeKeys).toEqual(['department', 'region']);
  });

  it('travel through a file uploaded to S3 (a job), and through people added from one', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const rows = Array.from({ length: 30 }, (_, i) => `P${i},Upload,p${i}@example.com,Dept ${i % 3},E${i}`);
    const id = await uploadAndStart(user, ['First Name,Last Name,Email,Department,Employee Number', ...rows].join('\n'), { projectName: 'Uploaded' });
    const upload = await until('the upload to be read', () => user.json<BulkUpload>(`/api/bulk-uploads/${id}`), (state) => state.status === 'queued' || state.status === 'failed' || state.status === 'checked');
    expect(upload.status, upload.reason).toBe('queued');
    await until('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${id}`), (job) => job.status === 'completed' || job.status === 'failed');
    const accounts = await user.json<Page<AccountView>>(`/api/projects/${id}/accounts?limit=100`);
    expect(accounts.items).toHaveLength(30);
    for (const account of accounts.items) {
      const i = Number(account.firstName.slice(1));
      expect(account.attributes).toEqual({ department: `Dept ${i % 3}`, employeeId: `E${i}` });
    }
    expect((await projectOf(user, id)).attributeKeys).toEqual(['department', 'employeeId']);

    const addId = await uploadAndStart(user, 'First Name,Last Name,Email,Site\nNew,Person,new@example.com,Paris', { projectName: 'ignored', projectId: id });
    const addUpload = await until('the add to be read', () => user.json<BulkUpload>(`/api/bulk-uploads/${addId}`), (state) => !!state.job || state.status === 'failed');
    await until('the add job', () => user.json<BulkJob>(`/api/bulk-jobs/${addUpload.job!.id}`), (job) => job.status === 'completed' || job.status === 'failed');
    const all = await user.json<Page<AccountView>>(`/api/projects/${id}/accounts?limit=100`);
    expect(all.items.find((a) => a.email === 'new@example.com')!.attributes).toEqual({ site: 'Paris' });
    expect((await projectOf(user, id)).attributeKeys).toEqual(['department', 'employeeId', 'site']);
  }, 120_000);
});

describe('editing extra columns', () => {
  it('changes, adds and removes them with a history entry; a value over the cap is a 400; another user gets 404', async () => {
    const user = await apiUser();
    const created = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Edit', csvText: FILE } });
    const ann = created.accounts[0]!;
    const body = { firstName: ann.firstName, lastName: ann.lastName, email: ann.email };
    const edited = await user.json<AccountEditResult>(`/api/accounts/${ann.id}`, {
      method: 'PUT',
      body: { ...body, attributes: { department: 'Marketing', title: 'Rep', managerEmail: 'boss@example.com', phone: '+1 555 0100', employeeId: 'E-1', costCenter: '=SUM(A1)', Building: 'B2' } },
    });
    expect(edited.changes).toEqual([
      { field: 'attributes.building', from: '', to: 'B2' },
      { field: 'attributes.department', from: 'Sales', to: 'Marketing' },
    ]);
    expect(edited.account.attributes).toMatchObject({ department: 'Marketing', building: 'B2' });
    expect((await projectOf(user, created.project.id)).attributeKeys).toContain('building');
    const history = await user.json<{ entries: AccountHistoryEntry[] }>(`/api/accounts/${ann.id}/history`);
    expect(history.entries.find((e) => e.kind === 'edited')!.changes).toEqual(edited.changes);

    // Left out: removed. Absent altogether: unchanged.
    const removed = await user.json<AccountEditResult>(`/api/accounts/${ann.id}`, { method: 'PUT', body: { ...body, attributes: { department: 'Marketing' } } });
    expect(removed.account.attributes).toEqual({ department: 'Marketing' });
    const same = await user.json<AccountEditResult>(`/api/accounts/${ann.id}`, { method: 'PUT', body });
    expect(same.changes).toEqual([]);
    expect(same.account.attributes).toEqual({ department: 'Marketing' });

    const tooLong = await user.call(`/api/accounts/${ann.id}`, { method: 'PUT', body: { ...body, attributes: { department: 'x'.repeat(300) } } });
    expect(tooLong.status).toBe(400);
    expect(JSON.stringify(await tooLong.json())).toContain('Department must be at most 256 characters');
    const stranger = await apiUser();
    expect((await stranger.call(`/api/accounts/${ann.id}`, { method: 'PUT', body: { ...body, attributes: { department: 'Hack' } } })).status).toBe(404);
  });
});

describe('exports with extra columns', () => {
  it('add them after the standard columns, formula-safe: the project CSV, the Export Center (CSV, JSON) and Export All', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const created = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Exported', csvText: FILE } });

    const download = await user.call(`/api/projects/${created.project.id}/export`);
    expect(download.status).toBe(200);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await download.arrayBuffer());
    expect(text.startsWith(UTF8_BOM)).toBe(true);
    const [header, first, second] = Papa.parse<string[]>(text.slice(1).trim()).data;
    expect(header).toEqual(['First Name', 'Last Name', 'Email', 'Username', 'Password', 'Department', 'Title', 'Manager Email', 'Phone', 'Employee ID', 'Cost Center']);
    expect(first!.slice(5)).toEqual(['Sales', 'Rep', 'boss@example.com', "'+1 555 0100", 'E-1', "'=SUM(A1)"]);
    expect(second!.slice(5)).toEqual(['', '', '', '', '', '']);

    const csv = Papa.parse<string[]>((await exportFile(user, '/api/exports', { projectId: created.project.id, format: 'csv' })).trim()).data;
    expect(csv[0]!.slice(9)).toEqual(['Department', 'Title', 'Manager Email', 'Phone', 'Employee ID', 'Cost Center']);
    expect(csv[1]!.slice(9)).toEqual(['Sales', 'Rep', 'boss@example.com', "'+1 555 0100", 'E-1', "'=SUM(A1)"]);
    const json = JSON.parse(await exportFile(user, '/api/exports', { projectId: created.project.id, format: 'json' })) as Record<string, unknown>[];
    expect(json[0]!.attributes).toEqual({ department: 'Sales', title: 'Rep', managerEmail: 'boss@example.com', phone: '+1 555 0100', employeeId: 'E-1', costCenter: '=SUM(A1)' });
    expect(json[1]).not.toHaveProperty('attributes');

    // Export All over every project: the union of their columns.
    await user.json<Created>('/api/bulk-create', { body: { projectName: 'Other', csvData: [{ firstName: 'Zed', lastName: 'Z', email: 'zed@example.com', attributes: { site: 'Paris' } }] } });
    const all = Papa.parse<string[]>((await exportFile(user, '/api/exports/directory', { format: 'csv', sort: 'name' })).trim()).data;
    expect(all[0]!.slice(9)).toEqual(['Department', 'Title', 'Manager Email', 'Phone', 'Employee ID', 'Cost Center', 'Site']);
    const zed = all.find((row) => row[2] === 'zed@example.com')!;
    expect(zed.slice(9)).toEqual(['', '', '', '', '', '', 'Paris']);
  }, 60_000);
});


describe('the Attribute filter of the Account Database', () => {
  it('finds the accounts whose column holds the value (any case), through the index: pages of bounded reads, edits followed, other users kept out', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    // A job's worth (over the 1,000 rows answered at once): every 10th person is in Sales.
    const rows = Array.from({ length: 1100 }, (_, i) => ({ firstName: `F${i}`, lastName: 'Dept', email: `f${i}@example.com`, attributes: { department: i % 10 === 0 ? 'Sales' : 'Support' } }));
    const queued = await user.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Departments', csvData: rows } });
    await until('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (job) => job.status === 'completed' || job.status === 'failed');
    const small = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Small', csvText: FILE } });
    // A project without the column is never read.
    await user.json<Created>('/api/bulk-create', { body: { projectName: 'No columns', csvData: [{ firstName: 'No', lastName: 'Column', email: 'no.column@example.com' }] } });

    const found: AccountView[] = [];
    let cursor: string | undefined;
    let requests = 0;
    do {
      const page = await user.json<{ items: AccountView[]; nextCursor?: string; count: number; countIs: string }>(
        `/api/accounts?attributeName=department&attributeValue=sales&limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      // The projects keep a counter per column value: the count is exact.
      expect(page).toMatchObject({ countIs: 'exact', count: 111 });
      found.push(...page.items);
      cursor = page.nextCursor;
      requests++;
    } while (cursor && requests < 20);
    expect(found).toHaveLength(111);
    expect(found.every((account) => account.attributes?.department === 'Sales')).toBe(true);
    // Newest first: the small project's Ann, then the job's rows from the last.
    expect(found[0]!.email).toBe('ann@example.com');
    expect(found[1]!.email).toBe('f1090@example.com');
    expect(requests).toBeLessThanOrEqual(6);

    // Combined with another filter and with a term; by name too (walked, checked in code).
    expect((await user.json<{ items: AccountView[] }>(`/api/accounts?attributeName=department&attributeValue=Sales&projectId=${small.project.id}`)).items.map((a) => a.email)).toEqual(['ann@example.com']);
    expect((await user.json<{ items: AccountView[] }>('/api/accounts?attributeName=department&attributeValue=Sales&q=ann')).items.map((a) => a.email)).toEqual(['ann@example.com']);
    // By name the last-name index is walked and the filter checked in code: short pages with a cursor until the match.
    const byName: AccountView[] = [];
    let nameCursor: string | undefined;
    let nameRequests = 0;
    do {
      const page = await user.json<{ items: AccountView[]; nextCursor?: string }>(`/api/accounts?attributeName=title&attributeValue=rep&sort=name${nameCursor ? `&cursor=${encodeURIComponent(nameCursor)}` : ''}`);
      byName.push(...page.items);
      nameCursor = page.nextCursor;
      nameRequests++;
    } while (nameCursor && nameRequests < 20);
    expect(byName.map((a) => a.email)).toEqual(['ann@example.com']);
    // Half a filter is a 400.
    expect((await user.call('/api/accounts?attributeName=department')).status).toBe(400);

    // An edit moves the account in the index.
    const ann = small.accounts[0]!;
    await user.json(`/api/accounts/${ann.id}`, { method: 'PUT', body: { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', attributes: { department: 'Marketing' } } });
    expect((await user.json<{ items: AccountView[] }>(`/api/accounts?attributeName=department&attributeValue=Sales&projectId=${small.project.id}`)).items).toEqual([]);
    expect((await user.json<{ items: AccountView[] }>('/api/accounts?attributeName=department&attributeValue=marketing')).items.map((a) => a.email)).toEqual(['ann@example.com']);

    // Export All of the filtered view: the filtered accounts only.
    const csv = Papa.parse<string[]>((await exportFile(user, '/api/exports/directory', { format: 'csv', attributeName: 'department', attributeValue: 'marketing' })).trim()).data;
    expect(csv.slice(1).map((row) => row[2])).toEqual(['ann@example.com']);

    // Another user with the same column and value sees only their own.
    const other = await apiUser();
    await other.json<Created>('/api/bulk-create', { body: { projectName: 'Theirs', csvText: FILE } });
    expect((await other.json<{ items: AccountView[] }>('/api/accounts?attributeName=department&attributeValue=Sales')).items.map((a) => a.projectName)).toEqual(['Theirs']);
  }, 180_000);

  it('reads a number of items proportional to the page, however many accounts the project has', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    const rows = Array.from({ length: 600 }, (_, i) => ({ firstName: `G${i}`, lastName: 'Rare', email: `g${i}@example.com`, attributes: { site: i % 100 === 0 ? 'Paris' : 'Lyon' } }));
    const created = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Sites', csvData: rows } });
    const browse = browseAccounts({ db: testDb(), tableName: 'bulkonboard', cipher: () => Promise.reject(new Error('no passwords here')) });
    const page = await browse(user.sub, directoryQuerySchema.parse({ attributeName: 'site', attributeValue: 'Paris', limit: '25' }));
    expect(page.items).toHaveLength(6);
    // The 6 index entries and the 6 accounts (and none of the 594 others), beside the project items.
    expect(page.itemsRead).toBeLessThanOrEqual(12);
    expect(created.project.attributeKeys).toEqual(['site']);
  }, 60_000);

  it('counts exactly what it lists, across projects, after a creation (a job and at once), people added, an edit, a sync (changed, new, deleted) and a delete; a batch counted twice counts once', async () => {
    const user = await apiUser();
    await upgradeToPro(user);
    /** The badge and the rows listed (every page), for a value, over every project or one. */
    const countAndList = async (value: string, projectId?: string) => {
      const listed: AccountView[] = [];
      let cursor: string | undefined;
      let first: { count: number; countIs: string } | undefined;
      let requests = 0;
      do {
        const page = await user.json<{ items: AccountView[]; nextCursor?: string; count: number; countIs: string }>(
          `/api/accounts?attributeName=department&attributeValue=${value}&limit=100${projectId ? `&projectId=${projectId}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        first ??= page;
        listed.push(...page.items);
        cursor = page.nextCursor;
        requests++;
      } while (cursor && requests < 40);
      expect(cursor).toBeUndefined();
      return { count: first!.count, countIs: first!.countIs, listed: listed.length };
    };
    const expectCount = async (value: string, n: number, projectId?: string) => expect(await countAndList(value, projectId)).toEqual({ count: n, countIs: 'exact', listed: n });

    // A job's worth (its chunks count): every 10th of 1,100 in Sales.
    const rows = Array.from({ length: 1100 }, (_, i) => ({ firstName: `H${i}`, lastName: 'Count', email: `h${i}@example.com`, attributes: { department: i % 10 === 0 ? 'Sales' : 'Support' } }));
    const queued = await user.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Big', csvData: rows } });
    await until('the job', () => user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (job) => job.status === 'completed' || job.status === 'failed');
    // A project answered at once, then people added to it at once.
    const person = (i: number, department: string) => ({ firstName: `P${i}`, lastName: 'Roster', email: `p${i}@example.com`, attributes: { department } });
    const roster = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Roster', csvData: [person(0, 'Sales'), person(1, 'Sales'), person(2, 'Support'), person(3, 'sales ')] } });
    const added = await user.call('/api/bulk-create', { body: { projectName: 'ignored', projectId: roster.project.id, csvData: [person(4, 'SALES')] } });
    expect(added.status, await added.clone().text()).toBe(200);
    await expectCount('Sales', 114);
    await expectCount('Sales', 4, roster.project.id);
    await expectCount('Support', 991);

    // An edit of the column moves one count.
    const p0 = (await accountsOf(user, roster.project.id)).find((a) => a.email === 'p0@example.com')!;
    expect((await user.call(`/api/accounts/${p0.id}`, { method: 'PUT', body: { firstName: 'P0', lastName: 'Roster', email: 'p0@example.com', attributes: { department: 'Support' } } })).status).toBe(200);
    await expectCount('Sales', 113);
    await expectCount('Support', 992);

    // A sync of the roster: p1 and p2 change, p3 is missing (deleted), p5 is new.
    const form = (await (await user.call('/api/bulk-uploads', { method: 'POST' })).json()) as BulkUploadForm;
    const data = new FormData();
    for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
    const file = ['First Name,Last Name,Email,Department', 'P0,Roster,p0@example.com,Support', 'P1,Roster,p1@example.com,Support', 'P2,Roster,p2@example.com,Sales', 'P4,Roster,p4@example.com,SALES', 'P5,Roster,p5@example.com,Sales'].join('\n');
    data.append('file', new Blob([file], { type: 'text/csv' }), 'roster.csv');
    expect((await fetch(form.url, { method: 'POST', body: data })).status).toBeLessThan(300);
    expect((await user.call(`/api/projects/${roster.project.id}/sync-previews`, { body: { uploadId: form.id } })).status).toBe(202);
    const preview = await until('the preview', () => user.json<SyncPreview>(`/api/sync-previews/${form.id}`), (p) => p.status !== 'reading');
    expect(preview.counts).toMatchObject({ new: 1, changed: 2, missing: 1 });
    expect((await user.call(`/api/sync-previews/${form.id}/apply`, { body: { createNew: true, updateChanged: true, missing: 'delete' } })).status).toBe(202);
    await until('the apply', () => user.json<SyncPreview>(`/api/sync-previews/${form.id}`), (p) => p.status === 'applied', 180_000, 250);
    // Roster: p2, p4, p5 in Sales; p0, p1 in Support.
    expect((await accountsOf(user, roster.project.id)).map((a) => `${a.email} ${a.attributes?.department}`).sort()).toEqual(['p0@example.com Support', 'p1@example.com Support', 'p2@example.com Sales', 'p4@example.com SALES', 'p5@example.com Sales']);
    await expectCount('Sales', 3, roster.project.id);
    await expectCount('Sales', 113);
    await expectCount('Support', 992);
    await expectCount('Marketing', 0);

    // A batch counted again under the same id (a redelivered chunk) counts nothing twice.
    const deps = { db: testDb(), tableName: 'bulkonboard' };
    await countAttributes(deps, user.sub, roster.project.id, [{ row: 99, attributes: { department: 'Sales' } }], 'replayed');
    const once = (await countAndList('Sales', roster.project.id)).count;
    await countAttributes(deps, user.sub, roster.project.id, [{ row: 99, attributes: { department: 'Sales' } }], 'replayed');
    expect((await countAndList('Sales', roster.project.id)).count).toBe(once);
  }, 300_000);

  it('recounts a project made before the counters once its filter is used: Up to N, then the exact count of what it lists', async () => {
    const user = await apiUser();
    const db = testDb();
    const TABLE = 'bulkonboard';
    const person = (i: number, department?: string) => ({ firstName: `O${i}`, lastName: 'Old', email: `o${i}@example.com`, ...(department ? { attributes: { department } } : {}) });
    const old = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Old', csvData: [person(0, 'Sales'), person(1, 'sales '), person(2, 'SALES'), person(3, 'Support'), person(4, 'Support'), person(5)] } });
    const projectId = old.project.id;
    // As the code before the counters left it: no mark, no counter (its index entries were written with the accounts).
    const attrPartition = keys.accountAttributeCount(user.sub, projectId, 'department', 'sales').PK;
    const counters = (await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :c)', ExpressionAttributeValues: { ':pk': attrPartition, ':c': '~COUNT#' } }))).Items ?? [];
    expect(counters.length).toBe(2);
    for (const counter of counters) await db.send(new DeleteCommand({ TableName: TABLE, Key: { PK: counter.PK, SK: counter.SK } }));
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), UpdateExpression: 'REMOVE attributeCountsKept' }));
    // Then, with the counters there: an edit of one of those accounts (Sales -1, Support +1 on counters that never counted them).
    const accounts = await accountsOf(user, projectId);
    const o0 = accounts.find((a) => a.email === 'o0@example.com')!;
    expect((await user.call(`/api/accounts/${o0.id}`, { method: 'PUT', body: { firstName: 'O0', lastName: 'Old', email: 'o0@example.com', attributes: { department: 'Support' } } })).status).toBe(200);
    // And an account deleted by the code before the counters: gone, its index entry left behind.
    const o4 = accounts.find((a) => a.email === 'o4@example.com')!;
    const o4Row = Number(o4.id.split('.')[1]);
    await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.account(user.sub, projectId, o4Row, 1) }));

    const badge = (value: string) => user.json<{ items: AccountView[]; count: number; countIs: string }>(`/api/accounts?attributeName=department&attributeValue=${value}&projectId=${projectId}&limit=100`);
    // Sales: o1, o2 (o0 moved to Support); Support: o0, o3 (o4 gone).
    const first = await badge('Sales');
    expect(first.items.length).toBe(2);
    expect(first.countIs).toBe('at-most');
    const sales = await until('the recount', () => badge('Sales'), (page) => page.countIs === 'exact', 60_000, 250);
    expect(sales).toMatchObject({ count: 2, countIs: 'exact' });
    expect(sales.items.length).toBe(2);
    const support = await badge('Support');
    expect(support).toMatchObject({ count: 2, countIs: 'exact' });
    expect(support.items.map((a) => a.email).sort()).toEqual(['o0@example.com', 'o3@example.com']);
    const project = (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), ConsistentRead: true }))).Item!;
    expect(project.attributeCountsKept).toBe(true);
    expect(project.attributeRecount).toBeUndefined();

    // A step delivered again after the end changes nothing; a later edit is counted as any other.
    expect(await attributeRecountStep({ db, tableName: TABLE }, user.sub, projectId, 'a-recount-that-ended')).toBe('gone');
    expect((await user.call(`/api/accounts/${o0.id}`, { method: 'PUT', body: { firstName: 'O0', lastName: 'Old', email: 'o0@example.com', attributes: { department: 'Sales' } } })).status).toBe(200);
    expect(await badge('Sales')).toMatchObject({ count: 3, countIs: 'exact' });
    expect(await badge('Support')).toMatchObject({ count: 1, countIs: 'exact' });
  }, 120_000);

  it('measures a value again when an edit comes between the recount\'s reads: the count ends exact', async () => {
    const user = await apiUser();
    const TABLE = 'bulkonboard';
    const db = testDb();
    const made = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Raced', csvData: [0, 1, 2].map((i) => ({ firstName: `R${i}`, lastName: 'Race', email: `r${i}@example.com`, attributes: { department: 'Sales' } })) } });
    const projectId = made.project.id;
    const attrPartition = keys.accountAttributeCount(user.sub, projectId, 'department', 'sales').PK;
    for (const counter of (await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk AND begins_with(SK, :c)', ExpressionAttributeValues: { ':pk': attrPartition, ':c': '~COUNT#' } }))).Items ?? []) {
      await db.send(new DeleteCommand({ TableName: TABLE, Key: { PK: counter.PK, SK: counter.SK } }));
    }
    await db.send(new UpdateCommand({ TableName: TABLE, Key: keys.project(user.sub, projectId), UpdateExpression: 'REMOVE attributeCountsKept' }));
    const r0 = (await accountsOf(user, projectId)).find((a) => a.email === 'r0@example.com')!;
    // The recount's client: after it read the Sales counter and before it reads the value's entries, the user edits r0 out of Sales.
    const raced = testDb();
    let edited = false;
    raced.middlewareStack.add(
      (next) => async (args) => {
        if (!edited && String((args.input as { KeyConditionExpression?: string }).KeyConditionExpression ?? '').includes('begins_with(SK, :prefix)')) {
          edited = true;
          expect((await user.call(`/api/accounts/${r0.id}`, { method: 'PUT', body: { firstName: 'R0', lastName: 'Race', email: 'r0@example.com', attributes: { department: 'Support' } } })).status).toBe(200);
        }
        return next(args);
      },
      { step: 'initialize', name: 'editBetween' },
    );
    const recountId = (await startAttributeRecount({ db, tableName: TABLE }, user.sub, projectId))!;
    expect(recountId).toBeTruthy();
    // A second start while it runs starts nothing.
    expect(await startAttributeRecount({ db, tableName: TABLE }, user.sub, projectId)).toBeUndefined();
    const steps: string[] = [];
    for (let i = 0; i < 10 && steps.at(-1) !== 'done'; i++) steps.push(await attributeRecountStep({ db: raced, tableName: TABLE }, user.sub, projectId, recountId));
    expect(edited).toBe(true);
    expect(steps[0]).toBe('wait');
    expect(steps.at(-1)).toBe('done');
    const badge = (value: string) => user.json<{ count: number; countIs: string; items: AccountView[] }>(`/api/accounts?attributeName=department&attributeValue=${value}&projectId=${projectId}&limit=100`);
    expect(await badge('Sales')).toMatchObject({ count: 2, countIs: 'exact' });
    expect(await badge('Support')).toMatchObject({ count: 1, countIs: 'exact' });
  }, 120_000);
});
