import type { JobItem } from './kind';
import { skippedOf } from './selection';

/**
 * What every job over a set of accounts shows of itself (GET .../{id}): its ids, project, counts
 * (`pending` = total - the two counters that end an account, so done + failed + pending = total
 * at every moment), integration, reason and times. A kind's view adds its own fields. A job over
 * a selection that completed with accounts neither done nor failed skipped them (counted at the
 * start, no longer matching its filter or no longer there when reached): `skipped`, so done +
 * failed + skipped + pending = total then too.
 */
export function jobViewBase(item: JobItem, counted: { done: string; failed: string }) {
  const total = Number(item.total ?? 0);
  const ended = Number(item[counted.done] ?? 0) + Number(item[counted.failed] ?? 0);
  const skipped = skippedOf(item, ended);
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: String(item.projectName ?? ''),
    total,
    pending: skipped === undefined ? Math.max(0, total - ended) : 0,
    ...(skipped ? { skipped } : {}),
    ...(typeof item.integrationName === 'string' ? { integrationName: item.integrationName } : {}),
    ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    ...(typeof item.completedAt === 'string' ? { completedAt: item.completedAt } : {}),
  };
}
