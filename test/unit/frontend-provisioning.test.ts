import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Integration } from '../../shared/schemas/integrations';
import { defaultPasswordSettings } from '../../shared/schemas/bulk';
import {
  countsText,
  defaultTarget,
  jobSyncCounts,
  projectSyncCounts,
  provisioningTargets,
  settledPercent,
  shownStatus,
  syncCounts,
} from '../../frontend/src/lib/provisioning-progress';
import { CHOOSE_TARGET, toBulkCreateRequest, uploadFormSchema } from '../../frontend/src/features/bulk-creator/lib/upload-form';

const integration = (id: string, platform: Integration['platform'], apiType: Integration['apiType'] = 'REST'): Integration => ({
  id,
  name: `${platform} ${id}`,
  description: '',
  platform,
  apiType,
  baseUrl: 'https://example.com',
  authMethod: 'bearer_token',
  authFieldsSet: ['token'],
  apiConfig: {},
  isActive: true,
  lastTestStatus: 'pending',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('sync counts on screen', () => {
  it('show synced, failed and pending of the total', () => {
    expect(countsText(jobSyncCounts({ synced: 2, failed: 1, total: 5 }))).toBe('2 synced, 1 failed, 2 pending of 5');
    expect(settledPercent(syncCounts(2, 1, 4))).toBe(75);
  });

  it('always add up, whatever the answer held (missing counts, a run read between two updates)', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: -5, max: 1000 })), fc.option(fc.integer({ min: -5, max: 1000 })), fc.option(fc.integer({ min: -5, max: 1000 })), (s, f, t) => {
        const counts = syncCounts(s ?? undefined, f ?? undefined, t ?? undefined);
        expect(counts.synced + counts.failed + counts.removed + counts.pending).toBe(counts.total);
        for (const value of Object.values(counts)) expect(value).toBeGreaterThanOrEqual(0);
      }),
    );
    // 3 + 1 of 3 is never shown as such: the total holds both.
    expect(syncCounts(3, 1, 3)).toEqual({ synced: 3, failed: 1, removed: 0, pending: 0, total: 4 });
  });

  it('count the accounts an undo removed apart, still adding up, and say removed for an undo run', () => {
    expect(projectSyncCounts({ accountCount: 5, syncedCount: 1, syncFailedCount: 1, syncRemovedCount: 2 } as never)).toEqual({ synced: 1, failed: 1, removed: 2, pending: 1, total: 5 });
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), fc.nat(500), fc.nat(2000), (s, f, r, t) => {
        const counts = syncCounts(s, f, t, r);
        expect(counts.synced + counts.failed + counts.removed + counts.pending).toBe(counts.total);
      }),
    );
    expect(countsText(syncCounts(2, 0, 3), 'undo')).toBe('2 removed, 0 failed, 1 pending of 3');
  });

  it('count a project read before its sync counts existed as all pending', () => {
    expect(projectSyncCounts({ accountCount: 7 } as never)).toEqual({ synced: 0, failed: 0, removed: 0, pending: 7, total: 7 });
  });
});

describe('provisioning targets', () => {
  const list = [integration('w', 'workday'), integration('s', 'custom'), integration('g', 'custom', 'GraphQL'), integration('t', 'custom')];

  it('keep every integration, the refused ones with the reason (Workday is never a target)', () => {
    const choices = provisioningTargets(list);
    expect(choices.map((choice) => choice.integration.id)).toEqual(['w', 's', 'g', 't']);
    expect(choices[0]!.reason).toMatch(/Workday .* cannot be a provisioning target/);
    expect(choices[1]!.reason).toBeUndefined();
    expect(choices[2]!.reason).toMatch(/SCIM 2\.0/);
  });

  it('default to the preferred usable one, else the first usable, else none', () => {
    const choices = provisioningTargets(list);
    expect(defaultTarget(choices)).toBe('s');
    expect(defaultTarget(choices, 't')).toBe('t');
    expect(defaultTarget(choices, 'w')).toBe('s');
    expect(defaultTarget(provisioningTargets([integration('w', 'workday')]))).toBe('');
  });
});

describe('the upload form with a provisioning target', () => {
  const base = { projectName: 'P', accountType: 'Standard User', passwordSettings: defaultPasswordSettings } as const;
  const rows = [{ row: 2, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', raw: [], issues: [] }];

  it('asks for the integration when the box is ticked, with the server words', () => {
    const result = uploadFormSchema.safeParse({ ...base, createExternalAccounts: true, apiIntegrationId: '' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['apiIntegrationId'], message: CHOOSE_TARGET });
  });

  it('sends the integration only when the accounts are to be created on it', () => {
    const ticked = uploadFormSchema.parse({ ...base, createExternalAccounts: true, apiIntegrationId: 'int-1' });
    expect(toBulkCreateRequest(ticked, rows)).toMatchObject({ createExternalAccounts: true, apiIntegrationId: 'int-1' });
    const unticked = uploadFormSchema.parse({ ...base, createExternalAccounts: false, apiIntegrationId: 'int-1' });
    const request = toBulkCreateRequest(unticked, rows);
    expect(request).not.toHaveProperty('apiIntegrationId');
    expect(request).not.toHaveProperty('createExternalAccounts');
  });

  it("sends the project's groups only with a target, checked with the server's words", () => {
    const grouped = { ...base, createExternalAccounts: true, apiIntegrationId: 'int-1', groups: ['Staff', 'Interns'], createGroups: true };
    expect(toBulkCreateRequest(uploadFormSchema.parse(grouped), rows)).toMatchObject({ groups: ['Staff', 'Interns'], createGroups: true });
    expect(toBulkCreateRequest(uploadFormSchema.parse({ ...grouped, createExternalAccounts: false }), rows)).not.toHaveProperty('groups');
    expect(toBulkCreateRequest(uploadFormSchema.parse({ ...grouped, createGroups: false }), rows)).not.toHaveProperty('createGroups');
    expect(toBulkCreateRequest(uploadFormSchema.parse({ ...grouped, groups: [] }), rows)).not.toHaveProperty('groups');
    const twice = uploadFormSchema.safeParse({ ...grouped, groups: ['Staff', 'STAFF'] });
    expect(twice.error?.issues[0]).toMatchObject({ path: ['groups'], message: 'Each group can be named only once' });
  });
});

describe("a run's badge while it waits on the shared queue", () => {
  it('says Queued while the server gives a reason to wait, its own status otherwise', () => {
    expect(shownStatus({ status: 'running', waitReason: 'Queued behind about 2 chunks of other runs on the shared provisioning queue.' })).toBe('queued');
    expect(shownStatus({ status: 'queued', waitReason: 'Queued: starting as soon as a worker picks it up.' })).toBe('queued');
    expect(shownStatus({ status: 'running' })).toBe('running');
    expect(shownStatus({ status: 'paused' })).toBe('paused');
  });
});
