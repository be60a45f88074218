import { presignedGetUrl, s3LinkSigner, type S3LinkSigner } from '../core/s3-links';
import type { ExportFiles } from './export-files';

/** Presigned download links to export files (the history route), signed without the S3 client (core/s3-links.ts). */
export function s3DownloadLinks(bucket: string, signer: S3LinkSigner = s3LinkSigner()): Pick<ExportFiles, 'downloadUrl'> {
  return {
    // The endpoint the clients use (s3rver locally), so the link points where the file is.
    downloadUrl: (key, contentDisposition, expiresIn) => presignedGetUrl(signer, { bucket, key, responseContentDisposition: contentDisposition, expiresIn }),
  };
}
