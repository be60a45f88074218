import type { SubscriptionStatus } from '@shared/schemas/project';
import type { User } from '@shared/schemas/user';
import { formatDate, formatDateTime } from '../../../lib/format-date';

export interface ReportSection {
  title: string;
  rows: [label: string, value: string][];
}

/**
 * What the security report says (Settings > Security): the facts the product holds about the
 * account's access. The Security Center's own settings and events join it once they exist.
 */
export function securityReportSections(user: User, subscription: SubscriptionStatus | undefined, now = new Date()): ReportSection[] {
  const name = `${user.firstName} ${user.lastName}`.trim() || 'Not set';
  return [
    {
      title: 'Account',
      rows: [
        ['Name', name],
        ['E-mail', user.email],
        ['Company', user.company ?? 'Not set'],
        ['Joined', formatDate(user.createdAt)],
        ['Profile last changed', formatDateTime(user.updatedAt)],
      ],
    },
    {
      title: 'Sign-in',
      rows: [
        ['Sign-in method', 'E-mail and password through Amazon Cognito (OAuth2 tokens)'],
        ['E-mail address', 'Confirmed with a code at sign-up'],
        ['Last sign-in', user.lastSignInAt ? formatDateTime(user.lastSignInAt) : 'Not recorded yet'],
        ['Passwords of created accounts', 'Stored encrypted (AES-256-GCM); shown only on request'],
      ],
    },
    {
      title: 'Plan',
      rows: [
        ['Plan', subscription?.plan === 'pro' ? 'Pro' : 'Free'],
        ['Subscription', subscription ? (subscription.subscriptionActive ? 'Active' : 'Not active') : 'Unknown'],
        ...(subscription?.currentPeriodEnd ? ([['Current period ends', formatDate(subscription.currentPeriodEnd)]] as [string, string][]) : []),
        ...(subscription ? ([['Projects / accounts held', `${subscription.usage.projectsUsed} / ${subscription.usage.accountsUsed}`]] as [string, string][]) : []),
      ],
    },
    { title: 'Report', rows: [['Generated', formatDateTime(now.toISOString())]] },
  ];
}

/** The report as a PDF (jsPDF, loaded only when asked for). */
export async function securityReportPdf(sections: ReportSection[]): Promise<Blob> {
  const { jsPDF } = await import('jspdf');
  const doc = new jsPDF({ unit: 'pt', format: 'a4' });
  const left = 56;
  const width = doc.internal.pageSize.getWidth() - left * 2;
  let y = 72;
  doc.setFont('helvetica', 'bold');
  doc.setFontSize(20);
  doc.text('BulkOnboard security report', left, y);
  y += 32;
  for (const section of sections) {
    if (y > 760) {
      doc.addPage();
      y = 72;
    }
    doc.setFont('helvetica', 'bold');
    doc.setFontSize(13);
    doc.text(section.title, left, y);
    y += 20;
    doc.setFontSize(10.5);
    for (const [label, value] of section.rows) {
      doc.setFont('helvetica', 'bold');
      doc.text(label, left, y);
      doc.setFont('helvetica', 'normal');
      const lines = doc.splitTextToSize(value, width - 180) as string[];
      doc.text(lines, left + 180, y);
      y += 16 * Math.max(1, lines.length);
    }
    y += 14;
  }
  return doc.output('blob');
}
