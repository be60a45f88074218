import { SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect, inject } from 'vitest';
import { timeOrderedId } from '../../functions/core/ids';
import { keys } from '../../functions/core/keys';
import { sqsMailSender } from '../../functions/mail/sqs-mail-queue';
import { sqsProvisioningQueue } from '../../functions/provisioning/sqs-provisioning-queue';
import { sweepExpiredProjects, type SweepResult } from '../../functions/schedules/sweep-expired-projects';
import type { ReminderJobMessage } from '../../functions/mail/mail-message';
import type { ReminderJobDeps } from '../../functions/schedules/expiry-reminder-job';
import { expiryReminderWorker } from '../../functions/schedules/expiry-reminder-start';
import type { ReminderMessage } from '../../functions/schedules/expiry-reminders';
import type { AccountActionJob } from '../../shared/schemas/account-actions';
import { testDb, type ApiUser } from './api';
import { until } from './until';

/**
 * The expiry's hourly sweep against the local stack's table and queues, called with its clock
 * moved to `at` (an injected `now`, never a wait for real time); the stack's workers then
 * deactivate the due projects' accounts.
 */
export function sweepAt(at: string, options: Parameters<ReturnType<typeof sweepExpiredProjects>>[0] = {}): Promise<SweepResult> {
  const stack = inject('stack');
  const db = testDb();
  const sqs = new SQSClient({ region: 'us-east-1', endpoint: stack.urls.sqs, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  return sweepExpiredProjects({
    db,
    tableName: 'bulkonboard',
    queue: sqsProvisioningQueue(sqs, stack.queueUrls.provisioning!),
    mail: sqsMailSender(sqs, stack.queueUrls.mail!),
    now: () => new Date(at),
    newId: timeOrderedId,
    integrationName: async (userId, id) => (await db.send(new GetCommand({ TableName: 'bulkonboard', Key: keys.integration(userId, id) }))).Item?.name as string | undefined,
  })(options);
}

/** An account action until it ended; every account is accounted for at every read. */
export const accountActionFinished = (user: ApiUser, jobId: string): Promise<AccountActionJob> =>
  until(
    `account action ${jobId}`,
    () => user.json<AccountActionJob>(`/api/account-actions/${jobId}`),
    (job) => {
      expect(job.done + job.failed + job.pending).toBe(job.total);
      return job.status === 'completed' || job.status === 'failed';
    },
    90_000,
    200,
  );

/**
 * An expiry reminder run here to its end, as the mail worker runs its messages (the start, its
 * job's plan, each chunk), one after the other from an in-process queue: `run(message)` returns
 * once nothing is left on it; `run.deliver(message)` delivers one of its job's messages (a chunk
 * delivered again) the same way. A message queued with a delay (a chunk that waits for SES or the
 * daily allowance) is kept in `run.later` instead, for the test to deliver when it likes.
 */
export function reminderRunner(deps: Omit<ReminderJobDeps, 'queue' | 'db' | 'tableName'>) {
  const queued: ReminderJobMessage[] = [];
  const later: ReminderJobMessage[] = [];
  const worker = expiryReminderWorker({ db: testDb(), tableName: 'bulkonboard', ...deps, queue: { send: async (messages, delaySeconds) => void (delaySeconds ? later : queued).push(...messages) } });
  const drain = async (first: ReminderMessage | ReminderJobMessage): Promise<void> => {
    await worker(first);
    for (let next = queued.shift(); next; next = queued.shift()) await worker(next);
  };
  return Object.assign((message: ReminderMessage) => drain(message), { deliver: (message: ReminderJobMessage) => drain(message), later });
}
