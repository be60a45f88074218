import { createRequire } from 'node:module';
import type { HtmlToTextOptions } from 'html-to-text';
import type * as HtmlToText from 'html-to-text';
import { TEXT_PART_OPTIONS, type RenderTools } from '../../shared/email/render-email';
import { sanitizeTemplateHtml } from '../email-templates/sanitize-template';

let loaded: typeof HtmlToText | undefined;
/** html-to-text (with htmlparser2) comes from the function's layer on AWS, like sanitize-html (lib/package-layer.ts). */
const htmlToText = (): typeof HtmlToText => (loaded ??= createRequire(import.meta.url)('html-to-text') as typeof HtmlToText);

/** The renderer's tools on the server: the stored-template allow-list and html-to-text. */
export const serverRenderTools: RenderTools = {
  sanitize: sanitizeTemplateHtml,
  toText: (html) => htmlToText().convert(html, TEXT_PART_OPTIONS satisfies HtmlToTextOptions),
};
