import { escapeHtml } from '../../shared/html';
import type { Email } from './welcome-email';
import { plural } from '../../shared/text/plural';

/** What the user's week held (functions/mail/notification-mail.ts reads it). */
export interface DigestContent {
  /** The Monday the week ends on (YYYY-MM-DD). */
  week: string;
  projects: { id: string; name: string; accountCount: number }[];
  notifications: { title: string; createdAt: string }[];
  unreadCount: number;
}

const MAX_LISTED = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

/** "16 Nov to 22 Nov 2026": the seven days before `week` (which is not part of them). */
function periodOf(week: string): string {
  const end = new Date(`${week}T00:00:00.000Z`);
  if (Number.isNaN(end.getTime())) return week;
  const day = (at: Date, withYear: boolean) => at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', ...(withYear ? { year: 'numeric' } : {}), timeZone: 'UTC' });
  return `${day(new Date(end.getTime() - 7 * DAY_MS), false)} to ${day(new Date(end.getTime() - DAY_MS), true)}`;
}

/** The weekly digest: the projects created and the notifications of the seven days before `week`. */
export function weeklyDigestEmail(user: { email: string; firstName: string }, content: DigestContent, appUrl: string): Email {
  const name = user.firstName.trim() || 'there';
  const base = appUrl.replace(/\/$/, '');
  const accounts = content.projects.reduce((sum, p) => sum + p.accountCount, 0);
  const headline =
    content.projects.length === 0
      ? 'No new projects this week.'
      : `${plural(content.projects.length, 'new project', 'new projects')} with ${plural(accounts, 'account', 'accounts')} this week.`;
  const projects = content.projects.slice(0, MAX_LISTED);
  const notifications = content.notifications.slice(0, MAX_LISTED);
  const unread = content.unreadCount ? `You have ${plural(content.unreadCount, 'unread notification', 'unread notifications')}.` : '';
  const text = [
    `Hi ${name},`,
    '',
    `Your BulkOnboard week (${periodOf(content.week)}): ${headline}`,
    ...(projects.length ? ['', 'Projects:', ...projects.map((p) => `- ${p.name}: ${plural(p.accountCount, 'account', 'accounts')} (${base}/projects/${encodeURIComponent(p.id)})`)] : []),
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
    `<p>Your BulkOnboard week (${escapeHtml(periodOf(content.week))}): ${escapeHtml(headline)}</p>` +
    (projects.length
      ? `<h3>Projects</h3><ul>${projects.map((p) => `<li><a href="${escapeHtml(`${base}/projects/${encodeURIComponent(p.id)}`)}">${escapeHtml(p.name)}</a>: ${escapeHtml(plural(p.accountCount, 'account', 'accounts'))}</li>`).join('')}</ul>`
      : '') +
    (notifications.length ? `<h3>Notifications</h3><ul>${notifications.map((n) => `<li>${escapeHtml(n.title)} <span style="color:#666">(${escapeHtml(n.createdAt.slice(0, 10))})</span></li>`).join('')}</ul>` : '') +
    (unread ? `<p>${escapeHtml(unread)}</p>` : '') +
    `<p><a href="${escapeHtml(base)}">Open BulkOnboard</a></p>` +
    `<p style="color:#666;font-size:12px">You receive this because the weekly digest is on in Settings &gt; Notifications.</p>` +
    `<p>The BulkOnboard team</p>`;
  return { to: user.email, subject: `Your BulkOnboard week: ${headline}`, text, html };
}
