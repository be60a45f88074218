import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { isIP } from 'node:net';
import { Readable, Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { formatUrl } from '@aws-sdk/core/util';
import { HttpRequest } from '@smithy/core/protocols';
import { createScope, getSigningKey, SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
import { s3PathStyle } from './clients';
import { requestRetry, withRetry, workerRetry, type RetryPolicy } from './dynamo-retry';
import { logger } from './logger';

/**
 * Presigned GET links to S3 objects, signed with SigV4 alone (no S3 client): the functions that only
 * hand out links (a profile photo, an export file) do not carry the S3 client's ~120 KB (its
 * operation schemas, endpoint rules and XML protocol) in their bundles (issue 29, item 5). The same
 * signing serves HEAD, GET, DELETE and PUT calls sent with `fetch` (an upload's size, its bytes, its
 * removal; the export worker's file) and the POST form of an upload.
 *
 * The link is the one the SDK's `getSignedUrl(s3Client, new GetObjectCommand(...))` makes, byte for
 * byte (test/unit/s3-links.test.ts signs the same requests both ways at one instant, in us-east-1
 * and another region, virtual-hosted and path-style, a bucket with a dot, keys with spaces, plus
 * signs and non-ASCII): the endpoint the SDK's rules pick (`https://<bucket>.s3.<region>.amazonaws.com`,
 * path-style for a bucket that is not a DNS label or when `S3_FORCE_PATH_STYLE` is set, and
 * `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` locally), the same query members (`x-id=GetObject`,
 * `x-amz-checksum-mode=ENABLED`), the payload unsigned, only `host` signed. Not covered: FIPS or
 * dual-stack endpoints, S3 Express buckets, access points, the isolated partitions (none is used
 * here). Keys are generated (`uploads/<sub>/<id>`...): a key with `.` or `..` segments would be
 * collapsed by fetch's URL parser after signing.
 */

/** What a link is signed with: the region, the credentials, where S3 is, and the clock. */
export interface S3LinkSigner {
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** A custom endpoint (the local emulator): `http://127.0.0.1:4569`. */
  endpoint?: string;
  pathStyle: boolean;
  now?: () => Date;
}

export interface S3GetLink {
  bucket: string;
  key: string;
  expiresIn: number;
  /** Headers S3 answers with instead of the stored ones. */
  responseContentType?: string;
  responseContentDisposition?: string;
}

/** SHA-256 and HMAC-SHA-256 for the signer, from node:crypto (what @smithy/hash-node does). */
class Sha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBytes(this.secret));
  }
  update(data: Uint8Array | string): void {
    this.hash.update(toBytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

function toBytes(data: SourceData): Uint8Array | string {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/** RFC 3986 encoding of one path segment or query value, as the SDK does (`!'()*` too). */
const encode = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A bucket name S3 serves as a host name (virtual-hosted style): a DNS label, no dots. */
const virtualHostable = (bucket: string) => /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket) && !/^\d+\.\d+\.\d+\.\d+$/.test(bucket);

/**
 * The DNS suffix of the region's partition: `amazonaws.com` (aws, aws-us-gov), `amazonaws.com.cn`
 * (China). The isolated partitions (us-iso, us-isob, eu-isoe...) are refused rather than guessed.
 */
function partitionDomain(region: string): string {
  if (region.startsWith('cn-')) return 'amazonaws.com.cn';
  if (/^[a-z]{2}-iso[a-z]?-/.test(region)) throw new Error(`S3 links are not made for the isolated region ${region}`);
  return 'amazonaws.com';
}

/** Where a request goes: host, port, protocol, the path of the object and of the bucket. */
function location(signer: S3LinkSigner, bucket: string, key: string) {
  const objectPath = key
    .split('/')
    .map((segment) => encode(segment))
    .join('/');
  if (signer.endpoint) {
    const url = new URL(signer.endpoint);
    const base = url.pathname.replace(/\/$/, '');
    // An endpoint that is an IP address takes no bucket in front of it: path-style, as the SDK does (a name, localhost too, is virtual-hosted).
    const virtual = !signer.pathStyle && virtualHostable(bucket) && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0;
    return {
      protocol: url.protocol,
      hostname: virtual ? `${bucket}.${url.hostname}` : url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: virtual ? `${base}/${objectPath}` : `${base}/${bucket}/${objectPath}`,
      bucketPath: virtual ? `${base}/` : `${base}/${bucket}`,
    };
  }
  const virtual = !signer.pathStyle && virtualHostable(bucket);
  const domain = partitionDomain(signer.region);
  return {
    protocol: 'https:',
    hostname: virtual ? `${bucket}.s3.${signer.region}.${domain}` : `s3.${signer.region}.${domain}`,
    port: undefined,
    path: virtual ? `/${objectPath}` : `/${bucket}/${objectPath}`,
    bucketPath: virtual ? '/' : `/${bucket}`,
  };
}

/** A presigned GET of `link.key`, valid `link.expiresIn` seconds (what `getSignedUrl` makes of a GetObjectCommand). */
export function presignedGetUrl(signer: S3LinkSigner, link: S3GetLink): Promise<string> {
  const query: Record<string, string> = { 'x-id': 'GetObject' };
  if (link.responseContentDisposition !== undefined) query['response-content-disposition'] = link.responseContentDisposition;
  if (link.responseContentType !== undefined) query['response-content-type'] = link.responseContentType;
  return presign(signer, 'GET', link.bucket, link.key, link.expiresIn, query, { 'x-amz-checksum-mode': 'ENABLED' });
}

/** A presigned HEAD of `key` (what `getSignedUrl` makes of a HeadObjectCommand). */
export const presignedHeadUrl = (signer: S3LinkSigner, bucket: string, key: string, expiresIn: number): Promise<string> => presign(signer, 'HEAD', bucket, key, expiresIn, {}, {});

/** A presigned DELETE of `key` (what `getSignedUrl` makes of a DeleteObjectCommand). */
export const presignedDeleteUrl = (signer: S3LinkSigner, bucket: string, key: string, expiresIn: number): Promise<string> => presign(signer, 'DELETE', bucket, key, expiresIn, { 'x-id': 'DeleteObject' }, {});

/** What a presigned PUT stores: the object's headers S3 keeps and answers its GETs with. */
export interface S3PutLink {
  bucket: string;
  key: string;
  expiresIn: number;
  contentType?: string;
  contentDisposition?: string;
}

/**
 * A presigned PUT of `link.key` (what `getSignedUrl` makes of a PutObjectCommand with ContentType
 * and ContentDisposition, from a client with `requestChecksumCalculation: 'WHEN_REQUIRED'`). The
 * request must carry both headers: content-disposition is signed (in X-Amz-SignedHeaders, as a
 * header, not in the query), content-type is not signed (the SDK's presigner leaves it out), and
 * neither is hoisted into the URL. A client left at its default (WHEN_SUPPORTED) also puts
 * `x-amz-sdk-checksum-algorithm=CRC32&x-amz-checksum-crc32=AAAAAA==` in the URL, the CRC32 of an
 * empty body, which a real file does not match (aws-sdk-js-v3 issue 6994): not made here.
 */
export function presignedPutUrl(signer: S3LinkSigner, link: S3PutLink): Promise<string> {
  return presign(signer, 'PUT', link.bucket, link.key, link.expiresIn, { 'x-id': 'PutObject' }, storedHeaders(link));
}

/** The headers S3 keeps with a PUT's object: what the URL is signed for and what the request sends. */
function storedHeaders(link: Pick<S3PutLink, 'contentType' | 'contentDisposition'>): Record<string, string> {
  return {
    ...(link.contentType !== undefined ? { 'content-type': link.contentType } : {}),
    ...(link.contentDisposition !== undefined ? { 'content-disposition': link.contentDisposition } : {}),
  };
}

/** An answer of S3 worth asking again (5xx, 429 SlowDown), or a request that never got one. */
class S3Unavailable extends Error {
  constructor(what: string, status?: number) {
    super(status === undefined ? `S3 did not answer the ${what}` : `S3 answered ${status} to the ${what}`);
    this.name = 'S3Unavailable';
  }
}

/**
 * How long one attempt waits for S3's answer (its headers; a body streams as long as it takes)
 * before it is given up and, within the budget, asked again: well inside the request retry budget
 * (8 s) and the shortest API function's timeout (10 s), so a hanging S3 is retried, not cut off
 * by Lambda.
 */
const CALL_TIMEOUT_MS = 3_000;

/** One S3 call over a presigned URL (signed afresh for each attempt), retried within `policy` when S3 is unavailable. */
async function call(what: string, method: 'GET' | 'HEAD' | 'DELETE', presigned: () => Promise<string>, policy: RetryPolicy, headers: Record<string, string> = {}): Promise<Response> {
  return withRetry(what, policy, (error) => error instanceof S3Unavailable, async () => {
    const url = await presigned();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), CALL_TIMEOUT_MS);
    let answer: Response;
    try {
      answer = await fetch(url, { method, headers, signal: abort.signal });
    } catch {
      throw new S3Unavailable(what);
    } finally {
      clearTimeout(timer);
    }
    // Only a GET's object is read (HEAD has no body; an error's XML says no more than its status here).
    if (method !== 'GET' || !answer.ok) await answer.body?.cancel();
    if (answer.status >= 500 || answer.status === 429) throw new S3Unavailable(what, answer.status);
    return answer;
  });
}

/**
 * An object's bytes as they arrive (never the whole object in memory) and its ETag; with
 * `ifMatch`, only that version of it: undefined when it was replaced since (412). GetObject over a
 * presigned URL (the If-Match header is not signed: S3 takes standard headers beside a presigned
 * URL's signed ones).
 */
export async function getObject(signer: S3LinkSigner, bucket: string, key: string, options: { ifMatch?: string } = {}, policy: RetryPolicy = requestRetry): Promise<{ body: Readable; etag?: string } | undefined> {
  const answer = await call('GET of an object', 'GET', () => presignedGetUrl(signer, { bucket, key, expiresIn: 60 }), policy, options.ifMatch ? { 'if-match': options.ifMatch } : {});
  if (answer.status === 412) return undefined;
  if (!answer.ok || !answer.body) throw new Error(`S3 answered ${answer.status} to the GET of an object`);
  return { body: Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>), etag: answer.headers.get('etag') ?? undefined };
}

/**
 * The size of an object, or undefined when there is none (404; 403 too: without s3:ListBucket,
 * which the functions are not granted, S3 answers a missing key with 403). HeadObject over a
 * presigned URL, as the S3 client would send it.
 */
export async function headObjectSize(signer: S3LinkSigner, bucket: string, key: string, policy: RetryPolicy = requestRetry): Promise<number | undefined> {
  const answer = await call('HEAD of an object', 'HEAD', () => presignedHeadUrl(signer, bucket, key, 60), policy);
  if (answer.status === 403) {
    // Also what a refused signature or a skewed clock answers: said in the log, as a missing file to the user.
    logger.warn('S3 answered 403 to a HEAD: taken as no object (no s3:ListBucket), unless the signature was refused', { requestId: answer.headers.get('x-amz-request-id') ?? undefined });
    return undefined;
  }
  if (answer.status === 404) return undefined;
  if (!answer.ok) throw new Error(`S3 answered ${answer.status} to the HEAD of an object`);
  return Number(answer.headers.get('content-length') ?? 0);
}

/** Deletes an object (S3 answers 204 whether or not it was there). DeleteObject over a presigned URL. */
export async function deleteObject(signer: S3LinkSigner, bucket: string, key: string, policy: RetryPolicy = requestRetry): Promise<void> {
  const answer = await call('DELETE of an object', 'DELETE', () => presignedDeleteUrl(signer, bucket, key, 60), policy);
  if (!answer.ok) throw new Error(`S3 answered ${answer.status} to the DELETE of an object`);
}

/**
 * How long a PUT's attempt may go without anything moving: no byte of the body taken by the
 * connection, or, once the last one was, no answer from S3. Not a deadline for the whole attempt:
 * a 300 MB file takes as long as the network needs (it never fits CALL_TIMEOUT_MS, nor a fixed
 * budget scaled by a guessed bandwidth), but a connection that stalls, or an S3 that takes the
 * whole body and never answers, is given up after this long and the file sent again. S3 reads a
 * PUT's body as it comes and answers within a second or two of the last byte; 15 s is a tenth of
 * the export worker's 150 s.
 */
export const PUT_IDLE_TIMEOUT_MS = 15_000;

/** The file a PUT sends: opened afresh (from its first byte) for each attempt, and its exact size. */
export interface S3PutBody {
  open: () => Readable;
  size: number;
}

/**
 * Stores `body` at `link.key` with one PUT over a presigned URL (signed afresh for each attempt),
 * with an explicit Content-Length (S3 takes no chunked body on a plain PUT). Asked again within
 * `policy` after 5xx, 429 (SlowDown), S3's 400 RequestTimeout (it gave up reading a slow body),
 * a dropped connection or PUT_IDLE_TIMEOUT_MS without progress, the body read again from the start.
 * `signal` stops it at once (the request is cut, no retry follows) and it rejects with the
 * signal's reason: S3 stores nothing from a body cut short, but may have stored one it had whole
 * before the cut (export-upload.ts deletes the key then).
 */
export async function putObject(
  signer: S3LinkSigner,
  link: Omit<S3PutLink, 'expiresIn'>,
  body: S3PutBody,
  options: { policy?: RetryPolicy; signal?: AbortSignal; idleTimeoutMs?: number } = {},
): Promise<void> {
  const what = 'PUT of an object';
  const { signal, idleTimeoutMs = PUT_IDLE_TIMEOUT_MS } = options;
  const headers: Record<string, string> = { 'content-length': String(body.size), ...storedHeaders(link) };
  const policy = options.policy ?? workerRetry;
  // The wait between attempts ends with the signal too.
  const abortable: RetryPolicy = { ...policy, sleep: policy.sleep ?? ((ms) => sleep(ms, undefined, signal ? { signal } : undefined)) };
  await withRetry(what, abortable, (error) => error instanceof S3Unavailable, async () => {
    signal?.throwIfAborted();
    // Valid for 5 minutes: S3 checks it when the request starts, however long the body then takes.
    const url = await presignedPutUrl(signer, { ...link, expiresIn: 300 });
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    signal?.addEventListener('abort', stop, { once: true });
    let idle: NodeJS.Timeout | undefined;
    const moved = () => {
      clearTimeout(idle);
      idle = setTimeout(stop, idleTimeoutMs);
    };
    const file = body.open();
    // Each chunk the connection takes (and the body's end) restarts the wait.
    const watched = file.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          moved();
          callback(null, chunk);
        },
        flush(callback) {
          moved();
          callback();
        },
      }),
    );
    file.once('error', (error) => watched.destroy(error));
    try {
      let answer: Response;
      let code: string | undefined;
      try {
        moved();
        answer = await fetch(url, { method: 'PUT', headers, body: Readable.toWeb(watched) as ReadableStream<Uint8Array>, duplex: 'half', signal: attempt.signal } as RequestInit);
        // S3's error code (a few hundred bytes of XML): RequestTimeout is asked again, the rest told.
        code = answer.ok ? undefined : /<Code>([^<]*)<\/Code>/.exec(await answer.text())?.[1];
      } catch {
        if (signal?.aborted) throw signal.reason;
        // A refused or dropped connection, or the wait above given up.
        throw new S3Unavailable(what);
      }
      if (answer.status >= 500 || answer.status === 429 || code === 'RequestTimeout') throw new S3Unavailable(what, answer.status);
      if (!answer.ok) throw new Error(`S3 answered ${answer.status}${code ? ` (${code})` : ''} to the ${what}`);
      await answer.body?.cancel();
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', stop);
      file.destroy();
      watched.destroy();
    }
  });
}

async function presign(signer: S3LinkSigner, method: string, bucket: string, key: string, expiresIn: number, query: Record<string, string>, headers: Record<string, string>): Promise<string> {
  const where = location(signer, bucket, key);
  const request = new HttpRequest({
    protocol: where.protocol,
    hostname: where.hostname,
    port: where.port,
    path: where.path,
    method,
    query,
    headers: { host: `${where.hostname}${where.port !== undefined ? `:${where.port}` : ''}`, ...headers, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
  });
  const sigv4 = new SignatureV4({ service: 's3', region: signer.region, credentials: signer.credentials, sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  const presigned = await sigv4.presign(request, { expiresIn, signingDate: signer.now?.() ?? new Date(), unsignableHeaders: new Set(['content-type']) });
  return formatUrl(presigned);
}

/** The form of a browser POST straight to the bucket (what `createPresignedPost` makes). */
export interface S3PostForm {
  url: string;
  fields: Record<string, string>;
}

/**
 * A presigned POST form for `key`: the policy (expiry and `conditions`, then the fields, bucket and
 * key, in that order) signed with the day's SigV4 key, as `@aws-sdk/s3-presigned-post` does.
 */
export async function presignedPost(signer: S3LinkSigner, form: { bucket: string; key: string; conditions: unknown[]; fields?: Record<string, string>; expiresIn: number }): Promise<S3PostForm> {
  const now = signer.now?.() ?? new Date();
  const iso = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const amzDate = iso(now).replace(/[-:]/g, '');
  const day = amzDate.slice(0, 8);
  const credentials = typeof signer.credentials === 'function' ? await signer.credentials() : signer.credentials;
  const fields: Record<string, string> = {
    ...form.fields,
    bucket: form.bucket,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${credentials.accessKeyId}/${createScope(day, signer.region, 's3')}`,
    'X-Amz-Date': amzDate,
    ...(credentials.sessionToken ? { 'X-Amz-Security-Token': credentials.sessionToken } : {}),
  };
  const conditions = new Set<string>();
  for (const condition of form.conditions) conditions.add(JSON.stringify(condition));
  for (const [name, value] of Object.entries(fields)) conditions.add(JSON.stringify({ [name]: value }));
  conditions.add(JSON.stringify({ key: form.key }));
  const policy = Buffer.from(JSON.stringify({ expiration: iso(new Date(now.getTime() + form.expiresIn * 1000)), conditions: [...conditions].map((item) => JSON.parse(item) as unknown) }), 'utf8').toString('base64');
  const signingKey = await getSigningKey(Sha256, credentials, day, signer.region, 's3');
  const hmac = new Sha256(signingKey);
  hmac.update(policy);
  const signature = Buffer.from(await hmac.digest()).toString('hex');
  // The form posts to the bucket's address (virtual-hosted: the host and '/'; path-style: '/<bucket>').
  const where = location(signer, form.bucket, form.key);
  const url = `${where.protocol}//${where.hostname}${where.port !== undefined ? `:${where.port}` : ''}${where.bucketPath}`;
  return { url, fields: { ...fields, key: form.key, Policy: policy, 'X-Amz-Signature': signature } };
}

let defaultSigner: S3LinkSigner | undefined;
/**
 * The signer of this process: the region, endpoint and credentials the SDK's clients resolve from
 * the environment (the Lambda role's; the local stack's emulator and keys), created once.
 */
export function s3LinkSigner(): S3LinkSigner {
  defaultSigner ??= {
    region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    credentials: defaultProvider(),
    endpoint: process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL,
    pathStyle: s3PathStyle(),
  };
  return defaultSigner;
}
