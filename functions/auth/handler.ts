import { cognito, dynamo, sqs } from '../core/clients';
import { requireEnv } from '../core/env';
import { httpHandler, redirect, route } from '../core/http';
import { sqsMailQueue } from '../mail/sqs-mail-queue';
import { getCurrentUser } from '../users/get-current-user';
import { cognitoIdentityProvider } from '../users/identity-provider';
import { dynamoUserRepository } from '../users/user-repository';

const currentUser = getCurrentUser({
  users: dynamoUserRepository(dynamo(), requireEnv('TABLE_NAME')),
  identity: cognitoIdentityProvider(cognito()),
  mail: sqsMailQueue(sqs(), requireEnv('MAIL_QUEUE_URL')),
  now: () => new Date(),
});

export const handler = httpHandler({
  // Sign-in is a browser redirect to the app's own sign-in screen (Cognito via Amplify).
  'GET /api/login': route({ run: async () => redirect('/sign-in') }),
  'GET /api/logout': route({ run: async () => redirect('/') }),
  'GET /api/auth/user': route({ userItem: 'optional', run: ({ userId, accessToken }) => currentUser(userId, accessToken) }),
});
