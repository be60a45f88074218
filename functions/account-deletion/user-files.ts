import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

/** The objects of a user in the export bucket. */
export interface UserFiles {
  /** Deletes every object under `prefix`; answers how many were deleted. */
  deleteUnder(prefix: string): Promise<number>;
}

/** ListObjectsV2 pages of up to 1,000 keys, each deleted with one DeleteObjects call. */
export function s3UserFiles(client: S3Client, bucket: string): UserFiles {
  return {
    async deleteUnder(prefix) {
      let deleted = 0;
      // Each pass lists from the start: the keys of the previous page are gone, so no token is needed.
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1000 }));
        const objects = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
        if (objects.length === 0) return deleted;
        const result = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
        if (result.Errors?.length) throw new Error(`S3 could not delete ${result.Errors.length} objects under ${prefix}: ${result.Errors[0]?.Code ?? ''}`);
        deleted += objects.length;
      }
    },
  };
}
