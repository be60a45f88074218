import type { JobItem } from './kind';

/**
 * What every job over a set of accounts shows of itself (GET .../{id}): its ids, project, counts
 * (`pending` = total - the two counters that end an account, so done + failed + pending = total
 * at every moment), integration, reason and times. A kind's view adds its own fields.
 */
export function jobViewBase(item: JobItem, counted: { done: string; failed: string }) {
  const total = Number(item.total ?? 0);
  const ended = Number(item[counted.done] ?? 0) + Number(item[counted.failed] ?? 0);
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    projectName: String(item.projectName ?? ''),
    total,
    pending: Math.max(0, total - ended),
    ...(typeof item.integrationName === 'string' ? { integrationName: item.integrationName } : {}),
    ...(typeof item.reason === 'string' ? { reason: item.reason } : {}),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    ...(typeof item.completedAt === 'string' ? { completedAt: item.completedAt } : {}),
  };
}
