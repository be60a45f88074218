import { describe, expect, it } from 'vitest';
import { builtInTemplate } from '../../shared/email/default-template';
import { PASSWORD_AT_LINK, renderEmail, type TemplateValues } from '../../shared/email/render-email';
import { serverRenderTools } from '../../functions/mail/render-tools';
import { browserRenderTools } from '../../frontend/src/features/email-templates/lib/render-tools';
import { classifySendError } from '../../functions/mail/credential-mailer';
import { PASSWORD_CHANGE_NOTICE, sampleTemplateValues, templatePreviewValues, templateVariables } from '../../shared/schemas/email-templates';
import { previewEmail } from '../../frontend/src/features/email-templates/lib/template-preview';

const values: TemplateValues = {
  accountHolderName: 'Ann Lee',
  email: 'ann@example.com',
  username: 'annlee',
  password: 'p<a>ss&"word\'',
  projectName: 'Spring intake',
  companyName: 'Acme',
};
const template = (htmlContent: string, subject = 'Hi {{accountHolderName}}', brandLogoUrl = '') => ({ subject, htmlContent, brandLogoUrl });

describe('the credential e-mail renderer (shared by the editor preview and the mail worker)', () => {
  it('replaces every variable with its value HTML-escaped, in one pass', () => {
    const hostile = { ...values, accountHolderName: '<script>alert(1)</script> {{password}}', username: '"><img src=x onerror=alert(1)>' };
    const { html } = renderEmail(template('<p>{{accountHolderName}} / {{ username }} / {{password}} / {{email}} / {{projectName}} / {{companyName}} / {{unknown}}</p>'), hostile, serverRenderTools);
    expect(html).toBe(
      '<p>&#60;script&#62;alert(1)&#60;/script&#62; {{password}} / &#34;&#62;&#60;img src=x onerror=alert(1)&#62; / p&#60;a&#62;ss&#38;&#34;word&#39; / ann@example.com / Spring intake / Acme / {{unknown}}</p>',
    );
  });

  it('sanitises the stored HTML again: scripts, handlers, javascript: links and CSS functions go', () => {
    const { html } = renderEmail(
      template('<p onclick="x()" style="color:red;background-image:url(https://t.example/p.gif)">Hi</p><script>alert(1)</script><a href="javascript:alert(1)">x</a><iframe src="https://e.com"></iframe>'),
      values,
      serverRenderTools,
    );
    expect(html).toBe('<p style="color:red">Hi</p><a rel="noopener noreferrer">x</a>');
  });

  it('replaces the subject variables with plain values on one line', () => {
    const { subject } = renderEmail(template('<p>x</p>', '{{companyName}}: {{accountHolderName}} & {{projectName}} {{brandLogo}}'), { ...values, accountHolderName: 'Ann\r\nBcc: evil@example.com <b>' }, serverRenderTools);
    expect(subject).toBe('Acme: Ann Bcc: evil@example.com <b> & Spring intake');
  });

  it('makes a plain-text part from the rendered HTML: no markup, links kept, images left out', () => {
    const { text } = renderEmail(template('{{brandLogo}}<h1>Welcome</h1><p>User <b>{{username}}</b>, password {{password}}</p><p><a href="https://app.example.com/x">Sign in</a></p>', 's', 'https://cdn.example.com/l.png'), values, serverRenderTools);
    // Headings as written, never upper-cased (a name in one keeps its case).
    expect(text).toMatch(/^Welcome$/m);
    expect(text).toContain('User annlee, password p<a>ss&"word\'');
    expect(text).toContain('Sign in [https://app.example.com/x]');
    expect(text).not.toMatch(/<\/?(p|b|img|h1)/);
  });

  it('shows the brand logo (http(s) only, escaped) up to 200px wide, or nothing', () => {
    expect(renderEmail(template('{{brandLogo}}x', 's', 'https://cdn.example.com/l.png'), values, serverRenderTools).html).toContain('<img src="https://cdn.example.com/l.png" alt="Brand logo" width="200"');
    expect(renderEmail(template('{{brandLogo}}x', 's', 'javascript:alert(1)'), values, serverRenderTools).html).toBe('x');
    expect(renderEmail(template('{{brandLogo}}', 's', 'https://e.com/a"onerror="x.png'), values, serverRenderTools).html).not.toContain('"onerror="');
  });

  it('with a one-time link: {{credentialLink}} is the link, {{password}} says where it is, and a template without the variable gets the link', () => {
    const link = { ...values, password: undefined, credentialLink: 'https://app.example.com/credentials/abc?x=1&y=2' };
    const withVariable = renderEmail(template('<p>{{password}}</p><a href="{{credentialLink}}">Open</a>'), link, serverRenderTools);
    expect(withVariable.html).toBe(`<p>${PASSWORD_AT_LINK}</p><a href="https://app.example.com/credentials/abc?x=1&#38;y=2" rel="noopener noreferrer">Open</a>`);
    expect(withVariable.html).not.toContain(values.password!);
    const without = renderEmail(template('<p>Hi</p>'), link, serverRenderTools);
    expect(without.html).toContain('href="https://app.example.com/credentials/abc?x=1&#38;y=2"');
    // A link that is not http(s) is never written.
    expect(renderEmail(template('<a href="{{credentialLink}}">x</a>'), { ...link, credentialLink: 'javascript:alert(1)' }, serverRenderTools).html).not.toContain('javascript');
  });

  it('renders the same in the browser as on the server', () => {
    for (const delivery of ['password', 'link'] as const) {
      const builtIn = builtInTemplate(delivery);
      const v = delivery === 'link' ? { ...values, password: undefined, credentialLink: 'https://app.example.com/c/t' } : values;
      expect(renderEmail(builtIn, v, browserRenderTools)).toEqual(renderEmail(builtIn, v, serverRenderTools));
    }
  });

  it('the built-in template survives the stored-template allow-list whole, and carries the credentials', () => {
    for (const delivery of ['password', 'link'] as const) {
      const builtIn = builtInTemplate(delivery);
      expect(serverRenderTools.sanitize(builtIn.htmlContent).length).toBeGreaterThan(builtIn.htmlContent.length * 0.95);
    }
    const password = renderEmail(builtInTemplate('password'), values, serverRenderTools);
    expect(password.subject).toBe('Your Spring intake account at Acme');
    expect(password.html).toContain('p&#60;a&#62;ss&#38;&#34;word&#39;');
    // A table row per line, its cells apart (not "Usernameannlee").
    expect(password.text).toMatch(/^Username {2}annlee$/m);
    expect(password.text).toMatch(/^Password {2}p<a>ss&"word'$/m);
    expect(password.text).not.toMatch(/\n{3}|[ \t]\n/);
    const link = renderEmail(builtInTemplate('link'), { ...values, password: undefined, credentialLink: 'https://app.example.com/c/t' }, serverRenderTools);
    expect(link.html).toContain('href="https://app.example.com/c/t"');
    expect(link.html).not.toContain('p&#60;a&#62;ss');
  });
});

describe('{{passwordChangeNotice}} (Require password change)', () => {
  it('is the sentence when the setting was on, nothing when off; the built-in templates carry it; the editor knows it', () => {
    const on = renderEmail(template('<p>Sign in. {{passwordChangeNotice}}</p>'), { ...values, passwordChangeNotice: PASSWORD_CHANGE_NOTICE }, serverRenderTools);
    expect(on.html).toBe(`<p>Sign in. ${PASSWORD_CHANGE_NOTICE}</p>`);
    expect(renderEmail(template('<p>Sign in. {{passwordChangeNotice}}</p>'), values, serverRenderTools).html).toBe('<p>Sign in. </p>');
    for (const delivery of ['password', 'link'] as const) {
      const withNotice = renderEmail(builtInTemplate(delivery), { ...values, ...(delivery === 'link' ? { password: undefined, credentialLink: 'https://app.example.com/c/t' } : {}), passwordChangeNotice: PASSWORD_CHANGE_NOTICE }, serverRenderTools);
      expect(withNotice.text).toContain(PASSWORD_CHANGE_NOTICE);
      const without = renderEmail(builtInTemplate(delivery), { ...values, ...(delivery === 'link' ? { password: undefined, credentialLink: 'https://app.example.com/c/t' } : {}) }, serverRenderTools);
      expect(without.text).not.toContain('new password');
    }
    expect(templateVariables).toContain('passwordChangeNotice');
    expect(sampleTemplateValues.passwordChangeNotice).toBe(PASSWORD_CHANGE_NOTICE);
  });
});

describe('{{loginUrl}} (where to sign in) and the plain-text heading', () => {
  const withLogin = { ...values, loginUrl: 'https://lms.example.com/login?a=1&b=2' };

  it('is the project platform URL (http(s) only, escaped), nothing without one; the editor knows it', () => {
    expect(renderEmail(template('<a href="{{loginUrl}}">{{loginUrl}}</a>'), withLogin, serverRenderTools).html).toBe(
      '<a href="https://lms.example.com/login?a=1&#38;b=2" rel="noopener noreferrer">https://lms.example.com/login?a=1&#38;b=2</a>',
    );
    expect(renderEmail(template('<p>[{{loginUrl}}]</p>'), values, serverRenderTools).html).toBe('<p>[]</p>');
    expect(renderEmail(template('<p>[{{loginUrl}}]</p>'), { ...values, loginUrl: 'javascript:alert(1)' }, serverRenderTools).html).toBe('<p>[]</p>');
    expect(templateVariables).toContain('loginUrl');
    expect(sampleTemplateValues.loginUrl).toMatch(/^https:\/\//);
  });

  it('the built-in template says where to sign in when the project has an address, and never "Here is how to sign in." without one', () => {
    for (const delivery of ['password', 'link'] as const) {
      const v = delivery === 'link' ? { ...withLogin, password: undefined, credentialLink: 'https://app.example.com/c/t' } : withLogin;
      const mail = renderEmail(builtInTemplate(delivery), v, serverRenderTools);
      expect(mail.html).toContain('Sign in at <a href="https://lms.example.com/login?a=1&#38;b=2"');
      // The address once in the text part (the link's text is its address), lines wrapped at 78.
      expect(mail.text.replace(/\s+/g, ' ')).toContain('Sign in at https://lms.example.com/login?a=1&b=2 with the details below.');
      const noAddress = renderEmail(builtInTemplate(delivery, { withLoginUrl: false }), { ...v, loginUrl: undefined }, serverRenderTools);
      expect(noAddress.text.replace(/\s+/g, ' ')).toContain('Acme has created an account for you in Spring intake. Sign in with the details below.');
      for (const { text } of [mail, noAddress]) {
        expect(text).not.toContain('Here is how to sign in.');
        // The heading keeps the project's name as written, the words around it too.
        expect(text.split('\n')[0]).toBe('Your Spring intake account is ready');
      }
    }
  });

  it('the built-in template renders the same in the browser, with and without the address', () => {
    for (const withLoginUrl of [true, false]) {
      const builtIn = builtInTemplate('password', { withLoginUrl });
      expect(renderEmail(builtIn, withLogin, browserRenderTools)).toEqual(renderEmail(builtIn, withLogin, serverRenderTools));
    }
  });
});

describe('the editor preview of the built-in template', () => {
  it('shows the password-change sentence only when the Security setting is on, as the e-mail does, and the sample sign-in address', () => {
    for (const delivery of ['password', 'link'] as const) {
      const off = previewEmail(builtInTemplate(delivery), browserRenderTools, { requirePasswordChange: false });
      expect(off.text).not.toContain(PASSWORD_CHANGE_NOTICE);
      expect(off.text.replace(/\s+/g, ' ')).toContain(`Sign in at ${sampleTemplateValues.loginUrl} with the details below.`);
      const on = previewEmail(builtInTemplate(delivery), browserRenderTools, { requirePasswordChange: true });
      expect(on.text).toContain(PASSWORD_CHANGE_NOTICE);
      // The same e-mail the worker sends with the setting off: no sentence, nothing left of it.
      const sent = renderEmail(builtInTemplate(delivery), { ...templatePreviewValues(false), ...(delivery === 'password' ? {} : { password: undefined }) }, serverRenderTools);
      expect(off.html).toBe(sent.html);
    }
  });
});

describe("SES's answers", () => {
  const error = (name: string, status?: number, message = name) => Object.assign(new Error(message), { name, ...(status ? { $metadata: { httpStatusCode: status } } : {}) });
  it('waits on throttling, retries server errors and unreached connections, keeps a refusal in SES words, and never resends an unknown outcome', () => {
    expect(classifySendError(error('TooManyRequestsException', 429)).kind).toBe('throttled');
    expect(classifySendError(error('LimitExceededException', 400, 'Maximum sending rate exceeded.')).kind).toBe('throttled');
    expect(classifySendError(error('InternalFailure', 500)).kind).toBe('retryable');
    expect(classifySendError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).kind).toBe('retryable');
    expect(classifySendError(error('MessageRejected', 400, 'Email address is not verified.'))).toEqual({ kind: 'refused', message: 'Email address is not verified.' });
    expect(classifySendError(error('TimeoutError')).kind).toBe('unknown');
  });

  it("the installation's SES account taking no e-mail for now is a pause, never a refusal of the e-mail (issue 29, item 2)", () => {
    // SES documents the daily quota as a throttling error whose message says so (SESv2 may name it LimitExceeded).
    for (const name of ['ThrottlingException', 'TooManyRequestsException', 'LimitExceededException']) {
      expect(classifySendError(error(name, name === 'TooManyRequestsException' ? 429 : 400, 'Daily message quota exceeded.'))).toEqual({ kind: 'paused', reason: 'quota', message: 'Daily message quota exceeded.' });
    }
    expect(classifySendError(error('SendingPausedException', 400, 'Sending paused for this account.'))).toMatchObject({ kind: 'paused', reason: 'paused' });
    expect(classifySendError(error('AccountSendingPausedException', 400, 'Email sending is disabled for your entire account.'))).toMatchObject({ kind: 'paused', reason: 'paused' });
    expect(classifySendError(error('AccountSuspendedException', 400, 'Account is suspended.'))).toMatchObject({ kind: 'paused', reason: 'suspended' });
  });
});
