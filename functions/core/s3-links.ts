import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { formatUrl } from '@aws-sdk/core/util';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
import { s3PathStyle } from './clients';

/**
 * Presigned GET links to S3 objects, signed with SigV4 alone (no S3 client): the functions that only
 * hand out links (a profile photo, an export file) do not carry the S3 client's ~120 KB (its
 * operation schemas, endpoint rules and XML protocol) in their bundles (issue 29, item 5).
 *
 * The link is the one the SDK's `getSignedUrl(s3Client, new GetObjectCommand(...))` makes, byte for
 * byte (test/unit/s3-links.test.ts signs the same requests both ways at one instant, in us-east-1
 * and another region, virtual-hosted and path-style, a bucket with a dot, keys with spaces, plus
 * signs and non-ASCII): the endpoint the SDK's rules pick (`https://<bucket>.s3.<region>.amazonaws.com`,
 * path-style for a bucket that is not a DNS label or when `S3_FORCE_PATH_STYLE` is set, and
 * `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` locally), the same query members (`x-id=GetObject`,
 * `x-amz-checksum-mode=ENABLED`), the payload unsigned, only `host` signed. Not covered: FIPS or
 * dual-stack endpoints, S3 Express buckets, access points (none is used here).
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

/** Where the GET goes: host, port, protocol and the path of the object. */
function location(signer: S3LinkSigner, bucket: string, key: string) {
  const objectPath = key
    .split('/')
    .map((segment) => encode(segment))
    .join('/');
  if (signer.endpoint) {
    const url = new URL(signer.endpoint);
    const base = url.pathname.replace(/\/$/, '');
    const virtual = !signer.pathStyle && virtualHostable(bucket);
    return {
      protocol: url.protocol,
      hostname: virtual ? `${bucket}.${url.hostname}` : url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: virtual ? `${base}/${objectPath}` : `${base}/${bucket}/${objectPath}`,
    };
  }
  const virtual = !signer.pathStyle && virtualHostable(bucket);
  return {
    protocol: 'https:',
    hostname: virtual ? `${bucket}.s3.${signer.region}.amazonaws.com` : `s3.${signer.region}.amazonaws.com`,
    port: undefined,
    path: virtual ? `/${objectPath}` : `/${bucket}/${objectPath}`,
  };
}

/** A presigned GET of `link.key`, valid `link.expiresIn` seconds. */
export async function presignedGetUrl(signer: S3LinkSigner, link: S3GetLink): Promise<string> {
  const where = location(signer, link.bucket, link.key);
  const query: Record<string, string> = { 'x-id': 'GetObject' };
  if (link.responseContentDisposition !== undefined) query['response-content-disposition'] = link.responseContentDisposition;
  if (link.responseContentType !== undefined) query['response-content-type'] = link.responseContentType;
  const request = new HttpRequest({
    ...where,
    method: 'GET',
    query,
    headers: { host: `${where.hostname}${where.port !== undefined ? `:${where.port}` : ''}`, 'x-amz-checksum-mode': 'ENABLED', 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
  });
  const sigv4 = new SignatureV4({ service: 's3', region: signer.region, credentials: signer.credentials, sha256: Sha256, uriEscapePath: false, applyChecksum: false });
  const presigned = await sigv4.presign(request, { expiresIn: link.expiresIn, signingDate: signer.now?.() ?? new Date(), unsignableHeaders: new Set(['content-type']) });
  return formatUrl(presigned);
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
