import { logger } from '../core/logger';
import type { QueueMail } from '../mail/sqs-mail-queue';
import { recordNotification, type NotificationDeps } from './notification-writer';
import { plural } from '../../shared/text/plural';

/**
 * What happened, as the user reads it in the bell: one function per event, called where the
 * event happens. None of them throws: the job that reports (a bulk job's end, an export, a
 * webhook) has done its work, and a notification or e-mail that cannot be written is logged and
 * skipped, never a reason to fail or retry the job.
 */
const queueMail = async (mail: QueueMail | undefined, message: Parameters<QueueMail>[0]) => {
  if (!mail) return;
  try {
    await mail(message);
  } catch (error) {
    logger.warn('Notification e-mail not queued', { type: message.type, error: error instanceof Error ? error.message : String(error) });
  }
};

const count = plural;

/** A background bulk creation ended (the once its statistics are recorded, or the once it failed). */
export async function bulkJobFinished(
  deps: NotificationDeps & { mail?: QueueMail },
  job: { userId: string; jobId: string; projectId: string; projectName: string; outcome: 'completed' | 'failed'; created: number; failed: number; reason?: string; at: Date },
): Promise<void> {
  const ok = job.outcome === 'completed';
  await recordNotification(deps, {
    userId: job.userId,
    kind: ok ? 'bulk-job-completed' : 'bulk-job-failed',
    title: ok ? `Project "${job.projectName}" is ready` : `Creating accounts in "${job.projectName}" failed`,
    body: ok
      ? `${count(job.created, 'account', 'accounts')} created${job.failed ? `, ${count(job.failed, 'row', 'rows')} not created` : ''}.`
      : (job.reason ?? 'No accounts were created.'),
    link: `/projects/${job.projectId}`,
    source: `bulk-job:${job.jobId}:${job.outcome}`,
    at: job.at,
  });
  await queueMail(deps.mail, {
    type: 'project-completion',
    userId: job.userId,
    projectId: job.projectId,
    projectName: job.projectName,
    outcome: job.outcome,
    created: job.created,
    failed: job.failed,
    ...(job.reason ? { reason: job.reason } : {}),
  });
}

/** What an export is of: a project's accounts, everything the user has here (Export All Data), or the user's security events ('Export Logs'). */
export type ExportSubject = { kind: 'project'; projectName: string } | { kind: 'account-data' } | { kind: 'security-events' };

const exportTitle = (subject: ExportSubject, outcome: string) =>
  subject.kind === 'account-data'
    ? `Export of all your data ${outcome}`
    : subject.kind === 'security-events'
      ? `Export of your security events ${outcome}`
      : `Export of "${subject.projectName}" ${outcome}`;

const readyBody = (subject: ExportSubject, format: string, rowCount: number): string =>
  subject.kind === 'account-data'
    ? `ZIP file of everything BulkOnboard holds on you, ${count(rowCount, 'account', 'accounts')} included: download it from the Export Center.`
    : subject.kind === 'security-events'
      ? `CSV file with ${count(rowCount, 'security event', 'security events')}: download it from the Export Center.`
      : `${format.toUpperCase()} file with ${count(rowCount, 'account', 'accounts')}: download it from the Export Center.`;

/** An export's file is ready in the Export Center (a project's, or all the user's data). */
export async function exportReady(deps: NotificationDeps, input: { userId: string; exportId: string; subject: ExportSubject; format: string; rowCount: number; at: Date }): Promise<void> {
  await recordNotification(deps, {
    userId: input.userId,
    kind: 'export-ready',
    title: exportTitle(input.subject, 'is ready'),
    body: readyBody(input.subject, input.format, input.rowCount),
    link: '/exports',
    source: `export:${input.exportId}:ready`,
    at: input.at,
  });
}

/** An export failed for good (the worker's last attempt, or its dead-letter record): why, and where to start it again. */
export async function exportFailed(deps: NotificationDeps, input: { userId: string; exportId: string; subject: ExportSubject; reason: string; at: Date }): Promise<void> {
  await recordNotification(deps, {
    userId: input.userId,
    kind: 'export-failed',
    title: exportTitle(input.subject, 'failed'),
    body: input.reason,
    link: '/exports',
    source: `export:${input.exportId}:failed`,
    at: input.at,
  });
}

/** A provisioning run ended (completed, or failed with its reason). */
export async function provisioningFinished(
  deps: NotificationDeps,
  run: { userId: string; jobId: string; projectId: string; projectName: string; integrationName: string; status: 'completed' | 'failed'; synced: number; failed: number; reason?: string; at: Date },
): Promise<void> {
  const ok = run.status === 'completed';
  await recordNotification(deps, {
    userId: run.userId,
    kind: 'provisioning-finished',
    title: ok ? `Provisioning of "${run.projectName}" finished` : `Provisioning of "${run.projectName}" failed`,
    body: ok
      ? `${count(run.synced, 'account', 'accounts')} created on ${run.integrationName}${run.failed ? `, ${count(run.failed, 'account', 'accounts')} failed` : ''}.`
      : (run.reason ?? `The run on ${run.integrationName} stopped.`),
    link: `/projects/${run.projectId}`,
    source: `provisioning:${run.jobId}:${run.status}`,
    at: run.at,
  });
}

/** A project's deletion ended: what was erased, what the platform kept (the counts add up to the accounts it had). */
export async function notifyProjectDeleted(deps: NotificationDeps, job: { userId: string; id: string; projectId: string; projectName: string; status: string; total: number; removed: number; kept: number; integrationName?: string }, at: Date, reason?: string): Promise<void> {
  const kept = job.status === 'completed' && job.kept > 0;
  await recordNotification(deps, {
    userId: job.userId,
    kind: 'project-deleted',
    title: job.status !== 'completed' ? `Deleting "${job.projectName}" failed` : kept ? `"${job.projectName}" deleted with failures` : `Project "${job.projectName}" deleted`,
    body:
      job.status !== 'completed'
        ? (reason ?? 'The deletion stopped.')
        : `${count(job.removed, 'account', 'accounts')} deleted${kept ? `; ${count(job.kept, 'account', 'accounts')} kept: ${job.integrationName ?? 'the platform'} refused to remove them` : ''}.`,
    link: kept || job.status !== 'completed' ? `/projects/${job.projectId}` : '/projects',
    source: `project-deletion:${job.id}:${job.status}`,
    at,
  });
}

/** Stripe could not collect the subscription's payment (invoice.payment_failed). */
export async function paymentFailed(deps: NotificationDeps, input: { userId: string; eventId: string; at: Date }): Promise<void> {
  await recordNotification(deps, {
    userId: input.userId,
    kind: 'payment-failed',
    title: 'Payment failed',
    body: 'We could not collect your Pro subscription payment. Update your payment method to keep Pro.',
    link: '/settings?tab=subscription',
    source: `stripe:${input.eventId}`,
    at: input.at,
  });
}

/**
 * A security alert of the user's account, for the Security Center (issue 14) to call: a
 * notification, and the e-mail when the user is Pro and has security alerts on (the mail worker
 * decides). `source` names the event (e.g. `login:<id>`), so raising it twice notifies once.
 */
export async function notifySecurityAlert(
  deps: NotificationDeps & { mail?: QueueMail },
  alert: { userId: string; title: string; detail: string; source: string; at: Date },
): Promise<void> {
  const id = await recordNotification(deps, {
    userId: alert.userId,
    kind: 'security-alert',
    title: alert.title,
    body: alert.detail,
    link: '/security',
    source: `security:${alert.source}`,
    at: alert.at,
  });
  // Written by this call (not a repeat of the same event): e-mail it once.
  if (id) await queueMail(deps.mail, { type: 'security-alert', userId: alert.userId, title: alert.title, detail: alert.detail, at: alert.at.toISOString() });
}

/** A project's expiration date arrived (the expiry sweep started its deactivation): the bell, and the e-mail where the user's settings allow. */
export async function projectExpired(
  deps: NotificationDeps & { mail?: QueueMail },
  input: { userId: string; projectId: string; projectName: string; expirationDate: string; accounts: number; platform?: string; at: Date },
): Promise<void> {
  const id = await recordNotification(deps, {
    userId: input.userId,
    kind: 'project-expired',
    title: `Project "${input.projectName}" expired`,
    body: input.accounts
      ? `Its expiration date (${input.expirationDate}) arrived: ${count(input.accounts, 'account', 'accounts')} ${input.accounts === 1 ? 'is' : 'are'} being deactivated${input.platform ? ` here and on ${input.platform}` : ''}.`
      : `Its expiration date (${input.expirationDate}) arrived. It has no accounts to deactivate.`,
    link: `/projects/${input.projectId}`,
    source: `project-expiry:${input.projectId}:${input.expirationDate}`,
    at: input.at,
  });
  // Written by this call (not a repeat): e-mailed once.
  if (id)
    await queueMail(deps.mail, {
      type: 'project-expired',
      userId: input.userId,
      projectId: input.projectId,
      projectName: input.projectName,
      expirationDate: input.expirationDate,
      accounts: input.accounts,
      ...(input.platform ? { platform: input.platform } : {}),
    });
}
