import type * as z from 'zod';
import { planLimits } from '../../shared/plans';
import { PRO_FORMAT_MESSAGE, type createExportSchema, type ExportView } from '../../shared/schemas/export';
import { NotFoundError, PlanLimitError } from '../core/errors';
import { isIdShaped } from '../../shared/schemas/ids';
import type { ProjectStore } from '../projects/project-store';
import { exportView, newAccountDataExportRecord, newDirectoryExportRecord, newExportRecord, newSecurityEventsExportRecord, type ExportRecord } from './export-item';
import type { directoryExportSchema } from '../../shared/schemas/account-directory';
import type { ExportQueue } from './export-queue';
import type { ExportStore } from './export-store';

export interface StartExportDeps {
  exports: ExportStore;
  projects: Pick<ProjectStore, 'get'>;
  queue: ExportQueue;
  now: () => Date;
  newId: (now: Date) => string;
}

/**
 * POST /api/exports:
 * 1. The project must be the caller's (404 otherwise); the format must be in the caller's plan,
 *    read from the user item on the server (403 for xlsx/json on the free plan).
 * 2. Record the export as pending, queue it for the export worker, answer at once.
 */
export const startExport =
  (deps: StartExportDeps) =>
  async (userId: string, request: z.output<typeof createExportSchema>): Promise<ExportView> => {
    const [project, plan] = await Promise.all([deps.projects.get(userId, request.projectId), deps.exports.plan(userId)]);
    if (!planLimits[plan].exportFormats.includes(request.format)) throw new PlanLimitError(PRO_FORMAT_MESSAGE);

    const now = deps.now();
    return queued(deps, newExportRecord({ id: deps.newId(now), userId, projectId: request.projectId, projectName: String(project.name), format: request.format, now }), now);
  };

/**
 * Records the export as pending and queues it for the export worker; never leaves an entry pending
 * forever: when the queue refuses it, the history shows it failed and the user can try again.
 */
async function queued(deps: Pick<StartExportDeps, 'exports' | 'queue' | 'now'>, record: ExportRecord, now: Date): Promise<ExportView> {
  await deps.exports.create(record);
  try {
    await deps.queue.send({ userId: record.userId, exportId: record.id });
  } catch (error) {
    await deps.exports.fail(record.userId, record.id, 'The export could not be started. Please try again.', deps.now());
    throw error;
  }
  return exportView(record, now);
}

/**
 * POST /api/exports/account-data (Settings > Data, 'Export All Data'): a zip of everything the
 * product holds on the caller, on every plan (the data is theirs). Recorded and queued like a
 * project export, so it runs in the export worker and shows in the Export Center's history.
 */
export const startAccountDataExport =
  (deps: Omit<StartExportDeps, 'projects'>) =>
  async (userId: string): Promise<ExportView> => {
    const now = deps.now();
    return queued(deps, newAccountDataExportRecord({ id: deps.newId(now), userId, now }), now);
  };

/**
 * POST /api/exports/security-events ('Export Logs' in the Security Center): every security event
 * of the caller (a year at most: the TTL) as a CSV file, on every plan (the events are theirs),
 * written by the export worker and downloaded from the Export Center like any export.
 */
export const startSecurityEventsExport =
  (deps: Omit<StartExportDeps, 'projects'>) =>
  async (userId: string): Promise<ExportView> => {
    const now = deps.now();
    return queued(deps, newSecurityEventsExportRecord({ id: deps.newId(now), userId, now }), now);
  };

/**
 * POST /api/exports/directory ('Export All' in the Account Database): the accounts the filters,
 * term and sort select, in a format of the caller's plan (403 for xlsx/json on the free plan); a
 * project filter that is not the caller's is 404. The selection is stored on the export item and
 * read again by the worker (functions/accounts/browse-accounts.ts, page after page).
 */
export const startDirectoryExport =
  (deps: StartExportDeps) =>
  async (userId: string, request: z.output<typeof directoryExportSchema>): Promise<ExportView> => {
    const { format, ...selection } = request;
    if (selection.projectId !== undefined && !isIdShaped(selection.projectId)) throw new NotFoundError('Project not found');
    const [plan] = await Promise.all([deps.exports.plan(userId), selection.projectId !== undefined ? deps.projects.get(userId, selection.projectId) : undefined]);
    if (!planLimits[plan].exportFormats.includes(format)) throw new PlanLimitError(PRO_FORMAT_MESSAGE);
    const now = deps.now();
    const stored = Object.fromEntries(Object.entries(selection).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
    return queued(deps, newDirectoryExportRecord({ id: deps.newId(now), userId, format, selection: stored, now }), now);
  };
