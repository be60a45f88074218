import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ERROR_DETAILS_MAX, errorResponse } from '../../functions/core/http';
import { PayloadTooLargeError, ValidationError } from '../../functions/core/errors';
import { TOO_LARGE_MESSAGE, inflateRows, topLevelEntries } from '../../functions/bulk/compressed-rows';
import { bulkCreateBodySchema, MAX_ROWS_PER_REQUEST } from '../../shared/schemas/bulk';

/** Answers that must stay small and cheap whatever a client sends (review of issue 9). */
describe('error details are capped', () => {
  it('lists at most ERROR_DETAILS_MAX details and says how many there were', () => {
    const details = Array.from({ length: 150_000 }, (_, i) => ({ path: `csvData.${i}.firstName`, message: 'Invalid input' }));
    const result = errorResponse(new ValidationError('Invalid input', details));
    const body = JSON.parse(String(result.body)) as { details: unknown[]; detailsCount: number };
    expect(result.statusCode).toBe(400);
    expect(body.details).toHaveLength(ERROR_DETAILS_MAX);
    expect(body.detailsCount).toBe(150_000);
    expect(Buffer.byteLength(String(result.body))).toBeLessThan(64 * 1024);
  });

  it('leaves a short list as it is, without a count', () => {
    const body = JSON.parse(String(errorResponse(new ValidationError('x', [{ path: 'a', message: 'b' }])).body)) as Record<string, unknown>;
    expect(body).toEqual({ message: 'x', details: [{ path: 'a', message: 'b' }] });
  });
});

describe('gzipped rows are counted before they are parsed', () => {
  it.each([
    ['[]', 0],
    ['[{}]', 1],
    ['[{},{},{}]', 3],
    ['[ {"a":"x,y"} , {"b":"[\\"]"} ]', 2],
    ['[{"a":[1,2,3]},{"b":{"c":","}}]', 2],
    ['{"a":1}', 0],
  ])('%s has %i entries', (json, count) => {
    expect(topLevelEntries(json)).toBe(count);
  });

  it('refuses a million empty rows (under the 8 MB JSON cap) from a small request with 413, without building them', () => {
    const json = `[${Array.from({ length: 1_000_000 }, () => '{}').join(',')}]`;
    const csvDataGzip = gzipSync(json, { level: 9 }).toString('base64');
    expect(csvDataGzip.length).toBeLessThan(64 * 1024);
    const input = bulkCreateBodySchema.parse({ projectName: 'Bomb', csvDataGzip });
    const before = process.memoryUsage().heapUsed;
    expect(() => inflateRows(input)).toThrow(PayloadTooLargeError);
    expect(() => inflateRows(input)).toThrow(TOO_LARGE_MESSAGE);
    // Parsing 1M objects takes ~56 MB of heap (and rows built from them more); counting takes nothing noticeable.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(40 * 1024 * 1024);
  });

  it('still takes exactly the row limit', () => {
    const rows = Array.from({ length: MAX_ROWS_PER_REQUEST }, (_, i) => ({ firstName: 'A', lastName: 'B', email: `a${i}@example.com` }));
    const csvDataGzip = gzipSync(JSON.stringify(rows)).toString('base64');
    expect(inflateRows(bulkCreateBodySchema.parse({ projectName: 'Max', csvDataGzip })).csvData).toHaveLength(MAX_ROWS_PER_REQUEST);
  });
});
