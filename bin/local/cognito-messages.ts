import type { Email } from '../../functions/mail/welcome-email';
import { escapeHtml } from '../../shared/html';

/** Why cognito-local sends a code: its MessageSource (the CustomMessage trigger's sources). */
export type CognitoMessageSource =
  | 'AdminCreateUser'
  | 'Authentication'
  | 'ForgotPassword'
  | 'ResendCode'
  | 'SignUp'
  | 'UpdateUserAttribute'
  | 'VerifyUserAttribute';

/** One code the Cognito emulator sends, as its process hands it to the stack (IPC message). */
export interface CognitoDelivery {
  id: number;
  source: CognitoMessageSource;
  medium: 'EMAIL' | 'SMS';
  /** The e-mail address (or phone number) the code goes to. */
  destination: string;
  code: string;
  username: string;
  userPoolId: string;
}

/** The stack's answer: the code has been printed and its e-mail handed to SES. */
export interface CognitoDeliveryAck {
  id: number;
}

/** Cognito's own sender when a pool sends through Cognito's e-mail (the CDK default). */
export const cognitoFromAddress = 'no-reply@verificationemail.com';

/**
 * The e-mail Cognito sends for a code, worded as the deployed pool words it: lib/stateful-stack.ts
 * keeps the CDK's defaults (userVerification: 'Verify your new account' / 'The verification code
 * to your new account is {####}', used for sign-up, resend and forgotten passwords alike;
 * userInvitation for admin-created users).
 */
export function cognitoEmail(delivery: Pick<CognitoDelivery, 'source' | 'destination' | 'code' | 'username'>): Email {
  const { subject, text } = wording(delivery);
  return { to: delivery.destination, subject, text, html: `<p>${escapeHtml(text)}</p>` };
}

function wording({ source, code, username }: Pick<CognitoDelivery, 'source' | 'code' | 'username'>) {
  switch (source) {
    case 'AdminCreateUser':
      return { subject: 'Your temporary password', text: `Your username is ${username} and temporary password is ${code}.` };
    case 'Authentication':
      return { subject: 'Your authentication code', text: `Your authentication code is ${code}.` };
    default:
      return { subject: 'Verify your new account', text: `The verification code to your new account is ${code}` };
  }
}
