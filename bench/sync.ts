/**
 * Sync of a 50,000-person file into a 50,000-account project (issue 28, item 4), against the local
 * stack: 1% new, 1% changed, 1% missing.
 *  - The preview: from POST /api/projects/{id}/sync-previews to `ready` (the bulk-uploads worker
 *    reading the file from S3 and the project's accounts), against a bare paged Query of the
 *    project (every shard, every page, one after the other) plus the file's read (GetObject and
 *    the shared CSV reader) in the same run: target <= 1.5x and < 30 s.
 *  - The apply (create the new, update the changed, deactivate the missing): the items it wrote,
 *    from the user's partitions read before and after: only the ~3% that differ (and their
 *    history, username and state-block items).
 *  The 50,000-account project is NOT created through the API: its project item (16 shards) and
 *  accounts are written straight into the table as the bulk job writes them. The output says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Readable } from 'node:stream';
import { localCredentials } from '../bin/local/bootstrap';
import { portsFromEnv, projectRoot } from '../bin/local/settings';
import { startLocalStack } from '../bin/local/stack';
import { peopleCsvStream } from '../shared/csv/read-people';
import type { BulkUploadForm } from '../shared/schemas/bulk-upload';
import type { SyncPreview } from '../shared/schemas/account-sync';
import { keys } from '../functions/core/keys';
import { createTestUser } from '../test/support/cognito-users';
import { figure } from './own-process';
import { seedLargeProject } from './large-project';
import { benchOffset } from './ports';

const ACCOUNTS = 50_000;
const SHARE = 0.01;
const LIMIT = 1.5;
const ROUNDS = 3;
const TABLE = 'bulkonboard';

export async function syncBench(): Promise<void> {
  const differ = Math.round(ACCOUNTS * SHARE);
  console.log(`\n== Sync of a ${ACCOUNTS.toLocaleString('en-US')}-person file into a ${ACCOUNTS.toLocaleString('en-US')}-account project (${differ} new, ${differ} changed, ${differ} missing; local stack)`);
  const dataDir = path.join(projectRoot, '.test-data', 'bench-sync');
  fs.rmSync(dataDir, { recursive: true, force: true });
  const stack = await startLocalStack({ ports: portsFromEnv({}, benchOffset(52_500)), dataDir, persistDynamoDb: false, web: 'none', log: () => undefined });
  try {
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: stack.urls.dynamodb, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }), {
      marshallOptions: { removeUndefinedValues: true },
    });
    const s3 = new S3Client({ region: 'us-east-1', endpoint: stack.urls.s3, forcePathStyle: true, credentials: localCredentials });
    const user = await createTestUser(stack.urls.cognito, stack.userPool);
    const call = async <T>(p: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${stack.urls.app}${p}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    await call('/api/auth/user');
    const userId = user.sub;

    // The large project, written as the bulk job writes it (bench/large-project.ts).
    const { projectId, shards } = await seedLargeProject(db, userId, ACCOUNTS);

    // The file: rows 1..(ACCOUNTS - differ) (the last `differ` accounts missing), every 99th of them with a new last name, and `differ` new people.
    const kept = ACCOUNTS - differ;
    const lines = ['First Name,Last Name,Email'];
    let changed = 0;
    for (let row = 1; row <= kept; row++) {
      const change = changed < differ && row % 99 === 0;
      if (change) changed++;
      lines.push(`Large,${change ? `Renamed${row}` : `Person${row}`},large.${row}@example.com`);
    }
    for (let i = 0; i < differ; i++) lines.push(`New,Person${i},new.${i}@example.com`);
    const csv = `${lines.join('\n')}\n`;

    const upload = async (): Promise<string> => {
      const form = await call<BulkUploadForm>('/api/bulk-uploads', {});
      const data = new FormData();
      for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
      data.append('file', new Blob([csv], { type: 'text/csv' }), 'people.csv');
      const answer = await fetch(form.url, { method: 'POST', body: data });
      if (answer.status >= 300) throw new Error(`upload: ${answer.status}`);
      return form.id;
    };
    const previewOnce = async (): Promise<{ ms: number; preview: SyncPreview }> => {
      const uploadId = await upload();
      const started = performance.now();
      await call(`/api/projects/${projectId}/sync-previews`, { uploadId });
      for (;;) {
        const preview = await call<SyncPreview>(`/api/sync-previews/${uploadId}`);
        if (preview.status === 'failed') throw new Error(`the preview failed: ${preview.reason}`);
        if (preview.status === 'ready') return { ms: performance.now() - started, preview };
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // The bare baseline: every shard's pages one after the other, then the same file read from S3 through the shared reader.
    const bare = async (): Promise<{ ms: number; rows: number }> => {
      const key = `uploads/${userId}/bare.csv`;
      const { PutObjectCommand } = await import('@aws-sdk/client-s3');
      await s3.send(new PutObjectCommand({ Bucket: 'bulkonboard-exports', Key: key, Body: csv }));
      const started = performance.now();
      let rows = 0;
      for (const pk of keys.accountPartitions(userId, projectId, shards)) {
        let start: Record<string, unknown> | undefined;
        do {
          const page = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start }));
          rows += page.Items?.length ?? 0;
          start = page.LastEvaluatedKey;
        } while (start);
      }
      const object = await s3.send(new GetObjectCommand({ Bucket: 'bulkonboard-exports', Key: key }));
      let read = 0;
      const people = peopleCsvStream({ maxRows: 250_000, onRow: () => read++ });
      const decoder = new TextDecoder();
      for await (const bytes of object.Body as unknown as Readable) people.push(decoder.decode(bytes as Uint8Array, { stream: true }));
      people.end();
      if (read !== ACCOUNTS) throw new Error(`the bare read found ${read} rows`);
      return { ms: performance.now() - started, rows };
    };

    // Warm both paths once (handlers, the worker's first import), then alternate.
    await previewOnce();
    await bare();
    const previews: number[] = [];
    const bares: number[] = [];
    let last: SyncPreview | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? ['bare', 'preview'] : ['preview', 'bare'];
      for (const kind of order) {
        if (kind === 'preview') {
          const { ms, preview } = await previewOnce();
          previews.push(ms);
          last = preview;
        } else bares.push((await bare()).ms);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const [p, b] = [median(previews), median(bares)];
    const c = last!.counts!;
    figure(
      `sync preview of ${ACCOUNTS.toLocaleString('en-US')} rows against ${ACCOUNTS.toLocaleString('en-US')} accounts: median ${(p / 1000).toFixed(1)} s (target < 30 s); bare paged Query + file read: median ${(b / 1000).toFixed(1)} s; ratio ${(p / b).toFixed(2)}x (target <= ${LIMIT}x; ${ROUNDS} rounds each, alternating)` +
        `; counts: ${c.new} new, ${c.changed} changed, ${c.unchanged} unchanged, ${c.rejected} rejected, ${c.missing} missing (the ${ACCOUNTS.toLocaleString('en-US')} accounts were NOT created through the API: written into the table as the bulk job writes them)`,
    );

    // The apply: the items it wrote, from the table before and after.
    // Every partition the user's items live in (the erasure's list: the user's, its side partitions, the project's): Queries, not a Scan (DynamoDB Local scans slowly).
    const partitions = [keys.user(userId).PK, ...keys.userSidePartitions(userId), ...keys.projectPartitions(userId, projectId, shards)];
    const snapshot = async () => {
      const seen = new Map<string, string>();
      await Promise.all(
        partitions.map(async (pk) => {
          let start: Record<string, unknown> | undefined;
          do {
            const page = await db.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start }));
            for (const item of page.Items ?? []) seen.set(`${String(item.PK)}|${String(item.SK)}`, JSON.stringify(item));
            start = page.LastEvaluatedKey;
          } while (start);
        }),
      );
      return seen;
    };
    const before = await snapshot();
    const applyStarted = performance.now();
    await call(`/api/sync-previews/${last!.id}/apply`, { createNew: true, updateChanged: true, missing: 'deactivate' });
    let applied: SyncPreview;
    for (;;) {
      applied = await call<SyncPreview>(`/api/sync-previews/${last!.id}`);
      if (applied.status === 'applied') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const applyMs = performance.now() - applyStarted;
    const after = await snapshot();
    const written = [...after].filter(([key, value]) => before.get(key) !== value).map(([key]) => key);
    const accountPrefix = `USER#${userId}#PROJECT#${projectId}`;
    const accountItems = written.filter((key) => key.startsWith(accountPrefix) && key.split('|')[0]!.match(/#PROJECT#[^#]+(#SHARD#\d+)?$/) && key.includes('|ACCOUNT#')).length;
    const kinds = new Map<string, number>();
    for (const key of written) {
      const [pk, sk] = key.split('|') as [string, string];
      const kind = sk.startsWith('ACCOUNT#') ? 'account' : pk.endsWith('#HISTORY') ? 'history' : pk.endsWith('#STATE') ? 'state block' : pk.includes('#USERNAMES#') ? 'username' : pk.endsWith('#SYNC') || sk.startsWith('SYNCPREVIEW#') ? 'sync preview' : 'other';
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const a = applied.apply!;
    figure(
      `sync apply (create ${a.toCreate}, update ${a.toUpdate}, deactivate ${a.missingAction?.total ?? 0}): ${(applyMs / 1000).toFixed(1)} s; items written ${written.length.toLocaleString('en-US')} (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}); account items written ${accountItems} of ${(ACCOUNTS + differ).toLocaleString('en-US')} = ${((accountItems / ACCOUNTS) * 100).toFixed(1)}% (target: only the ${differ * 2} changed and new; the ${differ} deactivated are state-block entries)`,
    );
  } finally {
    await stack.stop();
  }
}
