import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { cognitoTriggerAccess, groupAccess, queues, routeGroups, scheduleAccess, schedules, workerAccess, type TableAction } from '../../shared/routes';
import { projectRoot } from '../../lib/settings';

/**
 * Least privilege from the other side: every DynamoDB action a function is granted is used by
 * code its bundle contains. The project files a handler bundles (esbuild's metafile, packages
 * left out) are searched for the document client's commands and for the item kinds of
 * transactions. File-level, so it over-approximates use: a grant can only be shown unused, which
 * is what matters here (a grant nobody uses is a grant too many).
 */
const usedBy: Record<TableAction, RegExp> = {
  GetItem: /new GetCommand\(/,
  Query: /new QueryCommand\(|paginateQuery\(/,
  PutItem: /new PutCommand\(|\bPut: \{/,
  UpdateItem: /new UpdateCommand\(|\bUpdate: \{/,
  DeleteItem: /new DeleteCommand\(|\bDelete: \{/,
  BatchWriteItem: /new BatchWriteCommand\(/,
  BatchGetItem: /new BatchGetCommand\(/,
  ConditionCheckItem: /\bConditionCheck: \{/,
  Scan: /new ScanCommand\(/,
};

const functions = [
  ...routeGroups.map((group) => ({ name: group, entry: `functions/${group}/handler.ts`, access: groupAccess[group] })),
  ...queues.flatMap((queue) =>
    [queue.worker, queue.deadLetterWorker].flatMap((worker) => (worker ? [{ name: worker, entry: `functions/workers/${worker}.ts`, access: workerAccess[worker] }] : [])),
  ),
  ...schedules.map(({ name }) => ({ name, entry: `functions/schedules/${name}.ts`, access: scheduleAccess[name] })),
  { name: 'cognito-trigger', entry: 'functions/security/sign-in-trigger.ts', access: cognitoTriggerAccess },
];

async function projectSources(entry: string): Promise<string> {
  const { metafile } = await build({
    entryPoints: [path.join(projectRoot, entry)],
    absWorkingDir: projectRoot,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  return Object.keys(metafile.inputs)
    .map((file) => readFileSync(path.join(projectRoot, file), 'utf8'))
    .join('\n');
}

describe('DynamoDB grants are used by the code', () => {
  it.each(functions.map((fn) => [fn.name, fn] as const))('%s', async (_name, { entry, access }) => {
    const sources = await projectSources(entry);
    const unused = (access.table ?? []).filter((action) => !usedBy[action].test(sources));
    expect(unused, 'granted, but no code of this function uses it').toEqual([]);
    if (access.table === undefined) expect(sources).not.toMatch(/new (Get|Query|Put|Update|Delete|BatchWrite|TransactWrite|BatchExecuteStatement)Command\(/);
  });

  /**
   * Actions whose commands a bundle holds in a shared file but never calls; anything else a
   * bundle's code can send must be granted, or it fails on AWS only (the emulators have no IAM).
   */
  const referencedButNotCalled: Partial<Record<string, readonly TableAction[]>> = {
    // export-store.ts also holds the export worker's status writes; the history only reads.
    'export-history': ['PutItem', 'UpdateItem'],
    // export-store.ts holds the whole export lifecycle; the dead-letter worker marks an export failed, reads it and writes its notification.
    'export-dead-letter-worker': ['Query'],
    // user-repository.ts also holds the profile writes; the worker reads the recipient's user item.
    // notification-store.ts also holds the bell's writes (mark read, the one-time unread pass); the digest only reads unread items.
    'mail-worker': ['PutItem', 'UpdateItem'],
    // http.ts's account gate records session timeouts (PutItem); the links' routes are public, so it never runs there.
    // account-states.ts also holds the account readers' Query; the link reads its account's one ACT block by key (link-store.ts).
    'credential-links': ['PutItem', 'Query'],
    // account-states.ts and account-partitions.ts also hold the account readers; the events worker uses their block keys and shard bound.
    'mail-events-worker': ['Query'],
    // process-chunk.ts also holds the bulk worker's first read of a chunk (BatchGetItem); the API
    // records chunks the queue refused, the dead-letter worker records dead ones: both read by GetItem.
    bulk: ['BatchGetItem'],
    'bulk-dead-letter-worker': ['BatchGetItem'],
  };

  it.each(functions.map((fn) => [fn.name, fn] as const))('%s: every command its code holds is granted', async (name, { entry, access }) => {
    const sources = await projectSources(entry);
    const referenced = (Object.keys(usedBy) as TableAction[]).filter((action) => usedBy[action].test(sources));
    const missing = referenced.filter((action) => !(access.table ?? []).includes(action) && !referencedButNotCalled[name]?.includes(action));
    expect(missing, 'used by code in this bundle but not granted (AccessDenied on AWS)').toEqual([]);
  });

  it('the search finds what it looks for (only the expiry schedule scans: its one-time backfill)', async () => {
    const sources = await projectSources('functions/bulk/handler.ts');
    expect(usedBy.BatchWriteItem.test(sources)).toBe(true);
    expect(/new ScanCommand\(|new BatchGetCommand\(/.test(await projectSources('functions/billing/handler.ts'))).toBe(false);
    expect(usedBy.Scan.test(await projectSources('functions/schedules/project-expiry.ts'))).toBe(true);
    const scanners = [...routeGroups.map((group) => groupAccess[group]), ...Object.values(workerAccess), ...Object.values(scheduleAccess), cognitoTriggerAccess].filter((access) => access.table?.includes('Scan'));
    expect(scanners).toEqual([scheduleAccess['project-expiry']]);
    expect(usedBy.BatchGetItem.test(await projectSources('functions/accounts/handler.ts'))).toBe(true);
  });
});
