import type { Readable } from 'node:stream';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

export interface FileUpload {
  /** Resolves when the object exists at its key (multipart completed). */
  done(): Promise<void>;
  /** Stops the upload; a multipart upload is aborted, so nothing appears at the key. */
  abort(): Promise<void>;
}

/** The export bucket: streamed uploads and presigned download links. */
export interface ExportFiles {
  upload(file: { key: string; body: Readable; contentType: string; contentDisposition: string }): FileUpload;
  downloadUrl(key: string, contentDisposition: string, expiresInSeconds: number): Promise<string>;
}

/** lib-storage's minimum part size; two parts in flight keep memory small and constant. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

export function s3ExportFiles(client: S3Client, bucket: string): ExportFiles {
  return {
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
    // Signed by the same client, so the link points at the same endpoint (s3rver locally).
    downloadUrl: (key, contentDisposition, expiresIn) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: contentDisposition }), { expiresIn }),
  };
}
