/**
 * Turns Cognito / Amplify errors into sentences for the auth forms. Amplify errors carry the
 * Cognito exception name in `name`.
 */
export type AuthAction = 'signIn' | 'signUp' | 'confirm' | 'resend' | 'resetRequest' | 'resetConfirm';

export const authErrorName = (error: unknown): string =>
  error instanceof Error ? error.name : typeof error === 'object' && error && 'name' in error ? String(error.name) : '';

const generic = 'Something went wrong. Please try again.';

export function authErrorMessage(error: unknown, action: AuthAction): string {
  const name = authErrorName(error);
  const message = error instanceof Error ? error.message : '';

  switch (name) {
    case 'NetworkError':
      return 'Cannot reach the sign-in service. Check your connection and try again.';
    case 'LimitExceededException':
    case 'TooManyRequestsException':
    case 'TooManyFailedAttemptsException':
      return 'Too many attempts. Please wait a moment and try again.';
    case 'UsernameExistsException':
      return 'An account with this e-mail already exists.';
    case 'CodeMismatchException':
      return 'The code is incorrect. Check it and try again.';
    case 'ExpiredCodeException':
      return 'The code has expired. Request a new one.';
    case 'UserNotConfirmedException':
      return 'Your account is not confirmed yet.';
    case 'PasswordResetRequiredException':
      return 'You need to reset your password before signing in.';
  }

  if (message.startsWith('Cognito Local unsupported feature')) {
    return 'The local Cognito emulator does not support this. Use the code printed in the npm start console.';
  }
  if (action === 'signIn' && ['NotAuthorizedException', 'UserNotFoundException', 'InvalidPasswordException'].includes(name)) {
    return 'Incorrect e-mail or password.';
  }
  if (name === 'UserNotFoundException') return 'No account exists for this e-mail.';
  if (action === 'confirm' && name === 'NotAuthorizedException') {
    // Cognito says "User cannot be confirmed. Current status is CONFIRMED".
    return 'This account is already confirmed. You can sign in.';
  }
  if (action === 'resend' && name === 'InvalidParameterException' && /already confirmed/i.test(message)) {
    return 'This account is already confirmed. You can sign in.';
  }
  if (name === 'InvalidPasswordException' || name === 'InvalidParameterException') {
    // Cognito's own text names the broken rule, e.g. "Password must have uppercase characters".
    return message.replace(/^Password did not conform with policy: /, '') || generic;
  }
  return message || generic;
}
