import type { Readable } from 'node:stream';
import type { S3LinkSigner } from '../core/s3-links';
import { s3DownloadLinks } from './export-links';
import { s3Uploads, type ExportUploadOptions } from './export-upload';

export interface FileUpload {
  /** Resolves when the object exists at its key (the body written to a temporary file, then PUT). */
  done(): Promise<void>;
  /** Stops the upload (the write or the PUT); nothing is left at the key, nor the temporary file. */
  abort(): Promise<void>;
}

/** The export bucket: streamed uploads and presigned download links. */
export interface ExportFiles {
  upload(file: { key: string; body: Readable; contentType: string; contentDisposition: string }): FileUpload;
  /** Deletes a file written for an export that was stopped or deleted meanwhile. */
  remove(key: string): Promise<void>;
  downloadUrl(key: string, contentDisposition: string, expiresInSeconds: number): Promise<string>;
}

/** Both halves (tests): uploads and links signed by `signer`, without the S3 client. The API bundles only the links, the worker only the uploads. */
export function s3ExportFiles(bucket: string, signer?: S3LinkSigner, options?: ExportUploadOptions): ExportFiles {
  return { ...s3Uploads(bucket, signer, options), ...s3DownloadLinks(bucket, signer) };
}
