import * as z from 'zod/mini';
import './zod-messages';
import { PASSWORD_CHANGE_NOTICE } from '../email/password-change-notice';

export { PASSWORD_CHANGE_NOTICE } from '../email/password-change-notice';

/** Spec 2 (Email Templates): the variables a template may use, each in double braces. */
export const templateVariables = ['accountHolderName', 'email', 'username', 'password', 'projectName', 'companyName', 'brandLogo', 'credentialLink', 'passwordChangeNotice', 'loginUrl', 'expirationDate'] as const;
export type TemplateVariable = (typeof templateVariables)[number];

/** Spec 2: the preview's sample values (the password masked). */
export const sampleTemplateValues: Record<Exclude<TemplateVariable, 'brandLogo'>, string> = {
  accountHolderName: 'John Doe',
  email: 'john.doe@example.com',
  username: 'johndoe',
  password: '••••••••••••',
  projectName: 'Sample Project',
  companyName: 'Your Company',
  credentialLink: 'https://bulkonboard.example.com/credentials#sample-link',
  // The sentence as when Require password change is on: the preview shows it only when the user's
  // setting is (templatePreviewValues), as the e-mails do.
  passwordChangeNotice: PASSWORD_CHANGE_NOTICE,
  loginUrl: 'https://sample-project.example.com/login',
  // The project's expiration date as e-mails write it (formatExpirationDate); empty for a project without one.
  expirationDate: '10 March 2030',
};

/** The preview's values: the samples, with the password-change sentence only when the user's Require password change is on (as the e-mails have it). */
export const templatePreviewValues = (requirePasswordChange: boolean): Record<Exclude<TemplateVariable, 'brandLogo'>, string> => ({
  ...sampleTemplateValues,
  passwordChangeNotice: requirePasswordChange ? PASSWORD_CHANGE_NOTICE : '',
});

export const MAX_EMAIL_TEMPLATES_PER_USER = 100;
export const HTML_CONTENT_MAX = 50_000;
/**
 * A stored template, as JSON, is at most this big: the list of up to 100 templates then stays
 * under Lambda's 6 MB response limit, and every item far under DynamoDB's 400 KB.
 */
export const TEMPLATE_MAX_BYTES = 55_000;

const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The `{{name}}` variables a text uses, in order of first use. */
export function variablesIn(...texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(VARIABLE)) found.add(match[1]!);
  return [...found];
}

const noUnknownVariables = (text: string, ctx: z.core.$RefinementCtx<string>) => {
  const unknown = variablesIn(text).filter((v) => !(templateVariables as readonly string[]).includes(v));
  if (unknown.length) {
    ctx.addIssue({
      code: 'custom',
      message: `Unknown variable ${unknown.map((v) => `{{${v}}}`).join(', ')}. Use ${templateVariables.map((v) => `{{${v}}}`).join(', ')}.`,
    });
  }
};

/** POST and PUT /api/email-templates (spec 5, template form). */
export const emailTemplateSchema = z.object({
  name: z.string('Template name is required').check(z.trim(), z.minLength(1, 'Template name is required'), z.maxLength(100, 'Template name must be at most 100 characters')),
  subject: z
    .string('Subject is required')
    .check(z.trim(), z.minLength(1, 'Subject is required'), z.maxLength(200, 'Subject must be at most 200 characters'), z.superRefine(noUnknownVariables)),
  htmlContent: z
    .string('HTML content is required')
    .check(z.trim(), z.minLength(1, 'HTML content is required'), z.maxLength(HTML_CONTENT_MAX, 'HTML content must be at most 50,000 characters'), z.superRefine(noUnknownVariables)),
  textContent: z._default(z.optional(z.string().check(z.maxLength(HTML_CONTENT_MAX, 'Text content must be at most 50,000 characters'), z.superRefine(noUnknownVariables))), ''),
  brandLogoUrl: z._default(
    z.optional(
      z.pipe(
        z
          .string()
          .check(
            z.trim(),
            z.maxLength(2048, 'Brand logo URL must be at most 2,048 characters'),
            z.refine((value) => value === '' || (URL.canParse(value) && new URL(value).protocol === 'https:'), 'Brand logo URL must be an https URL or empty'),
          ),
        // Stored as the URL parser writes it (quotes and spaces percent-encoded).
        z.transform((value: string) => (value === '' ? '' : new URL(value).href)),
      ),
    ),
    '',
  ),
  isDefault: z._default(z.optional(z.boolean()), false),
  isActive: z._default(z.optional(z.boolean()), true),
});
export type EmailTemplateInput = z.input<typeof emailTemplateSchema>;
export type EmailTemplateRequest = z.output<typeof emailTemplateSchema>;

/** A template as the API returns it; htmlContent is the sanitised HTML that is stored. */
export interface EmailTemplate {
  id: string;
  name: string;
  subject: string;
  htmlContent: string;
  textContent: string;
  brandLogoUrl: string;
  isDefault: boolean;
  isActive: boolean;
  /** The variables the template uses. */
  variables: string[];
  createdAt: string;
  updatedAt: string;
}
