import { BatchWriteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { accountItem } from '../../functions/accounts/account-item';
import { accountsPageInOrder } from '../../functions/accounts/account-partitions';
import { StateBlockConflict, StateBlockWriter } from '../../functions/accounts/account-state-writer';
import { channelsWithoutStates, STATE_BLOCK_ROWS, stateBlockKey } from '../../functions/accounts/account-states';
import { readShardBlocks, withStatesByKey } from '../../functions/accounts/account-states-by-key';
import { keys } from '../../functions/core/keys';
import { projectItem, type ProjectRecord } from '../../functions/projects/project-item';
import { testDb } from '../support/api';

const TABLE = 'bulkonboard';

/** A project of `count` accounts over `shards` partitions, written straight to the table. */
async function storedProject(userId: string, projectId: string, count: number, shards: number) {
  const db = testDb();
  const items = Array.from({ length: count }, (_, i) =>
    accountItem(
      {
        id: keys.accountId(projectId, i + 1),
        userId,
        projectId,
        projectName: 'States',
        row: i + 1,
        firstName: 'State',
        lastName: `Person${i + 1}`,
        email: `state.${i + 1}@example.com`,
        username: `state${i + 1}`,
        passwordCiphertext: 'not-read-here',
        accountType: 'Standard User',
        isActive: true,
        externalStatus: 'pending',
        createdAt: new Date().toISOString(),
      },
      shards,
    ),
  );
  for (let i = 0; i < items.length; i += 25) await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  return items;
}

describe('account state blocks (what provisioning runs and credential sends record, beside the accounts)', () => {
  it('an entry replaces its channel’s attributes in every read of the accounts; a block is put whole once, then only its changed entries are written', async () => {
    const db = testDb();
    const userId = `states-${Date.now()}`;
    const projectId = 'p1';
    const shards = 3;
    await storedProject(userId, projectId, 400, shards);
    const target = { userId, projectId, shards };

    const prov = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    expect((await prov.load(1, 400)).size).toBe(0);
    for (let row = 1; row <= 400; row += 2) prov.set(row, row % 10 === 1 ? { externalStatus: 'failed', externalError: 'Refused by the platform', provisionRun: 'run1' } : { externalStatus: 'success', externalAccountId: `ext-${row}`, provisionRun: 'run1' });
    const mail = new StateBlockWriter({ db, tableName: TABLE }, target, 'MAIL');
    await mail.load(1, 400);
    mail.set(2, { emailStatus: 'sent', emailMessageId: 'm-2' });
    await Promise.all([prov.flush(), mail.flush()]);

    // Every account read in file order, through pages, carries its state; the others are as stored.
    const seen: Record<string, unknown>[] = [];
    let after: string | undefined;
    do {
      const page = await accountsPageInOrder(db, TABLE, target, 70, after, { consistent: true });
      seen.push(...page.items);
      after = page.lastSk;
    } while (after);
    expect(seen.map((a) => a.row)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    for (const account of seen) {
      const row = Number(account.row);
      if (row % 2 === 0) expect(account.externalStatus).toBe('pending');
      else if (row % 10 === 1) expect(account).toMatchObject({ externalStatus: 'failed', externalError: 'Refused by the platform' });
      else expect(account).toMatchObject({ externalStatus: 'success', externalAccountId: `ext-${row}` });
    }
    expect(seen[1]).toMatchObject({ emailStatus: 'sent', emailMessageId: 'm-2', externalStatus: 'pending' });

    // A later run's entry replaces the whole channel: no stale error is left behind.
    const retry = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    const loaded = await retry.load(1, 400);
    expect(loaded.get(11)).toMatchObject({ externalStatus: 'failed' });
    retry.set(11, { externalStatus: 'success', externalAccountId: 'ext-11', provisionRun: 'run2' });
    await retry.flush();
    const [eleventh] = (await accountsPageInOrder(db, TABLE, target, 1, keys.account(userId, projectId, 10, shards).SK, { consistent: true })).items;
    expect(eleventh).toMatchObject({ row: 11, externalStatus: 'success', externalAccountId: 'ext-11' });
    expect(eleventh).not.toHaveProperty('externalError');
    // Only row 11 was written to the existing block: its other entries stay as they were, and its version moved on.
    const written = (await db.send(new GetCommand({ TableName: TABLE, Key: stateBlockKey(userId, projectId, 'PROV', 11, shards), ConsistentRead: true }))).Item!;
    expect(written.version).toBe(2);
    expect((written.rows as Record<string, unknown>)['11']).toEqual({ externalStatus: 'success', externalAccountId: 'ext-11', provisionRun: 'run2' });
    expect((written.rows as Record<string, unknown>)['17']).toEqual({ externalStatus: 'success', externalAccountId: 'ext-17', provisionRun: 'run1' });

    // By key (a search's hits from several projects).
    const hits = [
      (await db.send(new GetCommand({ TableName: TABLE, Key: keys.account(userId, projectId, 3, shards) }))).Item!,
      (await db.send(new GetCommand({ TableName: TABLE, Key: keys.account(userId, projectId, 4, shards) }))).Item!,
    ];
    const overlaid = await withStatesByKey(db, TABLE, userId, hits, new Map([[projectId, shards]]));
    expect(overlaid.map((a) => a.externalStatus)).toEqual(['success', 'pending']);

    // 200 entries of one channel over 3 shards: one block per shard per STATE_BLOCK_ROWS*shards rows.
    const block = await db.send(new GetCommand({ TableName: TABLE, Key: stateBlockKey(userId, projectId, 'PROV', 1, shards), ConsistentRead: true }));
    expect(Object.keys(block.Item!.rows as object).length).toBeLessThanOrEqual(STATE_BLOCK_ROWS);
  });

  it("a chunk's read of one shard's states reads that shard's blocks only, not every shard's blocks of its rows", async () => {
    const db = testDb();
    const userId = `states-shard-${Date.now()}`;
    const projectId = 'p1';
    const shards = 4;
    await storedProject(userId, projectId, 800, shards);
    const target = { userId, projectId, shards };
    const prov = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    await prov.load(1, 800);
    for (let row = 1; row <= 800; row++) prov.set(row, { externalStatus: 'success', externalAccountId: `ext-${row}`, provisionRun: 'run1' });
    await prov.flush();

    // Every block item the reads get back, and the requests, counted.
    let blocksRead = 0;
    let requests = 0;
    const counting = {
      send: async (command: { input: unknown }) => {
        requests += 1;
        const output = (await db.send(command as never)) as { Item?: unknown; Items?: unknown[]; Responses?: Record<string, unknown[]> };
        blocksRead += (output.Items?.length ?? 0) + (output.Item ? 1 : 0) + (output.Responses?.[TABLE]?.length ?? 0);
        return output;
      },
    } as unknown as typeof db;
    // Rows 201..600 of shard 1: 2 of its blocks (each 50 of its rows over 200 rows of the project), not the 8 of all 4 shards; with its MAIL blocks (none yet) in the same request.
    const blocks = await readShardBlocks(counting, TABLE, target, ['PROV', 'MAIL'], { fromRow: 201, toRow: 600, shard: 1 }, { consistent: true });
    expect(blocks.flatMap((block) => Object.keys(block.rows as object).map(Number)).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => 201 + i * 4));
    expect(blocksRead).toBe(2);
    expect(requests).toBe(1);
    // The chunk's writer takes its channel's blocks from such a read, as its own load would.
    const writer = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    expect([...writer.adopt(blocks).keys()].length).toBe(100);
    expect(writer.get(205)).toMatchObject({ externalAccountId: 'ext-205' });
  });

  it('a writer whose blocks another delivery changed since it read them stops instead of overwriting', async () => {
    const db = testDb();
    const userId = `states-conflict-${Date.now()}`;
    const target = { userId, projectId: 'p1', shards: 1 };
    await storedProject(userId, 'p1', 10, 1);
    /** Two deliveries' writers that both read rows 1 to 10 as they are now. */
    const twoReaders = async () => {
      const pair = [new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV'), new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV')] as const;
      for (const writer of pair) await writer.load(1, 10);
      return pair;
    };
    const [first, second] = await twoReaders();
    second.set(1, { externalStatus: 'success', externalAccountId: 'second' });
    await second.flush();
    first.set(1, { externalStatus: 'success', externalAccountId: 'first' });
    await expect(first.flush()).rejects.toBeInstanceOf(StateBlockConflict);
    const [account] = (await accountsPageInOrder(db, TABLE, target, 1, undefined, { consistent: true })).items;
    expect(account!.externalAccountId).toBe('second');

    // The same once the block exists (a write of the changed entries only): the later reader wins, the earlier one stops.
    const [third, fourth] = await twoReaders();
    fourth.set(2, { externalStatus: 'failed', externalError: 'fourth' });
    await fourth.flush();
    third.set(3, { externalStatus: 'success', externalAccountId: 'third' });
    await expect(third.flush()).rejects.toBeInstanceOf(StateBlockConflict);
    const accounts = (await accountsPageInOrder(db, TABLE, target, 3, undefined, { consistent: true })).items;
    expect(accounts.map((a) => a.externalAccountId ?? a.externalError)).toEqual(['second', 'fourth', undefined]);
  });

  it('a new project lists every channel as having no blocks yet; a writer takes its channel out before its first block, and reads by key skip only the channels still listed', async () => {
    const db = testDb();
    const userId = `states-none-${Date.now()}`;
    const projectId = 'p1';
    const shards = 2;
    const accounts = await storedProject(userId, projectId, 120, shards);
    const project = projectItem({ id: projectId, userId, name: 'States', accountShards: shards } as unknown as ProjectRecord);
    await db.send(new PutCommand({ TableName: TABLE, Item: project }));
    const stored = async () => (await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(userId, projectId), ConsistentRead: true }))).Item;
    expect([...channelsWithoutStates(await stored())].sort()).toEqual(['ACT', 'MAIL', 'PROV']);
    // No channel has a block yet: nothing is read, the accounts come back as stored.
    const untouched = await withStatesByKey(db, TABLE, userId, accounts.slice(0, 3), new Map([[projectId, shards]]), new Map([[projectId, channelsWithoutStates(await stored())]]));
    expect(untouched.map((item) => item.externalStatus)).toEqual(['pending', 'pending', 'pending']);

    const target = { userId, projectId, shards };
    const prov = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    await prov.load(1, 120);
    prov.set(7, { externalStatus: 'success', externalAccountId: 'ext-7', provisionRun: 'run1' });
    await prov.flush();
    expect([...channelsWithoutStates(await stored())].sort()).toEqual(['ACT', 'MAIL']);

    // The entry written is read (its channel no longer listed); the listed channels' keys are not asked for.
    const sent: unknown[] = [];
    const counting = { send: (command: { input: unknown }) => { sent.push(command.input); return db.send(command as never); } } as unknown as typeof db;
    const seven = accounts.filter((item) => item.row === 7);
    const read = await withStatesByKey(counting, TABLE, userId, seven, new Map([[projectId, shards]]), new Map([[projectId, channelsWithoutStates(await stored())]]));
    expect(read[0]).toMatchObject({ externalStatus: 'success', externalAccountId: 'ext-7' });
    const asked = sent.flatMap((input) => (input as { RequestItems: Record<string, { Keys: { SK: string }[] }> }).RequestItems[TABLE]?.Keys.map((key) => key.SK.split('#')[0]) ?? []);
    expect(asked).toEqual(['PROV']);

    // A second writer of the channel finds the marker gone (idempotent); a project that is gone is not created again.
    const again = new StateBlockWriter({ db, tableName: TABLE }, target, 'PROV');
    await again.load(60, 120);
    again.set(61, { externalStatus: 'failed', externalError: 'Refused', provisionRun: 'run2' });
    await again.flush();
    expect([...channelsWithoutStates(await stored())].sort()).toEqual(['ACT', 'MAIL']);
    const orphan = new StateBlockWriter({ db, tableName: TABLE }, { userId, projectId: 'gone', shards: 1 }, 'MAIL');
    await orphan.load(1, 1);
    orphan.set(1, { emailStatus: 'sent' });
    await orphan.flush();
    expect((await db.send(new GetCommand({ TableName: TABLE, Key: keys.project(userId, 'gone'), ConsistentRead: true }))).Item).toBeUndefined();
  });
});
