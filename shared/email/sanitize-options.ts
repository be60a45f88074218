import type SanitizeHtml from 'sanitize-html';

/** CSS values without functions: no url() beacons, no expression(). */
const PLAIN_CSS_VALUE = [/^[^()\\]*$/];
const STYLE_PROPERTIES = [
  'color', 'background-color', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-align', 'text-decoration', 'text-transform',
  'line-height', 'letter-spacing', 'vertical-align', 'display', 'width', 'max-width', 'min-width', 'height', 'max-height',
  'margin', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left', 'padding', 'padding-top', 'padding-right', 'padding-bottom', 'padding-left',
  'border', 'border-top', 'border-right', 'border-bottom', 'border-left', 'border-color', 'border-width', 'border-style', 'border-radius', 'border-collapse',
];

/**
 * The allow-list of e-mail template HTML, as it is stored (functions/email-templates) and again
 * when it is rendered (shared/email/render-email.ts, server and editor preview alike): e-mail-safe
 * tags and attributes; scripts, event handlers, iframes, forms, javascript: and data: URLs go;
 * inline styles stay for the properties e-mails use, without CSS functions. `{{variables}}` are
 * text and survive unchanged. Given the sanitize-html module, so each side loads it its own way
 * (the Lambda layer on AWS, the bundle in the browser).
 */
export function templateSanitizeOptions(sanitizeHtml: typeof SanitizeHtml): SanitizeHtml.IOptions {
  return {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'center', 'font', 'span'],
    allowedAttributes: {
      '*': ['style', 'align', 'title', 'dir', 'lang'],
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height'],
      table: ['width', 'cellpadding', 'cellspacing', 'border', 'bgcolor', 'role'],
      td: ['colspan', 'rowspan', 'valign', 'width', 'bgcolor'],
      th: ['colspan', 'rowspan', 'valign', 'width', 'bgcolor'],
      font: ['color', 'face', 'size'],
    },
    allowedSchemes: ['https', 'http', 'mailto'],
    allowedSchemesByTag: { img: ['https', 'http'] },
    allowProtocolRelative: false,
    allowedStyles: { '*': Object.fromEntries(STYLE_PROPERTIES.map((p) => [p, PLAIN_CSS_VALUE])) },
    // Links opened from an e-mail never get a handle on the opener.
    transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }) },
  };
}
