/// <reference lib="dom" />
import { describe, expect, inject, it } from 'vitest';
import { LAMBDA_EVENT_MAX_BYTES } from '../../bin/local/gateway';
import { SYNC_EXPORT_MAX_ACCOUNTS, exportCenterMessage } from '../../shared/schemas/project';
import { proUserInChromium, screenshotPath } from '../support/browser';

const stack = inject('stack');
const app = stack.urls.app;
const ROWS = 20_000;

/** People with long names and addresses: as JSON rows they exceed what Lambda accepts in one request. */
const pad = (text: string, length: number) => (text + 'x'.repeat(length)).slice(0, length);
const largeCsv = () =>
  ['First Name,Last Name,Email', ...Array.from({ length: ROWS }, (_, i) => `${pad(`Bartholomew${i}`, 100)},${pad(`Featherstonehaugh${i}`, 100)},${pad(`person.${i}.`, 100)}@example.com`)].join('\n');

describe('A large CSV in Chromium', () => {
  const session = proUserInChromium('large-file', { firstName: 'Large', lastName: 'File' });

  it('sends 20,000 rows that are over 6 MB as JSON (gzipped) and creates every account in a background job', async () => {
    const csv = largeCsv();
    const rowsAsJson = JSON.stringify(csv.split('\n').slice(1).map((line) => Object.fromEntries(line.split(',').map((v, i) => [['firstName', 'lastName', 'email'][i], v]))));
    expect(Buffer.byteLength(rowsAsJson)).toBeGreaterThan(LAMBDA_EVENT_MAX_BYTES);

    await session.page.goto(`${app}/bulk-creator`);
    await session.page.getByRole('button', { name: 'Drag and drop your CSV file here, or click to browse' }).waitFor();
    await session.page.getByLabel('Upload CSV').setInputFiles({ name: 'large.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const dialog = session.page.getByRole('dialog', { name: 'Bulk Create Accounts' });
    await dialog.getByText('20,000 valid').waitFor();
    await dialog.getByLabel('Project name').fill('Large import');
    const [request] = await Promise.all([
      session.page.waitForRequest((r) => r.url().endsWith('/api/bulk-create') && r.method() === 'POST'),
      dialog.getByRole('button', { name: 'Generate Accounts' }).click(),
    ]);
    const sent = request.postData() ?? '';
    expect(Buffer.byteLength(sent)).toBeLessThan(LAMBDA_EVENT_MAX_BYTES / 2);
    expect(JSON.parse(sent)).toHaveProperty('csvDataGzip');

    await dialog.getByText('20,000 accounts created').waitFor({ timeout: 90_000 });
    await session.page.screenshot({ path: screenshotPath('bulk-large-file-complete') });
  });

  it("sends the 20,000-account project's CSV to the Export Center instead of one answer", async () => {
    const projects = (await (await fetch(`${app}/api/projects`, { headers: { authorization: `Bearer ${session.user.accessToken}` } })).json()) as { id: string; name: string }[];
    const project = projects.find((p) => p.name === 'Large import')!;
    const response = await fetch(`${app}/api/projects/${project.id}/export`, { headers: { authorization: `Bearer ${session.user.accessToken}`, 'accept-encoding': 'gzip' } });
    // Over SYNC_EXPORT_MAX_ACCOUNTS: no CSV in the answer (it would take longer than the function's
    // 10 s and pass Lambda's 6 MB); the web app then starts an export (test/e2e/large-project-export.test.ts).
    expect(response.status).toBe(409);
    expect(((await response.json()) as { message: string }).message).toBe(exportCenterMessage(ROWS));
    expect(ROWS).toBeGreaterThan(SYNC_EXPORT_MAX_ACCOUNTS);
  });
});
