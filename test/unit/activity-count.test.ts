import { describe, expect, it } from 'vitest';
import { activityCount } from '../../functions/analytics/analytics';
import { plural } from '../../shared/text/plural';

describe('activity counts (Analytics, Recent Activity)', () => {
  it('reads the leading number as the bulk code writes it, grouping commas included', () => {
    for (const n of [1, 2, 999, 1000, 12_345, 250_000]) {
      expect(activityCount(`${plural(n, 'account')} created in "Spring"`)).toBe(n);
      expect(activityCount(`${plural(n, 'row')} not created in "Spring"`)).toBe(n);
    }
    expect(activityCount('1000 accounts created in "Old"')).toBe(1000);
    expect(activityCount('Project "Spring" created')).toBe(1);
    expect(activityCount('1,00 accounts created in "Odd"')).toBe(1);
  });
});
