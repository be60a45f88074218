import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { Email } from './welcome-email';

export interface Mailer {
  send(email: Email): Promise<void>;
}

export function sesMailer(client: SESv2Client, from: string, configurationSet?: string): Mailer {
  return {
    async send(email) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [email.to] },
          ConfigurationSetName: configurationSet,
          Content: {
            Simple: {
              Subject: { Data: email.subject, Charset: 'UTF-8' },
              Body: { Html: { Data: email.html, Charset: 'UTF-8' }, Text: { Data: email.text, Charset: 'UTF-8' } },
            },
          },
        }),
      );
    },
  };
}
