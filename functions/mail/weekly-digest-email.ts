import { escapeHtml } from '../../shared/html';
import type { Email } from './welcome-email';

/** What the user's week held (functions/mail/notification-mail.ts reads it). */
export interface DigestContent {
  /** The Monday the week ends on (YYYY-MM-DD). */
  week: string;
  projects: { id: string; name: string; accountCount: number }[];
  notifications: { title: string; createdAt: string }[];
  unreadCount: number;
}

const MAX_LISTED = 10;

/** The weekly digest: the projects created and the notifications of the seven days before `week`. */
export function weeklyDigestEmail(user: { email: string; firstName: string }, content: DigestContent, appUrl: string): Email {
  const name = user.firstName.trim() || 'there';
  const base = appUrl.replace(/\/$/, '');
  const accounts = content.projects.reduce((sum, p) => sum + p.accountCount, 0);
  const headline =
    content.projects.length === 0
      ? 'No new projects this week.'
      : `${content.projects.length} new ${content.projects.length === 1 ? 'project' : 'projects'} with ${accounts.toLocaleString('en-US')} ${accounts === 1 ? 'account' : 'accounts'} this week.`;
  const projects = content.projects.slice(0, MAX_LISTED);
  const notifications = content.notifications.slice(0, MAX_LISTED);
  const unread = content.unreadCount ? `You have ${content.unreadCount} unread ${content.unreadCount === 1 ? 'notification' : 'notifications'}.` : '';
  const text = [
    `Hi ${name},`,
    '',
    `Your BulkOnboard week (to ${content.week}): ${headline}`,
    ...(projects.length ? ['', 'Projects:', ...projects.map((p) => `- ${p.name}: ${p.accountCount} accounts (${base}/projects/${encodeURIComponent(p.id)})`)] : []),
    ...(notifications.length ? ['', 'Notifications:', ...notifications.map((n) => `- ${n.title} (${n.createdAt.slice(0, 10)})`)] : []),
    ...(unread ? ['', unread] : []),
    '',
    `Open BulkOnboard: ${base}`,
    '',
    'You receive this because the weekly digest is on in Settings > Notifications.',
    '',
    'The BulkOnboard team',
  ].join('\n');
  const html =
    `<p>Hi ${escapeHtml(name)},</p>` +
    `<p>Your BulkOnboard week (to ${escapeHtml(content.week)}): ${escapeHtml(headline)}</p>` +
    (projects.length
      ? `<h3>Projects</h3><ul>${projects.map((p) => `<li><a href="${escapeHtml(`${base}/projects/${encodeURIComponent(p.id)}`)}">${escapeHtml(p.name)}</a>: ${p.accountCount} accounts</li>`).join('')}</ul>`
      : '') +
    (notifications.length ? `<h3>Notifications</h3><ul>${notifications.map((n) => `<li>${escapeHtml(n.title)} <span style="color:#666">(${escapeHtml(n.createdAt.slice(0, 10))})</span></li>`).join('')}</ul>` : '') +
    (unread ? `<p>${escapeHtml(unread)}</p>` : '') +
    `<p><a href="${escapeHtml(base)}">Open BulkOnboard</a></p>` +
    `<p style="color:#666;font-size:12px">You receive this because the weekly digest is on in Settings &gt; Notifications.</p>` +
    `<p>The BulkOnboard team</p>`;
  return { to: user.email, subject: `Your BulkOnboard week: ${headline}`, text, html };
}
