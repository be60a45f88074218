import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CallFailure } from './platform-client';
import type { GroupOperations, PlatformGroup } from './provisioning-port';

/**
 * The groups a provisioning run's accounts join (the project's `groups`, fixed on the run when it
 * is planned, with its `createGroups` switch): resolved on the platform once per run, not per
 * account. The first chunk delivery that needs them takes a claim on the run item, finds each
 * group (and creates the missing ones when the project allows it) and records the result on the
 * run (`groupTargets`); the other deliveries wait for it (a few seconds, back on the queue) and
 * then read it. So two workers never create the same group twice, even on a platform where names
 * are not unique (Microsoft Entra ID). A group that cannot be used (missing and not to be
 * created, or refused by the platform in its words) is recorded with the words: the run's
 * accounts fail with them, not created, until the project or the platform is put right and the
 * run retried (a new run resolves again).
 */
export interface GroupTarget {
  name: string;
  /** The platform's group, when found or created. */
  group?: PlatformGroup;
  /** Why the group cannot be used, in words. */
  error?: string;
}

export type RunGroups = { targets: GroupTarget[] } | { later: number } | { paused: string };

/** How long a claim holds before another delivery may take it over (the claimant died). */
export const GROUP_CLAIM_MS = 60_000;
/** How soon a delivery that found another one resolving looks again. */
export const GROUP_WAIT_MS = 3_000;

interface Deps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
}

export const runGroupNames = (job: Record<string, unknown>): string[] => (Array.isArray(job.groups) ? job.groups.map(String) : []);

/** The words of a group the run cannot use: missing without the switch, or refused. */
export const missingGroupWords = (name: string, platform: string) =>
  `The group "${name}" does not exist on ${platform}, and this project does not create missing groups: create it there, or turn on 'Create groups that do not exist' in the project's Edit, then retry.`;

export async function resolveRunGroups(
  deps: Deps,
  key: { PK: string; SK: string },
  job: Record<string, unknown>,
  groups: GroupOperations,
  words: { platform: string; claimant: string },
): Promise<RunGroups> {
  const names = runGroupNames(job);
  if (!names.length) return { targets: [] };
  if (Array.isArray(job.groupTargets)) return { targets: job.groupTargets as GroupTarget[] };
  const now = deps.now().getTime();
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: 'SET groupClaim = :me, groupClaimUntil = :until',
        ConditionExpression: 'attribute_not_exists(groupTargets) AND (attribute_not_exists(groupClaimUntil) OR groupClaimUntil < :now)',
        ExpressionAttributeValues: { ':me': words.claimant, ':until': now + GROUP_CLAIM_MS, ':now': now },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // Resolved meanwhile, or being resolved by another delivery: read it, or look again soon.
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true, ProjectionExpression: 'groupTargets' }));
    return Array.isArray(Item?.groupTargets) ? { targets: Item.groupTargets as GroupTarget[] } : { later: GROUP_WAIT_MS };
  }

  const targets: GroupTarget[] = [];
  for (const name of names) {
    let found = await groups.find(name);
    if (found && 'kind' in found) {
      const stop = await stopOn(deps, key, words.claimant, found);
      if (stop) return stop;
      targets.push({ name, error: `The group "${name}" could not be looked up on ${words.platform}: ${found.message}` });
      continue;
    }
    if (!found && job.createGroups === true) {
      const made = await groups.create(name);
      if ('kind' in made) {
        const stop = await stopOn(deps, key, words.claimant, made);
        if (stop) return stop;
        targets.push({ name, error: `The group "${name}" could not be created on ${words.platform}: ${made.message}` });
        continue;
      }
      found = made;
    }
    targets.push(found ? { name, group: found } : { name, error: missingGroupWords(name, words.platform) });
  }
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: 'SET groupTargets = :targets REMOVE groupClaim, groupClaimUntil',
        ConditionExpression: 'groupClaim = :me AND attribute_not_exists(groupTargets)',
        ExpressionAttributeValues: { ':targets': targets, ':me': words.claimant },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // This delivery's claim lapsed and another recorded the groups: theirs stand.
    const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key, ConsistentRead: true, ProjectionExpression: 'groupTargets' }));
    return Array.isArray(Item?.groupTargets) ? { targets: Item.groupTargets as GroupTarget[] } : { later: GROUP_WAIT_MS };
  }
  return { targets };
}

/**
 * A failure that is not the group's own: refused credentials pause the run, a passing one (429,
 * 5xx, timeout) leaves it to a later delivery. The claim is given back either way.
 */
async function stopOn(deps: Deps, key: { PK: string; SK: string }, claimant: string, failure: CallFailure): Promise<RunGroups | undefined> {
  if (!failure.authRefused && !failure.retryable) return undefined;
  await deps.db
    .send(new UpdateCommand({ TableName: deps.tableName, Key: key, UpdateExpression: 'REMOVE groupClaim, groupClaimUntil', ConditionExpression: 'groupClaim = :me', ExpressionAttributeValues: { ':me': claimant } }))
    .catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
  if (failure.authRefused) return { paused: failure.message };
  return { later: failure.retryAfterMs ?? GROUP_WAIT_MS };
}

/**
 * Joins an account the run created or linked to the run's groups, one add per group, paced as
 * the creation (each add takes its turn of the run's pacing). The account's outcome stays as it
 * was when every add is done; otherwise it fails with the platform's words, keeping its id there
 * (`externalId`): a retryable failure is taken again by the run like any other (the account is
 * found and linked, and the adds, which change nothing for a member already there, are made
 * again), a final one leaves it Sync Failed for Retry failed.
 */
export async function joinGroups<O extends { kind: string }>(groups: GroupOperations, targets: readonly GroupTarget[], outcome: O, take: () => Promise<void>, platform: string): Promise<O | (CallFailure & { externalId: string })> {
  if (outcome.kind !== 'created' && outcome.kind !== 'linked') return outcome;
  const externalId = (outcome as unknown as { externalId: string }).externalId;
  for (const { name, group } of targets) {
    if (!group) continue;
    await take();
    const added = await groups.addMember(group, externalId);
    if (added.kind === 'done') continue;
    const words = `Created on ${platform}, but not added to the group "${name}": ${added.kind === 'gone' ? added.detail : added.message}`;
    return added.kind === 'gone' ? { kind: 'failed', retryable: false, message: words, externalId } : { ...added, message: words, externalId };
  }
  return outcome;
}
