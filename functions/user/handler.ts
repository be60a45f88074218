import { onboardingSchema, photoSchema, splitName, updateProfileSchema } from '../../shared/schemas/user';
import { dynamo, s3 } from '../core/clients';
import { requireEnv } from '../core/env';
import { NotFoundError } from '../core/errors';
import { httpHandler, route } from '../core/http';
import { removePhoto, s3PhotoStore, setPhoto, startPhotoUpload } from '../users/profile-photo';
import { updateProfile } from '../users/update-profile';
import { dynamoUserRepository } from '../users/user-repository';

const photos = s3PhotoStore(s3(), requireEnv('EXPORT_BUCKET'));
const users = dynamoUserRepository(dynamo(), requireEnv('TABLE_NAME'), { photoUrl: photos.viewUrl });
const now = () => new Date();
const update = updateProfile({ users, now });
const photoDeps = { users, photos, now };

/** Sets profile flags; a user who does not exist (deleted meanwhile) answers 404. */
const patched = async <T>(user: T | undefined): Promise<T> => {
  if (!user) throw new NotFoundError('User not found');
  return user;
};

export const handler = httpHandler({
  'PUT /api/user/profile': route({ body: updateProfileSchema, run: ({ userId, body }) => update(userId, body) }),
  // 'Tell us about yourself' (shown once after the first sign-in): the name, then the app.
  'POST /api/user/onboarding': route({
    body: onboardingSchema,
    run: ({ userId, body }) => patched(users.patch(userId, { ...splitName(body.name), onboarded: true }, now().toISOString())),
  }),
  // The welcome dialog's 'Let's Get Started!': kept on the server, so no other device shows it again.
  'POST /api/user/welcome-dismissal': route({ run: ({ userId }) => patched(users.patch(userId, { welcomeDismissed: true }, now().toISOString())) }),
  'POST /api/user/photo-upload': route({ run: ({ userId }) => startPhotoUpload(photoDeps)(userId) }),
  'PUT /api/user/photo': route({ body: photoSchema, run: ({ userId, body }) => setPhoto(photoDeps)(userId, body.key) }),
  'DELETE /api/user/photo': route({ run: ({ userId }) => removePhoto(photoDeps)(userId) }),
});
