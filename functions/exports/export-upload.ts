import { Upload } from '@aws-sdk/lib-storage';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ExportFiles } from './export-files';

/** lib-storage's minimum part size; two parts in flight keep memory small and constant. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/** Streamed multipart uploads into the export bucket (the export worker), and their removal. */
export function s3Uploads(client: S3Client, bucket: string): Pick<ExportFiles, 'upload' | 'remove'> {
  return {
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    upload({ key, body, contentType, contentDisposition }) {
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType, ContentDisposition: contentDisposition },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      return {
        done: async () => {
          await upload.done();
        },
        abort: () => upload.abort(),
      };
    },
  };
}
