import type { PlanId } from '../../shared/plans';
import { MAX_EMAIL_TEMPLATES_PER_USER, TEMPLATE_MAX_BYTES, templateVariables, variablesIn, type EmailTemplate, type EmailTemplateRequest } from '../../shared/schemas/email-templates';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '../core/errors';
import { isId } from '../core/ids';
import { assertEmailTemplates } from '../usage/plan-usage';
import { sanitizeTemplateHtml } from './sanitize-template';
import type { TemplateStore } from './template-store';

export interface TemplatePorts {
  store: TemplateStore;
  plan(userId: string): Promise<PlanId>;
  now(): Date;
  newId(now: Date): string;
}

const notFound = () => new NotFoundError('Template not found');

/** The default first, then newest first (ids are time-ordered). */
const byDefaultThenNewest = (a: EmailTemplate, b: EmailTemplate) => Number(b.isDefault) - Number(a.isDefault) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * E-mail template use cases. Writing templates is a Pro feature (e-mail notifications); reading
 * and deleting are not, so a lapsed plan keeps and can clean up its templates.
 */
export function templateUseCases(ports: TemplatePorts) {
  const build = (input: EmailTemplateRequest, base: { id: string; createdAt: string }, at: string): EmailTemplate => {
    const htmlContent = sanitizeTemplateHtml(input.htmlContent).trim();
    const refuse = (message: string): never => {
      throw new ValidationError(message, [{ path: 'htmlContent', message }]);
    };
    if (!htmlContent) refuse('Nothing of the HTML content is left once scripts and unsafe markup are removed.');
    // Removing markup can join braces into a variable the form never had ({<b></b>{x}}).
    const unknown = variablesIn(htmlContent).filter((v) => !(templateVariables as readonly string[]).includes(v));
    if (unknown.length) refuse(`Unknown variable ${unknown.map((v) => `{{${v}}}`).join(', ')} once unsafe markup is removed.`);
    // A value is escaped for HTML when sent, which does not make it a safe link or image address.
    // The exceptions are a link that is exactly {{credentialLink}} (always the product's own https
    // URL) or {{loginUrl}} (the project's platform URL: http(s) only, else nothing).
    const addresses = [...htmlContent.matchAll(/\s(href|src)="([^"]*)"/gi)].filter(([, , value]) => value!.includes('{{'));
    if (addresses.some(([, attribute, value]) => !(attribute!.toLowerCase() === 'href' && /^\{\{\s*(credentialLink|loginUrl)\s*\}\}$/.test(value!)))) {
      refuse('Variables cannot be used in link or image addresses (href, src), except href="{{credentialLink}}" and href="{{loginUrl}}". Use {{brandLogo}} for the logo.');
    }
    const template: EmailTemplate = {
      id: base.id,
      name: input.name,
      subject: input.subject,
      htmlContent,
      textContent: input.textContent,
      brandLogoUrl: input.brandLogoUrl,
      isDefault: input.isDefault,
      isActive: input.isActive,
      variables: variablesIn(input.subject, htmlContent, input.textContent),
      createdAt: base.createdAt,
      updatedAt: at,
    };
    const size = Buffer.byteLength(JSON.stringify(template));
    if (size > TEMPLATE_MAX_BYTES) {
      throw new PayloadTooLargeError(`The template is ${Math.ceil(size / 1000)} KB once stored; at most ${TEMPLATE_MAX_BYTES / 1000} KB is allowed. Shorten the HTML.`);
    }
    return template;
  };

  const assertPlan = async (userId: string) => assertEmailTemplates(await ports.plan(userId));
  return {
    /** Refuses a plan without e-mail templates (creating and updating call it too). */
    assertPlan,

    async list(userId: string): Promise<EmailTemplate[]> {
      return (await ports.store.list(userId)).sort(byDefaultThenNewest);
    },

    async create(userId: string, input: EmailTemplateRequest): Promise<EmailTemplate> {
      await assertPlan(userId);
      if ((await ports.store.count(userId)) >= MAX_EMAIL_TEMPLATES_PER_USER) {
        throw new ConflictError(`You can keep at most ${MAX_EMAIL_TEMPLATES_PER_USER} templates. Delete one you no longer use first.`);
      }
      const now = ports.now();
      const template = build(input, { id: ports.newId(now), createdAt: now.toISOString() }, now.toISOString());
      await ports.store.save(userId, template, { mustExist: false });
      return template;
    },

    async update(userId: string, id: string, input: EmailTemplateRequest): Promise<EmailTemplate> {
      await assertPlan(userId);
      if (!isId(id)) throw notFound();
      const current = await ports.store.get(userId, id);
      if (!current) throw notFound();
      const template = build(input, { id, createdAt: current.createdAt }, ports.now().toISOString());
      if (!(await ports.store.save(userId, template, { mustExist: true }))) throw notFound();
      return template;
    },

    async remove(userId: string, id: string): Promise<void> {
      if (!isId(id) || !(await ports.store.remove(userId, id))) throw notFound();
    },
  };
}
