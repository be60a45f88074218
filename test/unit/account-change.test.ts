import { describe, expect, it } from 'vitest';
import { accountChange, projectTouch } from '../../functions/accounts/account-change';

/** The one writer of a changed account (an Edit, a sync's apply): what it compares and what its transaction holds. */
const item = {
  PK: 'USER#u#PROJECT#p#ACCOUNTS',
  SK: 'ACCOUNT#000001',
  id: 'p.000001',
  firstName: 'Ann',
  lastName: 'Lee',
  email: 'ann@example.com',
  username: 'annlee2026',
  attributes: { department: 'Sales', title: 'Rep' },
};
const base = { userId: 'u', projectId: 'p', row: 1, accountId: 'p.000001', item, at: new Date('2026-11-28T05:00:00Z'), historyId: 'h1' };
const same = { firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com', username: 'annlee2026' };

describe('accountChange', () => {
  it('writes nothing when nothing differs (the attributes as they are)', () => {
    expect(accountChange('t', { ...base, after: same })).toMatchObject({ changes: [], items: [], newKeys: [] });
    expect(accountChange('t', { ...base, after: same, attributes: { title: 'Rep', department: 'Sales' } }).items).toEqual([]);
  });

  it('compares the fields and the whole attributes map key by key, moves the index entries, conditions on the map as read and names the new keys', () => {
    const write = accountChange('t', { ...base, after: { ...same, lastName: 'Ray' }, attributes: { department: 'Marketing', costCenter: 'C1' }, platform: 'Okta', detail: 'Updated from a file' });
    expect(write.changes).toEqual([
      { field: 'lastName', from: 'Lee', to: 'Ray' },
      { field: 'attributes.costCenter', from: '', to: 'C1' },
      { field: 'attributes.department', from: 'Sales', to: 'Marketing' },
      { field: 'attributes.title', from: 'Rep', to: '' },
    ]);
    expect(write.newKeys).toEqual(['costCenter']);
    const [account, history, ...index] = write.items;
    expect(account!.Update!.ConditionExpression).toContain('#oldAttributes = :oldAttributes');
    expect(account!.Update!.ExpressionAttributeValues![':oldAttributes']).toEqual(item.attributes);
    expect(write.set).toMatchObject({ lastName: 'Ray', attributes: { department: 'Marketing', costCenter: 'C1' }, platformChange: { platform: 'Okta', fields: ['lastName', 'attributes.costCenter', 'attributes.department', 'attributes.title'] } });
    expect(history!.Put!.Item).toMatchObject({ kind: 'edited', changes: write.changes, detail: expect.stringMatching(/^Updated from a file; /) });
    // Sales and Rep leave the index, Marketing and C1 enter it.
    expect(index.filter((i) => i.Delete)).toHaveLength(2);
    expect(index.filter((i) => i.Put)).toHaveLength(2);
    // Their values' counters move with them, in the same transaction (the Attribute filter's exact count).
    expect(index.filter((i) => i.Update).map((i) => [i.Update!.Key!.SK, i.Update!.ExpressionAttributeValues![':by']])).toEqual([
      ['~COUNT#department#sales', -1],
      ['~COUNT#title#rep', -1],
      ['~COUNT#department#marketing', 1],
      ['~COUNT#costCenter#c1', 1],
    ]);
  });

  it('refuses (400) an edit of more extra columns at once than one transaction holds', () => {
    const many = (value: string) => Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`c${i}`, `${value}${i}`]));
    const twentyFive = { ...base, item: { ...item, attributes: many('old') } };
    expect(() => accountChange('t', { ...twentyFive, after: same, attributes: many('new') })).toThrow(/at most 24/);
    const { c0, ...rest } = many('new');
    expect(accountChange('t', { ...twentyFive, after: same, attributes: { ...rest, c0: 'old0' } }).items.length + 1).toBeLessThanOrEqual(100);
    expect(c0).toBe('new0');
  });

  it('touches the project with one more version and the new keys, guarded against running jobs for an edit only', () => {
    expect(projectTouch('t', 'u', 'p', ['costCenter'], true).Update).toMatchObject({ UpdateExpression: 'ADD accountsVersion :one, attributeKeys :keys', ConditionExpression: expect.stringContaining('attribute_not_exists(activeAccountAction)') });
    expect(projectTouch('t', 'u', 'p', [], false).Update).toMatchObject({ UpdateExpression: 'ADD accountsVersion :one', ConditionExpression: 'attribute_exists(PK)' });
  });
});
