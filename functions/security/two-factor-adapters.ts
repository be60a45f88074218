import {
  AssociateSoftwareTokenCommand,
  CodeMismatchException,
  EnableSoftwareTokenMFAException,
  NotAuthorizedException,
  SetUserMFAPreferenceCommand,
  VerifySoftwareTokenCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { securitySettingsWithDefaults } from '../../shared/schemas/security';
import { UnauthorizedError } from '../core/errors';
import { keys } from '../core/keys';
import { SECURITY_SETTINGS_ATTRIBUTE } from './security-settings';
import type { SoftwareTokenProvider, TwoFactorStore } from './two-factor';

/** User item attributes of two-factor authentication (secrets encrypted, secretContext.twoFactor). */
export const TWO_FACTOR_PENDING_SECRET = 'twoFactorPendingSecret';
export const TWO_FACTOR_SECRET = 'twoFactorSecret';
export const TWO_FACTOR_LAST_TIME_STEP = 'twoFactorLastTimeStep';
/** `{ token, until }`: the setup under way (functions/security/two-factor setUpTwoFactor). */
export const TWO_FACTOR_SETUP_CLAIM = 'twoFactorSetupClaim';

/** A revoked or signed-out token is the caller's session ending, not a server fault. */
const unauthorized = (error: unknown): never => {
  if (error instanceof NotAuthorizedException) throw new UnauthorizedError();
  throw error;
};

export function cognitoSoftwareTokens(client: CognitoIdentityProviderClient): SoftwareTokenProvider {
  return {
    async associate(accessToken) {
      const { SecretCode } = await client.send(new AssociateSoftwareTokenCommand({ AccessToken: accessToken })).catch(unauthorized);
      if (!SecretCode) throw new Error('Cognito answered AssociateSoftwareToken without a secret');
      return SecretCode;
    },
    async verify(accessToken, code) {
      try {
        const { Status } = await client.send(new VerifySoftwareTokenCommand({ AccessToken: accessToken, UserCode: code, FriendlyDeviceName: 'Authenticator app' }));
        return Status === 'SUCCESS';
      } catch (error) {
        // Cognito's two names for a code that does not match.
        if (error instanceof CodeMismatchException || error instanceof EnableSoftwareTokenMFAException) return false;
        return unauthorized(error);
      }
    },
    async setPreference(accessToken, enabled) {
      await client
        .send(new SetUserMFAPreferenceCommand({ AccessToken: accessToken, SoftwareTokenMfaSettings: { Enabled: enabled, PreferredMfa: enabled } }))
        .catch(unauthorized);
    },
  };
}

export function dynamoTwoFactorStore(db: DynamoDBDocumentClient, tableName: string): TwoFactorStore {
  const conditional = async (command: UpdateCommand): Promise<boolean> => {
    try {
      await db.send(command);
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  };
  return {
    async get(userId) {
      const { Item } = await db.send(
        new GetCommand({
          TableName: tableName,
          Key: keys.user(userId),
          ConsistentRead: true,
          ProjectionExpression: 'email, #s, #pending, #secret, #last',
          ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE, '#pending': TWO_FACTOR_PENDING_SECRET, '#secret': TWO_FACTOR_SECRET, '#last': TWO_FACTOR_LAST_TIME_STEP },
        }),
      );
      if (!Item) return undefined;
      const stored: unknown = Item[SECURITY_SETTINGS_ATTRIBUTE];
      return {
        email: typeof Item.email === 'string' ? Item.email : '',
        storedSettings: stored,
        settings: securitySettingsWithDefaults(stored),
        ...(typeof Item[TWO_FACTOR_PENDING_SECRET] === 'string' ? { pendingSecret: Item[TWO_FACTOR_PENDING_SECRET] as string } : {}),
        ...(typeof Item[TWO_FACTOR_SECRET] === 'string' ? { secret: Item[TWO_FACTOR_SECRET] as string } : {}),
        ...(typeof Item[TWO_FACTOR_LAST_TIME_STEP] === 'number' ? { lastTimeStep: Item[TWO_FACTOR_LAST_TIME_STEP] as number } : {}),
      };
    },
    claimSetup: (userId, token, now, until) =>
      conditional(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.user(userId),
          UpdateExpression: 'SET #claim = :claim',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#claim) OR #claim.#until < :now)',
          ExpressionAttributeNames: { '#claim': TWO_FACTOR_SETUP_CLAIM, '#until': 'until' },
          ExpressionAttributeValues: { ':claim': { token, until }, ':now': now },
        }),
      ),
    savePending: (userId, encryptedSecret, token, now) =>
      conditional(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.user(userId),
          // A new secret starts its own count of used codes (setup is refused while a secret is in force).
          UpdateExpression: 'SET #pending = :secret, updatedAt = :now REMOVE #last, #claim',
          ConditionExpression: '#claim.#token = :token',
          ExpressionAttributeNames: { '#pending': TWO_FACTOR_PENDING_SECRET, '#last': TWO_FACTOR_LAST_TIME_STEP, '#claim': TWO_FACTOR_SETUP_CLAIM, '#token': 'token' },
          ExpressionAttributeValues: { ':secret': encryptedSecret, ':now': now, ':token': token },
        }),
      ),
    spendCode: (userId, timeStep) =>
      conditional(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.user(userId),
          UpdateExpression: 'SET #last = :step',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#last) OR #last < :step)',
          ExpressionAttributeNames: { '#last': TWO_FACTOR_LAST_TIME_STEP },
          ExpressionAttributeValues: { ':step': timeStep },
        }),
      ),
    saveSwitch: (userId, settings, secret, expected, now) =>
      conditional(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.user(userId),
          // On: the confirmed secret is the one in force. Off: no secret is kept. Either way the setup is over.
          UpdateExpression: secret === undefined ? 'SET #s = :settings, updatedAt = :now REMOVE #secret, #pending' : 'SET #s = :settings, #secret = :secret, updatedAt = :now REMOVE #pending',
          ConditionExpression: expected === undefined ? 'attribute_exists(PK) AND attribute_not_exists(#s)' : 'attribute_exists(PK) AND #s = :expected',
          ExpressionAttributeNames: { '#s': SECURITY_SETTINGS_ATTRIBUTE, '#secret': TWO_FACTOR_SECRET, '#pending': TWO_FACTOR_PENDING_SECRET },
          ExpressionAttributeValues: {
            ':settings': settings,
            ':now': now,
            ...(secret === undefined ? {} : { ':secret': secret }),
            ...(expected === undefined ? {} : { ':expected': expected }),
          },
        }),
      ),
  };
}
