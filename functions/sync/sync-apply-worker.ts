import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { defaultPasswordSettings, type BulkCreateInput } from '../../shared/schemas/bulk';
import { editableAccountFields, type EditableAccountField } from '../../shared/schemas/account-edit';
import { SYNC_FAILURES_SHOWN, syncMessages, type SyncChangedRow, type SyncMissingAccount, type SyncNewRow, type SyncStartedJob } from '../../shared/schemas/account-sync';
import type { AccountAction } from '../../shared/schemas/account-actions';
import { ACCOUNT_ACTION_LOCK, accountActionItem, accountActionJobs } from '../account-actions/account-actions';
import type { JobQueue } from '../account-jobs/kind';
import * as jobs from '../account-jobs/lifecycle';
import { MAX_SELECTED_ACCOUNTS, selectionFields } from '../account-jobs/selection';
import { allAccountsInOrder, shardsOf } from '../accounts/account-partitions';
import { isProvisioned } from '../accounts/account-record';
import { accountChange, projectTouch } from '../accounts/account-change';
import { attributesOf } from '../accounts/account-item';
import { readStates, overlayState } from '../accounts/account-states';
import type { CreateBulkAccountsResult, PreparedCreation } from '../bulk/create-bulk-accounts';
import type { CheckedRow } from '../bulk/check-rows';
import { isThrottling, withRetry, workerRetry } from '../core/dynamo-retry';
import { ConflictError, HttpError } from '../core/errors';
import { timeOrderedIdFrom } from '../core/ids';
import { ValidationError } from '../core/errors';
import { itemsByKey } from '../core/items-by-key';
import { keys } from '../core/keys';
import { logger } from '../core/logger';
import { mapBounded } from '../provisioning/pacing';
import type { ProvisioningMessage } from '../provisioning/provisioning-message';
import { fieldPath, valueAt } from './sync-fields';
import { ended, jobState, type Apply, type SyncApplyDeps } from './sync-apply';
import { getPreview, readPart, readParts, sectionEntries, type SyncPreviewItem } from './sync-store';

/**
 * The steps of a sync's apply (sync-apply.ts says what they are), run by the bulk-upload worker
 * for each 'sync-apply' message: the step it finds, then the next, until one must wait.
 */
export interface ApplyWorkerDeps extends SyncApplyDeps {
  /** The account actions' queue (the provisioning queue). */
  actions: JobQueue<ProvisioningMessage>;
  integrationName: (userId: string, integrationId: string) => Promise<string | undefined>;
  /** The bulk creation (functions/bulk/create-bulk-accounts.ts): with `projectId`, Add people. */
  create: (userId: string, input: BulkCreateInput, prepared?: PreparedCreation) => Promise<CreateBulkAccountsResult>;
}

/** How long the claim of the add step holds: longer than the bulk-upload worker's timeout (150 s), so its holder is gone after it. */
const ADD_CLAIM_MS = 5 * 60 * 1000;
/** How long a step waits for a project held by another job before it gives up. */
const BUSY_LIMIT_MS = 30 * 60 * 1000;
/** A delivery of update-here stops taking parts after this long (a next message goes on). */
const UPDATE_BUDGET_MS = 60 * 1000;
const LOCKS = ['activeAccountAction', 'activeProvisioningJob', 'activeMailSend', 'activePasswordReset', 'activeProjectDeletion'] as const;

/** A worker's delivery of a 'sync-apply' message: the step it finds, then the next, until one must wait. */
export const runSyncApply =
  (deps: ApplyWorkerDeps) =>
  async (userId: string, previewId: string): Promise<void> => {
    for (let steps = 0; steps < 8; steps++) {
      const item = await getPreview(deps.db, deps.tableName, userId, previewId).catch(() => undefined);
      if (!item || item.status !== 'applying' || !item.apply) return;
      const apply = item.apply;
      const outcome = await runStep(deps, userId, item, apply);
      if (outcome === 'wait') {
        await deps.queue({ type: 'sync-apply', userId, previewId }, 2);
        return;
      }
      if (outcome === 'again') {
        await deps.queue({ type: 'sync-apply', userId, previewId });
        return;
      }
      // Lost to another delivery: read again.
      await saveApply(deps, userId, previewId, outcome);
    }
    await deps.queue({ type: 'sync-apply', userId, previewId });
  };

/**
 * Writes the apply's next state, conditional on the version it was made from: of two deliveries
 * working at once (a redelivered message), one write wins and the other reads again (false).
 */
async function saveApply(deps: SyncApplyDeps, userId: string, previewId: string, next: Apply): Promise<boolean> {
  const done = next.step === 'done';
  const at = deps.now().toISOString();
  // The version the next state was made from (each step spreads the apply it read).
  const version = Number(next.version ?? 0);
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.syncPreview(userId, previewId),
        UpdateExpression: `SET apply = :next, updatedAt = :now${done ? ', #status = :applied' : ''}`,
        ConditionExpression: '#status = :applying AND apply.version = :version',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':next': { ...next, version: version + 1, ...(done ? { finishedAt: at } : {}) }, ':now': at, ':applying': 'applying', ':version': version, ...(done ? { ':applied': 'applied' } : {}) },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

async function runStep(deps: ApplyWorkerDeps, userId: string, item: SyncPreviewItem, apply: Apply): Promise<Apply | 'wait' | 'again'> {
  switch (apply.step) {
    case 'update-here':
      if (!apply.options.updateChanged) return { ...apply, step: 'update-platform' };
      return updateHere(deps, userId, item, apply);
    case 'update-platform': {
      if (!apply.options.updateChanged) return { ...apply, step: 'missing' };
      const markers = await readParts(deps.db, deps.tableName, userId, item.id, 'applied#');
      const rows = markers.flatMap((m) => (m.platformRows as number[] | undefined) ?? []).sort((a, b) => a - b);
      return actionStep(deps, userId, item, apply, 'update', rows, 'updateOnPlatform', 'platformFrom', 'missing');
    }
    case 'missing': {
      if (apply.options.missing === 'nothing') return { ...apply, step: 'new' };
      const missing = await sectionEntries<SyncMissingAccount>(deps.db, deps.tableName, userId, item.id, 'missing');
      const rows = missing.filter((m) => apply.options.missing === 'delete' || m.isActive).map((m) => Number(m.accountId.slice(m.accountId.lastIndexOf('.') + 1)));
      return actionStep(deps, userId, item, apply, apply.options.missing, rows, 'missingAction', 'missingFrom', 'new');
    }
    case 'new':
      if (!apply.options.createNew || apply.toCreate === 0) return { ...apply, step: 'done' };
      return addNew(deps, userId, item, apply);
    default:
      return apply;
  }
}

/**
 * The changed accounts of one part of the preview written here: read by key with their PROV
 * entries (provisioned?), each written with its history entry in one transaction conditional on
 * the values the preview saw. The part's tally (and the provisioned rows for the platform step)
 * is kept on its marker item (`applied#<part>`, rewritten whole by a redelivery, which finds the
 * same outcome: the values are there already).
 */
async function updateHere(deps: ApplyWorkerDeps, userId: string, item: SyncPreviewItem, apply: Apply): Promise<Apply | 'again'> {
  const parts = Number(item.parts?.changed ?? 0);
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, item.projectId), ConsistentRead: true }));
  if (!project) return { ...apply, step: 'done', errors: [...apply.errors, 'The project was deleted.'] };
  const shards = shardsOf(project);
  const platform = typeof project.integrationId === 'string' ? ((await deps.integrationName(userId, project.integrationId)) ?? 'the platform') : undefined;
  const started = Date.now();
  let cursor = apply.cursor ?? 0;
  const at = new Date(apply.startedAt);
  while (cursor < parts) {
    if (Date.now() - started > UPDATE_BUDGET_MS) break;
    const entries = await readPart<SyncChangedRow>(deps.db, deps.tableName, userId, item.id, 'changed', cursor);
    const rows = entries.map((e) => Number(e.accountId.slice(e.accountId.lastIndexOf('.') + 1)));
    const accounts = await accountsByRow(deps, userId, item.projectId, shards, rows);
    const outcomes = await mapBounded(entries, 8, (entry, i) => updateOne(deps, userId, item, entry, accounts.get(rows[i]!), platform, at));
    // The project once for the part (not in every account's transaction: they would contend for
    // its item): a preview read before is stale, the new extra columns join its attributeKeys.
    // Before the tally: a redelivery that finds the accounts written does it again (a set's ADD, one more version: harmless).
    const newKeys = [...new Set(entries.flatMap((entry, i) => (outcomes[i]!.updated ? entry.changes.filter((c) => c.field.startsWith('attributes.') && c.from === '' && c.to !== '').map((c) => fieldPath(c.field)[1]!) : [])))];
    if (outcomes.some((o) => o.updated)) {
      const touch = projectTouch(deps.tableName, userId, item.projectId, newKeys, false).Update!;
      await deps.db.send(new UpdateCommand(touch as ConstructorParameters<typeof UpdateCommand>[0])).catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
    }
    const failures = outcomes.flatMap((o, i) => (o.failed ? [{ accountId: entries[i]!.accountId, username: entries[i]!.username, reason: o.failed }] : []));
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: {
          ...keys.syncPreviewPart(userId, item.id, 'applied', cursor),
          entityType: 'SyncPreviewPart',
          userId,
          updated: outcomes.filter((o) => o.updated).length,
          failed: failures.length,
          failures: failures.slice(0, SYNC_FAILURES_SHOWN),
          platformRows: rows.filter((_, i) => outcomes[i]!.onPlatform),
          expiresAt: item.expiresAt,
        },
      }),
    );
    cursor++;
  }
  const next: Apply = { ...apply, cursor };
  if (cursor < parts) {
    await saveApply(deps, userId, item.id, next);
    return 'again';
  }
  return { ...next, step: 'update-platform' };
}

/** Accounts by row (BatchGetItem, consistent) with their PROV entries overlaid. */
async function accountsByRow(deps: Pick<SyncApplyDeps, 'db' | 'tableName'>, userId: string, projectId: string, shards: number, rows: readonly number[]): Promise<Map<number, Record<string, unknown>>> {
  const found = new Map<number, Record<string, unknown>>();
  if (!rows.length) return found;
  const items = [...(await itemsByKey(deps.db, deps.tableName, rows.map((row) => keys.account(userId, projectId, row, shards)), { consistent: true, parallel: 4, retry: workerRetry, what: 'Reading the accounts of a sync' })).values()];
  const states = await readStates(deps.db, deps.tableName, { userId, projectId, shards }, Math.min(...rows), Math.max(...rows), { consistent: true, channels: ['PROV'] });
  for (const account of items) found.set(Number(account.row), overlayState(account, states));
  return found;
}

/** Tries of one account's write: another writer between the read and the write reads again. */
const UPDATE_ATTEMPTS = 3;

/**
 * One changed account written through the accounts' one writer (functions/accounts/account-change.ts,
 * as an Edit writes it): the fields and the whole `attributes` map as the preview's changes make
 * them, conditional on the account as read, with its history entry (one change per field and per
 * extra column, an id made from the preview and the row: a redelivery rewrites the same entry) and
 * the Attribute filter's entries moved. An account that already has the new values counts as done;
 * one whose changed fields no longer hold the preview's old values is left alone and listed.
 */
async function updateOne(
  deps: Pick<SyncApplyDeps, 'db' | 'tableName'>,
  userId: string,
  item: SyncPreviewItem,
  entry: SyncChangedRow,
  read: Record<string, unknown> | undefined,
  platform: string | undefined,
  at: Date,
): Promise<{ updated?: boolean; failed?: string; onPlatform?: boolean }> {
  let account = read;
  for (let attempt = 1; ; attempt++) {
    if (!account) return { failed: 'Deleted after the preview: not updated.' };
    const onPlatform = platform !== undefined && isProvisioned(account);
    const current = entry.changes.map((c) => valueAt(account!, fieldPath(c.field)));
    // A redelivery (or an apply that died after this write) finds the new values: done already.
    if (entry.changes.every((c, i) => current[i] === c.to)) return { updated: true, onPlatform: onPlatform && account.platformChange !== undefined };
    if (!entry.changes.every((c, i) => current[i] === c.from)) return { failed: CHANGED_AFTER };
    const to = (field: string) => entry.changes.find((c) => c.field === field)?.to;
    const after = Object.fromEntries(editableAccountFields.map((field) => [field, to(field) ?? String(account![field] ?? '')])) as Record<EditableAccountField, string>;
    const attributeChanges = entry.changes.filter((c) => c.field.startsWith('attributes.'));
    let attributes: Record<string, string> | undefined;
    if (attributeChanges.length) {
      attributes = { ...(attributesOf(account) ?? {}) };
      for (const change of attributeChanges) {
        const key = fieldPath(change.field)[1]!;
        if (change.to) attributes[key] = change.to;
        else delete attributes[key];
      }
    }
    const row = Number(account.row);
    let write: ReturnType<typeof accountChange>;
    try {
      write = accountChange(deps.tableName, {
        userId,
        projectId: item.projectId,
        row,
        accountId: String(account.id),
        item: account,
        after,
        ...(attributes ? { attributes } : {}),
        ...(onPlatform ? { platform } : {}),
        at,
        historyId: timeOrderedIdFrom(at, `${item.id}#${row}`),
        detail: 'Updated from a file',
      });
    } catch (error) {
      // More extra columns changed at once than one transaction holds: this account is listed as not updated.
      if (error instanceof ValidationError) return { failed: error.message };
      throw error;
    }
    try {
      await withRetry('Applying a sync', workerRetry, isThrottling, () => deps.db.send(new TransactWriteCommand({ TransactItems: write.items })));
      return { updated: true, onPlatform };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException) || !error.CancellationReasons?.some((reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict')) throw error;
    }
    // Written meanwhile by another delivery of this apply (its values are the new ones), or changed by someone else: read again.
    if (attempt >= UPDATE_ATTEMPTS) return { failed: CHANGED_AFTER };
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: { PK: account.PK, SK: account.SK }, ConsistentRead: true }));
    account = Item ? { ...Item, ...stateOf(account) } : undefined;
  }
}

const CHANGED_AFTER = 'Changed after the preview: not updated. Preview the file again.';
/** The PROV entry's fields overlaid on the account as first read (whether it is provisioned). */
const stateOf = (account: Record<string, unknown>) => ({ externalStatus: account.externalStatus, externalAccountId: account.externalAccountId });

/**
 * An account action over `rows` (at most MAX_SELECTED_ACCOUNTS at a time, the rest in the next
 * ones): started once (its id kept on the apply before the start: a redelivery finds it), then
 * waited for; a project held by another job is waited for too, BUSY_LIMIT_MS at most.
 */
async function actionStep(
  deps: ApplyWorkerDeps,
  userId: string,
  item: SyncPreviewItem,
  apply: Apply,
  action: AccountAction,
  rows: number[],
  slot: 'updateOnPlatform' | 'missingAction',
  fromField: 'platformFrom' | 'missingFrom',
  nextStep: Apply['step'],
): Promise<Apply | 'wait'> {
  const current = apply[slot];
  if (current) {
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.accountAction(userId, current.id), ConsistentRead: true }));
    if (Item) {
      const state = jobState('account-action', Item);
      if (!ended(state.status)) return 'wait';
      // Ended: its totals carried over (several slices add up), the next slice or the next step.
      const from = Number(apply[fromField] ?? 0) + MAX_SELECTED_ACCOUNTS;
      const earlier = (current as SyncStartedJob & { before?: { total: number; done: number; failed: number } }).before ?? { total: 0, done: 0, failed: 0 };
      const summed = { ...state, total: earlier.total + state.total, done: earlier.done + state.done, failed: earlier.failed + state.failed };
      if (from < rows.length) return { ...apply, [fromField]: from, [slot]: { ...summed, status: 'queued', id: '', before: { total: summed.total, done: summed.done, failed: summed.failed } } };
      return { ...apply, [slot]: summed, step: nextStep };
    }
    if (current.id) {
      // Its id is kept but its job was never written (the start died in between): start it now.
      return startAction(deps, userId, item, apply, action, rows, slot, fromField, current.id);
    }
  }
  if (rows.length === 0) return { ...apply, step: nextStep };
  return startAction(deps, userId, item, apply, action, rows, slot, fromField, undefined);
}

async function startAction(
  deps: ApplyWorkerDeps,
  userId: string,
  item: SyncPreviewItem,
  apply: Apply,
  action: AccountAction,
  rows: number[],
  slot: 'updateOnPlatform' | 'missingAction',
  fromField: 'platformFrom' | 'missingFrom',
  knownId: string | undefined,
): Promise<Apply | 'wait'> {
  const from = Number(apply[fromField] ?? 0);
  const slice = rows.slice(from, from + MAX_SELECTED_ACCOUNTS);
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, item.projectId), ConsistentRead: true }));
  if (!project) return { ...apply, step: 'done', errors: [...apply.errors, 'The project was deleted.'] };
  const now = deps.now();
  let jobId = knownId;
  if (!jobId) {
    // The id first, on the apply (conditional on its step): a redelivery starts this job, never a second.
    jobId = deps.newId(now);
    const before = (apply[slot] as { before?: unknown } | undefined)?.before;
    const next: Apply = { ...apply, [slot]: { id: jobId, kind: 'account-action', status: 'queued', total: slice.length, done: 0, failed: 0, ...(before ? { before } : {}) } };
    if (!(await saveApply(deps, userId, item.id, next))) return 'wait';
    apply = { ...next, version: Number(apply.version ?? 0) + 1 };
  }
  const busy = LOCKS.some((lock) => typeof project[lock] === 'string');
  const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
  const integrationName = provisioned ? await deps.integrationName(userId, String(project.integrationId)) : undefined;
  const at = now.toISOString();
  const job = accountActionItem(
    { userId, projectId: item.projectId, projectName: String(project.name), jobId, action, total: slice.length, at, ...(provisioned ? { integration: { id: String(project.integrationId), ...(integrationName ? { name: integrationName } : {}) } } : {}) },
    { ...selectionFields({ rows: slice }), syncPreviewId: item.id },
  );
  const started = busy
    ? 'busy'
    : await jobs.startJob({ db: deps.db, tableName: deps.tableName, queue: deps.actions, now: deps.now }, accountActionJobs, job, {
        excludes: LOCKS.filter((lock) => lock !== ACCOUNT_ACTION_LOCK),
        projectSet: {},
        unqueued: 'The action could not be queued.',
      });
  if (started === 'busy') {
    const since = apply.waitingSince ?? at;
    if (now.getTime() - Date.parse(since) > BUSY_LIMIT_MS) {
      return { ...apply, waitingSince: undefined, step: slot === 'updateOnPlatform' ? 'missing' : 'new', errors: [...apply.errors, `${action === 'update' ? 'The platform update' : `The ${action}`} could not start: ${syncMessages.busy}`] };
    }
    if (!apply.waitingSince) await saveApply(deps, userId, item.id, { ...apply, waitingSince: since });
    return 'wait';
  }
  return 'wait';
}

/**
 * The new people added to the project as Add people adds them. Claimed on the apply first; a
 * delivery that finds the claim without a result (the one before died in between) adds only the
 * rows whose e-mail the project does not have yet.
 */
async function addNew(deps: ApplyWorkerDeps, userId: string, item: SyncPreviewItem, apply: Apply): Promise<Apply | 'wait'> {
  if (apply.addPeople) {
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.bulkJob(userId, apply.addPeople.id), ConsistentRead: true }));
    const state = Item ? jobState('bulk-job', Item) : apply.addPeople;
    if (!ended(state.status)) return 'wait';
    // The job started its follow-ups when it ended (the credentials' send among them).
    const followed = { mailSendId: typeof Item?.mailSendId === 'string' ? Item.mailSendId : undefined, mailSendError: typeof Item?.mailSendError === 'string' ? Item.mailSendError : undefined, provisioningError: typeof Item?.provisioningError === 'string' ? Item.provisioningError : undefined };
    return { ...apply, addPeople: state, created: state.done, step: 'done', ...(followed.mailSendId ? { mailSendId: followed.mailSendId } : {}), errors: [...apply.errors, ...followUpErrors(followed)] };
  }
  const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, item.projectId), ConsistentRead: true }));
  if (!project) return { ...apply, step: 'done', errors: [...apply.errors, 'The project was deleted.'] };
  if (LOCKS.some((lock) => lock !== 'activeMailSend' && typeof project[lock] === 'string')) return 'wait';
  const all = await sectionEntries<SyncNewRow>(deps.db, deps.tableName, userId, item.id, 'new');
  let rows = all;
  if (apply.newClaimedAt) {
    // The delivery that claimed the step may still be adding them (a redelivered message runs
    // beside it): only once it cannot be running any more (its worker's timeout is far shorter)
    // is the claim taken as that of a delivery that died, and what it added is left out.
    if (deps.now().getTime() - Date.parse(apply.newClaimedAt) < ADD_CLAIM_MS) return 'wait';
    const have = new Set<string>();
    for await (const page of allAccountsInOrder(deps.db, deps.tableName, userId, item.projectId)) for (const account of page) have.add(String(account.email ?? '').toLowerCase());
    rows = rows.filter((r) => !have.has(r.email.toLowerCase()));
  } else {
    const claimed = { ...apply, newClaimedAt: deps.now().toISOString() };
    if (!(await saveApply(deps, userId, item.id, claimed))) return 'wait';
    apply = { ...claimed, version: Number(apply.version ?? 0) + 1 };
  }
  // Added by a delivery that died before it recorded them.
  const already = all.length - rows.length;
  if (rows.length === 0) return { ...apply, created: already, step: 'done' };
  const valid: CheckedRow[] = rows.map((r, i) => ({ row: i + 1, firstName: r.firstName, lastName: r.lastName, email: r.email, ...(r.attributes ? { attributes: r.attributes } : {}) }));
  const input = {
    projectName: String(project.name),
    accountType: project.accountType,
    csvData: valid.map(({ firstName, lastName, email }) => ({ firstName, lastName, email })),
    passwordSettings: defaultPasswordSettings,
    createExternalAccounts: false,
    projectId: item.projectId,
    // Add people's own send over the rows it adds (functions/bulk/add-people.ts startFollowUps).
    ...(apply.options.sendCredentials ? { sendCredentials: apply.options.sendCredentials } : {}),
  } as BulkCreateInput;
  try {
    const result = await deps.create(userId, input, { checked: { valid, rejected: [], total: valid.length } });
    if (result.kind === 'created') {
      return { ...apply, created: already + result.summary.successful, step: 'done', ...(result.summary.mailSendId ? { mailSendId: result.summary.mailSendId } : {}), errors: [...apply.errors, ...followUpErrors(result.summary)] };
    }
    return { ...apply, addPeople: { id: result.job.id, kind: 'bulk-job', status: result.job.status, total: result.job.total, done: result.job.done, failed: result.job.failedCount } };
  } catch (error) {
    // Another creation of the user's holds its lock: later.
    if (error instanceof ConflictError && /still/i.test(error.message)) return 'wait';
    if (error instanceof HttpError) return { ...apply, step: 'done', errors: [...apply.errors, `The new people were not added: ${error.message}`] };
    logger.error('Adding the new people of a sync failed', { userId, previewId: item.id, error: String(error) });
    throw error;
  }
}

const followUpErrors = (summary: { provisioningError?: string; mailSendError?: string }) => [summary.provisioningError, summary.mailSendError].filter((e): e is string => typeof e === 'string');
