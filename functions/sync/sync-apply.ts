import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { planLimits, UNLIMITED, type PlanId } from '../../shared/plans';
import { SYNC_FAILURES_SHOWN, syncMessages, type SyncApplyOptions, type SyncApplyProgress, type SyncPreview, type SyncStartedJob } from '../../shared/schemas/account-sync';
import { plural } from '../../shared/text/plural';
import { ConflictError, NotFoundError, PlanLimitError, ValidationError } from '../core/errors';
import { keys } from '../core/keys';
import { recordSecurityEvent, type RequestOrigin, type SecurityEventDeps } from '../security/security-events';
import { assertApiIntegrations, assertCredentialEmails, projectFullMessage } from '../usage/plan-usage';
import type { SyncMessage } from './sync-preview';
import { getPreview, previewView, readParts, stampOf, type SyncPreviewItem } from './sync-store';

/**
 * Applying a sync preview (docs/sync.md): the user's choices, as a job driven by messages on the
 * bulk-uploads queue, one step after the other, each resumable and safe to run again:
 *  1. update-here: the changed accounts written here, part by part of the preview (each write
 *     conditional on the values the preview saw: an account changed since is left as it is and
 *     listed; one that already has the new values counts as done: a redelivery changes nothing
 *     twice), a provisioned one marked 'not yet updated on <platform>';
 *  2. update-platform: those provisioned accounts sent to their platform by an account action
 *     'update' (functions/account-actions) over their rows;
 *  3. missing: the accounts missing from the file deactivated (the active ones) or deleted, by an
 *     account action over their rows;
 *  4. new: the new people added as Add people adds them (usernames, passwords, plan limits,
 *     provisioned to the project's platform after the import).
 * An action over more than MAX_SELECTED_ACCOUNTS rows runs as several, one after the other; each
 * step waits for its job to end (a delayed message, no worker waits). The steps: sync-apply-worker.ts.
 */
export interface SyncApplyDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
  newId: (now: Date) => string;
  queue: (message: SyncMessage, delaySeconds?: number) => Promise<void>;
}

export interface StartApplyDeps extends SyncApplyDeps {
  plan: (userId: string) => Promise<PlanId>;
  events: SecurityEventDeps;
}

export type Apply = NonNullable<SyncPreviewItem['apply']>;

/** POST /api/sync-previews/{id}/apply: checks (ready, not stale, within the plan, something to do), the apply recorded and queued, the security event. */
export const applySyncPreview =
  (deps: StartApplyDeps) =>
  async (userId: string, previewId: string, options: SyncApplyOptions, origin: Partial<RequestOrigin> = {}): Promise<SyncPreview> => {
    const item = await getPreview(deps.db, deps.tableName, userId, previewId);
    if (item.status !== 'ready') throw new ConflictError(syncMessages.notReady(item.status));
    if (!options.createNew && !options.updateChanged && options.missing === 'nothing') throw new ValidationError(syncMessages.nothingChosen);
    const { Item: project } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(userId, item.projectId), ConsistentRead: true }));
    if (!project) throw new NotFoundError('Project not found');
    if (stampOf(project) !== item.stamp) throw new ConflictError(syncMessages.stale);
    const counts = item.counts!;
    const toUpdate = options.updateChanged ? counts.changed : 0;
    const toCreate = options.createNew ? counts.new : 0;
    const toMissing = options.missing === 'deactivate' ? counts.missingActive : options.missing === 'delete' ? counts.missing : 0;
    if (toUpdate + toCreate + toMissing === 0) throw new ConflictError(syncMessages.nothingToDo);
    const plan = await deps.plan(userId);
    const limits = planLimits[plan];
    if (toCreate > 0 && limits.accountsPerProject !== UNLIMITED) {
      const held = Number(project.accountCount ?? 0) - (options.missing === 'delete' ? counts.missing : 0);
      if (held + toCreate > limits.accountsPerProject) {
        throw new PlanLimitError(projectFullMessage(limits.accountsPerProject, held, toCreate), { limit: 'accountsPerProject', max: limits.accountsPerProject, used: held, requested: toCreate });
      }
    }
    // Accounts on a platform are changed there too: a platform operation, Pro as provisioning is.
    const provisioned = typeof project.integrationId === 'string' && Number(project.syncedCount ?? 0) > 0;
    if (provisioned && (toUpdate > 0 || toMissing > 0)) assertApiIntegrations(plan);
    // The new people's credentials by e-mail: Pro, as for Add people (checked before anything is written).
    if (toCreate > 0 && options.sendCredentials) assertCredentialEmails(plan);
    const at = deps.now().toISOString();
    const apply: Apply = { options, step: 'update-here', toUpdate, updatedHere: 0, updateFailed: 0, toCreate, created: 0, failures: [], errors: [], startedAt: at, cursor: 0, version: 0 };
    try {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: keys.syncPreview(userId, previewId),
          UpdateExpression: 'SET #status = :applying, apply = :apply, updatedAt = :now',
          ConditionExpression: '#status = :ready',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':applying': 'applying', ':apply': apply, ':now': at, ':ready': 'ready' },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ConflictError(syncMessages.notReady('applying'));
      throw error;
    }
    await deps.queue({ type: 'sync-apply', userId, previewId });
    const what = [toUpdate ? `${plural(toUpdate, 'account')} to update` : '', toCreate ? `${plural(toCreate, 'person', 'people')} to add` : '', toMissing ? `${plural(toMissing, 'missing account')} to ${options.missing}` : ''].filter(Boolean).join(', ');
    await recordSecurityEvent(deps.events, {
      userId,
      type: 'accounts_synced',
      severity: options.missing === 'delete' ? 'high' : 'medium',
      description: `Project "${String(project.name)}" updated from a file: ${what}`,
      ...origin,
      at: deps.now(),
      source: `sync:${previewId}`,
    });
    return previewView({ ...item, status: 'applying', apply, updatedAt: at }, await applyProgress(deps, userId, { ...item, apply }));
  };

/** GET /api/sync-previews/{id}: the preview, and its apply's progress with the jobs it started. */
export const readSyncPreview =
  (deps: Pick<SyncApplyDeps, 'db' | 'tableName'>) =>
  async (userId: string, previewId: string): Promise<SyncPreview> => {
    const item = await getPreview(deps.db, deps.tableName, userId, previewId);
    return previewView(item, item.apply ? await applyProgress(deps, userId, item) : undefined);
  };

/** The apply as the UI shows it: the parts' tallies summed, the started jobs' counters read. */
async function applyProgress(deps: Pick<SyncApplyDeps, 'db' | 'tableName'>, userId: string, item: SyncPreviewItem): Promise<SyncApplyProgress> {
  const apply = item.apply!;
  const markers = await readParts(deps.db, deps.tableName, userId, item.id, 'applied#');
  const failures = markers.flatMap((m) => (m.failures as SyncApplyProgress['failures'] | undefined) ?? []).slice(0, SYNC_FAILURES_SHOWN);
  const job = async (started: SyncStartedJob | undefined): Promise<SyncStartedJob | undefined> => {
    if (!started || started.status === 'completed' || started.status === 'failed') return started;
    const key = started.kind === 'account-action' ? keys.accountAction(userId, started.id) : keys.bulkJob(userId, started.id);
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true }));
    return Item ? jobState(started.kind, Item) : started;
  };
  const [updateOnPlatform, missingAction, addPeople] = await Promise.all([job(apply.updateOnPlatform), job(apply.missingAction), job(apply.addPeople)]);
  return {
    options: apply.options,
    step: apply.step,
    toUpdate: apply.toUpdate,
    updatedHere: markers.reduce((sum, m) => sum + Number(m.updated ?? 0), 0),
    updateFailed: markers.reduce((sum, m) => sum + Number(m.failed ?? 0), 0),
    toCreate: apply.toCreate,
    created: apply.created,
    failures,
    ...(updateOnPlatform ? { updateOnPlatform } : {}),
    ...(missingAction ? { missingAction } : {}),
    ...(addPeople ? { addPeople } : {}),
    ...(apply.mailSendId ? { mailSendId: apply.mailSendId } : {}),
    errors: apply.errors ?? [],
    startedAt: apply.startedAt,
    ...(apply.finishedAt ? { finishedAt: apply.finishedAt } : {}),
  };
}

export const jobState = (kind: SyncStartedJob['kind'], item: Record<string, unknown>): SyncStartedJob => ({
  id: String(item.id),
  kind,
  status: String(item.status),
  total: Number(item.total ?? 0),
  done: Number(item.done ?? 0),
  failed: Number(kind === 'bulk-job' ? (item.failedCount ?? 0) : (item.failed ?? 0)),
});

export const ended = (status: string) => status === 'completed' || status === 'failed';

