import { BUILTIN_TEMPLATE_ID } from '../schemas/mail-send';
import type { RenderableTemplate } from './render-email';

/**
 * The built-in credential e-mail, used when the user has no template of their own or chooses it;
 * 'Copy and edit' on the Email Templates page makes an editable copy. Written for mail clients:
 * table layout, inline styles only (the stored-template allow-list keeps no <style>), every
 * colour set on its own cell (bgcolor and background-color), so clients that darken e-mails
 * (Gmail, Outlook, Apple Mail in dark mode) invert whole surfaces and keep the contrast; no
 * transparent images, one mid-tone accent that reads on light and dark.
 */
const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const MONO = "font-family:'SFMono-Regular',Menlo,Consolas,'Liberation Mono',monospace";

/**
 * Where to sign in: the project's platform URL ({{loginUrl}}) when it has one. A project without
 * one gets the sentence without an address (a template cannot leave out a sentence of its own).
 */
const signIn = (withLoginUrl: boolean) =>
  withLoginUrl
    ? `Sign in at <a href="{{loginUrl}}" target="_blank" style="color:#2563eb;text-decoration:underline">{{loginUrl}}</a> with the details below.`
    : 'Sign in with the details below.';

const frame = (inner: string, withLoginUrl: boolean) =>
  `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f1f5f9" style="background-color:#f1f5f9;border-collapse:collapse">` +
  `<tr><td align="center" style="padding:32px 12px">` +
  `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="max-width:560px;background-color:#ffffff;border:1px solid #e2e8f0;border-radius:8px;border-collapse:separate">` +
  `<tr><td style="padding:28px 32px 0 32px">{{brandLogo}}</td></tr>` +
  `<tr><td style="padding:20px 32px 0 32px;${FONT};color:#0f172a">` +
  `<h1 style="margin:0 0 16px 0;font-size:22px;line-height:30px;font-weight:700;color:#0f172a">Your {{projectName}} account is ready</h1>` +
  `<p style="margin:0 0 12px 0;font-size:15px;line-height:24px;color:#334155">Hi {{accountHolderName}},</p>` +
  `<p style="margin:0 0 20px 0;font-size:15px;line-height:24px;color:#334155">{{companyName}} has created an account for you in {{projectName}}. ${signIn(withLoginUrl)}</p>` +
  `</td></tr>` +
  inner +
  `<tr><td style="padding:24px 32px 28px 32px;${FONT}">` +
  `<p style="margin:0;padding-top:16px;border-top:1px solid #e2e8f0;font-size:12px;line-height:18px;color:#64748b">This e-mail was sent to {{email}} by {{companyName}}. If you did not expect it, you can ignore it. Nobody from {{companyName}} will ever ask you for your password.</p>` +
  `</td></tr></table></td></tr></table>`;

const row = (label: string, value: string) =>
  `<tr><td width="110" style="padding:12px 16px;${FONT};font-size:13px;line-height:20px;color:#64748b;border-bottom:1px solid #e2e8f0">${label}</td>` +
  `<td style="padding:12px 16px;${MONO};font-size:15px;line-height:20px;color:#0f172a;border-bottom:1px solid #e2e8f0">${value}</td></tr>`;

const details = (rows: string) =>
  `<tr><td style="padding:0 32px">` +
  `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f8fafc" style="background-color:#f8fafc;border:1px solid #e2e8f0;border-radius:6px;border-collapse:separate">${rows}</table>` +
  `</td></tr>`;

const passwordHtml = (withLoginUrl: boolean) =>
  frame(
    details(row('Username', '{{username}}') + row('Password', '{{password}}')) +
      `<tr><td style="padding:20px 32px 0 32px;${FONT}"><p style="margin:0;font-size:14px;line-height:22px;color:#334155">Keep these details to yourself. {{passwordChangeNotice}}</p></td></tr>`,
    withLoginUrl,
  );

const linkHtml = (withLoginUrl: boolean) =>
  frame(
  details(row('Username', '{{username}}')) +
    `<tr><td style="padding:24px 32px 0 32px;${FONT}">` +
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr><td bgcolor="#2563eb" style="background-color:#2563eb;border-radius:6px">` +
    `<a href="{{credentialLink}}" target="_blank" style="display:inline-block;padding:12px 22px;${FONT};font-size:15px;line-height:20px;font-weight:600;color:#ffffff;text-decoration:none">Show my credentials</a>` +
    `</td></tr></table>` +
    `<p style="margin:16px 0 0 0;font-size:14px;line-height:22px;color:#334155">The link shows your password once, to whoever opens it first, and then stops working. If it has expired or was already used, ask {{companyName}} for a new one. {{passwordChangeNotice}}</p>` +
    `</td></tr>`,
    withLoginUrl,
  );

export interface BuiltInTemplate extends RenderableTemplate {
  id: typeof BUILTIN_TEMPLATE_ID;
  name: string;
}

/**
 * The built-in template for a delivery: the password in the e-mail, or the one-time link. With
 * the sign-in address ({{loginUrl}}) unless `withLoginUrl` is false: a send to a project without a
 * platform URL.
 */
export function builtInTemplate(delivery: 'password' | 'link', { withLoginUrl = true }: { withLoginUrl?: boolean } = {}): BuiltInTemplate {
  return {
    id: BUILTIN_TEMPLATE_ID,
    name: 'Built-in default',
    subject: 'Your {{projectName}} account at {{companyName}}',
    htmlContent: delivery === 'link' ? linkHtml(withLoginUrl) : passwordHtml(withLoginUrl),
    brandLogoUrl: '',
  };
}

/**
 * The e-mail a project's account holders get N days before its expiration date (the project's
 * 'Remind account holders N days before', docs/lifecycle.md "Expiry reminders"): the same frame
 * and colours as the credential e-mail, no credentials, the date written by {{expirationDate}}.
 */
export function expiryReminderTemplate(): RenderableTemplate {
  return {
    subject: 'Your {{projectName}} account expires on {{expirationDate}}',
    htmlContent:
      `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f1f5f9" style="background-color:#f1f5f9;border-collapse:collapse">` +
      `<tr><td align="center" style="padding:32px 12px">` +
      `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="max-width:560px;background-color:#ffffff;border:1px solid #e2e8f0;border-radius:8px;border-collapse:separate">` +
      `<tr><td style="padding:28px 32px 0 32px">{{brandLogo}}</td></tr>` +
      `<tr><td style="padding:20px 32px 0 32px;${FONT};color:#0f172a">` +
      `<h1 style="margin:0 0 16px 0;font-size:22px;line-height:30px;font-weight:700;color:#0f172a">Your {{projectName}} account expires on {{expirationDate}}</h1>` +
      `<p style="margin:0 0 12px 0;font-size:15px;line-height:24px;color:#334155">Hi {{accountHolderName}},</p>` +
      `<p style="margin:0 0 12px 0;font-size:15px;line-height:24px;color:#334155">Your account {{username}} in {{projectName}} will be deactivated on {{expirationDate}}. After that date you can no longer sign in with it.</p>` +
      `<p style="margin:0 0 20px 0;font-size:15px;line-height:24px;color:#334155">If you still need it after that date, ask {{companyName}} to extend it.</p>` +
      `</td></tr>` +
      `<tr><td style="padding:4px 32px 28px 32px;${FONT}">` +
      `<p style="margin:0;padding-top:16px;border-top:1px solid #e2e8f0;font-size:12px;line-height:18px;color:#64748b">This e-mail was sent to {{email}} by {{companyName}}.</p>` +
      `</td></tr></table></td></tr></table>`,
    brandLogoUrl: '',
  };
}
