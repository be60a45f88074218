import { createPasswordGenerator, type RandomBytes } from '../../shared/generation/password';
import { answersAtOnce, rejectedRowsPath, type BulkCreateInput, type BulkCreateSummary, type BulkJob, type CreatedAccount } from '../../shared/schemas/bulk';
import type { Project } from '../../shared/schemas/project';
import { secretContext, type Cipher } from '../core/encryption';
import { NotFoundError, ServiceUnavailableError, ValidationError, WriteInterruptedError } from '../core/errors';
import { keys } from '../core/keys';
import { accountItem, createdAccount, type AccountRecord } from '../accounts/account-item';
import { accountShardsFor } from '../accounts/account-partitions';
import { attributeIndexItems } from '../accounts/attribute-index-items';
import { attributeKeysOf, projectItem, projectView, type ProjectRecord } from '../projects/project-item';
import { assertApiIntegrations, assertCredentialEmails, assertFitsPlan } from '../usage/plan-usage';
import { activityItem } from '../dashboard/activity';
import { monthOf } from '../analytics/counters';
import { LOCK_TTL_MS, type BulkStore, type Item } from './bulk-store';
import { logger } from '../core/logger';
import { checkCsvText, checkRows, rowBytes, type CheckedRow } from './check-rows';
import { usernameSlots, usernamesFor, withUsernameSlots, withUsernameSlotsAsync } from './usernames';
import type { BulkJobStarter } from './bulk-jobs';
import { failedRowsOf, inlineFailed, rejectedRowItems, type RejectedRow } from './rejected-rows';
import { isIdShaped } from '../../shared/schemas/ids';
import type { IntegrationPlatform } from '../../shared/schemas/integrations';
import { provisioningSupport } from '../../shared/schemas/provisioning';
import { plural } from '../../shared/text/plural';
import { addPeople } from './add-people';

export interface CreateBulkAccountsDeps {
  store: BulkStore;
  cipher: () => Promise<Cipher>;
  randomBytes: RandomBytes;
  now: () => Date;
  newId: (now: Date) => string;
  jobs: BulkJobStarter;
  /** The user's integration by id (base-table read by key); undefined when there is none. */
  integration: (userId: string, integrationId: string) => Promise<{ platform: IntegrationPlatform; apiType: string } | undefined>;
  /** Starts provisioning the project's accounts to the integration (createExternalAccounts); `waitForAccounts` while a job creates them. */
  provision?: (userId: string, projectId: string, integrationId: string, waitForAccounts: boolean) => Promise<{ id: string }>;
  /** The user's timezone preference: the analytics counters count work in the user's months (functions/analytics/counters.ts). */
  timeZone: (userId: string) => Promise<string>;
  /** Starts e-mailing the new accounts' holders their credentials (sendCredentials); `waitForAccounts` while a job creates them; `scope` 'unsent' and the added `rows` for people added to a project. */
  sendCredentials?: (userId: string, projectId: string, options: NonNullable<BulkCreateInput['sendCredentials']>, waitForAccounts: boolean, scope?: 'all' | 'unsent', rows?: { from: number; to: number }) => Promise<{ id: string }>;
}

/** Starts the credential e-mails of a new project's accounts; a failure to start does not undo the accounts, it is reported. */
async function startSendOf(deps: CreateBulkAccountsDeps, userId: string, input: BulkCreateInput, projectId: string, waitForAccounts: boolean): Promise<Pick<BulkCreateSummary, 'mailSendId' | 'mailSendError'>> {
  if (!input.sendCredentials || !deps.sendCredentials) return {};
  try {
    return { mailSendId: (await deps.sendCredentials(userId, projectId, input.sendCredentials, waitForAccounts)).id };
  } catch (error) {
    const reason = error instanceof Error && 'statusCode' in error ? error.message : 'the mail queue did not answer';
    return { mailSendError: `The accounts were created, but their credentials could not be e-mailed (${reason}). Send them from the project with Send credentials.` };
  }
}

/** Starts the provisioning of a new project's accounts; a failure to start does not undo the accounts, it is reported. */
async function startProvisioningOf(deps: CreateBulkAccountsDeps, userId: string, input: BulkCreateInput, projectId: string, waitForAccounts: boolean): Promise<Pick<BulkCreateSummary, 'provisioningJobId' | 'provisioningError'>> {
  if (!input.createExternalAccounts || !input.apiIntegrationId || !deps.provision) return {};
  try {
    return { provisioningJobId: (await deps.provision(userId, projectId, input.apiIntegrationId, waitForAccounts)).id };
  } catch (error) {
    const reason = error instanceof Error && 'statusCode' in error ? error.message : 'the provisioning queue did not answer';
    return { provisioningError: `The accounts were created, but provisioning could not start (${reason}). Start it from the project with Provision to...` };
  }
}


export type CreateBulkAccountsResult =
  | { kind: 'created'; project: Project; accounts: CreatedAccount[]; summary: BulkCreateSummary }
  | { kind: 'queued'; project: Project; job: BulkJob; summary: BulkCreateSummary };

/** What an uploaded file's reader has settled before the creation (functions/bulk/bulk-uploads.ts). */
export interface PreparedCreation {
  /**
   * The file's rows, checked with the shared rules already: the rejected ones, the counts, and the
   * valid ones either held or streamed (an uploaded file read again as its chunks are made: never
   * held whole; such rows are always created as a job).
   */
  checked?: { valid: CheckedRow[] | StreamedRows; rejected: RejectedRow[]; total: number };
  /** The project's (and job's) id: the upload's, so a second delivery of its start finds the job it began. */
  projectId?: string;
  /** A job however few rows: nobody waits on the answer that would show the passwords. */
  asJob?: boolean;
}

/** Valid rows that arrive over time, in file order: `length` of them, read once. */
export interface StreamedRows extends AsyncIterable<CheckedRow> {
  readonly length: number;
  /** Whether a row's username base may occur more than once among them (usernames.ts repeatedBases): false means once. */
  readonly baseMayRepeat?: (person: { firstName: string; lastName: string }) => boolean;
}

/** How long a job may hold the user's username lock before others may take it (its chunks extend it). */
export { LOCK_TTL_MS } from './bulk-store';
/**
 * The same for one answered at once: the request's own life (Lambda stops it after 10 s, API
 * Gateway after 30 s) and a margin. A request that dies holding the lock then blocks its user for
 * a minute at most, not for a job's quarter of an hour.
 */
export const SYNC_LOCK_TTL_MS = 60 * 1000;
/** A request claims its names only this long before its lock lapses at the latest. */
const SYNC_FENCE_MARGIN_MS = 20 * 1000;
const SYNC_TOO_SLOW = 'Creating the accounts took too long and was stopped before anything was written. Please try again.';

/**
 * POST /api/bulk-create.
 * 1. Check every row; invalid and duplicate rows are reported, not created (the response lists
 *    the first FAILED_ROWS_INLINE_MAX; the project keeps them all, GET .../rejected-rows).
 * 2. Check the plan and the integration named (it must be the caller's own: 404 otherwise), then
 *    reserve the project and the accounts atomically on the user's counters (concurrent requests
 *    can never overshoot a limit) and take the user's username lock.
 * 3. Give every person a username unique among the user's accounts: read from the base table's
 *    username items (strongly consistent) and claimed there with conditional writes.
 * 4. A request within answersAtOnce's rows and bytes (decided before step 2, from every row of
 *    the request, valid or not): generate and encrypt passwords, write project, accounts and
 *    activity, answer with the accounts; should that write fail part-way, the rows become a job
 *    (never a 500 with accounts stored). More: hand the rows to the bulk queue as a job.
 */
export const createBulkAccounts =
  (deps: CreateBulkAccountsDeps) =>
  async (userId: string, input: BulkCreateInput, prepared: PreparedCreation = {}): Promise<CreateBulkAccountsResult> => {
    // People added to an existing project: functions/bulk/add-people.ts.
    if (input.projectId !== undefined) return addPeople(deps)(userId, { ...input, projectId: input.projectId }, prepared);
    const { valid, rejected, total } =
      prepared.checked ?? (input.csvText !== undefined ? checkCsvText(input.csvText) : { ...checkRows(input.csvData ?? []), total: input.csvData?.length ?? 0 });
    // The path is chosen here, before anything is reserved or written, from the rows and bytes the
    // request holds (all of them: a file of 31,000 rows with 1,000 valid ones is read and checked
    // 31,000 times, and its report written), never from how the work goes afterwards.
    const asJob = prepared.asJob === true || !Array.isArray(valid) || !answersAtOnce({ rows: total, bytes: rowBytes(input) });
    // However many rows fail, the answer must fit Lambda's 6 MB: it lists the first few and says how many (errorResponse).
    if (valid.length === 0) throw new ValidationError('None of the rows can be created.', failedRowsOf(rejected));

    const [usage, timeZone] = await Promise.all([deps.store.usage(userId), deps.timeZone(userId)]);
    // Platform groups are Pro, as provisioning is.
    if (input.createExternalAccounts || input.apiIntegrationId || input.groups?.length) assertApiIntegrations(usage.plan);
    if (input.sendCredentials) assertCredentialEmails(usage.plan);
    if (input.createExternalAccounts && !input.apiIntegrationId) {
      throw new ValidationError('Choose the integration to create the accounts on.', [{ path: 'apiIntegrationId', message: 'Choose the integration to create the accounts on.' }]);
    }
    if (input.apiIntegrationId) {
      const found = isIdShaped(input.apiIntegrationId) ? await deps.integration(userId, input.apiIntegrationId) : undefined;
      if (!found) throw new NotFoundError('Integration not found');
      const support = provisioningSupport(found);
      if (input.createExternalAccounts && !support.supported) throw new ValidationError(support.reason, [{ path: 'apiIntegrationId', message: support.reason }]);
    }
    assertFitsPlan(usage, valid.length);

    const started = deps.now();
    const projectId = prepared.projectId ?? deps.newId(started);
    // The user's accounts when the lock was taken: whether any name can be taken already (a job
    // whose user had none reads no names; it must not miss one written after usage() read the count).
    const { accountsBefore } = await deps.store.reserve(userId, usage, valid.length, {
      owner: projectId,
      now: started.getTime(),
      until: started.getTime() + (asJob ? LOCK_TTL_MS : SYNC_LOCK_TTL_MS),
    });

    let written = false;
    try {
      // Accounts from before username items existed count as taken too (once per user).
      await deps.store.adoptStoredUsernames(userId, accountsBefore);
      const createdAt = started.toISOString();
      const project: ProjectRecord = {
        id: projectId,
        userId,
        name: input.projectName,
        ...(input.description ? { description: input.description } : {}),
        ...(input.platformUrl ? { platformUrl: input.platformUrl } : {}),
        accountType: input.accountType,
        ...(input.expirationDate ? { expirationDate: input.expirationDate } : {}),
        ...(input.groups?.length ? { groups: input.groups, ...(input.createGroups ? { createGroups: true } : {}) } : {}),
        status: 'active',
        accountCount: 0,
        failedCount: rejected.length,
        passwordSettings: input.passwordSettings,
        createdAt,
        updatedAt: createdAt,
        // Counted on the analytics counters when created: the lazy fill from project items skips it.
        statsCounted: true,
      };
      const summaryBase = {
        total,
        failed: inlineFailed(rejected),
        failedCount: rejected.length,
        ...(rejected.length ? { rejectedRowsUrl: rejectedRowsPath(projectId) } : {}),
      };
      const report = rejectedRowItems(userId, projectId, rejected);

      /**
       * The rows as a job: the project, the report, the chunks on the bulk queue; answered at once
       * with the job. Also where an answer-at-once creation goes when its own write fails part-way
       * (below): the job writes the same accounts under the same keys and names, so what was stored
       * is overwritten, not doubled, and the user reaches the accounts through the job.
       */
      const startJob = async (): Promise<CreateBulkAccountsResult> => {
        // Spread over several partitions: the workers write many chunks at once.
        project.accountShards = accountShardsFor(valid.length);
        project.accountCount = 0;
        project.updatedAt = createdAt;
        written = true;
        if (report.length) await deps.store.writeAll(report);
        // Usernames are given by the workers, chunk by chunk, from the same slots: answering fast.
        const job = await deps.jobs.start({
          userId,
          project,
          // Each row's slot as it is chunked: no second copy of every row.
          rows: Array.isArray(valid) ? withUsernameSlots(valid, started.getUTCFullYear()) : withUsernameSlotsAsync(valid, started.getUTCFullYear(), valid.baseMayRepeat),
          existingAccounts: accountsBefore,
          passwordSettings: input.passwordSettings,
          lockOwner: projectId,
          now: started,
          timeZone,
          // The project and the rows refused up front count now; the chunks count their own rows.
          counters: { month: monthOf(started, timeZone), change: { projects: 1, rowsSettled: rejected.length, rowsFailed: rejected.length, ...(input.expirationDate ? { expiresOn: input.expirationDate } : {}) } },
        });
        const provisioning = await startProvisioningOf(deps, userId, input, projectId, true);
        const mail = await startSendOf(deps, userId, input, projectId, true);
        return { kind: 'queued', project: projectView(project), job, summary: { ...summaryBase, successful: 0, ...provisioning, ...mail } };
      };

      if (asJob) return await startJob();

      if (!Array.isArray(valid)) throw new Error('Streamed rows are created as a job');
      const slots = usernameSlots(valid, started.getUTCFullYear());
      const taken = await deps.store.takenUsernames(userId, [...new Set(slots.map((s) => s.base))], accountsBefore, projectId);
      const usernames = usernamesFor(slots, taken);
      const cipher = await deps.cipher();
      const nextPassword = createPasswordGenerator(input.passwordSettings, deps.randomBytes);
      const accounts: CreatedAccount[] = [];
      const items: Item[] = [];
      /** The Attribute filter's entries of the accounts' extra columns (functions/accounts/attribute-index.ts). */
      const indexItems: Item[] = [];
      valid.forEach((person, i) => {
        const plain = nextPassword();
        const record: AccountRecord = {
          id: keys.accountId(projectId, person.row),
          userId,
          projectId,
          projectName: project.name,
          row: person.row,
          firstName: person.firstName,
          lastName: person.lastName,
          email: person.email,
          ...(person.attributes ? { attributes: person.attributes } : {}),
          username: usernames[i]!,
          passwordCiphertext: cipher.encrypt(plain, secretContext.account(userId, keys.accountId(projectId, person.row))),
          accountType: input.accountType,
          isActive: true,
          externalStatus: 'pending',
          createdAt,
        };
        items.push(accountItem(record));
        indexItems.push(...attributeIndexItems(userId, projectId, person.row, person.attributes));
        accounts.push(createdAccount(record, plain));
      });
      project.accountCount = valid.length;
      const attributeKeys = attributeKeysOf(valid);
      if (attributeKeys) project.attributeKeys = attributeKeys;
      const finished = deps.now();
      project.updatedAt = finished.toISOString();
      const activity = [
        activityItem(userId, createdAt, deps.newId(started), `Project "${project.name}" created`),
        activityItem(userId, project.updatedAt, deps.newId(finished), `${plural(valid.length, 'account')} created in "${project.name}"`),
        ...(rejected.length
          ? [activityItem(userId, project.updatedAt, deps.newId(finished), `${plural(rejected.length, 'row')} not created in "${project.name}"`)]
          : []),
      ];
      // The names become these accounts' own before anything else is written: a name another
      // account holds fails the request (409, counters given back) instead of being shared.
      // Only while the lock is surely this request's: once it lapses, a job may take it and write
      // its names without conditions, having read the names before these (process-chunk.ts).
      if (deps.now().getTime() > started.getTime() + SYNC_LOCK_TTL_MS - SYNC_FENCE_MARGIN_MS) throw new ServiceUnavailableError(SYNC_TOO_SLOW);
      await deps.store.claimUsernames(userId, items.map((item) => ({ username: String(item.username), projectId, accountId: String(item.id) })));
      written = true;
      try {
        await deps.store.writeAll([projectItem(project), ...items, ...indexItems, ...report]);
      } catch (error) {
        // Part of the accounts may be stored, and their passwords would be shown nowhere: never a
        // 500 here. The same rows go the job path (same project, keys and names; new passwords,
        // since these were never shown), and the answer is the job's.
        logger.error('Writing the accounts answered at once failed part-way: they are created as a job', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
        // The lock for a job's time (its chunks renew it, and give it back at the end). Should this
        // fail, the chunks take it back themselves, as after any break in a job's lock.
        await deps.store.renewLock(userId, projectId, { now: deps.now().getTime(), until: deps.now().getTime() + LOCK_TTL_MS }).catch((renewError: unknown) => {
          logger.warn('Could not extend the lock of a creation turned into a job', { userId, projectId, error: String(renewError) });
        });
        return await startJob();
      }
      // Everything is stored: what is left is bookkeeping, and its failure must not hide the accounts.
      await deps.store.countAttributes(userId, projectId, valid, projectId);
      await deps.store.writeAll(activity).catch((error: unknown) => {
        logger.error('Recording the activity of a creation answered at once failed after its accounts were stored', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
      });
      try {
        await deps.store.finish(userId, {
          lockOwner: projectId,
          accounts: valid.length,
          processingMs: finished.getTime() - started.getTime(),
          counters: {
            month: monthOf(finished, timeZone),
            change: { projects: 1, accounts: valid.length, rowsSettled: total, rowsFailed: rejected.length, ...(input.expirationDate ? { expiresOn: input.expirationDate } : {}) },
          },
        });
      } catch (error) {
        // The lock lapses on its own (SYNC_LOCK_TTL_MS); the plan's counters were reserved before writing.
        logger.error('Recording a creation answered at once failed after its accounts were stored', { userId, projectId, error: error instanceof Error ? error.message : String(error) });
      }
      const provisioning = await startProvisioningOf(deps, userId, input, projectId, false);
      const mail = await startSendOf(deps, userId, input, projectId, false);
      const shown = { ...project, ...(provisioning.provisioningJobId ? { integrationId: input.apiIntegrationId, provisioningJobId: provisioning.provisioningJobId } : {}), ...(mail.mailSendId ? { mailSendId: mail.mailSendId } : {}) };
      return { kind: 'created', project: projectView(shown), accounts, summary: { ...summaryBase, successful: valid.length, ...provisioning, ...mail } };
    } catch (error) {
      // Nothing written: give the reservation back. Once writing began, the counters stay
      // (over-counting is safe, under-counting would let a limit be passed), but the lock goes
      // back at once: this creation is over (a job that could not be queued is marked failed,
      // so none of its chunks writes after this), and no failure locks the user out.
      await deps.store.release(userId, written ? { projects: 0, accounts: 0 } : { projects: 1, accounts: valid.length }, projectId);
      throw written ? new WriteInterruptedError(input.projectName, error) : error;
    }
  };
