import { describe, expect, it } from 'vitest';
import { directoryActionView, type PartView } from '../../functions/account-jobs/directory-actions';
import type { DirectoryActionPart } from '../../shared/schemas/directory-actions';

const item = { id: 'a1', action: 'deactivate', total: 10, createdAt: '2026-11-28T00:00:00.000Z' };
const part = (projectId: string, total: number, fields: Partial<DirectoryActionPart> = {}): DirectoryActionPart => ({ projectId, projectName: projectId, total, status: 'queued', ...fields });
const job = (fields: Partial<PartView>): PartView => ({ status: 'running', total: 0, done: 0, failed: 0, onPlatform: 0, skipped: 0, ...fields });
const adds = (view: ReturnType<typeof directoryActionView>) => view.done + view.failed + view.skipped + view.pending;

describe('directoryActionView (the sum of an action over the Account Database)', () => {
  it('adds its jobs up while they run: what is not ended is pending', () => {
    const view = directoryActionView(item, [part('p1', 4, { jobId: 'j1' }), part('p2', 6, { jobId: 'j2' })], new Map([['j1', job({ done: 2 })], ['j2', job({ status: 'completed', done: 5, failed: 1 })]]));
    expect(view).toMatchObject({ status: 'running', done: 7, failed: 1, skipped: 0, pending: 2 });
    expect(adds(view)).toBe(10);
  });

  it('once over: a completed job’s listed accounts no longer fitting are skipped, a failed job’s unreached accounts failed, a part not started failed whole', () => {
    const view = directoryActionView(
      item,
      [part('p1', 4, { jobId: 'j1' }), part('p2', 3, { jobId: 'j2' }), part('p3', 3, { status: 'not_started', reason: 'busy' })],
      new Map([['j1', job({ status: 'completed', done: 3 })], ['j2', job({ status: 'failed', done: 1, failed: 0, reason: 'stopped' })]]),
    );
    expect(view).toMatchObject({ status: 'completed', done: 4, skipped: 1, failed: 5, pending: 0 });
    expect(adds(view)).toBe(10);
    expect(view.parts.map((p) => p.status)).toEqual(['completed', 'failed', 'not_started']);
  });
});
