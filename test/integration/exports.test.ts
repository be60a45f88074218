import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import http from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import type { CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { EXPORT_COLUMNS, PRO_FORMAT_MESSAGE, type ExportView } from '../../shared/schemas/export';
import { UTF8_BOM, neutraliseFormula } from '../../shared/csv/write-csv';
import { STOPPED_FOR_DELETION } from '../../functions/account-deletion/delete-account';
import { dynamoErasureStore } from '../../functions/account-deletion/erasure-store';
import { keys } from '../../functions/core/keys';
import { dynamoAccountDataSource } from '../../functions/exports/account-data/account-data-source';
import { dynamoAccountPages } from '../../functions/exports/account-pages';
import { attachmentDisposition, exportContentTypes, exportFilename, exportObjectKey, newExportRecord } from '../../functions/exports/export-item';
import { s3ExportFiles } from '../../functions/exports/export-files';
import type { S3LinkSigner } from '../../functions/core/s3-links';
import { dynamoExportStore } from '../../functions/exports/export-store';
import { writeCsv, xlsxText, type ExportWriter } from '../../functions/exports/export-writers';
import { EXPORT_FAILED, runExport, type RunExportDeps } from '../../functions/exports/run-export';
import { timeOrderedId } from '../../functions/core/ids';
import { dynamoProjectStore } from '../../functions/projects/project-store';
import { apiUser, upgradeToPro, testDb, type ApiUser, exportDownloadUrl } from '../support/api';

const TABLE = 'bulkonboard';
const BUCKET = 'bulkonboard-exports';
type Created = { project: Project; accounts: CreatedAccount[] };

const s3Client = () =>
  new S3Client({ region: 'us-east-1', endpoint: inject('stack').urls.s3, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
/** Links to the same S3 as `s3Client` (functions/core/s3-links.ts). */
const linkSigner = (): S3LinkSigner => ({ region: 'us-east-1', endpoint: inject('stack').urls.s3, pathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });

/** Awkward but valid rows: accents, commas, quotes, and names a spreadsheet would run as formulas. */
const hostileRows = [
  { firstName: 'José', lastName: 'Núñez', email: 'jose@example.com' },
  { firstName: 'Anne, Marie', lastName: 'O"Brien', email: 'anne@example.com' },
  { firstName: '=HYPERLINK("http://evil.example","x")', lastName: '+Evil', email: 'evil@example.com' },
  { firstName: '@SUM(A1)', lastName: '-2+3', email: 'sum@example.com' },
  { firstName: 'Zoë', lastName: 'Ødegård', email: 'zoe@example.com' },
];

async function createProject(user: ApiUser, name: string, rows = hostileRows): Promise<Created> {
  return user.json<Created>('/api/bulk-create', { body: { projectName: name, accountType: 'Demo Account', csvData: rows } });
}

async function waitForExport(user: ApiUser, id: string): Promise<ExportView> {
  for (let i = 0; i < 150; i++) {
    const history = await user.json<ExportView[]>('/api/exports/history');
    const found = history.find((e) => e.id === id);
    if (found && (found.status === 'completed' || found.status === 'failed')) return found;
    await sleep(100);
  }
  throw new Error(`export ${id} did not finish`);
}

async function exportAndDownload(user: ApiUser, projectId: string, format: 'csv' | 'xlsx' | 'json') {
  const response = await user.call('/api/exports', { body: { projectId, format } });
  expect(response.status).toBe(202);
  const started = (await response.json()) as ExportView;
  expect(started).toMatchObject({ projectId, format, status: 'pending', expired: false });
  const done = await waitForExport(user, started.id);
  expect(done.status).toBe('completed');
  const url = await exportDownloadUrl(user, done.id);
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  const file = await fetch(url);
  expect(file.status).toBe(200);
  const body = Buffer.from(await file.arrayBuffer());
  expect(done.sizeBytes).toBe(body.length);
  return { done, body, file };
}

const expectedCells = (created: Created, guard: (value: string) => string) =>
  created.accounts.map((a) =>
    [a.firstName, a.lastName, a.email, a.username, a.plainPassword, created.project.name, a.accountType, a.createdAt, a.externalStatus].map(guard),
  );
const HEADERS = EXPORT_COLUMNS.map((c) => c.header);

describe('Export Center', () => {
  let free: ApiUser;
  let pro: ApiUser;
  let freeProject: Created;
  let proProject: Created;
  beforeAll(async () => {
    [free, pro] = await Promise.all([apiUser(), apiUser()]);
    await upgradeToPro(pro);
    [freeProject, proProject] = await Promise.all([createProject(free, 'Spring, "intake"'), createProject(pro, 'Pro intake')]);
  });

  it('exports csv for a free user: every cell, passwords included, from the presigned link', async () => {
    const { done, body, file } = await exportAndDownload(free, freeProject.project.id, 'csv');
    expect(done).toMatchObject({ rowCount: hostileRows.length, projectName: 'Spring, "intake"', expired: false });
    expect(Date.parse(done.fileExpiresAt) - Date.parse(done.createdAt)).toBe(7 * 24 * 3600 * 1000);
    expect(file.headers.get('content-disposition') ?? '').toContain('_accounts.csv');
    const text = body.toString('utf8');
    expect(text.startsWith(UTF8_BOM)).toBe(true);
    const rows = Papa.parse<string[]>(text.slice(1), { delimiter: ',', newline: '\r\n', skipEmptyLines: true }).data;
    expect(rows).toEqual([HEADERS, ...expectedCells(freeProject, neutraliseFormula)]);
    expect(rows[3]![0]).toBe('\'=HYPERLINK("http://evil.example","x")');
  });

  it('exports xlsx for a Pro user: text cells, bold frozen header', async () => {
    const { done, body } = await exportAndDownload(pro, proProject.project.id, 'xlsx');
    expect(done.rowCount).toBe(hostileRows.length);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as never);
    const sheet = workbook.getWorksheet('Accounts')!;
    const rows: string[][] = [];
    sheet.eachRow((row) => rows.push(HEADERS.map((_, c) => String(row.getCell(c + 1).value ?? ''))));
    expect(rows).toEqual([HEADERS, ...expectedCells(proProject, xlsxText)]);
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    sheet.eachRow((row) => row.eachCell((cell) => expect(cell.type).toBe(ExcelJS.ValueType.String)));
  });

  it('exports json for a Pro user: one object per account, values as stored', async () => {
    const { body } = await exportAndDownload(pro, proProject.project.id, 'json');
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, string>[];
    expect(parsed.map((o) => EXPORT_COLUMNS.map((c) => o[c.key]))).toEqual(expectedCells(proProject, (v) => v));
  });

  it('refuses xlsx and json to a free user (the server reads the plan)', async () => {
    for (const format of ['xlsx', 'json']) {
      const response = await free.call('/api/exports', { body: { projectId: freeProject.project.id, format } });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { message: string }).message).toBe(PRO_FORMAT_MESSAGE);
    }
  });

  it("answers 404 for another user's project and 400 without a project", async () => {
    const other = await free.call('/api/exports', { body: { projectId: proProject.project.id, format: 'csv' } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { message: string }).message).toBe('Project not found');
    for (const body of [{ format: 'csv' }, { projectId: '  ', format: 'csv' }]) {
      const missing = await free.call('/api/exports', { body });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { message: string }).message).toBe('Please select a project to export.');
    }
  });

  it("never shows one user's exports to another, and lists newest first", async () => {
    const stranger = await apiUser();
    expect(await stranger.json<ExportView[]>('/api/exports/history')).toEqual([]);
    const mine = await pro.json<ExportView[]>('/api/exports/history');
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((e) => e.projectId === proProject.project.id)).toBe(true);
    expect(mine.map((e) => e.createdAt)).toEqual([...mine.map((e) => e.createdAt)].sort().reverse());
  });

  it('gives presigned links that stop working when they expire (403)', async () => {
    const [latest] = await free.json<ExportView[]>('/api/exports/history');
    const files = s3ExportFiles(BUCKET, linkSigner());
    const url = await files.downloadUrl(exportObjectKey(free.sub, latest!.id, 'csv'), attachmentDisposition('x_accounts.csv'), 1);
    await sleep(2000);
    expect((await fetch(url)).status).toBe(403);
  });
});

describe('export worker (use case against DynamoDB Local and the S3 emulator)', () => {
  let user: ApiUser;
  let created: Created;
  /** An S3 that answers every request 503 (as S3 under an outage): the PUT is asked again within a short budget, then fails. */
  let outage: http.Server;
  let outageEndpoint: string;
  /** Where the uploads of these tests write their temporary files (checked empty after each). */
  let directory: string;
  beforeAll(async () => {
    user = await apiUser();
    created = await createProject(user, 'Worker failures');
    directory = await mkdtemp(path.join(tmpdir(), 'export-worker-test-'));
    outage = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code></Error>'));
    });
    await new Promise<void>((resolve) => outage.listen(0, '127.0.0.1', resolve));
    outageEndpoint = `http://127.0.0.1:${(outage.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    outage.closeAllConnections();
    await new Promise<void>((resolve) => outage.close(() => resolve()));
    await rm(directory, { recursive: true, force: true });
  });

  const db = () => testDb();
  const deps = (overrides: Partial<RunExportDeps> = {}): RunExportDeps => ({
    exports: dynamoExportStore(db(), TABLE),
    projects: dynamoProjectStore(db(), TABLE),
    accountPages: dynamoAccountPages(db(), TABLE),
    accountData: dynamoAccountDataSource(db(), TABLE),
    cipher: async () => ({ encrypt: (p) => p, decrypt: () => 'secret' }),
    files: s3ExportFiles(BUCKET, linkSigner(), { directory }),
    now: () => new Date(),
    ...overrides,
  });
  const newExport = async (projectId = created.project.id) => {
    const record = newExportRecord({ id: timeOrderedId(), userId: user.sub, projectId, projectName: created.project.name, format: 'csv', now: new Date() });
    await dynamoExportStore(db(), TABLE).create(record);
    return record;
  };
  const objectExists = async (key: string) =>
    s3Client()
      .send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))
      .then(() => true)
      .catch((error: { $metadata?: { httpStatusCode?: number } }) => {
        if (error.$metadata?.httpStatusCode === 404) return false;
        throw error;
      });
  const statusOf = async (id: string) => (await dynamoExportStore(db(), TABLE).get(user.sub, id))!;

  /** Export files whose PUT meets the outage above (the same bucket and keys). */
  const failingFiles = () => s3ExportFiles(BUCKET, { ...linkSigner(), endpoint: outageEndpoint }, { directory, policy: { budgetMs: 300, baseMs: 10, capMs: 50 } });
  /** 15 MB of rows: written whole to the temporary file, then sent (and refused). */
  const bigWriter: ExportWriter = async (_pages, out) => {
    async function* many() {
      const row = Object.fromEntries(EXPORT_COLUMNS.map((c) => [c.key, 'x'.repeat(100)])) as never;
      for (let i = 0; i < 15; i++) yield Array.from({ length: 1000 }, () => row);
    }
    return writeCsv(many(), out);
  };

  it('a PUT S3 keeps refusing: nothing at the final key, no temporary file; retried while attempts remain, then failed', async () => {
    const record = await newExport();
    const key = exportObjectKey(user.sub, record.id, 'csv');
    const failing = deps({ files: failingFiles(), writers: { csv: bigWriter, xlsx: bigWriter, json: bigWriter } });
    await expect(runExport(failing)({ userId: user.sub, exportId: record.id }, { number: 1, max: 3 })).rejects.toThrow();
    expect((await statusOf(record.id)).status).toBe('processing');
    expect(await objectExists(key)).toBe(false);
    expect(await readdir(directory)).toEqual([]);

    const told: unknown[] = [];
    const failingTold = { ...failing, notifyFailed: async (input: unknown) => void told.push(input) };
    await runExport(failingTold)({ userId: user.sub, exportId: record.id }, { number: 3, max: 3 });
    const failed = await statusOf(record.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(`${EXPORT_FAILED} The file could not be stored.`);
    // Told in the bell once, on the attempt that failed it for good.
    expect(told).toEqual([expect.objectContaining({ userId: user.sub, exportId: record.id, subject: { kind: 'project', projectName: created.project.name }, reason: failed.error })]);
    expect(await objectExists(key)).toBe(false);
    expect(await readdir(directory)).toEqual([]);
  });

  it('restarts a redelivered processing export cleanly, and never redoes a finished one', async () => {
    const record = await newExport();
    const key = exportObjectKey(user.sub, record.id, 'csv');
    await expect(runExport(deps({ files: failingFiles() }))({ userId: user.sub, exportId: record.id }, { number: 1, max: 3 })).rejects.toThrow();
    expect((await statusOf(record.id)).status).toBe('processing');

    await runExport(deps())({ userId: user.sub, exportId: record.id }, { number: 2, max: 3 });
    const completed = await statusOf(record.id);
    expect(completed).toMatchObject({ status: 'completed', rowCount: hostileRows.length, attempts: 2 });
    expect(await objectExists(key)).toBe(true);
    // The PUT's headers are stored with the file (content-disposition signed, content-type beside the signature).
    const stored = await s3Client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(stored).toMatchObject({ ContentType: exportContentTypes.csv, ContentDisposition: attachmentDisposition(exportFilename(created.project.name, 'csv')), ContentLength: completed.sizeBytes });

    // A late duplicate delivery changes nothing.
    await runExport(deps({ files: failingFiles() }))({ userId: user.sub, exportId: record.id }, { number: 1, max: 3 });
    expect(await statusOf(record.id)).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it("deletes the file it wrote when the export was stopped (account deletion) or erased meanwhile, and keeps another delivery's completed one", async () => {
    const db = testDb();
    for (const end of ['stopped', 'erased'] as const) {
      const record = await newExport();
      const key = exportObjectKey(user.sub, record.id, 'csv');
      const notified: string[] = [];
      // The account's deletion reaches the export while its worker is writing the file.
      const accountPages = dynamoAccountPages(db, TABLE);
      const during: RunExportDeps['accountPages'] = (userId, projectId) =>
        (async function* () {
          for await (const page of accountPages(userId, projectId)) {
            if (end === 'stopped') await dynamoErasureStore(db, TABLE).stopJob(keys.export(user.sub, record.id), 'processing', STOPPED_FOR_DELETION, new Date());
            else await db.send(new DeleteCommand({ TableName: TABLE, Key: keys.export(user.sub, record.id) }));
            yield page;
          }
        })();
      await runExport(deps({ accountPages: during, notifyReady: async ({ exportId }) => void notified.push(exportId) }))({ userId: user.sub, exportId: record.id }, { number: 1, max: 3 });
      expect(await objectExists(key)).toBe(false);
      expect(notified).toEqual([]);
      const item = await dynamoExportStore(db, TABLE).get(user.sub, record.id);
      if (end === 'stopped') expect(item).toMatchObject({ status: 'failed', reason: STOPPED_FOR_DELETION });
      else expect(item).toBeUndefined();
    }

    // Two deliveries of one message at once: the one that ends second leaves the first one's file.
    const record = await newExport();
    const key = exportObjectKey(user.sub, record.id, 'csv');
    const accountPages = dynamoAccountPages(db, TABLE);
    const overtaken: RunExportDeps['accountPages'] = (userId, projectId) =>
      (async function* () {
        for await (const page of accountPages(userId, projectId)) {
          await runExport(deps())({ userId: user.sub, exportId: record.id }, { number: 2, max: 3 });
          yield page;
        }
      })();
    await runExport(deps({ accountPages: overtaken }))({ userId: user.sub, exportId: record.id }, { number: 1, max: 3 });
    expect(await statusOf(record.id)).toMatchObject({ status: 'completed', rowCount: hostileRows.length });
    expect(await objectExists(key)).toBe(true);
    expect(await readdir(directory)).toEqual([]);
  });

  it('fails at once, without retry, when the project is gone or a password cannot be read', async () => {
    const gone = await newExport('00000000-0000-7000-8000-000000000000');
    await runExport(deps())({ userId: user.sub, exportId: gone.id }, { number: 1, max: 3 });
    expect(await statusOf(gone.id)).toMatchObject({ status: 'failed', error: `${EXPORT_FAILED} The project no longer exists.` });

    const unreadable = await newExport();
    const broken = deps({
      cipher: async () => ({
        encrypt: (p) => p,
        decrypt: () => {
          throw new Error('bad tag');
        },
      }),
    });
    await runExport(broken)({ userId: user.sub, exportId: unreadable.id }, { number: 1, max: 3 });
    expect(await statusOf(unreadable.id)).toMatchObject({ status: 'failed', error: `${EXPORT_FAILED} A stored password could not be read.` });
    expect(await objectExists(exportObjectKey(user.sub, unreadable.id, 'csv'))).toBe(false);
  });
});
