import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EXPIRED_LINK_KEPT_DAYS, isLinkTokenShaped, linkExpiry, linkStatus, linkTokenHash, linkUrl, loggableLinkId, newLinkToken } from '../../functions/credential-links/link-token';
import { isIdShaped } from '../../shared/schemas/ids';

describe('one-time credential link tokens', () => {
  it('are 32 random bytes in base64url: 43 URL-safe characters, different every time', () => {
    const tokens = Array.from({ length: 200 }, () => newLinkToken());
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(isLinkTokenShaped(token)).toBe(true);
      // The HTTP layer refuses path ids of another shape before the route runs.
      expect(isIdShaped(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('refuses anything that cannot be a token', () => {
    const token = newLinkToken();
    for (const bad of ['', token.slice(1), `${token}A`, `${token.slice(1)}=`, `${token.slice(1)}+`, `${token.slice(1)}/`, `${token.slice(1)}.`, 'x'.repeat(200)]) {
      expect(isLinkTokenShaped(bad), bad).toBe(false);
    }
  });

  it('are stored as their SHA-256 in hex, and logs name a link by the start of it', () => {
    const token = newLinkToken();
    const hash = linkTokenHash(token);
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token);
    expect(linkTokenHash(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).not.toBe(hash);
    expect(loggableLinkId(hash)).toBe(hash.slice(0, 12));
  });

  it('make the page URL under APP_URL, with or without its trailing slash', () => {
    expect(linkUrl('https://app.example.com', 'abc')).toBe('https://app.example.com/credentials#abc');
    expect(linkUrl('http://127.0.0.1:3000/', 'abc')).toBe('http://127.0.0.1:3000/credentials#abc');
  });
});

describe('link expiry', () => {
  const issued = new Date('2026-11-23T10:00:00.000Z');

  it('is a whole number of days after issue; the item outlives it by the grace period (TTL in epoch seconds)', () => {
    const { expiresAt, ttl } = linkExpiry(issued, 7);
    expect(expiresAt).toBe('2026-11-30T10:00:00.000Z');
    expect(ttl).toBe(Date.parse('2026-11-30T10:00:00.000Z') / 1000 + EXPIRED_LINK_KEPT_DAYS * 86_400);
    expect(linkExpiry(issued, 1).expiresAt).toBe('2026-11-24T10:00:00.000Z');
    expect(linkExpiry(issued, 30).expiresAt).toBe('2026-12-23T10:00:00.000Z');
  });

  it('refuses days outside 1..30 and fractions', () => {
    for (const days of [0, -1, 31, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => linkExpiry(issued, days), String(days)).toThrow(RangeError);
  });

  it('a link is ready until its expiry, expired from that instant, used once spent (even after it expired)', () => {
    const { expiresAt } = linkExpiry(issued, 2);
    const link = { linkExpiresAt: expiresAt };
    expect(linkStatus(link, issued)).toBe('ready');
    expect(linkStatus(link, new Date(Date.parse(expiresAt) - 1))).toBe('ready');
    expect(linkStatus(link, new Date(expiresAt))).toBe('expired');
    expect(linkStatus({ ...link, usedAt: issued.toISOString() }, issued)).toBe('used');
    expect(linkStatus({ ...link, usedAt: issued.toISOString() }, new Date('2027-01-01T00:00:00Z'))).toBe('used');
  });
});
