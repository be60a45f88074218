import type { MailMessage } from './mail-message';
import type { Mailer } from './ses-mailer';
import { welcomeEmail } from './welcome-email';
import type { UserRepository } from '../users/user-repository';

/** Renders and sends one queued e-mail. A user who no longer exists gets nothing. */
export const processMail =
  (deps: { users: Pick<UserRepository, 'get'>; mailer: Mailer; appUrl: string }) =>
  async (message: Extract<MailMessage, { type: 'welcome' }>): Promise<void> => {
    const user = await deps.users.get(message.userId);
    if (!user?.email) return;
    await deps.mailer.send(welcomeEmail(user, deps.appUrl));
  };
