import type { MailMessage } from './mail-message';
import type { Mailer } from './ses-mailer';
import { welcomeEmail } from './welcome-email';
import type { UserRepository } from '../users/user-repository';

/** Renders and sends one queued e-mail. A user who no longer exists gets nothing. */
export const processMail =
  (deps: {
    users: Pick<UserRepository, 'get'>;
    mailer: Mailer;
    appUrl: string;
    /** The user's notification e-mails (functions/mail/notification-mail.ts). */
    notificationMail: (message: Extract<MailMessage, { type: 'project-completion' | 'project-expired' | 'security-alert' | 'weekly-digest' }>) => Promise<unknown>;
  }) =>
  async (message: MailMessage): Promise<void> => {
    switch (message.type) {
      case 'welcome': {
        const user = await deps.users.get(message.userId);
        if (!user?.email) return;
        await deps.mailer.send(welcomeEmail(user, deps.appUrl));
        return;
      }
      case 'project-completion':
      case 'project-expired':
      case 'security-alert':
      case 'weekly-digest':
        await deps.notificationMail(message);
        return;
    }
  };
