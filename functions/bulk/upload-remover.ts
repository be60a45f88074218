import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { UploadObjects } from './bulk-uploads';

/**
 * Removing an uploaded CSV file, alone: the bulk-upload dead-letter worker only removes the file of
 * an upload that failed every delivery, so it imports this and not `s3UploadObjects` (whose upload
 * form, size and read bring the presigned-post package, two more commands and the upload schema
 * into its bundle: 512.8 KB against 484.9 KB as `npm run bench -- lambdas` prints them; issue 29 item 5).
 */
export function s3UploadRemover(client: S3Client, bucket: string): Pick<UploadObjects, 'remove'> {
  return {
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
