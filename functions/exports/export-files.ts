import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3LinkSigner } from '../core/s3-links';
import { s3DownloadLinks } from './export-links';
import { s3Uploads } from './export-upload';

export interface FileUpload {
  /** Resolves when the object exists at its key (multipart completed). */
  done(): Promise<void>;
  /** Stops the upload; a multipart upload is aborted, so nothing appears at the key. */
  abort(): Promise<void>;
}

/** The export bucket: streamed uploads and presigned download links. */
export interface ExportFiles {
  upload(file: { key: string; body: Readable; contentType: string; contentDisposition: string }): FileUpload;
  /** Deletes a file written for an export that was stopped or deleted meanwhile. */
  remove(key: string): Promise<void>;
  downloadUrl(key: string, contentDisposition: string, expiresInSeconds: number): Promise<string>;
}

/** Both halves (tests): uploads over `client`, links signed by `signer` (the same S3). The API bundles only the links, the worker only the uploads. */
export function s3ExportFiles(client: S3Client, bucket: string, signer?: S3LinkSigner): ExportFiles {
  return { ...s3Uploads(client, bucket), ...s3DownloadLinks(bucket, signer) };
}
