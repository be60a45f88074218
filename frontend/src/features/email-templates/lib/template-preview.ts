import { fillHtml, fillSubject, renderEmail, type RenderTools, type TemplateValues } from '@shared/email/render-email';
import { sampleTemplateValues, templatePreviewValues, type TemplateVariable } from '@shared/schemas/email-templates';

export { BRAND_LOGO_MAX_WIDTH_PX } from '@shared/email/render-email';

/** Spec 2: the preview's sample values (the password masked). */
const sampleValues: TemplateValues = sampleTemplateValues;

/** Spec 2: the subject preview replaces only these; the others stay as typed. */
const subjectVariables: readonly TemplateVariable[] = ['companyName', 'accountHolderName', 'projectName'];

/**
 * The template's HTML as the shared renderer sends it, with the sample values: sanitised by the
 * stored-template allow-list, values HTML-escaped, {{brandLogo}} as an image up to 200px wide
 * when a logo URL is set. Unknown variables stay as typed. Shown only inside a sandboxed frame.
 * {{passwordChangeNotice}} reads the sentence only when the user's Require password change is on,
 * as in the e-mails they send.
 */
export function previewEmail(template: { subject: string; htmlContent: string; brandLogoUrl: string }, tools: RenderTools, { requirePasswordChange }: { requirePasswordChange: boolean }) {
  return renderEmail(template, templatePreviewValues(requirePasswordChange), tools, { subjectVariables });
}

/** The sample values in place, without sanitising (the preview goes through previewEmail). */
export function previewHtml(htmlContent: string, brandLogoUrl: string): string {
  return fillHtml(htmlContent, sampleValues, brandLogoUrl);
}

/** The subject with the sample company, account holder and project names (plain text). */
export function previewSubject(subject: string): string {
  return fillSubject(subject, sampleValues, subjectVariables);
}

/**
 * A whole document for the preview frame's srcdoc. The frame is sandboxed without scripts; the
 * content security policy is a second lock: no script, no fetch, no form, only images and inline
 * styles (an e-mail's own).
 */
export function previewDocument(bodyHtml: string): string {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src https: http: data:; style-src 'unsafe-inline'; font-src https: data:; form-action 'none'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<style>:root{color-scheme:light}body{margin:16px;background:#fff;color:#1f2937;font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:14px;line-height:1.5;overflow-wrap:anywhere}img{max-width:100%}</style>',
    '</head><body>',
    bodyHtml,
    '</body></html>',
  ].join('');
}
