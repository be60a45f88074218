import { describe, expect, it } from 'vitest';
import { projectCompletionEmail, projectExpiredEmail } from '../../functions/mail/project-completion-email';
import { securityAlertEmail } from '../../functions/mail/security-alert-email';
import { weeklyDigestEmail } from '../../functions/mail/weekly-digest-email';

const user = { email: 'ada@example.com', firstName: '<Ada>' };
const hostile = '"><script>alert(1)</script>';

describe('notification e-mails', () => {
  it('project completion: values escaped in the HTML, a text part, the project link', () => {
    const ok = projectCompletionEmail(user, { type: 'project-completion', userId: 'u', projectId: 'p-1', projectName: hostile, outcome: 'completed', created: 1200, failed: 1 }, 'https://app.example/');
    expect(ok.subject).toBe(`Your project "${hostile}" is ready`);
    expect(ok.html).not.toContain('<script>');
    expect(ok.html).toContain('&#60;script&#62;');
    expect(ok.html).toContain('Hi &#60;Ada&#62;,');
    expect(ok.text).toContain('1,200 accounts created in');
    expect(ok.text).toContain('1 row could not be created');
    expect(ok.text).toContain('https://app.example/projects/p-1');
    const failed = projectCompletionEmail(user, { type: 'project-completion', userId: 'u', projectId: 'p', projectName: 'X', outcome: 'failed', created: 0, failed: 5, reason: 'Invalid password settings' }, 'https://app.example');
    expect(failed.subject).toBe('Creating accounts in "X" failed');
    expect(failed.text).toContain('Creating accounts in "X" stopped: Invalid password settings. 0 accounts created, 5 rows not created.');
    const partly = projectCompletionEmail(user, { type: 'project-completion', userId: 'u', projectId: 'p', projectName: 'X', outcome: 'failed', created: 6000, failed: 4000, reason: 'Rows 7,001-8,000 could not be stored.' }, 'https://app.example');
    expect(partly.text).toContain('6,000 accounts created, 4,000 rows not created.');
  });

  it('project expired: escaped, the date, the count, the platform, how to bring the accounts back', () => {
    const mail = projectExpiredEmail(user, { type: 'project-expired', userId: 'u', projectId: 'p-1', projectName: hostile, expirationDate: '2030-03-10', accounts: 1200, platform: 'Okta <prod>' }, 'https://app.example/');
    expect(mail.subject).toBe(`Your project "${hostile}" expired`);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Okta &#60;prod&#62;');
    expect(mail.text).toContain('reached its expiration date (2030-03-10): its 1,200 accounts are being deactivated here and on Okta <prod>.');
    expect(mail.text).toContain('choose Reactivate on the project page');
    expect(mail.text).toContain('https://app.example/projects/p-1');
    const one = projectExpiredEmail(user, { type: 'project-expired', userId: 'u', projectId: 'p', projectName: 'X', expirationDate: '2030-03-10', accounts: 1 }, 'https://app.example');
    expect(one.text).toContain('its 1 account is being deactivated here.');
  });

  it('security alert: escaped, with its time and the Security Center link', () => {
    const mail = securityAlertEmail(user, { type: 'security-alert', userId: 'u', title: hostile, detail: 'from <b>1.2.3.4</b>', at: '2026-11-23T08:00:00.000Z' }, 'https://app.example');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<b>1.2.3.4');
    expect(mail.text).toContain('from <b>1.2.3.4</b>');
    expect(mail.text).toContain('Mon, 23 Nov 2026 08:00:00 GMT');
    expect(mail.html).toContain('href="https://app.example/security"');
  });

  it('weekly digest: the seven days before its day, counts in words, escaped names, at most 10 listed', () => {
    const projects = Array.from({ length: 12 }, (_, i) => ({ id: `p${i}`, name: i === 0 ? hostile : `P${i}`, accountCount: i === 0 ? 1 : 10 }));
    const mail = weeklyDigestEmail(user, { week: '2026-11-23', projects, notifications: [{ title: 'Export of "A" is ready', createdAt: '2026-11-20T10:00:00.000Z' }], unreadCount: 1 }, 'https://app.example');
    expect(mail.subject).toBe('Your BulkOnboard week: 12 new projects with 111 accounts this week.');
    expect(mail.text).toContain('(16 Nov to 22 Nov 2026)');
    expect(mail.text).toContain(`${hostile}: 1 account (`);
    expect(mail.text).toContain('You have 1 unread notification.');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html.match(/<li>/g)).toHaveLength(11);
    expect(weeklyDigestEmail(user, { week: '2026-11-23', projects: [], notifications: [], unreadCount: 0 }, 'https://app.example').subject).toBe('Your BulkOnboard week: No new projects this week.');
  });
});
