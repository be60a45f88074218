import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/core/keys';
import type { BulkJob } from '../../shared/schemas/bulk';
import type { ExportView } from '../../shared/schemas/export';
import { exportCenterMessage, SYNC_EXPORT_MAX_ACCOUNTS, type Project } from '../../shared/schemas/project';
import { apiUser, people, testDb, upgradeToPro, type ApiUser, exportDownloadUrl } from '../support/api';
import { until } from '../support/until';

const TABLE = 'bulkonboard';
const ROWS = SYNC_EXPORT_MAX_ACCOUNTS + 1;

/**
 * A project above SYNC_EXPORT_MAX_ACCOUNTS is not downloaded at once (10 s, 6 MB Lambda): the
 * download answers 409 with the reason, and the Export Center's worker makes the file.
 */
describe('Export CSV of a project too large to download at once', () => {
  let pro: ApiUser;
  let project: Project;
  beforeAll(async () => {
    pro = await apiUser();
    await upgradeToPro(pro);
    const queued = await pro.json<{ project: Project; job: BulkJob }>('/api/bulk-create', { body: { projectName: 'Very large', csvData: people(ROWS, 'Large') } });
    const job = await until('the job', () => pro.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (j) => j.status === 'completed' || j.status === 'failed', 150_000);
    expect(job).toMatchObject({ status: 'completed', done: ROWS, failedCount: 0 });
    project = (await pro.json<Project[]>('/api/projects')).find((p) => p.id === queued.project.id)!;
    expect(project.accountCount).toBe(ROWS);
  }, 180_000);

  it('answers 409 with the reason instead of a CSV, and the Export Center makes the file', async () => {
    const refused = await pro.call(`/api/projects/${project.id}/export`);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toContain('application/json');
    expect(refused.headers.get('content-disposition')).toBeNull();
    const body = (await refused.json()) as { message: string };
    expect(body.message).toBe('This project has 10,001 accounts: its CSV is prepared in the Export Center.');
    expect(body.message).toBe(exportCenterMessage(ROWS));

    // What the web app does next: the export is queued, shows in the history and completes.
    const started = await pro.call('/api/exports', { body: { projectId: project.id, format: 'csv' } });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as ExportView;
    const history = await pro.json<ExportView[]>('/api/exports/history');
    expect(history.find((e) => e.id === id)).toMatchObject({ projectId: project.id, format: 'csv' });
    const done = await until(
      'the export',
      async () => (await pro.json<ExportView[]>('/api/exports/history')).find((e) => e.id === id)!,
      (e) => e.status === 'completed' || e.status === 'failed',
      60_000,
    );
    expect(done).toMatchObject({ status: 'completed', rowCount: ROWS });
    const file = await fetch(await exportDownloadUrl(pro, done.id));
    expect(file.status).toBe(200);
    const rows = Papa.parse<string[]>((await file.text()).replace(/^\uFEFF/, ''), { skipEmptyLines: true }).data;
    expect(rows).toHaveLength(ROWS + 1); // the header and every account
    expect(new Set(rows.slice(1).map((r) => r[2])).size).toBe(ROWS);
  }, 90_000);

  it('refuses while reading too, when the stored count is behind the accounts (a job still adding them)', async () => {
    await testDb().send(
      new UpdateCommand({ TableName: TABLE, Key: keys.project(pro.sub, project.id), UpdateExpression: 'SET accountCount = :n', ExpressionAttributeValues: { ':n': 5 } }),
    );
    try {
      const refused = await pro.call(`/api/projects/${project.id}/export`);
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { message: string }).message).toBe('This project has more than 10,000 accounts: its CSV is prepared in the Export Center.');
    } finally {
      await testDb().send(
        new UpdateCommand({ TableName: TABLE, Key: keys.project(pro.sub, project.id), UpdateExpression: 'SET accountCount = :n', ExpressionAttributeValues: { ':n': ROWS } }),
      );
    }
  }, 30_000);
});
