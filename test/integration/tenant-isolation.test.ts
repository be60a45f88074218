import { randomUUID } from 'node:crypto';
import JSZip from 'jszip';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../functions/core/keys';
import { timeOrderedId } from '../../functions/core/ids';
import { routes, routeKey, type RouteDefinition } from '../../shared/routes';
import type { BulkJob, CreatedAccount } from '../../shared/schemas/bulk';
import type { BulkUpload, BulkUploadForm } from '../../shared/schemas/bulk-upload';
import type { EmailSuppression } from '../../shared/schemas/email-suppressions';
import type { EmailTemplate } from '../../shared/schemas/email-templates';
import type { ExportView } from '../../shared/schemas/export';
import type { Integration, IntegrationTemplate } from '../../shared/schemas/integrations';
import type { DashboardStats, Project, SubscriptionStatus } from '../../shared/schemas/project';
import type { NotificationList } from '../../shared/schemas/notifications';
import type { Analytics } from '../../shared/schemas/analytics';
import type { UserSettings } from '../../shared/schemas/user-settings';
import type { SecurityEventPage } from '../../shared/schemas/security';
import type { SecurityOverview } from '../../shared/schemas/security-overview';
import { apiUser, people, testDb, upgradeToPro, type ApiUser, exportDownloadUrl } from '../support/api';
import { until } from '../support/until';

/**
 * Tenant isolation, driven by the route table: every `jwt` route of shared/routes.ts is called by
 * a second user with the first user's real ids, and must never show or change the first user's
 * data. A route added to the table without an expectation here fails the first test: add one to
 * `expectations` below (an id route is usually one line: `{ id: (a) => a.projectId, answer: 404 }`).
 */

const token = () => randomUUID().replaceAll('-', '').slice(0, 10);

/** The first user (A) and the real ids and names of everything A owns. */
interface Owner {
  user: ApiUser;
  firstName: string;
  projectId: string;
  projectName: string;
  account: CreatedAccount;
  /** A's background job (over 1,000 rows), finished; its id is its project's id. */
  jobId: string;
  jobProjectName: string;
  exportId: string;
  /** A's uploaded file, checked first (one row refused): its report is kept. */
  uploadId: string;
  /** A's notification of the finished job (unread). */
  notificationId: string;
  /** A's provisioning run (written as the start step writes one). */
  provisioningJobId: string;
  /** A's credentials send (written as the start step writes one). */
  mailSendId: string;
  /** A's Reset Passwords job (written as the start step writes one). */
  passwordResetId: string;
  projectDeletionId: string;
  accountActionId: string;
  /** A's action over the Account Database (written as a start writes one, naming A's account action as its part). */
  directoryActionId: string;
  /** A sync preview of A's project (its id is its upload's). */
  syncPreviewId: string;
  integrationId: string;
  integrationName: string;
  templateId: string;
  templateName: string;
  customerId: string;
  /** Strings that identify A's data: none may appear in an answer to B. */
  markers: string[];
}

interface Context {
  a: Owner;
  /** The second user, Pro like A, so no route refuses B on the plan before it looks at A's id. */
  b: ApiUser;
  /** A second user still on the free plan (the checkout route refuses a Pro user). */
  free: ApiUser;
  /** A user who deletes their own account (DELETE /api/user/account takes no id: it can only ever be the caller's). */
  doomed: ApiUser;
}

interface Expectation {
  /** A's id for the route's {id} (or A's address for {email}). */
  id?: (a: Owner) => string;
  /** The query string B sends. */
  query?: (a: Owner) => string;
  /** The body B sends, with A's ids where the route takes an id. */
  body?: (ctx: Context) => unknown;
  /** Which second user calls (default B, Pro). */
  as?: 'free' | 'doomed';
  /**
   * Before B's call, A makes the same request and gets A's data (2xx, showing at least one of
   * A's markers), so B's miss is not vacuous. Default: GET routes; 'no-markers' for answers that
   * hold no names or ids (counts, the built-in catalog).
   */
  ownerFirst?: 'markers' | 'no-markers' | false;
  /** 404 (A's id is unknown to B), or a check of B's answer. */
  answer: 404 | ((response: Response, ctx: Context) => Promise<void>);
  /** After B's call: A's data is still there, unchanged. */
  ownerAfter?: (ctx: Context) => Promise<void>;
}

const okta = (name: string) => ({ name, platform: 'okta', baseUrl: inject('stack').fakePlatformOrigin, authMethod: 'api_key', authConfig: { apiKey: `secret-${token()}` } });
const template = (name: string, isDefault = false) => ({ name, subject: 'Welcome {{accountHolderName}}', htmlContent: '<p>Hello {{accountHolderName}}</p>', isDefault });
/** The payload of a local billing URL's signed token (bin/local/local-checkout.ts). */
const localToken = (url: string) => JSON.parse(Buffer.from(url.split('/').at(-1)!.split('.')[0]!, 'base64url').toString('utf8')) as { userId?: string; customerId: string };
const storedCustomer = async (user: ApiUser) =>
  (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${user.sub}`, SK: 'PROFILE' }, ConsistentRead: true }))).Item?.stripeCustomerId as string | undefined;

async function ok<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

/** B's own totals, from B's own project list: what B's dashboard and usage must show. */
async function ownTotals(user: ApiUser) {
  const projects = await user.json<Project[]>('/api/projects');
  const today = new Date().toISOString().slice(0, 10);
  return {
    projects: projects.length,
    accounts: projects.reduce((sum, p) => sum + p.accountCount, 0),
    active: projects.filter((p) => p.status !== 'completed' && !p.expiredAt && !(p.expirationDate && p.expirationDate <= today)).length,
  };
}

const expectations: Record<string, Expectation> = {
  'GET /api/auth/user': {
    answer: async (response, { b }) => expect((await ok<{ id: string }>(response)).id).toBe(b.sub),
  },
  'DELETE /api/user/account': {
    as: 'doomed',
    answer: async (response, { doomed }) => {
      expect(await ok(response, 202)).toEqual({ status: 'deleting' });
      await until(
        "the doomed user's deletion",
        async () => (await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: { PK: `USER#${doomed.sub}`, SK: 'PROFILE' }, ConsistentRead: true }))).Item,
        (item) => item === undefined,
      );
    },
    // The job erased the caller only: A is whole.
    ownerAfter: async ({ a }) => {
      expect(await a.user.json('/api/auth/user')).toMatchObject({ id: a.user.sub, firstName: a.firstName });
      expect((await a.user.json<Project[]>('/api/projects')).map((p) => p.id)).toContain(a.projectId);
      expect(await storedCustomer(a.user)).toBe(a.customerId);
    },
  },
  'PUT /api/user/profile': {
    body: () => ({ firstName: 'Second', lastName: 'User' }),
    answer: async (response, { b }) => expect(await ok(response)).toMatchObject({ id: b.sub, firstName: 'Second' }),
    ownerAfter: async ({ a }) => expect(await a.user.json('/api/auth/user')).toMatchObject({ id: a.user.sub, firstName: a.firstName }),
  },
  'POST /api/user/onboarding': {
    body: () => ({ name: 'Second User' }),
    answer: async (response, { b }) => expect(await ok(response)).toMatchObject({ id: b.sub, firstName: 'Second', onboarded: true }),
    ownerAfter: async ({ a }) => expect(await a.user.json('/api/auth/user')).toMatchObject({ id: a.user.sub, firstName: a.firstName }),
  },
  'POST /api/user/welcome-dismissal': {
    answer: async (response, { b }) => expect(await ok(response)).toMatchObject({ id: b.sub, welcomeDismissed: true }),
    ownerAfter: async ({ a }) => expect((await a.user.json<{ welcomeDismissed?: boolean }>('/api/auth/user')).welcomeDismissed).toBeUndefined(),
  },
  'POST /api/user/photo-upload': {
    // B's upload form names a key under B's own prefix only.
    answer: async (response, { a, b }) => {
      const { key } = await ok<{ key: string }>(response);
      expect(key.startsWith(`profile-photos/pending/${b.sub}/`)).toBe(true);
      expect(key).not.toContain(a.user.sub);
    },
  },
  'PUT /api/user/photo': {
    // A key under A's prefix is not B's to claim.
    body: ({ a }) => ({ key: `profile-photos/pending/${a.user.sub}/${randomUUID()}.jpg` }),
    answer: 404,
  },
  'DELETE /api/user/photo': {
    answer: async (response, { b }) => expect(await ok(response)).toMatchObject({ id: b.sub }),
    ownerAfter: async ({ a }) => expect(await a.user.json('/api/auth/user')).toMatchObject({ id: a.user.sub }),
  },
  'GET /api/user/settings': {
    answer: async (response, { b }) => expect((await ok<UserSettings>(response)).account.email).toBe(b.email),
  },
  'PUT /api/user/settings': {
    body: () => ({ notifications: { weeklyDigest: true }, account: { firstName: 'Second' } }),
    answer: async (response, { b }) => expect(await ok<UserSettings>(response)).toMatchObject({ notifications: { weeklyDigest: true }, account: { email: b.email, firstName: 'Second' } }),
    ownerAfter: async ({ a }) => expect(await a.user.json('/api/user/settings')).toMatchObject({ notifications: { weeklyDigest: false }, account: { firstName: a.firstName } }),
  },
  'GET /api/notifications': {
    answer: async (response, { a }) => expect((await ok<NotificationList>(response)).notifications.map((n) => n.id)).not.toContain(a.notificationId),
  },
  'POST /api/notifications/read': {
    body: ({ a }) => ({ ids: [a.notificationId] }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const list = await a.user.json<NotificationList>('/api/notifications');
      expect(list.notifications.find((n) => n.id === a.notificationId)?.read).toBe(false);
    },
  },
  'POST /api/bulk-create': {
    body: ({ a }) => ({ projectName: `With A's integration ${token()}`, csvData: people(1, `Intruder${token()}`), apiIntegrationId: a.integrationId }),
    answer: 404,
  },
  'GET /api/bulk-jobs/{id}': { id: (a) => a.jobId, answer: 404 },
  'POST /api/bulk-uploads': {
    // B's own form, for a key under B's prefix only.
    answer: async (response, { a, b }) => {
      const form = await ok<BulkUploadForm>(response, 201);
      expect(form.fields.key).toBe(`uploads/${b.sub}/${form.id}.csv`);
      expect(JSON.stringify(form)).not.toContain(a.user.sub);
    },
  },
  'POST /api/bulk-uploads/{id}/start': {
    id: (a) => a.uploadId,
    body: () => ({ projectName: `Not B's ${token()}` }),
    answer: 404,
    ownerAfter: async ({ a }) => expect(await a.user.json<BulkUpload>(`/api/bulk-uploads/${a.uploadId}`)).toMatchObject({ status: 'checked', failedCount: 1 }),
  },
  'GET /api/bulk-uploads/{id}': { id: (a) => a.uploadId, answer: 404 },
  'GET /api/bulk-uploads/{id}/rejected-rows': { id: (a) => a.uploadId, answer: 404 },
  'GET /api/projects': {
    answer: async (response) => expect((await ok<Project[]>(response)).length).toBeGreaterThanOrEqual(1),
  },
  'GET /api/projects/{id}/accounts': { id: (a) => a.projectId, query: () => '?showPasswords=true', answer: 404 },
  'GET /api/projects/{id}/rejected-rows': { id: (a) => a.jobId, answer: 404 },
  'GET /api/projects/{id}/export': { id: (a) => a.projectId, answer: 404 },
  'PUT /api/projects/{id}': {
    id: (a) => a.projectId,
    body: () => ({ name: `Taken by B ${token()}`, accountType: 'Demo Account' }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(String(Item?.name)).not.toContain('Taken by B');
    },
  },
  'PUT /api/projects/{id}/status': {
    id: (a) => a.projectId,
    body: () => ({ status: 'completed' }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.status).not.toBe('completed');
    },
  },
  // A filter naming A's project answers as a project that does not exist; without one, B lists only B's accounts.
  'GET /api/accounts': {
    query: (a) => `?projectId=${a.projectId}&showPasswords=true`,
    answer: 404,
    ownerAfter: async ({ a, b }) => {
      expect((await a.user.json<{ items: { id: string }[] }>(`/api/accounts?projectId=${a.projectId}`)).items.map((item) => item.id)).toContain(a.account.id);
      const own = await b.json<{ items: { projectId: string }[]; count: number }>('/api/accounts?limit=100');
      expect(own.items.every((item) => item.projectId !== a.projectId)).toBe(true);
    },
  },
  'GET /api/accounts/search': {
    query: (a) => `?q=${encodeURIComponent(a.account.firstName)}&showPasswords=true`,
    answer: async (response, { a, b }) => {
      expect((await ok<{ count: number }>(response)).count).toBe(0);
      for (const term of [a.account.lastName, a.account.email, a.account.username]) {
        const path = `/api/accounts/search?q=${encodeURIComponent(term)}`;
        expect((await a.user.json<{ count: number }>(path)).count, term).toBeGreaterThan(0);
        expect((await b.json<{ count: number }>(path)).count, term).toBe(0);
      }
    },
  },
  'PUT /api/accounts/{id}': {
    id: (a) => a.account.id,
    body: () => ({ firstName: 'Intruder', lastName: 'Edit', email: 'intruder@example.com', regenerateUsername: true }),
    answer: 404,
    ownerAfter: async ({ a }) => expect((await a.user.json<{ items: { id: string; firstName: string; username: string }[] }>(`/api/accounts/search?q=${encodeURIComponent(a.account.email)}`)).items).toEqual([expect.objectContaining({ id: a.account.id, firstName: a.account.firstName, username: a.account.username })]),
  },
  'GET /api/accounts/{id}/history': { id: (a) => a.account.id, answer: 404 },
  'GET /api/dashboard/stats': {
    ownerFirst: 'no-markers',
    answer: async (response, { a, b }) => {
      const stats = await ok<DashboardStats>(response);
      const own = await ownTotals(b);
      expect(stats).toMatchObject({ totalAccounts: own.accounts, activeProjects: own.active, successRate: 100 });
      // A's figures differ (over 1,000 accounts, a refused row), so B's cannot be A's.
      const owners = await a.user.json<DashboardStats>('/api/dashboard/stats');
      expect(owners.totalAccounts).toBe((await ownTotals(a.user)).accounts);
      expect(owners.totalAccounts).not.toBe(stats.totalAccounts);
      expect(owners.successRate).toBeLessThan(100);
    },
  },
  'GET /api/analytics': {
    ownerFirst: 'markers',
    answer: async (response, { a, b }) => {
      const figures = await ok<Analytics>(response);
      const own = await ownTotals(b);
      // B's figures are B's own counters: none of A's accounts, projects or activity.
      expect(figures).toMatchObject({ totalAccounts: own.accounts, completionRate: 100, topPlatforms: [] });
      expect(figures.monthlyTrends.reduce((sum, m) => sum + m.projects, 0)).toBe(own.projects);
      expect(JSON.stringify(figures.recentActivity)).not.toContain(a.projectName);
      expect((await a.user.json<Analytics>('/api/analytics')).totalAccounts).toBe((await ownTotals(a.user)).accounts);
    },
  },
  'GET /api/dashboard/recent-activity': {
    answer: async (response) => expect((await ok<unknown[]>(response)).length).toBeGreaterThanOrEqual(1),
  },
  'GET /api/subscription/status': {
    ownerFirst: 'no-markers',
    answer: async (response, { a, b }) => {
      const status = await ok<SubscriptionStatus>(response);
      const own = await ownTotals(b);
      expect(status.usage).toMatchObject({ projectsUsed: own.projects, accountsUsed: own.accounts });
      expect((await a.user.json<SubscriptionStatus>('/api/subscription/status')).usage.accountsUsed).not.toBe(own.accounts);
    },
  },
  'POST /api/subscription/create-checkout': {
    as: 'free',
    answer: async (response, { a, free }) => {
      const session = localToken((await ok<{ checkoutUrl: string }>(response)).checkoutUrl);
      expect(session.userId).toBe(free.sub);
      expect(session.customerId).toBe(await storedCustomer(free));
      expect(session.customerId).not.toBe(a.customerId);
    },
  },
  'POST /api/subscription/create-portal': {
    answer: async (response, { a, b }) => {
      const portal = localToken((await ok<{ portalUrl: string }>(response)).portalUrl);
      expect(portal.customerId).toBe(await storedCustomer(b));
      expect(portal.customerId).not.toBe(a.customerId);
    },
  },
  // Export All of the Account Database: a filter naming A's project is a project that does not exist.
  'POST /api/exports/directory': { body: ({ a }) => ({ format: 'csv', projectId: a.projectId }), answer: 404 },
  'POST /api/exports/account-data': {
    answer: async (response, { a, b }) => {
      const started = await ok<ExportView>(response, 202);
      await until('the data export', () => b.json<ExportView[]>('/api/exports/history'), (list) => list.some((e) => e.id === started.id && e.status === 'completed'));
      const zip = await JSZip.loadAsync(Buffer.from(await (await fetch(await exportDownloadUrl(b, started.id))).arrayBuffer()));
      const contents = await Promise.all(Object.values(zip.files).map((file) => file.async('string')));
      expect(contents.length).toBeGreaterThan(5);
      // B's zip is B's data: nothing of A's in any file.
      for (const content of contents) for (const marker of a.markers) expect(content).not.toContain(marker);
    },
    ownerAfter: async ({ a }) => expect((await a.user.json<ExportView[]>('/api/exports/history')).map((e) => e.id)).toEqual([a.exportId]),
  },
  // 'Export Logs': B's file holds B's events only (A's actions named with A's marker are A's).
  'POST /api/exports/security-events': {
    answer: async (response, { a, b }) => {
      const started = await ok<ExportView>(response, 202);
      await until('the security events export', () => b.json<ExportView[]>('/api/exports/history'), (list) => list.some((e) => e.id === started.id && e.status === 'completed'));
      const text = await (await fetch(await exportDownloadUrl(b, started.id))).text();
      // (Every user's sign-in reads alike, 'Signed in ...': A's own events are those of A's actions.)
      for (const event of (await a.user.json<SecurityEventPage>('/api/security/events')).events.filter((e) => e.type !== 'login')) expect(text).not.toContain(event.description);
      for (const marker of a.markers) expect(text).not.toContain(marker);
    },
    ownerAfter: async ({ a }) => expect((await a.user.json<ExportView[]>('/api/exports/history')).map((e) => e.id)).toEqual([a.exportId]),
  },
  'POST /api/exports': {
    body: ({ a }) => ({ projectId: a.projectId, format: 'csv' }),
    answer: 404,
    ownerAfter: async ({ a }) => expect((await a.user.json<ExportView[]>('/api/exports/history')).map((e) => e.id)).toEqual([a.exportId]),
  },
  // A's finished export: B cannot get a link to A's file (and nothing is recorded for B or A).
  'POST /api/exports/{id}/download': {
    id: (a) => a.exportId,
    ownerFirst: 'no-markers',
    answer: 404,
  },
  'GET /api/exports/history': {
    // B's own entries only (B's Export All Data and security events may be in it, depending on the order routes run).
    answer: async (response, { b }) => {
      const own = await ok<ExportView[]>(response);
      const mine = await b.json<ExportView[]>('/api/exports/history');
      expect(own.map((e) => e.id)).toEqual(mine.map((e) => e.id));
      expect(own.every((e) => e.kind === 'account-data' || e.kind === 'security-events')).toBe(true);
    },
  },
  'GET /api/integrations': {
    answer: async (response) => expect(Array.isArray(await ok(response))).toBe(true),
  },
  'GET /api/integration-templates': {
    // The built-in catalog, the same for everyone, but for the local SCIM directory's card: its
    // token opens B's own tenant there, never A's.
    ownerFirst: 'no-markers',
    answer: async (response, { a }) => {
      const withoutToken = (cards: IntegrationTemplate[]) => cards.map(({ ready, ...card }) => ({ ...card, ...(ready ? { ready: { baseUrl: ready.baseUrl } } : {}) }));
      const tokenOf = (cards: IntegrationTemplate[]) => cards.find((card) => card.id === 'local-scim')?.ready?.authConfig.token;
      const theirs = await ok<IntegrationTemplate[]>(response);
      const owners = await a.user.json<IntegrationTemplate[]>('/api/integration-templates');
      expect(withoutToken(theirs)).toEqual(withoutToken(owners));
      expect(tokenOf(theirs)).toBeTruthy();
      expect(tokenOf(theirs)).not.toBe(tokenOf(owners));
    },
  },
  'POST /api/integrations': {
    body: () => okta(`B's integration ${token()}`),
    answer: async (response) => void (await ok(response, 201)),
    ownerAfter: async ({ a }) => expect((await a.user.json<Integration[]>('/api/integrations')).map((i) => i.id)).toEqual([a.integrationId]),
  },
  'POST /api/integrations/{id}/test': { id: (a) => a.integrationId, ownerFirst: 'markers', answer: 404 },
  'POST /api/integrations/{id}/attribute-preview': { id: (a) => a.integrationId, body: () => ({ attributeMapping: { department: 'department' } }), answer: 404 },
  'PUT /api/integrations/{id}': {
    id: (a) => a.integrationId,
    body: () => ({ ...okta(`B renames it ${token()}`), apiConfig: {} }),
    answer: 404,
    ownerAfter: async ({ a }) => expect((await a.user.json<Integration[]>('/api/integrations')).map((i) => [i.id, i.name])).toEqual([[a.integrationId, a.integrationName]]),
  },
  'POST /api/integrations/{id}/check': {
    id: (a) => a.integrationId,
    body: () => ({ people: people(1, `Bcheck${token()}`) }),
    answer: 404,
  },
  'POST /api/projects/{id}/provision': {
    id: (a) => a.projectId,
    body: ({ a }) => ({ integrationId: a.integrationId }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.activeProvisioningJob).toBeUndefined();
      expect(Item?.provisioningJobId).toBeUndefined();
    },
  },
  'GET /api/provisioning-jobs/{id}': { id: (a) => a.provisioningJobId, answer: 404 },
  'POST /api/projects/{id}/send-credentials': {
    id: (a) => a.projectId,
    body: () => ({ scope: 'all' }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.activeMailSend).toBeUndefined();
      expect(Item?.mailSendId).toBeUndefined();
    },
  },
  'GET /api/mail-sends/{id}': { id: (a) => a.mailSendId, answer: 404 },
  'DELETE /api/integrations/{id}': {
    id: (a) => a.integrationId,
    answer: 404,
    ownerAfter: async ({ a }) => expect((await a.user.json<Integration[]>('/api/integrations')).map((i) => i.id)).toEqual([a.integrationId]),
  },
  'GET /api/email-templates': {
    answer: async (response) => expect(Array.isArray(await ok(response))).toBe(true),
  },
  'POST /api/email-templates': {
    // B's own default does not touch A's default.
    body: () => template(`B's template ${token()}`, true),
    answer: async (response) => void (await ok(response, 201)),
    ownerAfter: async ({ a }) =>
      expect((await a.user.json<EmailTemplate[]>('/api/email-templates')).map((t) => [t.id, t.name, t.isDefault])).toEqual([[a.templateId, a.templateName, true]]),
  },
  'PUT /api/email-templates/{id}': {
    id: (a) => a.templateId,
    body: () => template('Taken over', false),
    answer: 404,
    ownerAfter: async ({ a }) =>
      expect((await a.user.json<EmailTemplate[]>('/api/email-templates')).map((t) => [t.id, t.name, t.isDefault])).toEqual([[a.templateId, a.templateName, true]]),
  },
  'DELETE /api/email-templates/{id}': {
    id: (a) => a.templateId,
    answer: 404,
    ownerAfter: async ({ a }) => expect((await a.user.json<EmailTemplate[]>('/api/email-templates')).map((t) => t.id)).toEqual([a.templateId]),
  },
  // A's suppressed address (A's account's e-mail, a marker): B's list is B's own, empty.
  'GET /api/email-suppressions': {
    answer: async (response) => expect(await ok(response)).toEqual([]),
  },
  'DELETE /api/email-suppressions/{email}': {
    id: (a) => a.account.email,
    answer: 404,
    ownerAfter: async ({ a }) => expect((await a.user.json<EmailSuppression[]>('/api/email-suppressions')).map((s) => s.email)).toEqual([a.account.email]),
  },  // Security settings are the caller's own: B reads defaults and B's change leaves A's as they are.
  'GET /api/security/settings': {
    ownerFirst: 'no-markers',
    answer: async (response) => expect(await ok(response)).toMatchObject({ sessionTimeout: 24, maxLoginAttempts: 5 }),
  },
  'PUT /api/security/settings': {
    body: () => ({ sessionTimeout: 100 }),
    answer: async (response) => expect(await ok(response)).toMatchObject({ sessionTimeout: 100 }),
    ownerAfter: async ({ a }) => expect(await a.user.json<{ sessionTimeout: number }>('/api/security/settings')).toMatchObject({ sessionTimeout: 24 }),
  },
  // A's events (A's integration credentials added, named with A's marker) are A's only; B's list
  // is B's own, even when B sends A's newest event id as the cursor.
  'GET /api/security/events': {
    answer: async (response, { a, b }) => {
      const own = await ok<SecurityEventPage>(response);
      const owners = await a.user.json<SecurityEventPage>('/api/security/events');
      expect(owners.events.length).toBeGreaterThan(0);
      const ownerIds = owners.events.map((e) => e.id);
      expect(own.events.map((e) => e.id).filter((id) => ownerIds.includes(id))).toEqual([]);
      const page = await b.json<SecurityEventPage>(`/api/security/events?cursor=${owners.events[0]!.id}`);
      expect(page.events.map((e) => e.id).filter((id) => ownerIds.includes(id))).toEqual([]);
    },
  },
  'GET /api/security/overview': {
    answer: async (response, { a }) => expect((await ok<SecurityOverview>(response)).integrations.map((i) => i.id)).not.toContain(a.integrationId),
  },
  // Cognito checks the current password of the token's own user: B cannot change anyone else's.
  'POST /api/auth/change-password': {
    body: () => ({ currentPassword: 'Not-the-Passw0rd!', newPassword: 'Another-Passw0rd!' }),
    answer: async (response) => {
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ message: 'Your current password is incorrect.' });
    },
  },
  // Two-factor routes take no id: B's setup is B's own (B's e-mail in the QR URI), and B's code
  // switches nothing of A's (A has no setup; B's enable and disable are refused for B's own state).
  'POST /api/security/two-factor/setup': {
    answer: async (response, { b }) => expect((await ok<{ otpauthUri: string }>(response)).otpauthUri).toContain(encodeURIComponent(b.email)),
    ownerAfter: async ({ a }) => expect(await a.user.json<{ twoFactorEnabled: boolean }>('/api/security/settings')).toMatchObject({ twoFactorEnabled: false }),
  },
  'POST /api/security/two-factor/enable': {
    body: () => ({ code: '123456' }),
    answer: async (response) => expect([400, 409]).toContain(response.status),
    ownerAfter: async ({ a }) => expect(await a.user.json<{ twoFactorEnabled: boolean }>('/api/security/settings')).toMatchObject({ twoFactorEnabled: false }),
  },
  'POST /api/security/two-factor/disable': {
    body: () => ({ code: '123456' }),
    answer: async (response) => expect(response.status).toBe(409),
    ownerAfter: async ({ a }) => expect(await a.user.json<{ twoFactorEnabled: boolean }>('/api/security/settings')).toMatchObject({ twoFactorEnabled: false }),
  },
  // B cannot reset A's project's passwords, nor read A's reset.
  'POST /api/security/reset-passwords': {
    body: ({ a }) => ({ projectId: a.projectId }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.activePasswordReset).toBeUndefined();
      expect(Item?.passwordResetId).toBeUndefined();
    },
  },
  'GET /api/security/reset-passwords/{id}': { id: (a) => a.passwordResetId, answer: 404 },
  // B cannot delete A's project (nor start a job on it), nor read A's deletion.
  'DELETE /api/projects/{id}': {
    id: (a) => a.projectId,
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.activeProjectDeletion).toBeUndefined();
      expect(Item?.accountCount).toBeGreaterThan(0);
    },
  },
  'GET /api/project-deletions/{id}': { id: (a) => a.projectDeletionId, answer: 404 },
  // B cannot deactivate or delete A's accounts (by A's project, or by A's account ids), nor read A's actions.
  'POST /api/projects/{id}/account-actions': {
    id: (a) => a.projectId,
    body: ({ a }) => ({ action: 'delete', accountIds: [a.account.id] }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.activeAccountAction).toBeUndefined();
      expect(Item?.accountCount).toBe(3);
      expect((await a.user.json<{ items: { id: string }[] }>(`/api/accounts/search?q=${encodeURIComponent(a.account.email)}`)).items).toEqual([expect.objectContaining({ id: a.account.id })]);
    },
  },
  'GET /api/account-actions/{id}': { id: (a) => a.accountActionId, answer: 404 },
  // B cannot act on A's accounts through the Account Database (A's account ids, or "all matching" A's project), nor read A's actions there.
  'POST /api/directory-actions': {
    body: ({ a }) => ({ action: 'delete', accountIds: [a.account.id] }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      const { Item } = await testDb().send(new GetCommand({ TableName: 'bulkonboard', Key: keys.project(a.user.sub, a.projectId), ConsistentRead: true }));
      expect(Item?.activeAccountAction).toBeUndefined();
      expect(Item?.accountCount).toBe(3);
    },
  },
  'GET /api/directory-actions/{id}': { id: (a) => a.directoryActionId, answer: 404 },
  // B cannot preview a file against A's project (with B's own upload or A's), read A's preview, its rows or CSV, or apply it.
  'POST /api/projects/{id}/sync-previews': {
    id: (a) => a.projectId,
    body: ({ a }) => ({ uploadId: a.syncPreviewId }),
    answer: 404,
  },
  'GET /api/sync-previews/{id}': { id: (a) => a.syncPreviewId, answer: 404 },
  'GET /api/sync-previews/{id}/rows': { id: (a) => a.syncPreviewId, query: () => '?section=new', answer: 404 },
  'GET /api/sync-previews/{id}/csv': { id: (a) => a.syncPreviewId, ownerFirst: false, answer: 404 },
  'POST /api/sync-previews/{id}/apply': {
    id: (a) => a.syncPreviewId,
    body: () => ({ createNew: true, updateChanged: true, missing: 'nothing' }),
    answer: 404,
    ownerAfter: async ({ a }) => {
      expect((await a.user.json<{ status: string }>(`/api/sync-previews/${a.syncPreviewId}`)).status).toBe('ready');
    },
  },
  // A count of the owner's accounts (no names in it): B's answer is 404, with or without a valid filter.
  'GET /api/projects/{id}/account-selection': { id: (a) => a.projectId, query: () => '?filter=deactivated', ownerFirst: 'no-markers', answer: 404 },
};

const jwtRoutes = routes.filter((r) => r.auth === 'jwt');

/** A as a Pro user with one of everything the API can address by id. */
async function createOwner(): Promise<Owner> {
  const firstName = `Owner${token()}`;
  const user = await apiUser({ firstName, lastName: `Tenant${token()}` });
  await upgradeToPro(user);
  const tag = token();
  const projectName = `A project ${tag}`;
  const created = await user.json<{ project: Project; accounts: CreatedAccount[] }>('/api/bulk-create', {
    body: { projectName, csvData: [{ firstName: `Afirst${tag}`, lastName: `Alast${tag}`, email: `aowner${tag}@example.com` }, ...people(2, `Aperson${tag}`)] },
  });
  const jobProjectName = `A job ${tag}`;
  const queued = await ok<{ job: BulkJob }>(
    await user.call('/api/bulk-create', { body: { projectName: jobProjectName, csvData: [...people(1001, `Ajob${tag}`), { firstName: `Refused${tag}`, lastName: 'Row', email: 'not-an-email' }] } }),
    202,
  );
  await until('the bulk job', () => user.json<BulkJob>(`/api/bulk-jobs/${queued.job.id}`), (job) => job.status === 'completed' || job.status === 'failed');
  const form = await ok<BulkUploadForm>(await user.call('/api/bulk-uploads', { method: 'POST' }), 201);
  const file = new FormData();
  for (const [name, value] of Object.entries(form.fields)) file.append(name, value);
  file.append('file', new Blob([`First Name,Last Name,Email\nUpload${tag},Row,upload${tag}@example.com\nRefused${tag},Row,not-an-email\n`]), 'people.csv');
  expect((await fetch(form.url, { method: 'POST', body: file })).status).toBeLessThan(300);
  await ok(await user.call(`/api/bulk-uploads/${form.id}/start`, { body: { projectName: `A upload ${tag}`, checkOnly: true } }), 202);
  await until('the upload check', () => user.json<BulkUpload>(`/api/bulk-uploads/${form.id}`), (upload) => upload.status === 'checked');
  // A sync preview of A's project (a file uploaded for it, read by the bulk-uploads worker).
  const syncForm = await ok<BulkUploadForm>(await user.call('/api/bulk-uploads', { method: 'POST' }), 201);
  const syncFile = new FormData();
  for (const [name, value] of Object.entries(syncForm.fields)) syncFile.append(name, value);
  syncFile.append('file', new Blob([`First Name,Last Name,Email\nSynced${tag},Row,synced${tag}@example.com\n`]), 'people.csv');
  expect((await fetch(syncForm.url, { method: 'POST', body: syncFile })).status).toBeLessThan(300);
  await ok(await user.call(`/api/projects/${created.project.id}/sync-previews`, { body: { uploadId: syncForm.id } }), 202);
  await until('the sync preview', () => user.json<{ status: string }>(`/api/sync-previews/${syncForm.id}`), (preview) => preview.status !== 'reading');
  const syncPreviewId = syncForm.id;
  const started = await ok<ExportView>(await user.call('/api/exports', { body: { projectId: created.project.id, format: 'csv' } }), 202);
  await until('the export', () => user.json<ExportView[]>('/api/exports/history'), (list) => list.some((e) => e.id === started.id && e.status !== 'pending' && e.status !== 'processing'));
  const notified = await until('the job notification', () => user.json<NotificationList>('/api/notifications'), (list) => list.notifications.some((n) => n.kind === 'bulk-job-completed'));
  const notificationId = notified.notifications.find((n) => n.kind === 'bulk-job-completed')!.id;
  const integrationName = `A integration ${tag}`;
  const integration = await ok<Integration>(await user.call('/api/integrations', { body: okta(integrationName) }), 201);
  const provisioningJobId = timeOrderedId();
  const at = new Date().toISOString();
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: {
        ...keys.provisioningJob(user.sub, provisioningJobId), entityType: 'ProvisioningJob', id: provisioningJobId, userId: user.sub, projectId: created.project.id, projectName,
        integrationId: integration.id, integrationName, platform: 'okta', mode: 'provision', status: 'completed', total: 3, synced: 3, failed: 0, chunks: 1, chunksDone: 1, createdAt: at, updatedAt: at, completedAt: at,
      },
    }),
  );
  const mailSendId = timeOrderedId();
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: {
        ...keys.mailSend(user.sub, mailSendId), entityType: 'MailSend', id: mailSendId, userId: user.sub, projectId: created.project.id, projectName, scope: 'all', delivery: 'password',
        templateId: 'builtin', templateName: 'Built-in default', status: 'completed', total: 3, sent: 3, failed: 0, suppressed: 0, chunks: 1, chunksDone: 1, createdAt: at, updatedAt: at, completedAt: at,
      },
    }),
  );
  const passwordResetId = timeOrderedId();
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: {
        ...keys.passwordReset(user.sub, passwordResetId), entityType: 'PasswordReset', id: passwordResetId, userId: user.sub, projectId: created.project.id, projectName,
        status: 'completed', total: 3, done: 3, updatedOnPlatform: 0, failed: 0, chunks: 1, chunksDone: 1, createdAt: at, updatedAt: at, completedAt: at,
      },
    }),
  );
  const projectDeletionId = timeOrderedId();
  const accountActionId = timeOrderedId();
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: {
        ...keys.projectDeletion(user.sub, projectDeletionId), entityType: 'ProjectDeletion', id: projectDeletionId, userId: user.sub, projectId: created.project.id, projectName,
        status: 'completed', total: 3, removed: 0, removedOnPlatform: 0, kept: 3, removeFromPlatform: false, chunks: 1, chunksDone: 1, createdAt: at, updatedAt: at, completedAt: at,
      },
    }),
  );
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: {
        ...keys.accountAction(user.sub, accountActionId), entityType: 'AccountAction', id: accountActionId, userId: user.sub, projectId: created.project.id, projectName, action: 'deactivate', rows: [1],
        status: 'completed', total: 1, done: 1, onPlatform: 0, failed: 0, chunks: 1, chunksDone: 1, createdAt: at, updatedAt: at, completedAt: at,
      },
    }),
  );
  const directoryActionId = timeOrderedId();
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: {
        ...keys.directoryAction(user.sub, directoryActionId), entityType: 'DirectoryAction', id: directoryActionId, userId: user.sub, action: 'deactivate', total: 1,
        parts: [{ projectId: created.project.id, projectName, total: 1, jobId: accountActionId, status: 'queued' }], createdAt: at, updatedAt: at,
      },
    }),
  );
  const templateName = `A template ${tag}`;
  const saved = await ok<EmailTemplate>(await user.call('/api/email-templates', { body: template(templateName, true) }), 201);
  // An address on A's suppression list, as the mail-events worker writes one.
  await testDb().send(
    new PutCommand({
      TableName: 'bulkonboard',
      Item: { ...keys.emailSuppression(user.sub, created.accounts[0]!.email), entityType: 'EmailSuppression', email: created.accounts[0]!.email.toLowerCase(), reason: 'bounced', detail: 'smtp; 550 5.1.1 user unknown', createdAt: at, projectId: created.project.id },
    }),
  );
  const customerId = await storedCustomer(user);
  if (!customerId) throw new Error('A has no Stripe customer after the upgrade');
  const account = created.accounts[0]!;
  return {
    user,
    firstName,
    projectId: created.project.id,
    projectName,
    account,
    jobId: queued.job.id,
    jobProjectName,
    exportId: started.id,
    uploadId: form.id,
    notificationId,
    provisioningJobId,
    mailSendId,
    passwordResetId,
    projectDeletionId,
    accountActionId,
    directoryActionId,
    syncPreviewId,
    integrationId: integration.id,
    integrationName,
    templateId: saved.id,
    templateName,
    customerId,
    markers: [user.sub, user.email, firstName, tag, created.project.id, queued.job.id, started.id, form.id, notificationId, provisioningJobId, mailSendId, passwordResetId, projectDeletionId, accountActionId, directoryActionId, syncPreviewId, integration.id, saved.id, customerId, account.email, account.username, account.plainPassword],
  };
}

function requestOf(route: RouteDefinition, expectation: Expectation, ctx: Context) {
  const path = route.path.replace(/\{(id|email)\}/, (param) => (expectation.id ? encodeURIComponent(expectation.id(ctx.a)) : param)) + (expectation.query?.(ctx.a) ?? '');
  const body = expectation.body?.(ctx);
  return { path, init: { method: route.method, ...(body === undefined ? {} : { body }) } };
}

describe('tenant isolation, every jwt route of shared/routes.ts', () => {
  let ctx: Context;
  beforeAll(async () => {
    const [a, b, free, doomed] = await Promise.all([createOwner(), apiUser(), apiUser(), apiUser()]);
    await upgradeToPro(b);
    // B owns data of its own, so B's lists and counts are not empty by default.
    await b.json('/api/bulk-create', { body: { projectName: `B project ${token()}`, csvData: people(2, `Bperson${token()}`) } });
    ctx = { a, b, free, doomed };
  }, 120_000);

  it('has an expectation for exactly the jwt routes (add one for a new route)', () => {
    expect(Object.keys(expectations).sort()).toEqual(jwtRoutes.map(routeKey).sort());
  });

  for (const route of jwtRoutes) {
    const key = routeKey(route);
    it(`${key}: the second user never sees or changes the first user's data`, async () => {
      const expectation = expectations[key];
      if (!expectation) throw new Error(`No tenant-isolation expectation for ${key}: add one to the table in this file`);
      if (/\{(id|email)\}/.test(route.path)) expect(expectation.id, `${key} needs A's id`).toBeDefined();
      const { path, init } = requestOf(route, expectation, ctx);

      const ownerFirst = expectation.ownerFirst ?? (route.method === 'GET' ? 'markers' : false);
      if (ownerFirst) {
        const own = await ctx.a.user.call(path, init);
        const text = await own.text();
        expect(own.status, text).toBeLessThan(300);
        if (ownerFirst === 'markers') expect(ctx.a.markers.some((m) => text.includes(m)), `A's own ${key} shows A's data`).toBe(true);
      }

      const caller = expectation.as === 'free' ? ctx.free : expectation.as === 'doomed' ? ctx.doomed : ctx.b;
      const response = await caller.call(path, init);
      const text = await response.clone().text();
      for (const marker of ctx.a.markers) expect(text, `B's ${key} shows A's ${marker}`).not.toContain(marker);
      if (expectation.answer === 404) {
        expect(response.status, text).toBe(404);
        expect(typeof ((await response.json()) as { message?: unknown }).message).toBe('string');
      } else {
        await expectation.answer(response, ctx);
      }
      await expectation.ownerAfter?.(ctx);
    });
  }
});
