import { describe, expect, it } from 'vitest';
import { recordedEntries } from '../../functions/accounts/account-history';
import { parseAccountId } from '../../functions/accounts/account-record';

const projectId = '0190a0b0-0000-7000-8000-000000000002';
const at = (second: number) => `2026-11-27T10:00:${String(second).padStart(2, '0')}.000Z`;
const entries = (current: Record<string, unknown>, platform = 'Okta') =>
  recordedEntries({ projectId, project: { name: 'Spring' }, current: { createdAt: at(0), ...current } }, platform).map(({ kind, at: when, title, detail }) => ({ kind, at: when, title, ...(detail ? { detail } : {}) }));

describe('an account history from the records that exist', () => {
  it('the creation names its project and its import', () => {
    expect(entries({})).toEqual([{ kind: 'created', at: at(0), title: 'Created', detail: 'Imported into Spring by the import that created the project' }]);
    expect(entries({ importId: 'import-2' })[0]!.detail).toBe('Added to Spring by import import-2');
  });

  it('the provisioning outcome in the platform’s words; pending says nothing', () => {
    expect(entries({ externalStatus: 'pending' })).toHaveLength(1);
    expect(entries({ externalStatus: 'failed', externalError: 'E0000001: login already exists', provisionedAt: at(1) })[1]).toEqual({ kind: 'provision_failed', at: at(1), title: 'Sync failed on Okta', detail: 'E0000001: login already exists' });
    expect(entries({ externalStatus: 'removed', provisionedAt: at(1) })[1]).toMatchObject({ kind: 'removed_from_platform', title: 'Removed from Okta' });
  });

  it.each([
    ['delivered', 'E-mail delivered'],
    ['bounced', 'E-mail bounced'],
    ['complained', 'Marked as spam by the recipient'],
    ['failed', 'E-mail not sent'],
    ['suppressed', 'E-mail skipped: the address is suppressed'],
  ])('the e-mail sent, then %s', (emailStatus, title) => {
    const found = entries({ emailStatus, emailSentAt: at(2), emailStatusAt: at(3), emailError: 'why' });
    expect(found.map((e) => e.kind)).toContain('emailed');
    expect(found.find((e) => e.title === title)).toMatchObject({ at: at(3), ...(emailStatus === 'delivered' ? {} : { detail: 'why' }) });
  });

  it('the credentials viewed, and the latest password reset (on the platform, here only, failed)', () => {
    expect(entries({ credentialsViewedAt: at(4) })[1]).toMatchObject({ kind: 'credentials_viewed', at: at(4) });
    expect(entries({ passwordResetStatus: 'updated', passwordResetAt: at(5) })[1]).toMatchObject({ kind: 'password_reset', detail: 'Also changed on Okta' });
    expect(entries({ passwordResetStatus: 'local', passwordResetAt: at(5) })[1]).toMatchObject({ kind: 'password_reset', detail: 'Here only: the account was not on a platform' });
    expect(entries({ passwordResetStatus: 'failed', passwordResetError: 'refused', passwordResetAt: at(5) })[1]).toMatchObject({ kind: 'password_reset_failed', detail: 'refused' });
    // A reset under way has no outcome yet.
    expect(entries({ passwordResetStatus: 'pending' })).toHaveLength(1);
  });

  it('leaves out a record without a readable time', () => {
    expect(entries({ emailSentAt: 'yesterday', credentialsViewedAt: 42 })).toHaveLength(1);
  });
});

describe('account ids', () => {
  it.each([
    [`${projectId}.000007`, { projectId, row: 7 }],
    [`${projectId}.250000`, { projectId, row: 250000 }],
    [`${projectId}.000000`, undefined],
    [`${projectId}.7`, undefined],
    [`${projectId}#x.000007`, undefined],
    ['.000007', undefined],
    [`${'a'.repeat(5000)}.000001`, undefined],
  ])('%s', (id, parsed) => expect(parseAccountId(id)).toEqual(parsed));
});
