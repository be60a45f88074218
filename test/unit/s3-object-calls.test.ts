import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteObject, getObject, headObjectSize, type S3LinkSigner } from '../../functions/core/s3-links';
import type { RetryPolicy } from '../../functions/core/dynamo-retry';

/**
 * HeadObject and DeleteObject over presigned URLs (functions/core/s3-links.ts), against a loopback
 * server that answers as S3 does (status codes only; the signatures are checked byte for byte
 * against the SDK in s3-links.test.ts, and the calls run against the S3 emulator in the
 * integration tests of uploads): what each answer means, and which are asked again.
 */
const answers: number[] = [];
const seen: { method: string; url: string; ifMatch?: string }[] = [];
/** The object a GET answers with: 3 chunks, written one after the other. */
const chunks = ['first,last,email\n', 'Ada,Lovelace,ada@example.com\n', 'Alan,Turing,alan@example.com\n'];
let server: http.Server;
let signer: S3LinkSigner;
const quick: RetryPolicy = { budgetMs: 5_000, baseMs: 1, capMs: 5 };

beforeAll(async () => {
  server = http.createServer((request, response) => {
    seen.push({ method: request.method!, url: request.url!, ...(request.headers['if-match'] ? { ifMatch: String(request.headers['if-match']) } : {}) });
    const status = answers.shift() ?? 200;
    if (status === -1) return request.socket.destroy();
    if (request.method === 'GET' && status === 200) {
      response.writeHead(200, { etag: '"v1"', 'content-type': 'text/csv' });
      const rest = [...chunks];
      const next = () => (rest.length ? response.write(rest.shift(), () => setTimeout(next, 5)) : response.end());
      return next();
    }
    response.writeHead(status, status === 200 ? { 'content-length': '1234' } : { 'content-type': 'application/xml' });
    response.end(status === 200 || status === 204 || request.method === 'HEAD' ? undefined : '<Error><Code>X</Code></Error>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  signer = { region: 'us-east-1', endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pathStyle: true, credentials: { accessKeyId: 'A', secretAccessKey: 'B' } };
});
afterAll(() => new Promise<void>((resolve) => {
  server.closeAllConnections();
  server.close(() => resolve());
}));

const script = (...statuses: number[]) => {
  answers.splice(0, answers.length, ...statuses);
  seen.length = 0;
};

describe('S3 calls over presigned URLs', () => {
  it('HEAD: the size from Content-Length; 404 and 403 (a missing key without ListBucket) are no object', async () => {
    script(200);
    expect(await headObjectSize(signer, 'bucket-1', 'uploads/u/a b.csv', quick)).toBe(1234);
    expect(seen).toEqual([{ method: 'HEAD', url: expect.stringMatching(/^\/bucket-1\/uploads\/u\/a%20b\.csv\?X-Amz-Algorithm=AWS4-HMAC-SHA256&/) as unknown as string }]);
    script(404);
    expect(await headObjectSize(signer, 'bucket-1', 'k', quick)).toBeUndefined();
    script(403);
    expect(await headObjectSize(signer, 'bucket-1', 'k', quick)).toBeUndefined();
  });

  it('asks again after 5xx, 429 (SlowDown) and a dropped connection, then answers', async () => {
    script(503, 500, 429, -1, 200);
    expect(await headObjectSize(signer, 'bucket-1', 'k', quick)).toBe(1234);
    expect(seen).toHaveLength(5);
    script(503, 204);
    await deleteObject(signer, 'bucket-1', 'k', quick);
    expect(seen.map((call) => call.method)).toEqual(['DELETE', 'DELETE']);
    expect(seen[1]!.url).toContain('x-id=DeleteObject');
  });

  it('a refusal that asking again cannot change fails at once: 400, and 403 on a DELETE', async () => {
    script(400);
    await expect(headObjectSize(signer, 'bucket-1', 'k', quick)).rejects.toThrow('S3 answered 400 to the HEAD of an object');
    expect(seen).toHaveLength(1);
    script(403);
    await expect(deleteObject(signer, 'bucket-1', 'k', quick)).rejects.toThrow('S3 answered 403 to the DELETE of an object');
    expect(seen).toHaveLength(1);
  });

  it('GET: the bytes as they arrive and the ETag; If-Match sent, 412 (replaced since) is no object, a missing key fails', async () => {
    script(503, 200);
    const object = await getObject(signer, 'bucket-1', 'uploads/u/a.csv', { ifMatch: '"v1"' }, quick);
    const parts: string[] = [];
    for await (const part of object!.body) parts.push(Buffer.from(part as Uint8Array).toString('utf8'));
    expect(parts.join('')).toBe(chunks.join(''));
    expect(object!.etag).toBe('"v1"');
    expect(seen.map((call) => [call.method, call.ifMatch])).toEqual([['GET', '"v1"'], ['GET', '"v1"']]);
    expect(seen[1]!.url).toContain('x-id=GetObject');
    script(412);
    expect(await getObject(signer, 'bucket-1', 'k', { ifMatch: '"v0"' }, quick)).toBeUndefined();
    script(404);
    await expect(getObject(signer, 'bucket-1', 'k', {}, quick)).rejects.toThrow('S3 answered 404 to the GET of an object');
  });

  it('GET: a reader that stops early destroys the body (the connection is not left open)', async () => {
    script(200);
    const object = await getObject(signer, 'bucket-1', 'k', {}, quick);
    for await (const part of object!.body) {
      expect(Buffer.from(part as Uint8Array).toString('utf8')).toBe(chunks[0]);
      break;
    }
    expect(object!.body.destroyed).toBe(true);
  });

  it('gives up when the retry budget is spent, with the last answer as the cause', async () => {
    script(...Array<number>(200).fill(503));
    const error = await headObjectSize(signer, 'bucket-1', 'k', { budgetMs: 30, baseMs: 5, capMs: 10 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).cause)).toContain('S3 answered 503 to the HEAD of an object');
  });
});
