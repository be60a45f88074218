import http from 'node:http';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RetryPolicy } from '../../functions/core/dynamo-retry';
import { putObject, type S3LinkSigner } from '../../functions/core/s3-links';
import { s3Uploads, type ExportUploadOptions } from '../../functions/exports/export-upload';

/**
 * The export worker's upload (functions/exports/export-upload.ts): the body written to a temporary
 * file, then one presigned PUT of it (core/s3-links.ts `putObject`), against a loopback server that
 * answers as S3 does. The URL's signature is checked byte for byte against the SDK in
 * s3-links.test.ts; the integration tests of exports run it against the S3 emulator.
 */
type Answer = number | 'drop' | 'hang';
const answers: Answer[] = [];
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let server: http.Server;
let signer: S3LinkSigner;
let directory: string;
const quick: RetryPolicy = { budgetMs: 5_000, baseMs: 1, capMs: 5 };

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? (request.method === 'DELETE' ? 204 : 200);
      if (answer === 'drop') return request.socket.destroy();
      if (answer === 'hang') return;
      const code = answer === 400 ? 'RequestTimeout' : answer === 403 ? 'SignatureDoesNotMatch' : answer >= 500 ? 'InternalError' : answer === 429 ? 'SlowDown' : undefined;
      response.writeHead(answer, code ? { 'content-type': 'application/xml' } : { etag: '"e"' });
      response.end(code ? `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>m</Message></Error>` : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  signer = { region: 'us-east-1', endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pathStyle: true, credentials: { accessKeyId: 'A', secretAccessKey: 'B' } };
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'export-upload-test-'));
  answers.length = 0;
  seen.length = 0;
});
afterEach(() => rm(directory, { recursive: true, force: true }));

const script = (...list: Answer[]) => answers.splice(0, answers.length, ...list);
const uploads = (options: ExportUploadOptions = {}) => s3Uploads('bulkonboard-exports', signer, { directory, policy: quick, ...options });
const file = { key: 'exports/user-1/0193.csv', contentType: 'text/csv; charset=utf-8', contentDisposition: 'attachment; filename="Cohort 2_accounts.csv"' };
const temporaryFiles = () => readdir(directory);
/** A body written a line at a time, as an export writer does. */
function written(lines: string[], end: (body: PassThrough) => void = (body) => body.end()): PassThrough {
  const body = new PassThrough();
  void (async () => {
    for (const line of lines) {
      if (!body.write(line)) await new Promise((resolve) => body.once('drain', resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    end(body);
  })();
  return body;
}
const lines = Array.from({ length: 2000 }, (_, i) => `row ${i},Ada,Lovelace,ada${i}@example.com\r\n`);
const text = lines.join('');
const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe('export upload: a temporary file, then one presigned PUT', () => {
  it('sends the whole file once, with its Content-Length, type and disposition, to the presigned URL; the temporary file is removed', async () => {
    await uploads().upload({ ...file, body: written(lines) }).done();
    expect(seen).toHaveLength(1);
    const [put] = seen;
    expect(put!.method).toBe('PUT');
    expect(put!.url).toMatch(/^\/bulkonboard-exports\/exports\/user-1\/0193\.csv\?X-Amz-Algorithm=AWS4-HMAC-SHA256&/);
    expect(put!.url).toContain('X-Amz-SignedHeaders=content-disposition%3Bhost');
    expect(put!.url).toContain('x-id=PutObject');
    expect(put!.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    expect(put!.headers['transfer-encoding']).toBeUndefined();
    expect(put!.headers['content-type']).toBe(file.contentType);
    expect(put!.headers['content-disposition']).toBe(file.contentDisposition);
    expect(put!.body).toBe(text);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('sends it again from its first byte after 5xx, 429, RequestTimeout and a dropped connection, then succeeds', async () => {
    script(503, 500, 429, 400, 'drop', 200);
    await uploads().upload({ ...file, body: written(lines) }).done();
    expect(seen).toHaveLength(6);
    for (const attempt of seen) {
      expect(attempt.body).toBe(text);
      expect(attempt.headers['content-length']).toBe(String(Buffer.byteLength(text)));
    }
    expect(await temporaryFiles()).toEqual([]);
  });

  it('gives up on an attempt that gets no answer within the idle timeout, and sends it again', async () => {
    script('hang', 200);
    await uploads({ idleTimeoutMs: 200 }).upload({ ...file, body: written(lines) }).done();
    expect(seen.map((call) => call.method)).toEqual(['PUT', 'PUT']);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('does not cut a body that takes longer than the idle timeout in all, as long as it keeps moving', async () => {
    const parts = Array.from({ length: 8 }, (_, i) => `part ${i}\n`);
    const slow = () =>
      Readable.from(
        (async function* () {
          for (const part of parts) {
            await new Promise((resolve) => setTimeout(resolve, 60));
            yield Buffer.from(part);
          }
        })(),
      );
    const started = Date.now();
    await putObject(signer, { bucket: 'bulkonboard-exports', key: file.key }, { open: slow, size: Buffer.byteLength(parts.join('')) }, { policy: quick, idleTimeoutMs: 200 });
    expect(Date.now() - started).toBeGreaterThan(400);
    expect(seen.map((call) => call.body)).toEqual([parts.join('')]);
  });

  it('fails at once on a refusal asking again cannot change (403), with S3 error code; the temporary file is removed', async () => {
    script(403);
    await expect(uploads().upload({ ...file, body: written(lines) }).done()).rejects.toThrow('S3 answered 403 (SignatureDoesNotMatch) to the PUT of an object');
    expect(seen).toHaveLength(1);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('fails when the retry budget is spent, the last answer as the cause; the temporary file is removed', async () => {
    script(...Array<Answer>(200).fill(503));
    const error = await uploads({ policy: { budgetMs: 30, baseMs: 5, capMs: 10 } })
      .upload({ ...file, body: written(lines) })
      .done()
      .catch((caught: unknown) => caught);
    expect(String((error as Error).cause)).toContain('S3 answered 503 to the PUT of an object');
    expect(await temporaryFiles()).toEqual([]);
  });

  it('sends nothing when the generation fails: the body ends with an error; the temporary file is removed', async () => {
    const failure = new Error('a page could not be read');
    const upload = uploads().upload({ ...file, body: written(lines.slice(0, 500), (body) => body.destroy(failure)) });
    await expect(upload.done()).rejects.toBe(failure);
    expect(seen).toEqual([]);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('a body that fails before the write takes it (the directory still being made) is that failure, not an uncaught error', async () => {
    const failure = new Error('the first page could not be read');
    const body = new PassThrough();
    const upload = uploads().upload({ ...file, body });
    body.destroy(failure);
    await new Promise((resolve) => setImmediate(resolve));
    await expect(upload.done()).rejects.toBe(failure);
    expect(seen).toEqual([]);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('abort while the file is written: done() rejects with an AbortError, nothing is sent, the temporary file is removed', async () => {
    const body = new PassThrough();
    const upload = uploads().upload({ ...file, body });
    const done = upload.done();
    body.write(text);
    await waitFor(() => body.readableLength === 0);
    expect(await temporaryFiles()).toHaveLength(1);
    await upload.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([]);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('abort while the PUT waits for S3: the request is cut, not sent again, the key deleted (S3 may have stored the whole body), the temporary file removed', async () => {
    script('hang');
    const upload = uploads().upload({ ...file, body: written(lines) });
    const done = upload.done();
    await waitFor(() => seen.length === 1);
    await upload.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.map((call) => call.method)).toEqual(['PUT', 'DELETE']);
    expect(seen[1]!.url).toMatch(/^\/bulkonboard-exports\/exports\/user-1\/0193\.csv\?.*x-id=DeleteObject/);
    expect(await temporaryFiles()).toEqual([]);
  });

  it('abort after done() resolved leaves the stored file alone; abort before done() sends nothing', async () => {
    const upload = uploads().upload({ ...file, body: written(lines) });
    await upload.done();
    await upload.abort();
    expect(seen.map((call) => call.method)).toEqual(['PUT']);
    const early = uploads().upload({ ...file, body: written(lines) });
    await early.abort();
    await expect(early.done()).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.map((call) => call.method)).toEqual(['PUT']);
    expect(await temporaryFiles()).toEqual([]);
  });

  it("removes what an upload cut off by a timeout left (older than 15 minutes), not a file another upload is writing, nor another program's", async () => {
    const old = path.join(directory, 'bulkonboard-export-left-by-a-timeout.part');
    const recent = path.join(directory, 'bulkonboard-export-another-process.part');
    // The files sit straight in the temporary folder, beside other programs' (an old one of theirs stays).
    const foreign = path.join(directory, 'someone-else.part');
    await writeFile(old, 'x');
    await writeFile(recent, 'y');
    await writeFile(foreign, 'z');
    const past = new Date(Date.now() - 16 * 60_000);
    await utimes(old, past, past);
    await utimes(foreign, past, past);
    await uploads().upload({ ...file, body: written(lines) }).done();
    expect((await temporaryFiles()).sort()).toEqual(['bulkonboard-export-another-process.part', 'someone-else.part']);
  });

  it('removes a file: DeleteObject over a presigned URL, asked again after 503', async () => {
    script(503, 204);
    await uploads().remove(file.key);
    expect(seen.map((call) => call.method)).toEqual(['DELETE', 'DELETE']);
  });
});
