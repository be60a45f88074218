import { describe, expect, it } from 'vitest';
import { PRO_FORMAT_MESSAGE } from '../../shared/schemas/export';
import { NotFoundError, PlanLimitError } from '../../functions/core/errors';
import type { ExportRecord } from '../../functions/exports/export-item';
import type { ExportStore } from '../../functions/exports/export-store';
import { startExport } from '../../functions/exports/start-export';

const NOW = new Date('2025-03-01T10:00:00.000Z');

function fakes(plan: 'free' | 'pro', options: { queueFails?: boolean } = {}) {
  const records = new Map<string, ExportRecord & { error?: string }>();
  const sent: unknown[] = [];
  const exports = {
    plan: async () => plan,
    create: async (record: ExportRecord) => void records.set(record.id, { ...record }),
    fail: async (_userId: string, id: string, error: string) => void Object.assign(records.get(id)!, { status: 'failed', error }),
  } as unknown as ExportStore;
  const start = startExport({
    exports,
    projects: {
      get: async (_userId, projectId) => {
        if (projectId !== 'p1') throw new NotFoundError('Project not found');
        return { id: 'p1', name: 'Spring' };
      },
    },
    queue: {
      send: async (message) => {
        if (options.queueFails) throw new Error('queue down');
        sent.push(message);
      },
    },
    now: () => NOW,
    newId: () => 'e1',
  });
  return { start, records, sent };
}

describe('startExport', () => {
  it('records a pending export with its expiry dates and queues it', async () => {
    const { start, records, sent } = fakes('free');
    const view = await start('u1', { projectId: 'p1', format: 'csv' });
    expect(view).toEqual({
      id: 'e1',
      kind: 'project',
      projectId: 'p1',
      projectName: 'Spring',
      format: 'csv',
      status: 'pending',
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      fileExpiresAt: '2025-03-08T10:00:00.000Z',
      expired: false,
    });
    expect(records.get('e1')!.expiresAt).toBe(Date.parse('2025-03-31T10:00:00.000Z') / 1000);
    expect(sent).toEqual([{ userId: 'u1', exportId: 'e1' }]);
  });

  it('refuses xlsx and json on the free plan, allows them on Pro', async () => {
    for (const format of ['xlsx', 'json'] as const) {
      await expect(fakes('free').start('u1', { projectId: 'p1', format })).rejects.toEqual(new PlanLimitError(PRO_FORMAT_MESSAGE));
      await expect(fakes('pro').start('u1', { projectId: 'p1', format })).resolves.toMatchObject({ format, status: 'pending' });
    }
  });

  it("answers 404 for a project that is not the caller's", async () => {
    await expect(fakes('pro').start('u1', { projectId: 'other', format: 'csv' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('marks the export failed when it cannot be queued, never leaving it pending', async () => {
    const { start, records } = fakes('free', { queueFails: true });
    await expect(start('u1', { projectId: 'p1', format: 'csv' })).rejects.toThrow('queue down');
    expect(records.get('e1')).toMatchObject({ status: 'failed', error: 'The export could not be started. Please try again.' });
  });
});
