import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import Papa from 'papaparse';
import type { CreatedAccount, BulkCreateSummary } from '../../shared/schemas/bulk';
import type { AccountView, Page, Project, SubscriptionStatus, DashboardStats, ActivityItem } from '../../shared/schemas/project';
import { csvMessages } from '../../shared/csv/read-people';
import { usernameYear } from '../../shared/generation/username';
import { apiUser, people, testDb, type ApiUser } from '../support/api';

type Created = { project: Project; accounts: CreatedAccount[]; summary: BulkCreateSummary };
/** The year in the project's usernames: that of the server's clock when it created them, New Year's Eve included. */
const yearOf = (created: Created) => usernameYear(new Date(created.project.createdAt));

describe('POST /api/bulk-create (synchronous)', () => {
  let alice: ApiUser;
  let created: Created;
  let year: number;
  let secondProjectYear: number;
  beforeAll(async () => {
    alice = await apiUser();
    const response = await alice.call('/api/bulk-create', {
      body: {
        projectName: 'Spring onboarding',
        platformUrl: 'https://portal.example.com/login',
        accountType: 'Training Account',
        csvData: [
          { firstName: 'José', lastName: 'Núñez', email: 'jose@example.com' },
          { firstName: 'John', lastName: 'Smith', email: 'john@example.com' },
          { firstName: 'John', lastName: 'Smith', email: 'john.smith@example.com' },
          { firstName: '', lastName: 'Nobody', email: 'nobody@example.com' },
          { firstName: 'Dup', lastName: 'Licate', email: 'JOHN@example.com' },
          { firstName: '=HYPERLINK("x")', lastName: '+Evil', email: 'evil@example.com' },
        ],
        passwordSettings: { minLength: 16, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: true },
      },
    });
    expect(response.status).toBe(200);
    created = (await response.json()) as Created;
    year = yearOf(created);
  });

  it('creates the valid rows and reports every other row with its reason', () => {
    expect(created.summary.total).toBe(6);
    expect(created.summary.successful).toBe(4);
    expect(created.summary.failed).toEqual([
      { row: 4, field: 'firstName', email: 'nobody@example.com', message: 'First name is required' },
      { row: 5, field: 'email', email: 'JOHN@example.com', message: 'Duplicate email (also in row 2)' },
    ]);
    expect(created.project).toMatchObject({ name: 'Spring onboarding', accountType: 'Training Account', status: 'active', accountCount: 4, failedCount: 2, successRate: 66.7 });
  });

  it('gives unique usernames with folded accents and generated passwords by the settings', () => {
    expect(created.accounts.map((a) => a.username)).toEqual([`josenunez${year}`, `johnsmith${year}`, `johnsmith${year}-2`, `hyperlinkxevil${year}`]);
    for (const account of created.accounts) {
      expect(account.plainPassword).toHaveLength(16);
      expect(account.plainPassword).not.toMatch(/[0Oo1lI|]/);
      expect(account.plainPassword).toMatch(/[A-Z]/);
      expect(account.plainPassword).toMatch(/[$#@!*&?%]/);
    }
  });

  it('stores passwords only encrypted', async () => {
    const account = created.accounts[0]!;
    const { Items = [] } = await testDb().send(
      new QueryCommand({ TableName: 'bulkonboard', KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `USER#${alice.sub}#PROJECT#${created.project.id}` } }),
    );
    expect(Items).toHaveLength(4);
    const stored = JSON.stringify(Items);
    for (const a of created.accounts) expect(stored).not.toContain(a.plainPassword);
    expect(String(Items[0]!.passwordCiphertext)).toMatch(/^v1\./);
    expect(Items[0]!.username).toBe(account.username);
  });

  it('keeps usernames unique across the user\'s projects', async () => {
    const again = await alice.json<Created>('/api/bulk-create', {
      body: { projectName: 'Second', csvData: [{ firstName: 'John', lastName: 'Smith', email: 'j3@example.com' }] },
    });
    secondProjectYear = yearOf(again);
    // Should New Year fall between the two projects, the new year's name is still free.
    expect(again.accounts[0]!.username).toBe(secondProjectYear === year ? `johnsmith${year}-3` : `johnsmith${secondProjectYear}`);
  });

  it('lists projects newest first with counts, and pages accounts with passwords on request', async () => {
    const projects = await alice.json<Project[]>('/api/projects');
    expect(projects.map((p) => p.name)).toEqual(['Second', 'Spring onboarding']);
    const first = await alice.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=3`);
    expect(first.items).toHaveLength(3);
    expect(first.items[0]).not.toHaveProperty('password');
    expect(first.nextCursor).toBeDefined();
    const second = await alice.json<Page<AccountView>>(`/api/projects/${created.project.id}/accounts?limit=3&showPasswords=true&cursor=${first.nextCursor}`);
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    expect(second.items[0]!.password).toBe(created.accounts[3]!.plainPassword);
    expect(second.items[0]!.projectName).toBe('Spring onboarding');
  });

  it('refuses a cursor that points elsewhere', async () => {
    const forged = Buffer.from(JSON.stringify({ PK: 'USER#someone-else#PROJECT#x', SK: 'ACCOUNT#000001' })).toString('base64url');
    const response = await alice.call(`/api/projects/${created.project.id}/accounts?cursor=${forged}`);
    expect(response.status).toBe(400);
    expect((await alice.call(`/api/projects/${created.project.id}/accounts?cursor=%%%`)).status).toBe(400);
  });

  it('exports the project as CSV with formula injection neutralised', async () => {
    const response = await alice.call(`/api/projects/${created.project.id}/export`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toContain('Spring onboarding_accounts.csv');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 BOM, for spreadsheets
    const rows = Papa.parse<string[]>(bytes.subarray(3).toString('utf8'), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual(['First Name', 'Last Name', 'Email', 'Username', 'Password']);
    expect(rows).toHaveLength(5);
    expect(rows[1]).toEqual(['José', 'Núñez', 'jose@example.com', `josenunez${year}`, created.accounts[0]!.plainPassword]);
    expect(rows[4]![0]).toBe(`'=HYPERLINK("x")`);
    expect(rows[4]![1]).toBe(`'+Evil`);
  });

  it('searches by prefix of first name, last name, e-mail or username, ignoring case and accents', async () => {
    const search = (q: string) => alice.json<{ items: AccountView[]; count: number }>(`/api/accounts/search?q=${encodeURIComponent(q)}`);
    expect((await search('jos')).items.map((a) => a.email)).toEqual(['jose@example.com']);
    expect((await search('NÚÑ')).items.map((a) => a.email)).toEqual(['jose@example.com']);
    expect((await search('john.s')).items.map((a) => a.email)).toEqual(['john.smith@example.com']);
    expect((await search(`johnsmith${year}-`)).count).toBe(secondProjectYear === year ? 2 : 1);
    expect((await search('smith')).count).toBe(3);
    expect((await search('zzz')).count).toBe(0);
    expect((await search('')).count).toBe(0);
    const withPasswords = await alice.json<{ items: AccountView[] }>('/api/accounts/search?q=jose&showPasswords=true');
    expect(withPasswords.items[0]!.password).toBe(created.accounts[0]!.plainPassword);
  });

  it('reports dashboard stats, recent activity and usage from real data', async () => {
    const stats = await alice.json<DashboardStats>('/api/dashboard/stats');
    expect(stats).toMatchObject({ totalAccounts: 5, activeProjects: 2 });
    expect(stats.successRate).toBeCloseTo(71.4, 1);
    expect(stats.avgProcessingTime).toBeGreaterThan(0);
    const activity = await alice.json<ActivityItem[]>('/api/dashboard/recent-activity');
    expect(activity.map((a) => a.title)).toEqual(
      expect.arrayContaining(['Project "Spring onboarding" created', '4 accounts created in "Spring onboarding"', '2 rows not created in "Spring onboarding"', '1 account created in "Second"']),
    );
    const status = await alice.json<SubscriptionStatus>('/api/subscription/status');
    expect(status).toMatchObject({ plan: 'free', usage: { remainingProjects: 1, remainingAccounts: 295, canCreateProject: true, canCreateAccount: true, canUseApiIntegrations: false, projectsUsed: 2, accountsUsed: 5 } });
  });

  it('answers 400 with details when no row can be created, and for a bad request', async () => {
    const none = await alice.call('/api/bulk-create', { body: { projectName: 'X', csvData: [{ firstName: 'A', lastName: 'B', email: 'not-an-email' }] } });
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ message: 'None of the rows can be created.', details: [{ row: 1, field: 'email', message: 'Valid email is required' }] });
    const noName = await alice.call('/api/bulk-create', { body: { projectName: ' ', csvData: people(1) } });
    expect(noName.status).toBe(400);
    expect((await noName.json()) as { message: string }).toMatchObject({ message: 'Project name is required' });
    const shortPassword = await alice.call('/api/bulk-create', { body: { projectName: 'X', csvData: people(1), passwordSettings: { minLength: 8 } } });
    expect(shortPassword.status).toBe(400);
    const notArray = await alice.call('/api/bulk-create', { body: { projectName: 'X', csvData: 'a,b,c' } });
    expect(notArray.status).toBe(400);
    const stored = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${alice.sub}`, SK: 'PROFILE' } }));
    expect(stored.Item).toMatchObject({ projectCount: 2, accountCount: 5 });
    expect(stored.Item).not.toHaveProperty('bulkLock');
  });
});

describe('POST /api/bulk-create with the file as csvText (the server reads it)', () => {
  it('reads awkward CSV on the server: BOM, CRLF, quotes, header in any order, blank lines, bad rows by line', async () => {
    const user = await apiUser();
    const csvText =
      '\uFEFFE-mail,Last Name,first_name\r\n' +
      '"ann@example.com","O\'Neil, Jr.","Ann"\r\n' +
      '\r\n' +
      'bob@example.com,"Said ""Bob""",Bob\r\n' +
      'not-an-email,X,Y\r\n' +
      'ANN@example.com,Dup,Ann\r\n';
    const response = await user.call('/api/bulk-create', { body: { projectName: 'From file', csvText } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Created;
    expect(body.accounts.map((a) => [a.firstName, a.lastName, a.email])).toEqual([
      ['Ann', "O'Neil, Jr.", 'ann@example.com'],
      ['Bob', 'Said "Bob"', 'bob@example.com'],
    ]);
    expect(body.summary.total).toBe(4);
    expect(body.summary.failed.map((f) => [f.row, f.field])).toEqual([
      [5, 'email'],
      [6, 'email'],
    ]);
  });

  it('reads on after a line with a misplaced quote: every line accounted for, that one rejected by its line number', async () => {
    const user = await apiUser();
    const csvText = [
      'First Name,Last Name,Email',
      'Ann,Lee,ann@example.com',
      'Anna,Lee,"anna ""the boss"" lee"@example.com',
      '=HYPERLINK("http://x","click"),Evil,evil@example.com',
      'Bob,Ray,bob@example.com',
      'Cy,Doe,"cy@example.com',
      'Di,Fox,di@example.com',
      'Ed,Gray,ed@example.com',
    ].join('\r\n');
    const body = await user.json<Created>('/api/bulk-create', { body: { projectName: 'Stray quotes', csvText } });
    expect(body.accounts.map((a) => a.email)).toEqual(['ann@example.com', 'bob@example.com', 'di@example.com', 'ed@example.com']);
    expect(body.summary.total).toBe(7);
    expect(body.summary.successful + body.summary.failed.length).toBe(7);
    expect(body.summary.failed.map((f) => [f.row, f.message])).toEqual([
      [3, csvMessages.badQuotes],
      [4, csvMessages.badQuotes],
      [6, csvMessages.badQuotes],
    ]);
  });

  it('answers 400 with the reader\'s message for a file without the needed columns, and for both inputs at once', async () => {
    const user = await apiUser();
    const noColumns = await user.call('/api/bulk-create', { body: { projectName: 'X', csvText: 'First Name,Phone\nAnn,123\n' } });
    expect(noColumns.status).toBe(400);
    expect(await noColumns.json()).toMatchObject({ message: 'The CSV needs First Name, Last Name and Email columns.' });
    const both = await user.call('/api/bulk-create', { body: { projectName: 'X', csvText: 'a,b,c@d.ef\n', csvData: people(1) } });
    expect(both.status).toBe(400);
  });
});

describe('POST /api/bulk-create with the rows gzipped (csvDataGzip), and Lambda\'s 6 MB limit', () => {
  const longPeople = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ firstName: `F${i}`.padEnd(100, 'x'), lastName: `L${i}`.padEnd(100, 'y'), email: `p${i}.${'z'.repeat(90)}@example.com` }));

  it('creates the rows it carries, exactly as csvData would', async () => {
    const user = await apiUser();
    const rows = people(40, 'Gzip');
    const response = await user.call('/api/bulk-create', { body: { projectName: 'Gzipped', csvDataGzip: gzipSync(JSON.stringify(rows)).toString('base64') } });
    expect(response.status).toBe(200);
    const created = (await response.json()) as Created;
    expect(created.summary).toMatchObject({ total: 40, successful: 40 });
    expect(created.accounts.map((a) => a.email)).toEqual(rows.map((r) => r.email));
  });

  it('answers 413 to a request Lambda would refuse (over 6 MB), and takes the same rows gzipped', async () => {
    const user = await apiUser();
    const rows = longPeople(20_000);
    const plain = JSON.stringify({ projectName: 'Too long', csvData: rows });
    expect(Buffer.byteLength(plain)).toBeGreaterThan(6 * 1024 * 1024);
    const refused = await fetch(`${inject('stack').urls.app}/api/bulk-create`, { method: 'POST', headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' }, body: plain });
    expect(refused.status).toBe(413);
    // Gzipped, the request arrives and is judged on its rows: a free user may not create 20,000.
    const gzipped = await user.call('/api/bulk-create', { body: { projectName: 'Too long', csvDataGzip: gzipSync(JSON.stringify(rows)).toString('base64') } });
    expect(gzipped.status).toBe(403);
    expect(await gzipped.json()).toMatchObject({ message: expect.stringContaining('at most 100 accounts per project') });
  });

  it('refuses a decompression bomb with 413 and bad gzip with 400, creating nothing', async () => {
    const user = await apiUser();
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)).toString('base64');
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Bomb', csvDataGzip: bomb } })).status).toBe(413);
    expect((await user.call('/api/bulk-create', { body: { projectName: 'Bad', csvDataGzip: Buffer.from('plain').toString('base64') } })).status).toBe(400);
    expect(await user.json<unknown[]>('/api/projects')).toHaveLength(0);
  });
});
