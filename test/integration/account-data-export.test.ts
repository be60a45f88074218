import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import Papa from 'papaparse';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ExportView } from '../../shared/exports';
import type { AccountView, Page, Project } from '../../shared/schemas/project';
import type { Integration } from '../../shared/schemas/integrations';
import type { EmailTemplate } from '../../shared/schemas/email-templates';
import { UTF8_BOM } from '../../shared/csv/write-csv';
import { keys } from '../../functions/core/keys';
import { apiUser, people, testDb, upgradeToPro, type ApiUser, exportDownloadUrl } from '../support/api';
import { until } from '../support/until';

const TABLE = 'bulkonboard';
const SECRET = 'okta-secret-never-exported-7f3a';
const hostileRows = [
  { firstName: '=HYPERLINK("http://evil.example","x")', lastName: '+Evil', email: 'evil@example.com' },
  { firstName: 'Anne, Marie', lastName: 'O"Brien', email: 'anne@example.com' },
  { firstName: 'Zoë', lastName: 'Ødegård', email: 'zoe@example.com' },
];

async function waitForExport(user: ApiUser, id: string): Promise<ExportView> {
  for (let i = 0; i < 300; i++) {
    const found = (await user.json<ExportView[]>('/api/exports/history')).find((e) => e.id === id);
    if (found && (found.status === 'completed' || found.status === 'failed')) return found;
    await sleep(100);
  }
  throw new Error(`export ${id} did not finish`);
}

async function exportAllData(user: ApiUser): Promise<{ view: ExportView; zip: JSZip; files: Record<string, string> }> {
  const response = await user.call('/api/exports/account-data', { method: 'POST' });
  expect(response.status).toBe(202);
  const started = (await response.json()) as ExportView;
  expect(started).toMatchObject({ kind: 'account-data', format: 'zip', status: 'pending', projectId: '' });
  const view = await waitForExport(user, started.id);
  expect(view.status).toBe('completed');
  const file = await fetch(await exportDownloadUrl(user, view.id));
  expect(file.status).toBe(200);
  expect(file.headers.get('content-disposition') ?? '').toMatch(/bulkonboard-data_\d{4}-\d{2}-\d{2}\.zip/);
  const body = Buffer.from(await file.arrayBuffer());
  expect(view.sizeBytes).toBe(body.length);
  const zip = await JSZip.loadAsync(body);
  const files: Record<string, string> = {};
  for (const name of Object.keys(zip.files)) files[name] = await zip.file(name)!.async('string');
  return { view, zip, files };
}

const csvRows = (text: string) => {
  expect(text.startsWith(UTF8_BOM)).toBe(true);
  return Papa.parse<string[]>(text.slice(1), { newline: '\r\n', skipEmptyLines: true }).data;
};

describe('Export All Data', () => {
  let pro: ApiUser;
  let other: ApiUser;
  let projects: Project[];

  beforeAll(async () => {
    [pro, other] = await Promise.all([apiUser(), apiUser()]);
    await upgradeToPro(pro);
    await pro.json('/api/bulk-create', { body: { projectName: 'Hostile', csvData: hostileRows } });
    await pro.json('/api/bulk-create', { body: { projectName: 'Plain', csvData: people(4, 'Plain') } });
    await other.json('/api/bulk-create', { body: { projectName: 'Not yours', csvData: people(2, 'Stranger') } });
    await pro.json('/api/integrations', {
      body: { name: 'Okta', platform: 'okta', apiType: 'REST', baseUrl: 'https://acme.okta.com', authMethod: 'api_key', authConfig: { apiKey: SECRET }, apiConfig: {} },
    });
    await pro.json('/api/email-templates', {
      body: { name: 'Welcome', subject: 'Hi {{accountHolderName}}', htmlContent: '<p>Hello {{accountHolderName}}</p>', brandLogoUrl: '', isDefault: true, isActive: true },
    });
    projects = await pro.json<Project[]>('/api/projects');
    const projectExport = await pro.json<ExportView>('/api/exports', { body: { projectId: projects[0]!.id, format: 'csv' } });
    await waitForExport(pro, projectExport.id);
    // Issue 12's items, written where its features write them.
    await testDb().send(new PutCommand({ TableName: TABLE, Item: { ...keys.userSettings(pro.sub), entityType: 'UserSettings', timezone: 'Europe/London', dateFormat: 'DD/MM/YYYY' } }));
    await testDb().send(
      new PutCommand({ TableName: TABLE, Item: { ...keys.notification(pro.sub, '0001'), entityType: 'Notification', id: '0001', title: '=cmd|calc', createdAt: '2026-11-01T00:00:00.000Z' } }),
    );
  }, 120_000);

  it('holds what the API shows: profile, settings, projects, accounts with passwords, integrations, templates, history, notifications', async () => {
    const { files, view } = await exportAllData(pro);
    expect(Object.keys(files).sort()).toEqual(
      [
        'README.txt',
        'profile.json',
        'settings.json',
        ...['projects', 'accounts', 'integrations', 'email-templates', 'export-history', 'notifications', 'activity'].flatMap((base) => [`${base}.json`, `${base}.csv`]),
      ].sort(),
    );

    expect(JSON.parse(files['profile.json']!)).toEqual(await pro.json('/api/auth/user'));
    expect(JSON.parse(files['settings.json']!)).toMatchObject({ timezone: 'Europe/London', dateFormat: 'DD/MM/YYYY' });
    expect(JSON.parse(files['projects.json']!)).toEqual(projects);
    expect(JSON.parse(files['integrations.json']!)).toEqual(await pro.json<Integration[]>('/api/integrations'));
    expect(JSON.parse(files['email-templates.json']!)).toEqual(await pro.json<EmailTemplate[]>('/api/email-templates'));
    const history = await pro.json<ExportView[]>('/api/exports/history');
    const exported = JSON.parse(files['export-history.json']!) as ExportView[];
    expect(exported.map((e) => e.id)).toEqual(history.map((e) => e.id));
    expect(exported.find((e) => e.id === view.id)?.status).toBe('processing');
    // Every notification the bell lists (the export above wrote a real one), the hand-written one included.
    const notifications = JSON.parse(files['notifications.json']!) as { id: string; title: string }[];
    // This export's own 'ready' notification is written once its file is stored, so the file cannot hold it.
    const isOwn = (n: { title: string }) => n.title === 'Export of all your data is ready';
    const listed = await until('the data export\'s notification', () => pro.json<{ notifications: { id: string; title: string }[] }>('/api/notifications'), (l) => l.notifications.some(isOwn));
    const own = listed.notifications.filter(isOwn);
    expect(own).toHaveLength(1);
    const before = listed.notifications.filter((n) => !own.includes(n));
    expect(notifications.map((n) => n.id).sort()).toEqual([...before.map((n) => n.id), '0001'].filter((id, i, all) => all.indexOf(id) === i).sort());
    expect(notifications).toContainEqual({ id: '0001', title: '=cmd|calc', createdAt: '2026-11-01T00:00:00.000Z' });

    // Every account of every project, with the password the app shows.
    const shown: AccountView[] = [];
    for (const project of [...projects].reverse()) {
      shown.push(...(await pro.json<Page<AccountView>>(`/api/projects/${project.id}/accounts?showPasswords=true&limit=100`)).items);
    }
    const accounts = JSON.parse(files['accounts.json']!) as Record<string, string>[];
    expect(accounts.map((a) => [a.firstName, a.email, a.username, a.password, a.projectId])).toEqual(
      shown.map((a) => [a.firstName, a.email, a.username, a.password, a.projectId]),
    );
    expect(accounts.every((a) => a.password && a.password.length >= 8)).toBe(true);
    expect(view.rowCount).toBe(shown.length);

    // The CSVs: same accounts, formula-like cells neutralised.
    const accountCsv = csvRows(files['accounts.csv']!);
    expect(accountCsv[0]).toEqual(['First Name', 'Last Name', 'Email', 'Username', 'Password', 'Project', 'Account Type', 'Created', 'External Status', 'Project ID']);
    expect(accountCsv.slice(1).map((row) => row[4])).toEqual(shown.map((a) => a.password));
    expect(accountCsv.slice(1).find((row) => row[2] === 'evil@example.com')![0]).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(csvRows(files['notifications.csv']!).slice(1).some((row) => row.includes("'=cmd|calc"))).toBe(true);
    expect(csvRows(files['projects.csv']!).slice(1).map((row) => row[0])).toEqual(projects.map((p) => p.id));

    // No secret and nobody else's data anywhere in it.
    for (const [name, content] of Object.entries(files)) {
      expect(content, name).not.toContain(SECRET);
      expect(content, name).not.toContain('authConfigEncrypted');
      expect(content, name).not.toContain(other.sub);
      expect(content, name).not.toContain('Stranger');
    }
  });

  it('is open to free users (their data is theirs) and shows in their history only', async () => {
    const { files, view } = await exportAllData(other);
    expect((JSON.parse(files['accounts.json']!) as unknown[]).length).toBe(2);
    expect((await pro.json<ExportView[]>('/api/exports/history')).some((e) => e.id === view.id)).toBe(false);
  });
});
