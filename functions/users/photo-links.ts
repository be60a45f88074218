import { PHOTO_CONTENT_TYPE } from '../../shared/schemas/user';
import { presignedGetUrl, s3LinkSigner, type S3LinkSigner } from '../core/s3-links';

/** A shown photo's signed link; the app reads the user again on each load. */
const VIEW_SECONDS = 3600;

/**
 * The signed link to a profile photo (GET /api/auth/user and the profile routes), without the S3
 * client (core/s3-links.ts): the sign-in function hands out links and touches no object.
 */
export const photoViewUrl =
  (bucket: string, signer: S3LinkSigner = s3LinkSigner()) =>
  (key: string): Promise<string> =>
    presignedGetUrl(signer, { bucket, key, responseContentType: PHOTO_CONTENT_TYPE, expiresIn: VIEW_SECONDS });
