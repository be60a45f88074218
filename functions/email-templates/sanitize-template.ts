import { createRequire } from 'node:module';
import type SanitizeHtml from 'sanitize-html';
import { templateSanitizeOptions } from '../../shared/email/sanitize-options';

let loaded: typeof SanitizeHtml | undefined;
/** sanitize-html with postcss is ~300 KB minified: on AWS it comes from the function's layer (lib/package-layer.ts). */
const sanitizer = (): typeof SanitizeHtml => (loaded ??= createRequire(import.meta.url)('sanitize-html') as typeof SanitizeHtml);

/**
 * E-mail template HTML as it is stored and sent: the shared allow-list (shared/email/sanitize-options.ts).
 * `{{variables}}` are text and survive unchanged (they are HTML-escaped when the e-mail is rendered).
 */
export function sanitizeTemplateHtml(html: string): string {
  const sanitizeHtml = sanitizer();
  return sanitizeHtml(html, templateSanitizeOptions(sanitizeHtml));
}
