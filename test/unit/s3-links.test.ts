import { describe, expect, it, vi } from 'vitest';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { presignedGetUrl, presignedDeleteUrl, presignedHeadUrl, presignedPost, presignedPutUrl, type S3LinkSigner } from '../../functions/core/s3-links';

/**
 * functions/core/s3-links.ts signs links without the S3 client. S3 accepts what the SDK's presigner
 * makes, so the check is that both make the same link, byte for byte, at the same instant: the
 * endpoint, the query and the signature.
 */
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session/token+with=odd chars' };
const at = new Date('2026-11-29T06:00:00Z');

const places: { name: string; region: string; endpoint?: string; pathStyle: boolean }[] = [
  { name: 'us-east-1', region: 'us-east-1', pathStyle: false },
  { name: 'another region', region: 'eu-west-2', pathStyle: false },
  { name: 'path-style on AWS', region: 'ap-southeast-2', pathStyle: true },
  { name: 'the local emulator (path-style, a port)', region: 'us-east-1', endpoint: 'http://127.0.0.1:4569', pathStyle: true },
  { name: 'a custom endpoint, virtual-hosted', region: 'eu-central-1', endpoint: 'https://storage.example.com', pathStyle: false },
  { name: 'an IP endpoint without path-style asked (path-style all the same)', region: 'us-east-1', endpoint: 'http://127.0.0.1:4569', pathStyle: false },
  { name: 'localhost without path-style asked (virtual-hosted, as the SDK does)', region: 'us-east-1', endpoint: 'http://localhost:4569', pathStyle: false },
  { name: 'China (amazonaws.com.cn)', region: 'cn-north-1', pathStyle: false },
  { name: 'GovCloud', region: 'us-gov-west-1', pathStyle: false },
];
const buckets = ['bulkonboard-exports-1a2b3c', 'my.dotted.bucket'];
const links: { key: string; responseContentType?: string; responseContentDisposition?: string; expiresIn: number }[] = [
  { key: 'photos/0f1e2d3c-user/5a6b.jpg', responseContentType: 'image/jpeg', expiresIn: 3600 },
  { key: 'exports/user 1/Cohort+2 (final)!.csv', responseContentDisposition: 'attachment; filename="Cohort 2 (final).csv"', expiresIn: 900 },
  { key: 'exports/ünïcode/日本語 file*.xlsx', responseContentDisposition: "attachment; filename*=UTF-8''%E6%97%A5.xlsx", expiresIn: 60 },
  { key: 'plain.json', expiresIn: 604_800 },
];

describe('S3 links signed without the S3 client', () => {
  for (const place of places) {
    it(`are the SDK's presigned GET links, byte for byte: ${place.name}`, async () => {
      const client = new S3Client({ region: place.region, credentials, forcePathStyle: place.pathStyle, ...(place.endpoint ? { endpoint: place.endpoint } : {}) });
      const signer: S3LinkSigner = { region: place.region, credentials, endpoint: place.endpoint, pathStyle: place.pathStyle, now: () => at };
      for (const bucket of buckets)
        for (const link of links) {
          const command = new GetObjectCommand({ Bucket: bucket, Key: link.key, ResponseContentType: link.responseContentType, ResponseContentDisposition: link.responseContentDisposition });
          const expected = await getSignedUrl(client, command, { expiresIn: link.expiresIn, signingDate: at });
          expect(await presignedGetUrl(signer, { bucket, ...link })).toBe(expected);
        }
    });
  }

  it('are not made for an isolated partition (its domain is not guessed)', async () => {
    await expect(presignedGetUrl({ region: 'us-iso-east-1', credentials, pathStyle: false, now: () => at }, { bucket: 'b-1-example', key: 'a.csv', expiresIn: 60 })).rejects.toThrow('isolated region us-iso-east-1');
  });

  it('take the credentials from a provider, as the clients do', async () => {
    const signer: S3LinkSigner = { region: 'eu-west-2', credentials: () => Promise.resolve(credentials), pathStyle: false, now: () => at };
    const url = new URL(await presignedGetUrl(signer, { bucket: 'b-1-example', key: 'a.csv', expiresIn: 60 }));
    expect(url.host).toBe('b-1-example.s3.eu-west-2.amazonaws.com');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261129/eu-west-2/s3/aws4_request');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(credentials.sessionToken);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });
});

describe('S3 upload forms, HEAD and DELETE links signed without the S3 client', () => {
  for (const place of places) {
    it(`are createPresignedPost's forms and the SDK's HEAD and DELETE links, byte for byte: ${place.name}`, async () => {
      vi.useFakeTimers({ now: at, toFake: ['Date'] });
      try {
        const client = new S3Client({ region: place.region, credentials, forcePathStyle: place.pathStyle, ...(place.endpoint ? { endpoint: place.endpoint } : {}) });
        const signer: S3LinkSigner = { region: place.region, credentials, endpoint: place.endpoint, pathStyle: place.pathStyle, now: () => new Date() };
        for (const bucket of buckets)
          for (const { key } of links) {
            const head = await getSignedUrl(client, new HeadObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 60, signingDate: at });
            expect(await presignedHeadUrl(signer, bucket, key, 60)).toBe(head);
            const remove = await getSignedUrl(client, new DeleteObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: 60, signingDate: at });
            expect(await presignedDeleteUrl(signer, bucket, key, 60)).toBe(remove);
            for (const form of [
              { conditions: [['content-length-range', 1, 10 * 1024 * 1024]], expiresIn: 600 },
              { conditions: [['content-length-range', 1, 5_000_000], ['eq', '$Content-Type', 'image/jpeg']], fields: { 'Content-Type': 'image/jpeg' }, expiresIn: 300 },
            ]) {
              const expected = await createPresignedPost(client, { Bucket: bucket, Key: key, Conditions: form.conditions as NonNullable<PresignedPostOptions['Conditions']>, ...(form.fields ? { Fields: form.fields } : {}), Expires: form.expiresIn });
              expect(await presignedPost(signer, { bucket, key, ...form })).toEqual(expected);
            }
          }
      } finally {
        vi.useRealTimers();
      }
    });
  }
});

describe('S3 PUT links signed without the S3 client', () => {
  const puts = [
    { key: 'exports/user-1/0193a1b2.csv', contentType: 'text/csv; charset=utf-8', contentDisposition: 'attachment; filename="Cohort 2 (final)_accounts.csv"', expiresIn: 300 },
    { key: 'exports/ünïcode/日本語 file*.xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', contentDisposition: "attachment; filename=\"x.xlsx\"; filename*=UTF-8''%E6%97%A5.xlsx", expiresIn: 60 },
    { key: 'exports/u/a+b (1)!.zip', contentType: 'application/zip', expiresIn: 900 },
    { key: 'plain.json', expiresIn: 604_800 },
  ];

  for (const place of places) {
    it(`are the SDK's presigned PUT links (checksums only when required), byte for byte: ${place.name}`, async () => {
      const client = new S3Client({ region: place.region, credentials, forcePathStyle: place.pathStyle, requestChecksumCalculation: 'WHEN_REQUIRED', ...(place.endpoint ? { endpoint: place.endpoint } : {}) });
      const signer: S3LinkSigner = { region: place.region, credentials, endpoint: place.endpoint, pathStyle: place.pathStyle, now: () => at };
      for (const bucket of buckets)
        for (const put of puts) {
          const command = new PutObjectCommand({ Bucket: bucket, Key: put.key, ContentType: put.contentType, ContentDisposition: put.contentDisposition });
          const expected = await getSignedUrl(client, command, { expiresIn: put.expiresIn, signingDate: at });
          expect(await presignedPutUrl(signer, { bucket, ...put })).toBe(expected);
        }
    });
  }

  it('sign content-disposition as a header and leave content-type unsigned, neither in the query, as the SDK does', async () => {
    const client = new S3Client({ region: 'eu-west-2', credentials, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const put = { Bucket: 'b-1-example', Key: 'a.csv', ContentType: 'text/csv', ContentDisposition: 'attachment; filename="a.csv"' };
    const sdk = new URL(await getSignedUrl(client, new PutObjectCommand(put), { expiresIn: 60, signingDate: at }));
    const ours = new URL(await presignedPutUrl({ region: 'eu-west-2', credentials, pathStyle: false, now: () => at }, { bucket: put.Bucket, key: put.Key, contentType: put.ContentType, contentDisposition: put.ContentDisposition, expiresIn: 60 }));
    for (const url of [sdk, ours]) {
      expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-disposition;host');
      expect(url.searchParams.get('x-id')).toBe('PutObject');
      expect([...url.searchParams.keys()].filter((name) => /content-(type|disposition)|checksum/i.test(name))).toEqual([]);
    }
    // Without the signed header, the signature is another one: S3 refuses a PUT that does not send it.
    const bare = new URL(await presignedPutUrl({ region: 'eu-west-2', credentials, pathStyle: false, now: () => at }, { bucket: put.Bucket, key: put.Key, contentType: put.ContentType, expiresIn: 60 }));
    expect(bare.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    // The default client (WHEN_SUPPORTED) signs the CRC32 of an empty body into the URL: what ours leaves out.
    const defaults = new URL(await getSignedUrl(new S3Client({ region: 'eu-west-2', credentials }), new PutObjectCommand(put), { expiresIn: 60, signingDate: at }));
    expect(defaults.searchParams.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
  });
});
