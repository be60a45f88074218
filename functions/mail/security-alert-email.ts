import { escapeHtml } from '../../shared/html';
import type { Email } from './welcome-email';
import type { NotificationMailMessage } from './mail-message';

type SecurityAlert = Extract<NotificationMailMessage, { type: 'security-alert' }>;

/** A security alert of the user's account (raised by the Security Center through notifySecurityAlert). */
export function securityAlertEmail(user: { email: string; firstName: string }, message: SecurityAlert, appUrl: string): Email {
  const name = user.firstName.trim() || 'there';
  const link = `${appUrl.replace(/\/$/, '')}/security`;
  const when = new Date(message.at).toUTCString();
  return {
    to: user.email,
    subject: `Security alert: ${message.title}`,
    text: `Hi ${name},\n\n${message.title}\n${message.detail}\n(${when})\n\nIf this was not you, review your account in the Security Center: ${link}\n\nYou receive this because security alerts are on in Settings > Notifications.\n\nThe BulkOnboard team`,
    html:
      `<p>Hi ${escapeHtml(name)},</p>` +
      `<p><strong>${escapeHtml(message.title)}</strong><br>${escapeHtml(message.detail)}<br><span style="color:#666">${escapeHtml(when)}</span></p>` +
      `<p>If this was not you, review your account in the <a href="${escapeHtml(link)}">Security Center</a>.</p>` +
      `<p style="color:#666;font-size:12px">You receive this because security alerts are on in Settings &gt; Notifications.</p>` +
      `<p>The BulkOnboard team</p>`,
  };
}
