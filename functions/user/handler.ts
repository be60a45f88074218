import { markReadSchema } from '../../shared/schemas/notifications';
import { onboardingSchema, photoSchema, splitName, updateProfileSchema } from '../../shared/schemas/user';
import { updateUserSettingsSchema } from '../../shared/schemas/user-settings';
import { requestAccountDeletion } from '../account-deletion/request-deletion';
import { sqsDeletionQueue } from '../account-deletion/deletion-queue';
import { dynamoDeletionRequestStore } from '../account-deletion/deletion-request-store';
import { dynamo, s3, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { NotFoundError } from '../core/errors';
import { httpHandler, Response, route } from '../core/http';
import { listNotifications, markNotificationsRead } from '../notifications/notifications';
import { sqsMailSender } from '../mail/sqs-mail-queue';
import { recordSecurityEvent, requestOrigin } from '../security/security-events';
import { removePhoto, s3PhotoStore, setPhoto, startPhotoUpload } from '../users/profile-photo';
import { updateProfile } from '../users/update-profile';
import { dynamoUserRepository } from '../users/user-repository';
import { dynamoSettingsStore, getUserSettings, updateUserSettings } from '../users/user-settings';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const photos = s3PhotoStore(s3(), requireEnv('EXPORT_BUCKET'));
const users = dynamoUserRepository(db, tableName, { photoUrl: photos.viewUrl });
const now = () => new Date();
const update = updateProfile({ users, now });
const photoDeps = { users, photos, now };
const settingsDeps = { users, settings: dynamoSettingsStore(db, tableName), now };
const getSettings = getUserSettings(settingsDeps);
const putSettings = updateUserSettings(settingsDeps);
const list = listNotifications({ db, tableName, now });
const markRead = markNotificationsRead({ db, tableName, now });
const deletionEvents = { db, tableName, mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')) };
const requestDeletion = requestAccountDeletion({
  store: dynamoDeletionRequestStore(db, tableName),
  queue: sqsDeletionQueue(sqs(), requireEnv('ACCOUNT_DELETION_QUEUE_URL')),
  now,
});

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
    run: ({ userId, body }) => {
      // The name as typed replaces the sign-up name: one word ('Cher') is the whole name, with no
      // last name (spec 5: its initials are its first letter).
      const { firstName, lastName } = splitName(body.name);
      return patched(users.patch(userId, { firstName, lastName, onboarded: true }, now().toISOString()));
    },
  }),
  // The welcome dialog's 'Let's Get Started!': kept on the server, so no other device shows it again.
  'POST /api/user/welcome-dismissal': route({ run: ({ userId }) => patched(users.patch(userId, { welcomeDismissed: true }, now().toISOString())) }),
  'POST /api/user/photo-upload': route({ run: ({ userId }) => startPhotoUpload(photoDeps)(userId) }),
  'PUT /api/user/photo': route({ body: photoSchema, run: ({ userId, body }) => setPhoto(photoDeps)(userId, body.key) }),
  'DELETE /api/user/photo': route({ run: ({ userId }) => removePhoto(photoDeps)(userId) }),
  'GET /api/user/settings': route({ run: ({ userId }) => getSettings(userId) }),
  'PUT /api/user/settings': route({ body: updateUserSettingsSchema, run: ({ userId, body }) => putSettings(userId, body) }),
  'GET /api/notifications': route({ run: ({ userId, query }) => list(userId, query) }),
  'POST /api/notifications/read': route({ body: markReadSchema, run: ({ userId, body }) => markRead(userId, body) }),
  'DELETE /api/user/account': route({
    whileDeleting: 'allow',
    run: async ({ userId, event }) =>
      new Response(
        202,
        await requestDeletion(userId, async () => {
          // High, with an alert (notification, and e-mail when the user allows it): written before
          // the job is queued, so the job erases it with the rest of the user's data.
          await recordSecurityEvent(deletionEvents, {
            userId,
            type: 'account_deletion_started',
            description: 'Deletion of your account started: all your projects, accounts and data will be erased',
            severity: 'high',
            at: now(),
            alert: { title: 'Your account is being deleted', detail: 'A request to delete your BulkOnboard account was accepted. All your data is being erased.' },
            ...requestOrigin(event),
          });
        }),
      ),
  }),
});
