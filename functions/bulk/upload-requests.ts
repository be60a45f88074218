import { UPLOAD_CSV_MAX_BYTES } from '../../shared/schemas/bulk-upload';
import { headObjectSize, presignedPost, s3LinkSigner, type S3LinkSigner } from '../core/s3-links';
import type { UploadObjects } from './bulk-uploads';
import { signedUploadRemover } from './upload-remover';

/** Seconds a browser has to begin the upload it asked for (S3 checks the policy's expiry at the POST's start). */
export const UPLOAD_FORM_SECONDS = 600;

/**
 * An uploaded CSV file as the API function (and the dead-letter worker) touch it: the form that
 * puts it at its key, its size, and its removal. Signed with SigV4 alone (functions/core/s3-links.ts),
 * so those functions do not bundle the S3 client (~140 KB with its share of the SDK: issue 29,
 * item 5); only the worker that reads the file carries it (`s3UploadObjects`).
 */
export function signedUploadObjects(bucket: string, signer: S3LinkSigner = s3LinkSigner()): Pick<UploadObjects, 'uploadForm' | 'size' | 'remove'> {
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
    ...signedUploadRemover(bucket, signer),
  };
}
