import type { JobDeps } from '../account-jobs/kind';
import { planJob, startJob } from '../account-jobs/lifecycle';
import { keys } from '../core/keys';
import type { ReminderJobMessage } from '../mail/mail-message';
import { expiryReminders, isReminderChunk, reminderChunk, TALLY, type ReminderJobDeps } from './expiry-reminder-job';
import type { ReminderMessage } from './expiry-reminders';

/** One job per reminder (project, date, N): a start made again finds it. */
export const reminderJobId = (projectId: string, date: string, days: number) => `${projectId}.${date}.${days}`;

/** The mail worker's 'expiry-reminder' message: the reminder's job, started once, while the project still reminds of that date N days before. */
export const startReminderJob = (deps: JobDeps<ReminderJobMessage>) => async (message: ReminderMessage) => {
  const { userId, projectId, expirationDate, days } = message;
  const id = reminderJobId(projectId, expirationDate, days);
  const at = deps.now().toISOString();
  const job = { entityType: expiryReminders.entityType, id, userId, projectId, expirationDate, days, status: 'queued', total: 0, chunks: 0, chunksDone: 0, createdAt: at, updatedAt: at, ...Object.fromEntries(TALLY.map((name) => [name, 0])) };
  const started = await startJob(deps, expiryReminders, job, {
    excludes: [],
    projectSet: {},
    // No lock taken; not started when the reminder was cancelled meanwhile: the date moved or was removed, N changed or was turned off, the project expired.
    projectCheck: {
      ConditionCheck: {
        TableName: deps.tableName,
        Key: keys.project(userId, projectId),
        ConditionExpression: 'expirationDate = :date AND reminderDays = :days AND attribute_not_exists(expiredAt)',
        ExpressionAttributeValues: { ':date': expirationDate, ':days': days },
      },
    },
  });
  // Started before (a redelivered message; its start message may never have been queued): planning again changes nothing.
  if (started === 'exists') await deps.queue.send([expiryReminders.startMessage(userId, id)]);
};

/** The mail worker's reminder messages: a due reminder's start, its job's plan, or one of its chunks (the mail worker alone starts them: the start's ConditionCheck is granted to it). */
export function expiryReminderWorker(deps: ReminderJobDeps) {
  const start = startReminderJob(deps);
  const chunk = reminderChunk(deps);
  return (message: ReminderMessage | ReminderJobMessage): Promise<void> =>
    message.type === 'expiry-reminder' ? start(message) : isReminderChunk(message) ? chunk(message) : planJob(deps, expiryReminders, message.userId, message.jobId);
}
