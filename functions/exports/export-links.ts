import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ExportFiles } from './export-files';

/** Presigned download links to export files (the history route). */
export function s3DownloadLinks(client: S3Client, bucket: string): Pick<ExportFiles, 'downloadUrl'> {
  return {
    // Signed by the same client, so the link points at the same endpoint (s3rver locally).
    downloadUrl: (key, contentDisposition, expiresIn) =>
      getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: contentDisposition }), { expiresIn }),
  };
}
