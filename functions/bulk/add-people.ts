import { createPasswordGenerator } from '../../shared/generation/password';
import { planLimits, UNLIMITED } from '../../shared/plans';
import { answersAtOnce, rejectedRowsPath, type BulkCreateInput, type BulkCreateSummary, type CreatedAccount } from '../../shared/schemas/bulk';
import { isIdShaped } from '../../shared/schemas/ids';
import { PROJECT_COMPLETED_MESSAGE, PROJECT_EXPIRED_MESSAGE } from '../../shared/schemas/project';
import { PROJECT_BEING_DELETED } from '../../shared/schemas/project-deletion';
import { plural } from '../../shared/text/plural';
import { accountItem, createdAccount, type AccountRecord } from '../accounts/account-item';
import { shardsOf } from '../accounts/account-partitions';
import { monthOf } from '../analytics/counters';
import { projectHasExpired } from '../projects/project-expiry';
import { activityItem } from '../dashboard/activity';
import { secretContext } from '../core/encryption';
import { ConflictError, NotFoundError, PlanLimitError, ServiceUnavailableError, ValidationError, WriteInterruptedError } from '../core/errors';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { attributeIndexItems } from '../accounts/attribute-index-items';
import { attributeKeysOf, projectView, type ProjectRecord } from '../projects/project-item';
import { assertCredentialEmails, projectFullMessage } from '../usage/plan-usage';
import type { AddFollowUps } from './bulk-jobs';
import { LOCK_TTL_MS, type Item } from './bulk-store';
import { checkCsvText, checkRows, rowBytes, type CheckedRow } from './check-rows';
import type { CreateBulkAccountsDeps, CreateBulkAccountsResult, PreparedCreation, StreamedRows } from './create-bulk-accounts';
import { failedRowsOf, inlineFailed, rejectedRowItems } from './rejected-rows';
import { usernameSlots, usernamesFor, withUsernameSlots, withUsernameSlotsAsync, type UsernameSlot } from './usernames';

/** A request answered at once holds the user's lock this long at most (as a creation answered at once). */
const SYNC_LOCK_TTL_MS = 60 * 1000;
const SYNC_FENCE_MARGIN_MS = 20 * 1000;
const SYNC_TOO_SLOW = 'Adding the people took too long and was stopped before anything was written. Please try again.';

/** The rows renumbered after the project's last: row `firstRow + i` for the i-th valid row, in order. */
export function* renumbered<T extends { row: number }>(rows: Iterable<T>, firstRow: number): Generator<T> {
  let next = firstRow;
  for (const row of rows) yield { ...row, row: next++ };
}
async function* renumberedAsync<T extends { row: number }>(rows: AsyncIterable<T>, firstRow: number): AsyncGenerator<T> {
  let next = firstRow;
  for await (const row of rows) yield { ...row, row: next++ };
}

/**
 * POST /api/bulk-create (and an uploaded file's start) with `projectId`: people added to an
 * existing project of the caller's, the same way a creation makes them (the same row checks,
 * usernames unique among all the user's accounts, passwords, plan limits reserved atomically,
 * answered at once or as a job by the same rule), with these differences:
 * - the project is read first: another user's or no such id 404, a completed project 409, an
 *   expired one 409 too (expiredAt, or its date arrived in the owner's timezone: the people would
 *   stay active on a project whose accounts are deactivated; checked again atomically by reserveRows);
 * - the user's counters reserve the accounts only (the project count does not go up), and the
 *   free plan's accounts per project are checked against the project's accounts, atomically on
 *   the project item together with the row numbers (reserveRows);
 * - the rows are numbered after the project's last (its lastRow counter, reserved atomically),
 *   so the account ids `${projectId}.${row}` never meet an existing one, under redelivery (a
 *   job's chunks carry their rows) and with two adds at once (each reserves its own range);
 * - the accounts go into the project's existing partitions (its accountShards, never changed:
 *   an account's partition is its row modulo the shard count);
 * - the job has its own id (the project's creation job keeps its own), and names of the
 *   project's other accounts count as taken (only the job's own names, which carry its id, do not);
 * - when the project was provisioned to an integration (project.integrationId), a Pro user's new
 *   accounts are provisioned there after the import (mode 'provision': the pending ones), and
 *   with sendCredentials the added people get their credentials (a send over the added rows).
 */
export const addPeople =
  (deps: CreateBulkAccountsDeps) =>
  async (userId: string, input: BulkCreateInput & { projectId: string }, prepared: PreparedCreation = {}): Promise<CreateBulkAccountsResult> => {
    const { valid, rejected, total } =
      prepared.checked ?? (input.csvText !== undefined ? checkCsvText(input.csvText) : { ...checkRows(input.csvData ?? []), total: input.csvData?.length ?? 0 });
    const asJob = prepared.asJob === true || !Array.isArray(valid) || !answersAtOnce({ rows: total, bytes: rowBytes(input) });
    const project = isIdShaped(input.projectId) ? await deps.store.project(userId, input.projectId) : undefined;
    if (!project) throw new NotFoundError('Project not found');
    if (project.status === 'completed') throw new ConflictError(PROJECT_COMPLETED_MESSAGE);
    if (typeof project.activeProjectDeletion === 'string') throw new ConflictError(PROJECT_BEING_DELETED);
    const [usage, timeZone] = await Promise.all([deps.store.usage(userId), deps.timeZone(userId)]);
    if (projectHasExpired(project, deps.now(), timeZone)) throw new ConflictError(PROJECT_EXPIRED_MESSAGE);
    if (valid.length === 0) throw new ValidationError('None of the rows can be created.', failedRowsOf(rejected));

    if (input.sendCredentials) assertCredentialEmails(usage.plan);
    const limits = planLimits[usage.plan];
    const held = Number(project.accountCount ?? 0);
    if (limits.accountsPerProject !== UNLIMITED && held + valid.length > limits.accountsPerProject) {
      throw new PlanLimitError(projectFullMessage(limits.accountsPerProject, held, valid.length), { limit: 'accountsPerProject', max: limits.accountsPerProject, used: held, requested: valid.length });
    }
    const projectId = String(project.id);
    // The project's platform, for a plan that provisions; a lapsed plan adds the people here only.
    const provisionTo = typeof project.integrationId === 'string' && limits.apiIntegrations ? project.integrationId : undefined;

    const started = deps.now();
    const jobId = prepared.projectId ?? deps.newId(started);
    const { accountsBefore } = await deps.store.reserve(userId, usage, valid.length, { owner: jobId, now: started.getTime(), until: started.getTime() + (asJob ? LOCK_TTL_MS : SYNC_LOCK_TTL_MS) }, { newProject: false });

    let written = false;
    try {
      // Under the user's lock: no creation of this user writes rows meanwhile.
      const rowBase = typeof project.lastRow === 'number' ? 0 : await deps.store.rowBase(userId, project);
      const { firstRow } = await deps.store.reserveRows(userId, projectId, valid.length, {
        rowBase,
        ...(limits.accountsPerProject !== UNLIMITED ? { accountsPerProject: limits.accountsPerProject } : {}),
        at: started.toISOString(),
      });
      // The e-mails go to the added rows only: older accounts never e-mailed are not this add's.
      const followUps: AddFollowUps = {
        ...(provisionTo ? { integrationId: provisionTo } : {}),
        ...(input.sendCredentials ? { sendCredentials: input.sendCredentials, rows: { from: firstRow, to: firstRow + valid.length - 1 } } : {}),
      };
      await deps.store.adoptStoredUsernames(userId, accountsBefore);
      const createdAt = started.toISOString();
      const shards = shardsOf(project);
      const name = String(project.name);
      const accountType = project.accountType as ProjectRecord['accountType'];
      const summaryBase = { total, failed: inlineFailed(rejected), failedCount: rejected.length, ...(rejected.length ? { rejectedRowsUrl: rejectedRowsPath(projectId) } : {}) };
      // The rows refused join the project's rejected-rows report (after the creation's), as the project's failed count does.
      const report = rejectedRowItems(userId, projectId, rejected, (part) => keys.rejectedRowsAddPart(userId, projectId, jobId, part));

      const startJob = async (): Promise<CreateBulkAccountsResult> => {
        written = true;
        if (report.length) await deps.store.writeAll(report);
        const year = started.getUTCFullYear();
        const rows: Iterable<CheckedRow & UsernameSlot> | AsyncIterable<CheckedRow & UsernameSlot> = Array.isArray(valid)
          ? renumbered(withUsernameSlots(valid, year), firstRow)
          : renumberedAsync(withUsernameSlotsAsync(valid as StreamedRows, year, (valid as StreamedRows).baseMayRepeat), firstRow);
        const record = { id: projectId, userId, name, accountType, accountShards: shards } as ProjectRecord;
        const job = await deps.jobs.start({
          userId,
          project: record,
          rows,
          existingAccounts: accountsBefore,
          passwordSettings: input.passwordSettings,
          lockOwner: jobId,
          now: started,
          timeZone,
          counters: { month: monthOf(started, timeZone), change: { rowsSettled: rejected.length, rowsFailed: rejected.length } },
          append: { jobId, failed: rejected.length, ...(Object.keys(followUps).length ? { followUps } : {}) },
        });
        return { kind: 'queued', project: projectView({ ...project, failedCount: Number(project.failedCount ?? 0) + rejected.length }), job, summary: { ...summaryBase, successful: 0 } };
      };

      if (asJob) return await startJob();
      if (!Array.isArray(valid)) throw new Error('Streamed rows are added as a job');
      const slots = usernameSlots(valid, started.getUTCFullYear());
      const taken = await deps.store.takenUsernames(userId, [...new Set(slots.map((s) => s.base))], accountsBefore, { jobId });
      const usernames = usernamesFor(slots, taken);
      const cipher = await deps.cipher();
      const nextPassword = createPasswordGenerator(input.passwordSettings, deps.randomBytes);
      const accounts: CreatedAccount[] = [];
      const items: Item[] = [];
      /** The Attribute filter's entries of the accounts' extra columns (functions/accounts/attribute-index.ts). */
      const indexItems: Item[] = [];
      valid.forEach((person, i) => {
        const row = firstRow + i;
        const id = keys.accountId(projectId, row);
        const plain = nextPassword();
        const record: AccountRecord = {
          id,
          userId,
          projectId,
          projectName: name,
          row,
          firstName: person.firstName,
          lastName: person.lastName,
          email: person.email,
          ...(person.attributes ? { attributes: person.attributes } : {}),
          username: usernames[i]!,
          passwordCiphertext: cipher.encrypt(plain, secretContext.account(userId, id)),
          accountType,
          isActive: true,
          externalStatus: 'pending',
          createdAt,
        };
        items.push(accountItem(record, shards) as Item);
        indexItems.push(...attributeIndexItems(userId, projectId, row, person.attributes));
        accounts.push(createdAccount(record, plain));
      });
      if (deps.now().getTime() > started.getTime() + SYNC_LOCK_TTL_MS - SYNC_FENCE_MARGIN_MS) throw new ServiceUnavailableError(SYNC_TOO_SLOW);
      await deps.store.claimUsernames(userId, items.map((item) => ({ username: String(item.username), projectId, accountId: String(item.id), jobId })));
      written = true;
      try {
        await deps.store.writeAll([...report, ...items, ...indexItems]);
      } catch (error) {
        logger.error('Writing the people added at once failed part-way: they are added as a job', { userId, projectId, jobId, error: error instanceof Error ? error.message : String(error) });
        await deps.store.renewLock(userId, jobId, { now: deps.now().getTime(), until: deps.now().getTime() + LOCK_TTL_MS }).catch(() => undefined);
        return await startJob();
      }
      await deps.store.countAttributes(userId, projectId, valid.map((person, i) => ({ row: firstRow + i, attributes: person.attributes })), jobId);
      const finished = deps.now();
      const at = finished.toISOString();
      await deps.store
        .writeAll([
          activityItem(userId, at, deps.newId(finished), `${plural(valid.length, 'account')} added to "${name}"`),
          ...(rejected.length ? [activityItem(userId, at, deps.newId(finished), `${plural(rejected.length, 'row')} not added to "${name}"`)] : []),
        ])
        .catch((error: unknown) => logger.error('Recording the activity of people added failed after their accounts were stored', { userId, projectId, error: String(error) }));
      await deps.store.finish(userId, {
        lockOwner: jobId,
        accounts: valid.length,
        processingMs: finished.getTime() - started.getTime(),
        counters: { month: monthOf(finished, timeZone), change: { accounts: valid.length, rowsSettled: total, rowsFailed: rejected.length } },
        project: { projectId, accounts: valid.length, failed: rejected.length, at, attributeKeys: attributeKeysOf(valid) },
      });
      const followed = await startFollowUps(deps, userId, projectId, followUps);
      const shown = { ...project, accountCount: held + valid.length, failedCount: Number(project.failedCount ?? 0) + rejected.length, updatedAt: at, ...(followed.provisioningJobId ? { provisioningJobId: followed.provisioningJobId } : {}) };
      return { kind: 'created', project: projectView(shown), accounts, summary: { ...summaryBase, successful: valid.length, ...followed } };
    } catch (error) {
      await deps.store.release(userId, written ? { projects: 0, accounts: 0 } : { projects: 0, accounts: valid.length }, jobId);
      throw written ? new WriteInterruptedError(String(project.name), error) : error;
    }
  };

/**
 * Once the added accounts exist: provision them to the project's integration (a run of mode
 * 'provision' takes every pending account of the project) and e-mail the added holders (the send
 * over the added rows, those not e-mailed yet).
 * A failure to start either is reported, never undoes the accounts. Also called by the bulk worker
 * when a job adding people ends (process-chunk.ts).
 */
export async function startFollowUps(
  deps: Pick<CreateBulkAccountsDeps, 'provision' | 'sendCredentials'>,
  userId: string,
  projectId: string,
  followUps: AddFollowUps,
): Promise<Pick<BulkCreateSummary, 'provisioningJobId' | 'provisioningError' | 'mailSendId' | 'mailSendError'>> {
  const result: Pick<BulkCreateSummary, 'provisioningJobId' | 'provisioningError' | 'mailSendId' | 'mailSendError'> = {};
  const reasonOf = (error: unknown, fallback: string) => (error instanceof Error && 'statusCode' in error ? error.message : fallback);
  if (followUps.integrationId && deps.provision) {
    try {
      result.provisioningJobId = (await deps.provision(userId, projectId, followUps.integrationId, false)).id;
    } catch (error) {
      result.provisioningError = `The people were added, but their provisioning could not start (${reasonOf(error, 'the provisioning queue did not answer')}). Start it from the project with Provision to...`;
    }
  }
  if (followUps.sendCredentials && deps.sendCredentials) {
    try {
      result.mailSendId = (await deps.sendCredentials(userId, projectId, followUps.sendCredentials as NonNullable<BulkCreateInput['sendCredentials']>, false, 'unsent', followUps.rows)).id;
    } catch (error) {
      result.mailSendError = `The people were added, but their credentials could not be e-mailed (${reasonOf(error, 'the mail queue did not answer')}). Send them from the project with Send credentials.`;
    }
  }
  return result;
}
