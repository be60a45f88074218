import { deleteObject, s3LinkSigner, type S3LinkSigner } from '../core/s3-links';
import type { UploadObjects } from './bulk-uploads';

/**
 * Removing an uploaded CSV file, alone: the bulk-upload dead-letter worker only removes the file of
 * an upload that failed every delivery, so it imports this and not the upload form, size or read
 * (which bring the upload schema and, for the read, the S3 client into its bundle; issue 29 item 5).
 * DeleteObject over a presigned URL (functions/core/s3-links.ts): no S3 client either.
 */
export function signedUploadRemover(bucket: string, signer: S3LinkSigner = s3LinkSigner()): Pick<UploadObjects, 'remove'> {
  return { remove: (key) => deleteObject(signer, bucket, key) };
}
