import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeTemplateHtml } from '../../functions/email-templates/sanitize-template';
import { emailTemplateSchema, variablesIn } from '../../shared/schemas/email-templates';

describe('sanitizeTemplateHtml', () => {
  it('removes scripts, handlers, frames, forms and unsafe URLs; keeps e-mail markup and variables', () => {
    const html = [
      '<table width="100%" cellpadding="0"><tr><td style="padding: 8px; color: #333; background-image: url(https://t.example/p.gif)">',
      '<p onmouseover="x()">Hi {{accountHolderName}}</p><img src="https://cdn.example.com/logo.png" alt="{{companyName}}" width="200" onerror="x()">',
      '<a href="javascript:alert(1)">bad</a><a href="https://example.com" target="_blank">good</a><a href="//evil.example">proto</a>',
      '<iframe src="https://evil.example"></iframe><form action="https://evil.example"><input name="p"></form><svg onload="x()"></svg>',
      '<img src="data:image/svg+xml;base64,PHN2Zz4="><style>body{background:url(https://t.example)}</style><script>alert(1)</script>',
      '</td></tr></table>',
    ].join('');
    const clean = sanitizeTemplateHtml(html);
    expect(clean).toContain('<td style="padding:8px;color:#333">');
    expect(clean).toContain('<p>Hi {{accountHolderName}}</p>');
    expect(clean).toContain('<img src="https://cdn.example.com/logo.png" alt="{{companyName}}" width="200" />');
    expect(clean).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer">good</a>');
    for (const bad of ['script', 'onerror', 'onmouseover', 'onload', 'javascript:', 'iframe', '<form', '<input', 'data:', '<style', 'url(', '//evil']) {
      expect(clean).not.toContain(bad);
    }
  });

  it('never lets a tag with an event handler or a script through, whatever the input', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('<p>', '</p>', '<script>', '</script>', '<img src=x onerror=alert(1)>', '<a href="javascript:x">', 'text', '{{email}}', '<', '>', '"', "'", '<svg/onload=x>', '<scr<script>ipt>'), { maxLength: 30 }), (parts) => {
        const clean = sanitizeTemplateHtml(parts.join(''));
        expect(clean).not.toMatch(/<script|onerror=|onload=|javascript:/i);
      }),
    );
  });
});

describe('template variables', () => {
  it('finds variables in order of first use, spaces allowed inside the braces', () => {
    expect(variablesIn('Hi {{ accountHolderName }}', '{{username}} {{accountHolderName}}')).toEqual(['accountHolderName', 'username']);
  });

  it('names unknown variables in the error', () => {
    const result = emailTemplateSchema.safeParse({ name: 'x', subject: 'Hi {{firstName}}', htmlContent: '<p>x</p>' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^Unknown variable \{\{firstName\}\}\. Use \{\{accountHolderName\}\}/);
  });
});
