import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCount, plural, pluralWord } from '../../shared/text/plural';

describe('plural', () => {
  it('agrees the noun with the number', () => {
    expect(plural(0, 'account')).toBe('0 accounts');
    expect(plural(1, 'account')).toBe('1 account');
    expect(plural(2, 'account')).toBe('2 accounts');
    expect(plural(1000, 'row')).toBe('1,000 rows');
    expect(plural(1, 'account has', 'accounts have')).toBe('1 account has');
    expect(plural(3, 'account has', 'accounts have')).toBe('3 accounts have');
    expect(plural(1, 'person', 'people')).toBe('1 person');
    expect(pluralWord(1, 'e-mail')).toBe('e-mail');
    expect(pluralWord(5, 'e-mail')).toBe('e-mails');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('never writes "1 <plural>" nor "<other> <singular>"', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (n) => {
        const text = plural(n, 'account');
        expect(text.endsWith(n === 1 ? ' account' : ' accounts')).toBe(true);
      }),
    );
  });
});
