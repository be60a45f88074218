import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { S3LinkSigner } from '../core/s3-links';
import type { UploadObjects } from './bulk-uploads';
import { signedUploadObjects } from './upload-requests';

export { UPLOAD_FORM_SECONDS } from './upload-requests';

/**
 * Uploaded CSV files in the (private) export bucket, under `uploads/<user>/`, as the bulk-upload
 * worker reads them: streamed by the S3 client, the rest signed alone (`signedUploadObjects`).
 */
export function s3UploadObjects(client: S3Client, bucket: string, signer?: S3LinkSigner): UploadObjects {
  return {
    ...signedUploadObjects(bucket, signer),
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
  };
}
