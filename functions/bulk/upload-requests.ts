import { UPLOAD_CSV_MAX_BYTES } from '../../shared/schemas/bulk-upload';
import { getObject, headObjectSize, presignedPost, s3LinkSigner, type S3LinkSigner } from '../core/s3-links';
import type { UploadObjects } from './bulk-uploads';
import { signedUploadRemover } from './upload-remover';

/** Seconds a browser has to begin the upload it asked for (S3 checks the policy's expiry at the POST's start). */
export const UPLOAD_FORM_SECONDS = 600;

/**
 * Uploaded CSV files in the (private) export bucket, under `uploads/<user>/`: the form that puts one
 * at its key, its size, its bytes as they arrive, and its removal. Signed with SigV4 alone
 * (functions/core/s3-links.ts), so the bulk API function and the bulk-upload workers do not bundle
 * the S3 client (~140 KB with its share of the SDK: issue 29, item 5).
 */
export function signedUploadObjects(bucket: string, signer: S3LinkSigner = s3LinkSigner()): UploadObjects {
  return {
    uploadForm: (key) =>
      presignedPost(signer, {
        bucket,
        key,
        // S3 refuses a body outside this; the start route and the worker check the size again
        // (locally s3rver checks no policy).
        conditions: [['content-length-range', 1, UPLOAD_CSV_MAX_BYTES]],
        expiresIn: UPLOAD_FORM_SECONDS,
      }),
    size: (key) => headObjectSize(signer, bucket, key),
    async read(key, ifMatch) {
      // Replaced since that ETag was read: undefined (S3 checks If-Match; the local emulator does not: the caller compares the ETag too).
      const object = await getObject(signer, bucket, key, ifMatch ? { ifMatch } : {});
      return object && { body: object.body, etag: object.etag, cancel: () => object.body.destroy() };
    },
    ...signedUploadRemover(bucket, signer),
  };
}
