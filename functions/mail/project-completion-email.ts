import { escapeHtml } from '../../shared/html';
import type { Email } from './welcome-email';
import type { NotificationMailMessage } from './mail-message';
import { plural } from '../../shared/text/plural';

type ProjectCompletion = Extract<NotificationMailMessage, { type: 'project-completion' }>;

const accounts = (n: number) => plural(n, 'account');
const rows = (n: number) => plural(n, 'row');

/** A background bulk creation ended: how many accounts were created, and where to find them. */
export function projectCompletionEmail(user: { email: string; firstName: string }, message: ProjectCompletion, appUrl: string): Email {
  const name = user.firstName.trim() || 'there';
  const link = `${appUrl.replace(/\/$/, '')}/projects/${encodeURIComponent(message.projectId)}`;
  const ok = message.outcome === 'completed';
  const subject = ok ? `Your project "${message.projectName}" is ready` : `Creating accounts in "${message.projectName}" failed`;
  const summary = ok
    ? `${accounts(message.created)} created in "${message.projectName}"${message.failed ? `; ${rows(message.failed)} could not be created (see the project's rejected rows)` : ''}.`
    : `Creating accounts in "${message.projectName}" stopped${message.reason ? `: ${message.reason}` : ''}. ${accounts(message.created)} created, ${rows(message.failed)} not created.`;
  return {
    to: user.email,
    subject,
    text: `Hi ${name},\n\n${summary}\n\nOpen the project: ${link}\n\nYou receive this because project completion e-mails are on in Settings > Notifications.\n\nThe BulkOnboard team`,
    html:
      `<p>Hi ${escapeHtml(name)},</p>` +
      `<p>${escapeHtml(summary)}</p>` +
      `<p><a href="${escapeHtml(link)}">Open the project</a></p>` +
      `<p style="color:#666;font-size:12px">You receive this because project completion e-mails are on in Settings &gt; Notifications.</p>` +
      `<p>The BulkOnboard team</p>`,
  };
}

type ProjectExpired = Extract<NotificationMailMessage, { type: 'project-expired' }>;

/** A project's expiration date arrived: its accounts are being deactivated, and how to bring them back. */
export function projectExpiredEmail(user: { email: string; firstName: string }, message: ProjectExpired, appUrl: string): Email {
  const name = user.firstName.trim() || 'there';
  const link = `${appUrl.replace(/\/$/, '')}/projects/${encodeURIComponent(message.projectId)}`;
  const subject = `Your project "${message.projectName}" expired`;
  const summary = `"${message.projectName}" reached its expiration date (${message.expirationDate}): its ${accounts(message.accounts)} ${message.accounts === 1 ? 'is' : 'are'} being deactivated here${message.platform ? ` and on ${message.platform}` : ''}.`;
  const after = 'To bring them back, choose Reactivate on the project page; to keep the project running, set a later expiration date in Edit.';
  return {
    to: user.email,
    subject,
    text: `Hi ${name},\n\n${summary}\n\n${after}\n\nOpen the project: ${link}\n\nYou receive this because project completion e-mails are on in Settings > Notifications.\n\nThe BulkOnboard team`,
    html:
      `<p>Hi ${escapeHtml(name)},</p>` +
      `<p>${escapeHtml(summary)}</p>` +
      `<p>${escapeHtml(after)}</p>` +
      `<p><a href="${escapeHtml(link)}">Open the project</a></p>` +
      `<p style="color:#666;font-size:12px">You receive this because project completion e-mails are on in Settings &gt; Notifications.</p>` +
      `<p>The BulkOnboard team</p>`,
  };
}
