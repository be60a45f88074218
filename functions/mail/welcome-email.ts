import { escapeHtml } from '../../shared/html';

export interface Email {
  to: string;
  subject: string;
  html: string;
  text: string;
}

/** The e-mail a new user receives after their first sign-in. */
export function welcomeEmail(user: { email: string; firstName: string }, appUrl: string): Email {
  const name = user.firstName.trim() || 'there';
  return {
    to: user.email,
    subject: 'Welcome to BulkOnboard',
    text: `Hi ${name},\n\nyour BulkOnboard account is ready. Create a project and import people from a CSV to generate their accounts: ${appUrl}\n\nThe BulkOnboard team`,
    html:
      `<p>Hi ${escapeHtml(name)},</p>` +
      `<p>your BulkOnboard account is ready. Create a project and import people from a CSV to generate their accounts.</p>` +
      `<p><a href="${escapeHtml(appUrl)}">Open BulkOnboard</a></p><p>The BulkOnboard team</p>`,
  };
}
