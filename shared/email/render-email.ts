import { escapeHtml } from '../html';
import type { TemplateVariable } from '../schemas/email-templates';

/**
 * The one renderer of credential e-mails: the Email Templates editor's preview and the mail worker
 * both call it, so what the preview shows is what account holders get.
 *
 * 1. The stored HTML is sanitised again (the allow-list of shared/email/sanitize-options.ts): a
 *    template written before a rule was added, or changed in the table, is still made safe.
 * 2. Each {{variable}} is replaced in one pass by its value HTML-escaped (a value that looks like
 *    a variable or like markup stays text); {{brandLogo}} is an image of the logo URL (http(s)
 *    only) up to 200px wide, or nothing. Unknown variables stay as typed.
 * 3. The subject's variables are replaced by the plain values (no HTML; line breaks become spaces,
 *    so a value cannot add a header).
 * 4. The plain-text part is made from the rendered HTML (html-to-text on both sides).
 *
 * Delivery 'link': the e-mail carries {{credentialLink}} instead of the password ({{password}}
 * reads PASSWORD_AT_LINK); a template without {{credentialLink}} gets the link appended.
 * Delivery 'password': {{credentialLink}} renders as nothing.
 */
export type CredentialDelivery = 'password' | 'link';

export interface TemplateValues {
  accountHolderName: string;
  email: string;
  username: string;
  /** Absent when the e-mail carries a one-time link instead. */
  password?: string;
  projectName: string;
  companyName: string;
  /** The one-time link's URL (delivery 'link'). */
  credentialLink?: string;
  /** PASSWORD_CHANGE_NOTICE when the user's Require password change setting is on; empty otherwise. */
  passwordChangeNotice?: string;
  /** Where the account holder signs in: the project's platform URL (http(s) only; empty when it has none). */
  loginUrl?: string;
  /** The project's expiration date (YYYY-MM-DD), written as '10 March 2030'; empty when it has none. */
  expirationDate?: string;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** A YYYY-MM-DD date as e-mails write it ({{expirationDate}}): '10 March 2030' (no timezone: the date as set); anything else as given. */
export function formatExpirationDate(date: string | undefined): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date ?? '');
  const month = match ? MONTHS[Number(match[2]) - 1] : undefined;
  return match && month ? `${Number(match[3])} ${month} ${match[1]}` : (date ?? '');
}

export interface RenderableTemplate {
  subject: string;
  htmlContent: string;
  brandLogoUrl: string;
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

/** Sanitiser and HTML-to-text converter, each side loading its libraries its own way. */
export interface RenderTools {
  sanitize(html: string): string;
  toText(html: string): string;
}

export interface RenderOptions {
  /** The variables the subject replaces (default: all). The editor's preview replaces only the spec's three. */
  subjectVariables?: readonly TemplateVariable[];
}

/** Spec 2: the brand logo is shown at most this wide. */
export const BRAND_LOGO_MAX_WIDTH_PX = 200;
/** What {{password}} reads in an e-mail that carries a one-time link instead. */
export const PASSWORD_AT_LINK = 'shown once at the link in this e-mail';

/** The same `{{ name }}` syntax as the schema's variablesIn. */
const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** A logo URL worth an <img>: http(s) only (the schema asks for https; anything else shows nothing). */
function logoUrl(brandLogoUrl: string): string | undefined {
  const url = brandLogoUrl.trim();
  if (!URL.canParse(url)) return undefined;
  const { protocol, href } = new URL(url);
  return protocol === 'https:' || protocol === 'http:' ? href : undefined;
}

/** A link worth an href: https (or http locally) only. */
function linkUrl(value: string | undefined): string | undefined {
  if (!value || !URL.canParse(value)) return undefined;
  const { protocol, href } = new URL(value);
  return protocol === 'https:' || protocol === 'http:' ? href : undefined;
}

/** The plain values of each variable (brandLogo aside). */
function plainValues(values: TemplateValues): Record<Exclude<TemplateVariable, 'brandLogo'>, string> {
  return {
    accountHolderName: values.accountHolderName,
    email: values.email,
    username: values.username,
    password: values.password ?? PASSWORD_AT_LINK,
    projectName: values.projectName,
    companyName: values.companyName,
    credentialLink: linkUrl(values.credentialLink) ?? '',
    passwordChangeNotice: values.passwordChangeNotice ?? '',
    loginUrl: linkUrl(values.loginUrl) ?? '',
    expirationDate: formatExpirationDate(values.expirationDate),
  };
}

const isKnown = (name: string, known: object): name is keyof typeof known => Object.hasOwn(known, name);
/** The variables that have a value (all but brandLogo). */
const sampleShape = plainValues({ accountHolderName: '', email: '', username: '', projectName: '', companyName: '' });

/** The template's HTML with the values in place (escaped); no sanitising (renderEmail does that first). */
export function fillHtml(html: string, values: TemplateValues, brandLogoUrl: string): string {
  const plain = plainValues(values);
  const logo = logoUrl(brandLogoUrl);
  return html.replace(VARIABLE, (match, name: string) => {
    if (name === 'brandLogo') {
      return logo
        ? `<img src="${escapeHtml(logo)}" alt="Brand logo" width="${BRAND_LOGO_MAX_WIDTH_PX}" style="display:block;max-width:${BRAND_LOGO_MAX_WIDTH_PX}px;width:auto;height:auto;border:0">`
        : '';
    }
    return isKnown(name, plain) ? escapeHtml(plain[name]) : match;
  });
}

/** The subject with the values in place: plain text on one line. */
export function fillSubject(subject: string, values: TemplateValues, only?: readonly TemplateVariable[]): string {
  const plain = plainValues(values);
  return subject
    .replace(VARIABLE, (match, name: string) => {
      if (only && !(only as readonly string[]).includes(name)) return match;
      if (name === 'brandLogo') return '';
      return isKnown(name, plain) ? plain[name] : match;
    })
    .replace(/[\r\n\t]+/g, ' ')
    .trim();
}

/** Private-use characters around a variable's index: no text transform (upper case, wrapping) changes them. */
const TOKEN = /\uE000(\d+)\uE001/g;

/** Cells of layout tables leave blank lines and trailing spaces: one blank line between blocks. */
const tidyText = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/**
 * A template made ready for many e-mails: sanitised once, its text part converted once (with each
 * variable as a token), so each e-mail costs two string replacements. The mail worker compiles a
 * send's template once per chunk; renderEmail is compile-and-render for one.
 */
export function compileEmail(template: RenderableTemplate, tools: RenderTools, options: RenderOptions & { delivery: CredentialDelivery }): (values: TemplateValues) => RenderedEmail {
  let html = tools.sanitize(template.htmlContent);
  if (options.delivery === 'link' && !/\{\{\s*credentialLink\s*\}\}/.test(html)) {
    html += '<p><a href="{{credentialLink}}">Show my credentials</a> (the link works once)</p>';
  }
  const names: string[] = [];
  const tokenized = html.replace(VARIABLE, (match, name: string) => {
    if (name !== 'brandLogo' && !isKnown(name, sampleShape)) return match;
    // One token per variable, wherever it is: a link whose text is its own address
    // (<a href="{{loginUrl}}">{{loginUrl}}</a>) is then written once in the text part.
    if (!names.includes(name)) names.push(name);
    return `\uE000${names.indexOf(name)}\uE001`;
  });
  const textTemplate = tools.toText(tokenized);
  return (values) => {
    const plain = plainValues(values);
    const text = textTemplate.replace(TOKEN, (_, i: string) => {
      const name = names[Number(i)]!;
      return name === 'brandLogo' ? '' : plain[name as keyof typeof plain];
    });
    return { subject: fillSubject(template.subject, values, options.subjectVariables), html: fillHtml(html, values, template.brandLogoUrl), text: tidyText(text) };
  };
}

export function renderEmail(template: RenderableTemplate, values: TemplateValues, tools: RenderTools, options: RenderOptions = {}): RenderedEmail {
  return compileEmail(template, tools, { ...options, delivery: values.password === undefined ? 'link' : 'password' })(values);
}

/** html-to-text's options for the text part: images left out, links as "text [url]", a table row per line, wrapped at 78. */
export const TEXT_PART_OPTIONS: { wordwrap: number; selectors: { selector: string; format?: string; options?: Record<string, unknown> }[] } = {
  wordwrap: 78,
  selectors: [
    // Headings as written: html-to-text upper-cases them by default, names (the project's) included.
    ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    // E-mails lay out with tables: each row a line, its cells apart ("Username  annlee").
    { selector: 'table', format: 'block' },
    { selector: 'tr', format: 'block' },
    { selector: 'td', format: 'inlineSurround', options: { prefix: '', suffix: '  ' } },
    { selector: 'th', format: 'inlineSurround', options: { prefix: '', suffix: '  ' } },
  ],
};
