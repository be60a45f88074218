/**
 * The Cognito emulator's own process: cognito-local's server, composed as its `start` script
 * composes it (lib/server/defaults), except for one part. cognito-local "delivers" codes by
 * writing a box into its log, and that log (pino-pretty on an asynchronous stream into a pipe)
 * drops lines under a burst: of 50 sign-ups at once only 38 codes ever reached the log. Here the
 * delivery goes to the parent process over the IPC channel instead, as one structured message per
 * code, and waits for the parent's answer, so by the time SignUp, ResendConfirmationCode or
 * ForgotPassword answers, the code has been printed and its e-mail handed to the SES emulator.
 * It also answers ResendConfirmationCode, which cognito-local does not implement, and keeps its
 * files with writes that cannot overlap (cognito-file-store.ts).
 *
 * Run by startCognito (emulators.ts) with `node --import tsx`, cwd = the Cognito data folder.
 */
import AWS from 'aws-sdk';
import pino from 'pino';
import pinoPretty from 'pino-pretty';
import { loadConfig } from 'cognito-local/lib/server/config';
import { Router, type Route } from 'cognito-local/lib/server/Router';
import { InvalidParameterError, UserNotFoundError } from 'cognito-local/lib/errors';
import { createServer } from 'cognito-local/lib/server/server';
import { DateClock, LambdaService, TriggersService, type Messages } from 'cognito-local/lib/services';
import { CognitoServiceFactoryImpl } from 'cognito-local/lib/services/cognitoService';
import { CryptoService } from 'cognito-local/lib/services/crypto';
import { selectAppropriateDeliveryMethod } from 'cognito-local/lib/services/messageDelivery/deliveryMethod';
import { otp } from 'cognito-local/lib/services/otp';
import { JwtTokenGenerator } from 'cognito-local/lib/services/tokenGenerator';
import { attributesToRecord, UserPoolServiceFactoryImpl } from 'cognito-local/lib/services/userPoolService';
import { SerialFileDataStoreFactory } from './cognito-file-store';
import type { CognitoDelivery, CognitoDeliveryAck } from './cognito-messages';

/** The parent prints and mails within milliseconds; a parent that never answers must not hang a sign-up. */
const ACK_TIMEOUT_MS = 10_000;

const logger = pino(
  { level: process.env.DEBUG ? 'debug' : 'info' },
  pinoPretty({ colorize: false, ignore: 'pid,name,hostname', singleLine: true }),
);

const send = process.send?.bind(process);
if (!send) throw new Error('cognito-process must be started with an IPC channel');

const pending = new Map<number, () => void>();
let nextId = 0;
process.on('message', (message: CognitoDeliveryAck) => {
  pending.get(message.id)?.();
  pending.delete(message.id);
});
// The stack that started this emulator is gone (ended, killed, crashed before it could stop us):
// end with it rather than hold the port for the next start.
process.on('disconnect', () => process.exit(0));

const forward = (delivery: Omit<CognitoDelivery, 'id'>) =>
  new Promise<void>((resolve) => {
    const id = ++nextId;
    const timer = setTimeout(() => {
      pending.delete(id);
      logger.warn(`no answer from the local stack for the code sent to ${delivery.destination}`);
      resolve();
    }, ACK_TIMEOUT_MS);
    pending.set(id, () => {
      clearTimeout(timer);
      resolve();
    });
    send({ ...delivery, id } satisfies CognitoDelivery);
  });

/** Every code cognito-local sends (sign-up, resend, forgot password, attribute verification...). */
const messages: Messages = {
  deliver: (_ctx, source, _clientId, userPoolId, user, code, _clientMetadata, details) =>
    forward({ source, medium: details.DeliveryMedium, destination: details.Destination, code, username: user.Username, userPoolId }),
};

const ctx = { logger };
const configDirectory = '.cognito';
const dataDirectory = `${configDirectory}/db`;
const config = await loadConfig(ctx, new SerialFileDataStoreFactory(configDirectory));
const clock = new DateClock();
const dataStoreFactory = new SerialFileDataStoreFactory(dataDirectory);
const cognito = await new CognitoServiceFactoryImpl(
  dataDirectory,
  dataStoreFactory,
  new UserPoolServiceFactoryImpl(clock, dataStoreFactory),
).create(ctx, config.UserPoolDefaults);
const lambda = new LambdaService(config.TriggerFunctions, new AWS.Lambda(config.LambdaClient));
const triggers = new TriggersService(clock, cognito, lambda, new CryptoService(config.KMSConfig));
// cognito-local logs and ignores an error of the post-authentication trigger; Cognito fails the
// sign-in with it (UserLambdaValidationException), which is how the trigger refuses a locked account.
const postAuthentication: TriggersService['postAuthentication'] = async (triggerCtx, { clientId, clientMetadata, source, userAttributes, username, userPoolId }) => {
  await lambda.invoke(triggerCtx, 'PostAuthentication', { clientId, clientMetadata, triggerSource: source, userAttributes: attributesToRecord(userAttributes), username, userPoolId });
};
Object.defineProperty(triggers, 'postAuthentication', { value: postAuthentication });
const services = { clock, cognito, config, messages, otp, tokenGenerator: new JwtTokenGenerator(clock, triggers, config.TokenConfig), triggers };

/**
 * ResendConfirmationCode, which cognito-local lacks, as Cognito answers it: a new code for an
 * unconfirmed user, delivered like the first and kept on the user for ConfirmSignUp.
 */
const resendConfirmationCode: Route = async (routeCtx, req: { ClientId: string; Username: string; ClientMetadata?: Record<string, string> }) => {
  const userPool = await cognito.getUserPoolForClientId(routeCtx, req.ClientId);
  const user = await userPool.getUserByUsername(routeCtx, req.Username);
  if (!user) throw new UserNotFoundError('Username/client id combination not found.');
  if (user.UserStatus === 'CONFIRMED') throw new InvalidParameterError('User is already confirmed.');
  const details = selectAppropriateDeliveryMethod(userPool.options.AutoVerifiedAttributes ?? [], user);
  if (!details) throw new InvalidParameterError('User has no attribute matching desired auto verified attributes');
  const code = otp();
  await userPool.saveUser(routeCtx, { ...user, ConfirmationCode: code, UserLastModifiedDate: clock.get() });
  await messages.deliver(routeCtx, 'ResendCode', req.ClientId, userPool.options.Id, user, code, req.ClientMetadata, details);
  return { CodeDeliveryDetails: details };
};
const router = Router(services);

/**
 * RespondToAuthChallenge as Cognito answers it: cognito-local issues the tokens of a finished
 * challenge (the TOTP step) but never stores the refresh token, so it could neither refresh nor
 * be revoked (InitiateAuth stores it). Stored here after the emulator's own answer.
 */
const respondToAuthChallenge: Route = async (routeCtx, req: { ClientId: string; ChallengeResponses?: { USERNAME?: string } }) => {
  const answer = (await router('RespondToAuthChallenge')(routeCtx, req)) as { AuthenticationResult?: { RefreshToken?: string } };
  const refreshToken = answer.AuthenticationResult?.RefreshToken;
  if (refreshToken && req.ChallengeResponses?.USERNAME) {
    const userPool = await cognito.getUserPoolForClientId(routeCtx, req.ClientId);
    const user = await userPool.getUserByUsername(routeCtx, req.ChallengeResponses.USERNAME);
    if (user) await userPool.storeRefreshToken(routeCtx, refreshToken, user);
  }
  return answer;
};
const ownTargets: Record<string, Route> = { ResendConfirmationCode: resendConfirmationCode, RespondToAuthChallenge: respondToAuthChallenge };

try {
  const server = await createServer(
    (target) => ownTargets[target] ?? router(target),
    logger,
    config.ServerConfig,
    services,
  ).start();
  logger.info(`Cognito Local running on ${JSON.stringify(server.address())}`);
} catch (error) {
  logger.error(error);
  process.exit(1);
}
