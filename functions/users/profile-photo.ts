import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { PHOTO_CONTENT_TYPE, PHOTO_MAX_BYTES, type User } from '../../shared/schemas/user';
import { NotFoundError, ValidationError } from '../core/errors';
import { randomUUID } from 'node:crypto';
import type { UserRepository } from './user-repository';
import { photoViewUrl } from './photo-links';

export { pendingPhotoPrefix, photoPrefix } from './photo-keys';
import { pendingPhotoPrefix, photoPrefix } from './photo-keys';

/** Minutes a browser has to finish the upload it asked for. */
const UPLOAD_SECONDS = 300;

export interface PhotoStore {
  /** A form for a browser POST straight to the bucket: this key only, a JPEG, at most PHOTO_MAX_BYTES. */
  uploadForm(key: string): Promise<{ url: string; fields: Record<string, string> }>;
  /** Size and first bytes of an uploaded object; undefined when there is none. */
  inspect(key: string): Promise<{ size: number; head: Uint8Array } | undefined>;
  remove(key: string): Promise<void>;
  /** Copies a checked upload to its lasting key (then the upload is removed). */
  keep(from: string, to: string): Promise<void>;
  viewUrl(key: string): Promise<string>;
}

export function s3PhotoStore(client: S3Client, bucket: string): PhotoStore {
  return {
    async uploadForm(key) {
      const { url, fields } = await createPresignedPost(client, {
        Bucket: bucket,
        Key: key,
        // S3 refuses a body outside these (locally s3rver checks no policy: inspect() below does, everywhere).
        Conditions: [['content-length-range', 1, PHOTO_MAX_BYTES], ['eq', '$Content-Type', PHOTO_CONTENT_TYPE]],
        Fields: { 'Content-Type': PHOTO_CONTENT_TYPE },
        Expires: UPLOAD_SECONDS,
      });
      return { url, fields };
    },
    async inspect(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        const size = head.ContentLength ?? 0;
        if (size === 0 || size > PHOTO_MAX_BYTES) return { size, head: new Uint8Array() };
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: 'bytes=0-15' }));
        return { size, head: (await object.Body?.transformToByteArray()) ?? new Uint8Array() };
      } catch (error) {
        // Without s3:ListBucket (not granted) S3 answers a missing key with 403, not 404.
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (error instanceof NotFound || error instanceof NoSuchKey || (error instanceof Error && (error.name === 'NotFound' || error.name === 'Forbidden')) || status === 403 || status === 404) return undefined;
        throw error;
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async keep(from, to) {
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: `${bucket}/${from}`, ContentType: PHOTO_CONTENT_TYPE, MetadataDirective: 'REPLACE' }));
    },
    viewUrl: photoViewUrl(bucket),
  };
}

/** JPEG files start FF D8 FF; the browser re-encodes every chosen image as one (crop, scale). */
const isJpeg = (bytes: Uint8Array) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;

export interface PhotoDeps {
  users: UserRepository;
  photos: PhotoStore;
  now: () => Date;
}

/** POST /api/user/photo-upload: a fresh key under the user's prefix and the form to upload to it. */
export const startPhotoUpload = (deps: PhotoDeps) => async (userId: string) => {
  const key = `${pendingPhotoPrefix(userId)}${randomUUID()}.jpg`;
  return { key, ...(await deps.photos.uploadForm(key)) };
};

/**
 * PUT /api/user/photo { key }: the uploaded object becomes the profile photo once it is checked
 * here (size and the JPEG signature: a script or another file named .jpg is refused and
 * deleted), copied from the pending prefix to the user's own. The previous photo is deleted.
 */
export const setPhoto =
  (deps: PhotoDeps) =>
  async (userId: string, key: string): Promise<User> => {
    const prefix = pendingPhotoPrefix(userId);
    if (!key.startsWith(prefix) || !/^[0-9a-f-]{36}\.jpg$/.test(key.slice(prefix.length))) throw new NotFoundError('Photo not found');
    const found = await deps.photos.inspect(key);
    if (!found) throw new ValidationError('The photo did not arrive. Please try again.');
    if (found.size > PHOTO_MAX_BYTES) {
      await deps.photos.remove(key);
      throw new ValidationError('Please select an image smaller than 5MB.');
    }
    if (!isJpeg(found.head)) {
      await deps.photos.remove(key);
      throw new ValidationError('Please select an image file.');
    }
    const kept = `${photoPrefix(userId)}${key.slice(prefix.length)}`;
    await deps.photos.keep(key, kept);
    await deps.photos.remove(key);
    const previous = await deps.users.photoKey(userId);
    const user = await deps.users.patch(userId, { profilePhotoKey: kept }, deps.now().toISOString());
    if (!user) throw new NotFoundError('User not found');
    if (previous && previous !== kept) await deps.photos.remove(previous);
    return user;
  };

/** DELETE /api/user/photo: back to the initials. */
export const removePhoto =
  (deps: PhotoDeps) =>
  async (userId: string): Promise<User> => {
    const previous = await deps.users.photoKey(userId);
    const user = await deps.users.patch(userId, {}, deps.now().toISOString(), ['profilePhotoKey']);
    if (!user) throw new NotFoundError('User not found');
    if (previous) await deps.photos.remove(previous);
    return user;
  };
