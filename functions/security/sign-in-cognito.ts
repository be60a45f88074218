import {
  ChangePasswordCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  RevokeTokenCommand,
  type AuthenticationResultType,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import type { SignInTokens } from '../../shared/schemas/sign-in';

/**
 * The Cognito calls of sign-in, as the app client makes them (public client, no secret, no IAM:
 * InitiateAuth, RespondToAuthChallenge, RevokeToken and ChangePassword are authorised by the
 * client id and the user's own password, code or token). Errors are Cognito's own, by `name`.
 */
export type CognitoSignInStep = { kind: 'tokens'; tokens: SignInTokens } | { kind: 'totp'; session: string; username: string } | { kind: 'other'; challenge: string };

export interface SignInIdentity {
  passwordSignIn(email: string, password: string): Promise<CognitoSignInStep>;
  totpSignIn(username: string, session: string, code: string): Promise<CognitoSignInStep>;
  revoke(refreshToken: string): Promise<void>;
  changePassword(accessToken: string, currentPassword: string, newPassword: string): Promise<void>;
}

const tokensOf = (result: AuthenticationResultType | undefined): SignInTokens | undefined =>
  result?.AccessToken && result.IdToken && result.RefreshToken
    ? { accessToken: result.AccessToken, idToken: result.IdToken, refreshToken: result.RefreshToken, expiresIn: result.ExpiresIn ?? 3600 }
    : undefined;

const stepOf = (answer: { AuthenticationResult?: AuthenticationResultType; ChallengeName?: string; Session?: string; ChallengeParameters?: Record<string, string> }, fallbackUsername: string): CognitoSignInStep => {
  const tokens = tokensOf(answer.AuthenticationResult);
  if (tokens) return { kind: 'tokens', tokens };
  if (answer.ChallengeName === 'SOFTWARE_TOKEN_MFA' && answer.Session) {
    return { kind: 'totp', session: answer.Session, username: answer.ChallengeParameters?.USER_ID_FOR_SRP ?? fallbackUsername };
  }
  return { kind: 'other', challenge: answer.ChallengeName ?? 'none' };
};

export function cognitoSignInIdentity(client: CognitoIdentityProviderClient, clientId: string): SignInIdentity {
  return {
    async passwordSignIn(email, password) {
      const answer = await client.send(new InitiateAuthCommand({ ClientId: clientId, AuthFlow: 'USER_PASSWORD_AUTH', AuthParameters: { USERNAME: email, PASSWORD: password } }));
      return stepOf(answer, email);
    },
    async totpSignIn(username, session, code) {
      const answer = await client.send(
        new RespondToAuthChallengeCommand({ ClientId: clientId, ChallengeName: 'SOFTWARE_TOKEN_MFA', Session: session, ChallengeResponses: { USERNAME: username, SOFTWARE_TOKEN_MFA_CODE: code } }),
      );
      return stepOf(answer, username);
    },
    async revoke(refreshToken) {
      await client.send(new RevokeTokenCommand({ ClientId: clientId, Token: refreshToken }));
    },
    async changePassword(accessToken, currentPassword, newPassword) {
      await client.send(new ChangePasswordCommand({ AccessToken: accessToken, PreviousPassword: currentPassword, ProposedPassword: newPassword }));
    },
  };
}
