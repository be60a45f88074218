/**
 * What a name costs on DynamoDB Local beside its account (issue 15, docs/bulk-files.md): BatchWrite
 * of N account items, then N username items, then the same names packed one item per (500-row
 * chunk, username partition), a "name block" (an option, not what the product writes). Measures,
 * never asserts. Run alone, under the bench lock: `flock /tmp/bench.lock npx tsx bench/name-items.ts`.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoDb } from '../bin/local/emulators';
import { ensureTable } from '../bin/local/bootstrap';
import { accountItem } from '../functions/accounts/account-item';
import { dynamoBulkStore, usernameItem } from '../functions/bulk/bulk-store';
import { aesGcmCipher, secretContext } from '../functions/core/encryption';
import { keys } from '../functions/core/keys';
import { benchOffset } from './ports';
import type { Item } from '../functions/bulk/bulk-store';

const N = Number(process.env.N ?? 50000);
const port = 8000 + benchOffset(13_000);
const dyn = await startDynamoDb(port, undefined);
try {
  await ensureTable(port);
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: `http://localhost:${port}`, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
  const store = dynamoBulkStore(db, 'bulkonboard');
  const cipher = aesGcmCipher(randomBytes(32));
  const acc = (p: string) => Array.from({ length: N }, (_, i) => accountItem({ id: keys.accountId(p, i + 1), userId: 'u1', projectId: p, projectName: 'P', row: i + 1, firstName: `First${i}`, lastName: 'Bench', email: `b${i}@example.com`, username: `${p}first${i}.bench`,
    passwordCiphertext: cipher.encrypt('Abcdefgh1234!', secretContext.account('u1', keys.accountId(p, i + 1))), accountType: 'Standard User', isActive: true, externalStatus: 'pending', createdAt: new Date().toISOString() }, 16));
  const names = (p: string) => Array.from({ length: N }, (_, i) => usernameItem('u1', { username: `${p}first${i}.bench`, projectId: p, accountId: keys.accountId(p, i + 1) }));
  const blocks = (p: string) => {
    const out: Item[] = [];
    for (let c = 0; c * 500 < N; c++) {
      const byPartition = new Map<string, [string, string][]>();
      for (let i = c * 500; i < Math.min(N, (c + 1) * 500); i++) {
        const name = `${p}first${i}.bench`;
        const pk = keys.username('u1', name).PK;
        (byPartition.get(pk) ?? byPartition.set(pk, []).get(pk)!).push([name, keys.accountId(p, i + 1)]);
      }
      for (const [PK, list] of byPartition) out.push({ PK, SK: `NAMEBLOCK#${p}#${c}`, entityType: 'UsernameBlock', projectId: p, names: list.map(([n]) => n), accountIds: list.map(([, a]) => a) });
    }
    return out;
  };
  const time = async (label: string, items: readonly Item[]) => { const a = performance.now(); await store.writeAll(items, { parallel: 8 }); const s = (performance.now() - a) / 1000; console.log(label, items.length, 'items', s.toFixed(1), 's'); return s; };
  for (const round of [1, 2]) {
    const a = await time(`r${round} accounts`, acc(`a${round}`));
    const n = await time(`r${round} name items`, names(`n${round}`));
    const b = await time(`r${round} name blocks`, blocks(`b${round}`));
    console.log(`r${round}: accounts+names ${((a + n) / a).toFixed(2)}x accounts; accounts+blocks ${((a + b) / a).toFixed(2)}x`);
  }
} finally { await dyn.stop(); }
