import type { AccountActionJob } from '../../shared/schemas/account-actions';
import type { DirectoryAction } from '../../shared/schemas/directory-actions';
import type { MailSend } from '../../shared/schemas/mail-send';
import type { ProvisioningJob } from '../../shared/schemas/provisioning';
import type { PasswordResetJob } from '../../shared/schemas/reset-passwords';
import { NotFoundError } from '../core/errors';
import { assertApiIntegrations, assertCredentialEmails } from '../usage/plan-usage';
import type { PartKind, PartView } from '../account-jobs/directory-actions';
import type { RequestOrigin } from '../security/security-events';
import { busyReason } from './account-action-routes';

/**
 * The kinds an action over the Account Database starts per project (functions/account-jobs/
 * directory-actions.ts), each through its own start, so its checks, lock, security event and
 * job are those of the project page's bulk bar over ticked accounts: account actions, Reset
 * password, Send credentials and a provisioning run's retry of the listed failed accounts. Each
 * start writes its job under the id it is given (chosen by the action beforehand, so a read of the
 * action finds the job of a part its request left 'starting': directory-actions.ts).
 */
export interface DirectoryKindStarts {
  action: (userId: string, projectId: string, input: { action: 'deactivate' | 'reactivate' | 'delete' | 'update'; accountIds: string[] }, origin: Partial<RequestOrigin>, jobId: string) => Promise<{ id: string }>;
  readAction: (userId: string, jobId: string) => Promise<AccountActionJob>;
  reset: (userId: string, projectId: string, origin: RequestOrigin, selection: { accountIds: string[] }, jobId: string) => Promise<{ id: string }>;
  readReset: (userId: string, jobId: string) => Promise<PasswordResetJob>;
  send: (userId: string, projectId: string, input: { scope: 'selection'; accountIds: string[]; templateId?: string; delivery: 'password' | 'link'; linkExpiresInDays: number; overrideSuppression: boolean }, options: { origin?: Partial<RequestOrigin> }, jobId: string) => Promise<{ id: string }>;
  readSend: (userId: string, jobId: string) => Promise<MailSend | undefined>;
  retry: (userId: string, projectId: string, input: { integrationId: string; mode: 'retry' }, options: { accountIds: string[] }, jobId: string) => Promise<{ id: string }>;
  readRun: (userId: string, jobId: string) => Promise<ProvisioningJob | undefined>;
}

/** On a platform: the project's accounts were provisioned (a platform operation is Pro). */
const provisioned = (project: Record<string, unknown>) => typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;

/** A read that answers 404 for a job gone (its project deleted since): nothing to add. */
const orNone = async <T>(read: Promise<T>): Promise<T | undefined> => {
  try {
    return await read;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
};

export function directoryActionKinds(starts: DirectoryKindStarts): Record<DirectoryAction, PartKind> {
  const accountAction = (action: 'deactivate' | 'reactivate' | 'delete' | 'update'): PartKind => ({
    gate: (plan, project) => (provisioned(project) ? assertApiIntegrations(plan) : undefined),
    busy: busyReason,
    start: async (userId, project, accountIds, _request, origin, jobId) => (await starts.action(userId, String(project.id), { action, accountIds }, origin, jobId)).id,
    read: async (userId, jobId): Promise<PartView | undefined> => {
      const job = await orNone(starts.readAction(userId, jobId));
      return job && { status: job.status, total: job.total, done: job.done, failed: job.failed, onPlatform: job.onPlatform, skipped: job.skipped ?? 0, ...(job.reason ? { reason: job.reason } : {}), failures: job.failures ?? [] };
    },
  });
  return {
    deactivate: accountAction('deactivate'),
    reactivate: accountAction('reactivate'),
    delete: accountAction('delete'),
    update: accountAction('update'),
    reset: {
      gate: (plan, project) => (provisioned(project) ? assertApiIntegrations(plan) : undefined),
      busy: busyReason,
      start: async (userId, project, accountIds, _request, origin, jobId) => (await starts.reset(userId, String(project.id), origin, { accountIds }, jobId)).id,
      read: async (userId, jobId) => {
        const job = await orNone(starts.readReset(userId, jobId));
        return job && { status: job.status, total: job.total, done: job.done, failed: job.failed, onPlatform: job.updatedOnPlatform, skipped: job.skipped ?? 0, ...(job.reason ? { reason: job.reason } : {}), failures: (job.failures ?? []).map((f) => ({ accountId: '', username: f.username, reason: f.reason })) };
      },
    },
    send: {
      gate: (plan) => assertCredentialEmails(plan),
      busy: busyReason,
      start: async (userId, project, accountIds, request, origin, jobId) =>
        (
          await starts.send(
            userId,
            String(project.id),
            { scope: 'selection', accountIds, ...(request.templateId ? { templateId: request.templateId } : {}), delivery: request.delivery, linkExpiresInDays: request.linkExpiresInDays, overrideSuppression: false },
            { origin },
            jobId,
          )
        ).id,
      read: async (userId, jobId) => {
        const send = await starts.readSend(userId, jobId);
        return send && { status: send.status, total: send.total, done: send.sent, failed: send.failed + send.suppressed, onPlatform: 0, skipped: send.skipped ?? 0, ...(send.reason ? { reason: send.reason } : {}) };
      },
    },
    retry: {
      gate: (plan) => assertApiIntegrations(plan),
      busy: busyReason,
      start: async (userId, project, accountIds, _request, _origin, jobId) => {
        if (typeof project.integrationId !== 'string') throw new NotFoundError(`The accounts of "${String(project.name)}" were never provisioned: there is nothing to retry.`);
        return (await starts.retry(userId, String(project.id), { integrationId: project.integrationId, mode: 'retry' }, { accountIds }, jobId)).id;
      },
      read: async (userId, jobId) => {
        const run = await starts.readRun(userId, jobId);
        return run && { status: run.status, total: run.total, done: run.synced, failed: run.failed, onPlatform: run.synced, skipped: run.skipped ?? 0, ...(run.reason ? { reason: run.reason } : {}) };
      },
    },
  };
}
