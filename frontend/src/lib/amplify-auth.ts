import { Amplify } from 'aws-amplify';
import {
  confirmResetPassword,
  confirmSignUp,
  fetchAuthSession,
  resendSignUpCode,
  resetPassword,
  signOut,
  signUp,
} from 'aws-amplify/auth';
import { cognitoUserPoolsTokenProvider } from 'aws-amplify/auth/cognito';
import { decodeJWT } from '@aws-amplify/core/internals/utils';
import type { AppConfig } from '@shared/app-config';
import type { SignInTokens } from '@shared/schemas/sign-in';

/**
 * The only module that imports Amplify. Loaded lazily through loadAuth() in ./auth, which
 * configures it first; import the wrappers from there, not from here.
 */
export function configureAuth(config: AppConfig): void {
  Amplify.configure({
    Auth: {
      Cognito: {
        userPoolId: config.userPoolId,
        userPoolClientId: config.userPoolClientId,
        // Only the local Cognito emulator sets an endpoint; against AWS Amplify derives it.
        ...(config.userPoolEndpoint ? { userPoolEndpoint: config.userPoolEndpoint } : {}),
        loginWith: { email: true },
      },
    },
  });
}

/** The access token for the API (the API's JWT authorizer accepts access tokens only). */
export async function getAccessToken(): Promise<string | undefined> {
  try {
    const session = await fetchAuthSession();
    return session.tokens?.accessToken.toString();
  } catch {
    // An expired session that cannot be refreshed (the local emulator cannot refresh) is no session.
    return undefined;
  }
}

/**
 * Keeps the tokens of a sign-in made through the API (POST /api/auth/sign-in, which counts
 * failed attempts and asks for the TOTP code) where Amplify keeps its own: its token store
 * (localStorage, `CognitoIdentityServiceProvider.<client id>.<username>.*` and `.LastAuthUser`),
 * with the clock drift computed as Amplify computes it. fetchAuthSession, refresh and sign-out
 * then work as after Amplify's own signIn.
 */
export async function storeSignInTokens(tokens: SignInTokens, email: string): Promise<void> {
  const accessToken = decodeJWT(tokens.accessToken);
  const issuedAt = (accessToken.payload.iat ?? 0) * 1000;
  const username = typeof accessToken.payload.username === 'string' ? accessToken.payload.username : email;
  await cognitoUserPoolsTokenProvider.tokenOrchestrator.setTokens({
    tokens: {
      accessToken,
      idToken: decodeJWT(tokens.idToken),
      refreshToken: tokens.refreshToken,
      clockDrift: issuedAt > 0 ? issuedAt - Date.now() : 0,
      username,
      signInDetails: { loginId: email, authFlowType: 'USER_PASSWORD_AUTH' },
    },
  });
}

export async function signUpWithEmail(input: {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
}): Promise<void> {
  await signUp({
    username: input.email,
    password: input.password,
    options: {
      userAttributes: { email: input.email, given_name: input.firstName, family_name: input.lastName },
    },
  });
}

export async function confirmEmail(email: string, code: string): Promise<void> {
  await confirmSignUp({ username: email, confirmationCode: code });
}

export async function resendConfirmationCode(email: string): Promise<void> {
  await resendSignUpCode({ username: email });
}

export async function requestPasswordReset(email: string): Promise<void> {
  await resetPassword({ username: email });
}

export async function confirmPasswordReset(email: string, code: string, newPassword: string): Promise<void> {
  await confirmResetPassword({ username: email, confirmationCode: code, newPassword });
}

/** Ends the session on this device. Amplify removes its tokens even when revocation fails. */
export async function signOutHere(): Promise<void> {
  await signOut();
}
