import sanitizeHtml from 'sanitize-html';
import { convert, type HtmlToTextOptions } from 'html-to-text';
import { templateSanitizeOptions } from '@shared/email/sanitize-options';
import { TEXT_PART_OPTIONS, type RenderTools } from '@shared/email/render-email';

/** The shared renderer's tools in the browser: the same allow-list and html-to-text as the mail worker. */
export const browserRenderTools: RenderTools = {
  sanitize: (html) => sanitizeHtml(html, templateSanitizeOptions(sanitizeHtml)),
  toText: (html) => convert(html, TEXT_PART_OPTIONS satisfies HtmlToTextOptions),
};
