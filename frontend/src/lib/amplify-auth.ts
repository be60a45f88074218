import { Amplify } from 'aws-amplify';
import {
  confirmResetPassword,
  confirmSignUp,
  fetchAuthSession,
  resendSignUpCode,
  resetPassword,
  signIn,
  signOut,
  signUp,
} from 'aws-amplify/auth';
import type { AppConfig } from '@shared/app-config';

/**
 * The only module that imports Amplify. Loaded lazily through loadAuth() in ./auth, which
 * configures it first; import the wrappers from there, not from here.
 */
let authFlow: AppConfig['authFlow'] = 'USER_SRP_AUTH';

export function configureAuth(config: AppConfig): void {
  authFlow = config.authFlow;
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

export type SignInResult = 'signedIn' | 'confirmSignUp';

export async function signInWithEmail(email: string, password: string): Promise<SignInResult> {
  const result = await signIn({ username: email, password, options: { authFlowType: authFlow } });
  if (result.isSignedIn) return 'signedIn';
  if (result.nextStep.signInStep === 'CONFIRM_SIGN_UP') return 'confirmSignUp';
  // Other steps (MFA, new password) are not enabled on the user pool.
  throw new Error(`Unsupported sign-in step: ${result.nextStep.signInStep}`);
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
