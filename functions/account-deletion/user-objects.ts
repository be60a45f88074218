import { pendingPhotoPrefix, photoPrefix } from '../users/photo-keys';
/**
 * Every prefix of the export bucket under which objects of one user live. Export files are at
 * exports/<userId>/<exportId>.<ext> (functions/exports/export-item.ts) and whole-account exports
 * at exports/<userId>/data/...; a feature that stores another kind of object per user adds its
 * prefix here, and account deletion removes it.
 */
export const userObjectPrefixes = (userId: string): string[] => [
  `exports/${userId}/`,
  // Profile photos (functions/users/profile-photo.ts): the kept one, and uploads not confirmed yet.
  photoPrefix(userId),
  pendingPhotoPrefix(userId),
  // Uploaded CSV files (functions/bulk/upload-endings.ts uploadKey): one still being read, or kept by 'check first'.
  `uploads/${userId}/`,
];
