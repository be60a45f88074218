import { escapeHtml } from '@shared/html';
import { sampleTemplateValues, type TemplateVariable } from '@shared/schemas/email-templates';

/** The same `{{ name }}` syntax as the schema's variablesIn. */
const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** Spec 2: the brand logo is shown at most this wide. */
export const BRAND_LOGO_MAX_WIDTH_PX = 200;

type SampleVariable = keyof typeof sampleTemplateValues;

const isSampleVariable = (name: string): name is SampleVariable => Object.hasOwn(sampleTemplateValues, name);

/** Spec 2: the subject preview replaces only these; the others stay as typed. */
const subjectVariables: readonly TemplateVariable[] = ['companyName', 'accountHolderName', 'projectName'];

/** A logo URL worth an <img>: http(s) only (the schema asks for https; anything else shows nothing). */
function logoUrl(brandLogoUrl: string): string | undefined {
  const url = brandLogoUrl.trim();
  if (!URL.canParse(url)) return undefined;
  const { protocol } = new URL(url);
  return protocol === 'https:' || protocol === 'http:' ? url : undefined;
}

/**
 * The template's HTML with the sample values in place (HTML-escaped) and {{brandLogo}} as an image
 * up to 200px wide when a logo URL is set, nothing otherwise. Unknown variables stay as typed.
 * The result is only ever shown inside a sandboxed frame (previewDocument).
 */
export function previewHtml(htmlContent: string, brandLogoUrl: string): string {
  const logo = logoUrl(brandLogoUrl);
  return htmlContent.replace(VARIABLE, (match, name: string) => {
    if (name === 'brandLogo') {
      return logo
        ? `<img src="${escapeHtml(logo)}" alt="Brand logo" style="display:block;max-width:${BRAND_LOGO_MAX_WIDTH_PX}px;width:auto;height:auto;border:0">`
        : '';
    }
    return isSampleVariable(name) ? escapeHtml(sampleTemplateValues[name]) : match;
  });
}

/** The subject with the sample company, account holder and project names (plain text). */
export function previewSubject(subject: string): string {
  return subject.replace(VARIABLE, (match, name: string) =>
    (subjectVariables as readonly string[]).includes(name) && isSampleVariable(name) ? sampleTemplateValues[name] : match,
  );
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
