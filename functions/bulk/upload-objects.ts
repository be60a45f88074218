import { GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { Readable } from 'node:stream';
import { UPLOAD_CSV_MAX_BYTES } from '../../shared/schemas/bulk-upload';
import type { UploadObjects } from './bulk-uploads';
import { s3UploadRemover } from './upload-remover';

/** Seconds a browser has to begin the upload it asked for (S3 checks the policy's expiry at the POST's start). */
export const UPLOAD_FORM_SECONDS = 600;

const missing = (error: unknown) => {
  // Without s3:ListBucket (not granted) S3 answers a missing key with 403, not 404.
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return error instanceof NotFound || error instanceof NoSuchKey || (error instanceof Error && (error.name === 'NotFound' || error.name === 'Forbidden')) || status === 403 || status === 404;
};

/** Uploaded CSV files in the (private) export bucket, under `uploads/<user>/`. */
export function s3UploadObjects(client: S3Client, bucket: string): UploadObjects {
  return {
    async uploadForm(key) {
      return createPresignedPost(client, {
        Bucket: bucket,
        Key: key,
        // S3 refuses a body outside this; the start route and the worker check the size again
        // (locally s3rver checks no policy).
        Conditions: [['content-length-range', 1, UPLOAD_CSV_MAX_BYTES]],
        Expires: UPLOAD_FORM_SECONDS,
      });
    },
    async size(key) {
      try {
        return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength ?? 0;
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async read(key, ifMatch) {
      let object;
      try {
        object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, ...(ifMatch ? { IfMatch: ifMatch } : {}) }));
      } catch (error) {
        // Replaced since that ETag was read (S3 checks If-Match; the local emulator does not: the caller compares the ETag too).
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412) return undefined;
        throw error;
      }
      // In Node the body is a Readable: chunks as they arrive, never the whole file.
      const body = object.Body as unknown as Readable;
      return { body, etag: object.ETag, cancel: () => body.destroy() };
    },
    ...s3UploadRemover(client, bucket),
  };
}
