import { changePasswordSchema, signInRequestSchema, signInTotpRequestSchema } from '../../shared/schemas/sign-in';
import { cognito, dynamo, sqs } from '../core/clients';
import { appCipher } from '../core/encryption';
import { requireEnv } from '../core/env';
import { httpHandler, redirect, route } from '../core/http';
import { sqsMailQueue, sqsMailSender } from '../mail/sqs-mail-queue';
import { requestOrigin } from '../security/security-events';
import { signInUseCases } from '../security/sign-in';
import { cognitoSignInIdentity } from '../security/sign-in-cognito';
import { dynamoSignInGuardStore } from '../security/sign-in-guard';
import { changePassword } from '../security/sign-in-password';
import { dynamoPasswordAgeStore } from '../security/sign-in-password-age';
import { dynamoSignInAccountStore } from '../security/sign-in-sessions';
import { getCurrentUser } from '../users/get-current-user';
import { cognitoIdentityProvider } from '../users/identity-provider';
import { photoViewUrl } from '../users/photo-links';
import { dynamoUserRepository } from '../users/user-repository';

const db = dynamo();
const tableName = requireEnv('TABLE_NAME');
const now = () => new Date();
const currentUser = getCurrentUser({
  users: dynamoUserRepository(db, tableName, { photoUrl: photoViewUrl(requireEnv('EXPORT_BUCKET')) }),
  identity: cognitoIdentityProvider(cognito()),
  mail: sqsMailQueue(sqs(), requireEnv('MAIL_QUEUE_URL')),
  now,
});
const events = { db, tableName, mail: sqsMailSender(sqs(), requireEnv('MAIL_QUEUE_URL')) };
const identity = cognitoSignInIdentity(cognito(), requireEnv('USER_POOL_CLIENT_ID'));
const signIn = signInUseCases({
  guards: dynamoSignInGuardStore(db, tableName),
  accounts: dynamoSignInAccountStore(db, tableName, appCipher),
  identity,
  events,
  cipher: appCipher,
  now,
});
const changeOwnPassword = changePassword({ identity, accounts: dynamoPasswordAgeStore(db, tableName), events, now });

export const handler = httpHandler({
  // Sign-in is a browser redirect to the app's own sign-in screen, which signs in through the routes below.
  'GET /api/login': route({ run: async () => redirect('/sign-in') }),
  'GET /api/logout': route({ run: async () => redirect('/') }),
  // Allowed with an expired password: the app must load to show the change-password form.
  // auth_time: when the user signed in (Cognito keeps it on refreshed tokens), recorded as the last sign-in.
  'GET /api/auth/user': route({ userItem: 'optional', passwordExpired: 'allow', run: ({ userId, accessToken, event }) => currentUser(userId, accessToken, Number(event.requestContext.authorizer?.jwt?.claims?.auth_time)) }),
  // The one sign-in path (docs/security.md): failed attempts counted and locked per e-mail, then Cognito.
  'POST /api/auth/sign-in': route({ body: signInRequestSchema, run: ({ body, event }) => signIn.signIn(body, requestOrigin(event)) }),
  'POST /api/auth/sign-in/totp': route({ body: signInTotpRequestSchema, run: ({ body, event }) => signIn.signInTotp(body, requestOrigin(event)) }),
  'POST /api/auth/change-password': route({ body: changePasswordSchema, passwordExpired: 'allow', run: ({ userId, accessToken, body, event }) => changeOwnPassword(userId, accessToken, body, requestOrigin(event)) }),
});
