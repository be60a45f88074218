import { cognito, dynamo, s3, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, redirect, route } from '../core/http';
import { sqsMailQueue } from '../mail/sqs-mail-queue';
import { getCurrentUser } from '../users/get-current-user';
import { cognitoIdentityProvider } from '../users/identity-provider';
import { s3PhotoStore } from '../users/profile-photo';
import { dynamoUserRepository } from '../users/user-repository';

const currentUser = getCurrentUser({
  users: dynamoUserRepository(dynamo(), requireEnv('TABLE_NAME'), { photoUrl: s3PhotoStore(s3(), requireEnv('EXPORT_BUCKET')).viewUrl }),
  identity: cognitoIdentityProvider(cognito()),
  mail: sqsMailQueue(sqs(), requireEnv('MAIL_QUEUE_URL')),
  now: () => new Date(),
});

export const handler = httpHandler({
  // Sign-in is a browser redirect to the app's own sign-in screen (Cognito via Amplify).
  'GET /api/login': route({ run: async () => redirect('/sign-in') }),
  'GET /api/logout': route({ run: async () => redirect('/') }),
  // Allowed with an expired password: the app must load to show the change-password form.
  // auth_time: when the user signed in (Cognito keeps it on refreshed tokens), recorded as the last sign-in.
  'GET /api/auth/user': route({ userItem: 'optional', passwordExpired: 'allow', run: ({ userId, accessToken, event }) => currentUser(userId, accessToken, Number(event.requestContext.authorizer?.jwt?.claims?.auth_time)) }),
});
