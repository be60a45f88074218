import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { batchesOf, BATCH_MAX_BYTES, CHUNK_MAX_BYTES, CHUNK_ROWS, CHUNK_WINDOW, chunkBodies, chunkBodiesOfAsync } from '../../functions/bulk/bulk-jobs';
import { writesPerCall } from '../../functions/bulk/process-chunk';
import type { BulkChunkMessage } from '../../functions/bulk/bulk-chunk';
import { inflateRows, NOT_GZIP_MESSAGE, ROWS_TOO_LARGE_MESSAGE } from '../../functions/bulk/compressed-rows';
import { bulkCreateBodySchema, REQUEST_ROWS_JSON_MAX_BYTES } from '../../shared/schemas/bulk';

const message = (chunk: number, rows: BulkChunkMessage['rows']): BulkChunkMessage => ({
  userId: 'u',
  jobId: 'j',
  projectId: 'p',
  projectName: 'Project',
  accountType: 'Standard User',
  createdAt: '2026-01-01T00:00:00.000Z',
  passwordSettings: { minLength: 12, includeUppercase: true, includeLowercase: true, includeNumbers: true, includeSpecialChars: true, avoidAmbiguous: false },
  existingAccounts: 0,
  chunk,
  rows,
});
const rows = (count: number, width: number) =>
  Array.from({ length: count }, (_, i) => ({ row: i + 1, firstName: 'F'.repeat(width), lastName: 'L'.repeat(width), email: `${'e'.repeat(width)}${i}@example.com`, base: `b${i}`, k: 0 }));

describe('bulk job chunks', () => {
  it('are the same bodies when the rows arrive over time', async () => {
    async function* arriving() {
      for (const row of rows(1234, 50)) {
        await Promise.resolve();
        yield row;
      }
    }
    const bodies: { chunk: number; body: string }[] = [];
    for await (const { chunk, body } of chunkBodiesOfAsync(arriving(), message)) bodies.push({ chunk, body });
    expect(bodies).toEqual(chunkBodies(rows(1234, 50), message));
    expect(bodies).toHaveLength(3);
  });

  it('keeps every row once, in order, in chunks of at most 500 rows and 200 KB', () => {
    for (const [count, width] of [
      [1, 5],
      [1234, 5],
      [20_000, 100],
    ] as const) {
      const bodies = chunkBodies(rows(count, width), message);
      const parsed = bodies.map((b) => JSON.parse(b.body) as BulkChunkMessage);
      expect(parsed.flatMap((m) => m.rows.map((r) => r.row))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      expect(parsed.map((m) => m.chunk)).toEqual(bodies.map((_, i) => i));
      for (const body of bodies) expect(Buffer.byteLength(body.body)).toBeLessThanOrEqual(CHUNK_MAX_BYTES);
      for (const m of parsed) expect(m.rows.length).toBeLessThanOrEqual(CHUNK_ROWS);
    }
    // Short rows fill whole 500-row chunks; long ones make smaller chunks.
    expect(chunkBodies(rows(1234, 5), message)).toHaveLength(3);
    expect(chunkBodies(rows(20_000, 300), message).length).toBeGreaterThan(40);
  });

  it('groups messages into SendMessageBatch calls of at most 10 entries and 250 KB', () => {
    for (const width of [5, 100]) {
      const bodies = chunkBodies(rows(20_000, width), message);
      const batches = batchesOf(bodies);
      expect(batches.flat()).toEqual(bodies);
      for (const batch of batches) {
        expect(batch.length).toBeLessThanOrEqual(10);
        expect(batch.reduce((sum, b) => sum + Buffer.byteLength(b.body), 0)).toBeLessThanOrEqual(BATCH_MAX_BYTES);
      }
    }
  });
});

describe('csvDataGzip', () => {
  const body = (csvDataGzip: string) => bulkCreateBodySchema.parse({ projectName: 'P', csvDataGzip });
  const gz = (value: unknown) => gzipSync(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');

  it('becomes csvData, checked like csvData', () => {
    const people = [{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }];
    const input = inflateRows(body(gz(people)));
    expect(input.csvData).toEqual(people);
    expect(input.csvDataGzip).toBeUndefined();
    expect(() => inflateRows(body(gz([])))).toThrow(expect.objectContaining({ statusCode: 400, message: 'At least one account is required' }));
  });

  it('refuses what is not gzipped JSON rows with 400', () => {
    expect(() => inflateRows(body(Buffer.from('plain text').toString('base64')))).toThrow(expect.objectContaining({ statusCode: 400, message: NOT_GZIP_MESSAGE }));
    expect(() => inflateRows(body(gz('{not json')))).toThrow(expect.objectContaining({ statusCode: 400, message: NOT_GZIP_MESSAGE }));
    expect(() => inflateRows(body(gz({ rows: 1 })))).toThrow(expect.objectContaining({ statusCode: 400 }));
    expect(bulkCreateBodySchema.safeParse({ projectName: 'P', csvDataGzip: 'not base64!' }).success).toBe(false);
    expect(bulkCreateBodySchema.safeParse({ projectName: 'P', csvDataGzip: gz([]), csvData: [] }).success).toBe(false);
  });

  it('stops a decompression bomb at the limit with 413', () => {
    const bomb = gzipSync(Buffer.alloc(REQUEST_ROWS_JSON_MAX_BYTES + 1024, 0x20)).toString('base64');
    expect(bomb.length).toBeLessThan(200_000);
    expect(() => inflateRows(body(bomb))).toThrow(expect.objectContaining({ statusCode: 413 }));
  });

  it('sends rows past the measured 8 MB of JSON to the upload path in words (413), and takes them just under it (issue 29, item 4: 46 MB used to pass, 577 MB in a 512 MB function)', () => {
    const rows = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ firstName: `F${i}`, lastName: 'L', email: `p${i}@example.com`, attributes: { Department: `Engineering ${i % 40}`.padEnd(150, '.') } }));
    const over = rows(40_000);
    expect(JSON.stringify(over).length).toBeGreaterThan(REQUEST_ROWS_JSON_MAX_BYTES);
    expect(() => inflateRows(body(gz(over)))).toThrow(expect.objectContaining({ statusCode: 413, message: ROWS_TOO_LARGE_MESSAGE }));
    expect(ROWS_TOO_LARGE_MESSAGE).toBe('These rows are more than 8 MB as JSON, too large for one request: upload the file instead (POST /api/bulk-uploads takes up to 250,000 rows and 50 MB).');
    const under = rows(30_000);
    expect(JSON.stringify(under).length).toBeLessThan(REQUEST_ROWS_JSON_MAX_BYTES);
    expect(inflateRows(body(gz(under))).csvData).toHaveLength(30_000);
  });
});

describe('write share per job (writesPerCall)', () => {
  it('gives a job of fewer chunks or a chunk of fewer lanes the calls the missing ones would have had', () => {
    // The large job: CHUNK_WINDOW chunks in flight, 3 lanes each, one call a lane.
    expect(writesPerCall({ chunks: 500 })).toBe(1);
    expect(writesPerCall({ chunks: CHUNK_WINDOW }, 3)).toBe(1);
    // Its last, short chunk does not take more than its lanes' share.
    expect(writesPerCall({ chunks: 500 }, 1)).toBe(3);
    // A one-chunk job of 100 rows (one lane) writes as many calls at once as the large job's whole window.
    expect(writesPerCall({ chunks: 1 }, 1)).toBe(3 * CHUNK_WINDOW);
    expect(writesPerCall({ chunks: 1 }, 3)).toBe(CHUNK_WINDOW);
    expect(writesPerCall({ chunks: 2 }, 3)).toBe(Math.max(1, Math.floor((3 * CHUNK_WINDOW) / 6)));
    // A job item without a chunk count (an older job, or none read): the large job's share.
    expect(writesPerCall(undefined)).toBe(1);
    expect(writesPerCall({ chunks: 'x' }, 3)).toBe(1);
  });
});
