/** Where a user's photos live in the (private) bucket. */
export const photoPrefix = (userId: string): string => `profile-photos/${userId}/`;

/**
 * Where uploads land until PUT /api/user/photo checks them: every key a form is signed for starts
 * so, and the bucket expires this prefix after a day, so uploads nobody confirms do not pile up.
 */
export const pendingPhotoPrefix = (userId: string): string => `profile-photos/pending/${userId}/`;
