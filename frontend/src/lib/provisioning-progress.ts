import type { Integration } from '@shared/schemas/integrations';
import type { Project } from '@shared/schemas/project';
import { provisioningSupport, type ProvisioningJob, type ProvisioningMode, type ProvisioningStatus } from '@shared/schemas/provisioning';

/** Synced + failed + removed + pending = total, as shown on screen. */
export interface SyncCounts {
  synced: number;
  failed: number;
  /** Taken off the platform again by an undo (kept here, marked). */
  removed: number;
  pending: number;
  total: number;
}

const whole = (value: number | undefined) => (Number.isFinite(value) && value! > 0 ? Math.floor(value!) : 0);

/**
 * The counts a screen shows, made to add up whatever the answer held: pending is what is neither
 * synced, failed nor removed, and the total grows to hold them (a project read before its counts
 * were written, or a run read between two updates, must never show 3 + 1 + 0 of 3).
 */
export function syncCounts(synced: number | undefined, failed: number | undefined, total: number | undefined, removed?: number): SyncCounts {
  const s = whole(synced);
  const f = whole(failed);
  const r = whole(removed);
  const t = Math.max(whole(total), s + f + r);
  return { synced: s, failed: f, removed: r, pending: t - s - f - r, total: t };
}

export const jobSyncCounts = (job: Pick<ProvisioningJob, 'synced' | 'failed' | 'total'>): SyncCounts => syncCounts(job.synced, job.failed, job.total);

/** A project's accounts by where they stand on the platform (its accountCount is the total). */
export const projectSyncCounts = (project: Pick<Project, 'accountCount' | 'syncedCount' | 'syncFailedCount'> & Partial<Pick<Project, 'syncRemovedCount'>>): SyncCounts =>
  syncCounts(project.syncedCount, project.syncFailedCount, project.accountCount, project.syncRemovedCount);

/**
 * "2 synced, 1 failed, 0 pending of 3"; an undo run counts the accounts it removed from the
 * platform in `synced` (the server's words for both): "2 removed, 0 failed, 1 pending of 3".
 */
export const countsText = ({ synced, failed, pending, total }: SyncCounts, mode: ProvisioningMode = 'provision'): string =>
  `${synced.toLocaleString()} ${mode === 'undo' ? 'removed' : 'synced'}, ${failed.toLocaleString()} failed, ${pending.toLocaleString()} pending of ${total.toLocaleString()}`;

/** Percent of the run's accounts that have an outcome (synced or failed), 0-100. */
export const settledPercent = ({ synced, failed, total }: SyncCounts): number => (total > 0 ? ((synced + failed) / total) * 100 : 100);

export const provisioningFinished = (status: ProvisioningStatus | undefined): boolean => status === 'completed' || status === 'failed';

/** A run whose accounts are being reached now, or soon: the page keeps following it. */
export const provisioningActive = (status: ProvisioningStatus | undefined): boolean => !!status && !provisioningFinished(status);

/**
 * The status a run's badge shows: 'queued' while the server says it waits on the shared queue
 * (its waitReason: no worker has picked it up yet, though its chunks are planned), else its own.
 */
export const shownStatus = (job: Pick<ProvisioningJob, 'status' | 'waitReason'>): ProvisioningStatus => (job.waitReason !== undefined && job.status === 'running' ? 'queued' : job.status);

export const provisioningStatusLabels: Record<ProvisioningStatus, string> = {
  waiting: 'Waiting',
  queued: 'Queued',
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
};

/** An integration as a choice of provisioning target: the ones the server would refuse say why. */
export interface TargetChoice {
  integration: Integration;
  reason?: string;
}

/** The user's integrations as targets, in their order; refused ones keep their reason (spec: Workday is no target). */
export function provisioningTargets(integrations: readonly Integration[]): TargetChoice[] {
  return integrations.map((integration) => {
    const support = provisioningSupport(integration);
    return support.supported ? { integration } : { integration, reason: support.reason };
  });
}

/** The first target that can be chosen, preferring `preferred` (a project's own integration). */
export function defaultTarget(choices: readonly TargetChoice[], preferred?: string): string {
  const usable = choices.filter((choice) => !choice.reason);
  return (usable.find((choice) => choice.integration.id === preferred) ?? usable[0])?.integration.id ?? '';
}
