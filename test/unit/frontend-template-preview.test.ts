import { describe, expect, it } from 'vitest';
import { previewDocument, previewHtml, previewSubject } from '../../frontend/src/features/email-templates/lib/template-preview';
import { toCreateRequest } from '../../frontend/src/features/integrations/lib/integration-form';

describe('e-mail template preview', () => {
  it('fills the sample values, the masked password and the logo up to 200px', () => {
    const html = previewHtml('{{brandLogo}}<p>Hi {{ accountHolderName }} ({{username}}, {{password}}) at {{companyName}}: {{unknown}}</p>', 'https://cdn.example.com/logo.png');
    expect(html).toBe(
      '<img src="https://cdn.example.com/logo.png" alt="Brand logo" width="200" style="display:block;max-width:200px;width:auto;height:auto;border:0"><p>Hi John Doe (johndoe, ••••••••••••) at Your Company: {{unknown}}</p>',
    );
  });

  it('shows no logo without a URL, or for a URL that is not http(s), and escapes one with quotes', () => {
    expect(previewHtml('{{brandLogo}}x', '')).toBe('x');
    expect(previewHtml('{{brandLogo}}x', 'javascript:alert(1)')).toBe('x');
    expect(previewHtml('{{brandLogo}}', 'https://e.com/a"onerror="x.png')).not.toContain('"onerror="');
  });

  it('replaces only company, account holder and project names in the subject', () => {
    expect(previewSubject('{{companyName}}: {{accountHolderName}}, {{projectName}}, {{username}}')).toBe('Your Company: John Doe, Sample Project, {{username}}');
  });

  it('wraps the preview in a document whose policy forbids scripts', () => {
    const doc = previewDocument('<p>x</p>');
    expect(doc).toContain("default-src 'none'");
    expect(doc).not.toContain('script-src');
    expect(doc).toContain('<p>x</p>');
  });
});

describe('integration form', () => {
  it('leaves blank optional fields out so the server defaults apply', () => {
    const request = toCreateRequest({
      name: 'Okta',
      description: '',
      platform: 'okta',
      apiType: 'REST',
      baseUrl: 'https://acme.okta.com',
      authMethod: 'api_key',
      authConfig: { apiKey: 'k', headerName: '' },
      apiConfig: { testPath: '' },
    });
    expect(request.authConfig).toEqual({ apiKey: 'k' });
    expect(request.apiConfig).toEqual({});
  });
});
