/**
 * The one route table. The CDK stack builds API routes and one Lambda per route group from it,
 * and the local gateway (bin/local) serves the very same routes with the very same handlers.
 * A route exists here or nowhere.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Route groups: one Lambda each, code in functions/<group>/handler.ts. */
export const routeGroups = ['auth', 'user', 'bulk', 'projects', 'accounts', 'dashboard', 'subscription', 'exports', 'export-history', 'billing', 'integrations', 'email-templates', 'provisioning', 'credential-links', 'email-suppressions', 'mail-sends', 'security', 'analytics'] as const;
export type RouteGroup = (typeof routeGroups)[number];

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway path syntax, e.g. /api/projects/{id}. */
  path: string;
  group: RouteGroup;
  /** 'jwt': Cognito access token required (API Gateway JWT authorizer); 'none': public. */
  auth: 'jwt' | 'none';
}

/**
 * The routes anyone may call, without a token (API Gateway gives them no authorizer; the HTTP layer,
 * functions/core/http.ts, lets them run without a user): the browser redirects, sign-in, the signed
 * Stripe webhook and the one-time credential links. Every other route needs a Cognito access token.
 * A list of its own so the HTTP layer reads it without the route table (~9 KB of each function's bundle).
 */
export const publicRouteKeys: readonly string[] = [
  'GET /api/login',
  'GET /api/logout',
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-in/totp',
  'POST /api/stripe/webhook',
  'POST /api/credential-links/state',
  'POST /api/credential-links/reveal',
];

const definitions: readonly Omit<RouteDefinition, 'auth'>[] = [
  { method: 'GET', path: '/api/login', group: 'auth' },
  { method: 'GET', path: '/api/logout', group: 'auth' },
  { method: 'GET', path: '/api/auth/user', group: 'auth' },
  // Sign-in through the API (docs/security.md): failed attempts counted and locked per e-mail, then
  // Cognito; the TOTP step; changing one's password (allowed while it has expired).
  { method: 'POST', path: '/api/auth/sign-in', group: 'auth' },
  { method: 'POST', path: '/api/auth/sign-in/totp', group: 'auth' },
  { method: 'POST', path: '/api/auth/change-password', group: 'auth' },
  { method: 'PUT', path: '/api/user/profile', group: 'user' },
  { method: 'POST', path: '/api/user/onboarding', group: 'user' },
  { method: 'POST', path: '/api/user/welcome-dismissal', group: 'user' },
  { method: 'POST', path: '/api/user/photo-upload', group: 'user' },
  { method: 'PUT', path: '/api/user/photo', group: 'user' },
  { method: 'DELETE', path: '/api/user/photo', group: 'user' },
  // The user's settings (notifications, preferences, the profile as 'account') and in-app notifications.
  { method: 'GET', path: '/api/user/settings', group: 'user' },
  { method: 'PUT', path: '/api/user/settings', group: 'user' },
  { method: 'GET', path: '/api/notifications', group: 'user' },
  { method: 'POST', path: '/api/notifications/read', group: 'user' },
  // Marks the account as being deleted and queues the account-deletion job (202).
  { method: 'DELETE', path: '/api/user/account', group: 'user' },
  { method: 'POST', path: '/api/bulk-create', group: 'bulk' },
  { method: 'GET', path: '/api/bulk-jobs/{id}', group: 'bulk' },
  // A creation's full rejected-rows report (CSV): kept and read by the group that writes it.
  { method: 'GET', path: '/api/projects/{id}/rejected-rows', group: 'bulk' },
  // Files too large for a request (docs/bulk-files.md): a presigned POST to S3, then the reading
  // started (or only the check), its progress and report, and a checked file's rejected rows.
  { method: 'POST', path: '/api/bulk-uploads', group: 'bulk' },
  { method: 'POST', path: '/api/bulk-uploads/{id}/start', group: 'bulk' },
  { method: 'GET', path: '/api/bulk-uploads/{id}', group: 'bulk' },
  { method: 'GET', path: '/api/bulk-uploads/{id}/rejected-rows', group: 'bulk' },
  // Sync a changed list into a project (docs/sync.md): the uploaded file's preview as a job, its
  // pages and CSV, and its apply (a job on the bulk-uploads queue starting account actions and Add people).
  { method: 'POST', path: '/api/projects/{id}/sync-previews', group: 'bulk' },
  { method: 'GET', path: '/api/sync-previews/{id}', group: 'bulk' },
  { method: 'GET', path: '/api/sync-previews/{id}/rows', group: 'bulk' },
  { method: 'GET', path: '/api/sync-previews/{id}/csv', group: 'bulk' },
  { method: 'POST', path: '/api/sync-previews/{id}/apply', group: 'bulk' },
  { method: 'GET', path: '/api/projects', group: 'projects' },
  { method: 'GET', path: '/api/projects/{id}/accounts', group: 'projects' },
  { method: 'GET', path: '/api/projects/{id}/export', group: 'projects' },
  // Edit a project's own fields; Complete / Reopen it (a completed project takes no new people).
  { method: 'PUT', path: '/api/projects/{id}', group: 'projects' },
  { method: 'PUT', path: '/api/projects/{id}/status', group: 'projects' },
  // Delete a project: a job on the provisioning queue (?removeFromPlatform=false keeps its accounts on their platform); its progress.
  { method: 'DELETE', path: '/api/projects/{id}', group: 'projects' },
  { method: 'GET', path: '/api/project-deletions/{id}', group: 'projects' },
  // The Account Database: every account of the caller, paged, sorted and filtered (with an optional term).
  { method: 'GET', path: '/api/accounts', group: 'accounts' },
  { method: 'GET', path: '/api/accounts/search', group: 'accounts' },
  // One account: edit its names and e-mail (the username kept or regenerated), and its history (docs/accounts.md).
  { method: 'PUT', path: '/api/accounts/{id}', group: 'accounts' },
  { method: 'GET', path: '/api/accounts/{id}/history', group: 'accounts' },
  { method: 'GET', path: '/api/dashboard/stats', group: 'dashboard' },
  { method: 'GET', path: '/api/dashboard/recent-activity', group: 'dashboard' },
  { method: 'GET', path: '/api/subscription/status', group: 'subscription' },
  // Stripe's webhook: no user token, the Stripe-Signature header on the raw body authenticates it.
  { method: 'POST', path: '/api/stripe/webhook', group: 'billing' },
  // Checkout and portal sessions live beside the webhook: only this group loads the Stripe SDK.
  { method: 'POST', path: '/api/subscription/create-checkout', group: 'billing' },
  { method: 'POST', path: '/api/subscription/create-portal', group: 'billing' },
  { method: 'POST', path: '/api/exports', group: 'exports' },
  // Export All Data (Settings > Data): one zip of everything of the user, by the export worker.
  { method: 'POST', path: '/api/exports/account-data', group: 'exports' },
  // 'Export All' in the Account Database: the accounts its filters select, through the export worker.
  { method: 'POST', path: '/api/exports/directory', group: 'exports' },
  // 'Export Logs' in the Security Center: every security event of the last year as CSV, by the export worker.
  { method: 'POST', path: '/api/exports/security-events', group: 'exports' },
  { method: 'GET', path: '/api/exports/history', group: 'export-history' },
  // A finished export's file: a fresh 15-minute link, the download recorded as a security event.
  { method: 'POST', path: '/api/exports/{id}/download', group: 'export-history' },
  { method: 'GET', path: '/api/integrations', group: 'integrations' },
  { method: 'GET', path: '/api/integration-templates', group: 'integrations' },
  { method: 'POST', path: '/api/integrations', group: 'integrations' },
  { method: 'PUT', path: '/api/integrations/{id}', group: 'integrations' },
  { method: 'POST', path: '/api/integrations/{id}/test', group: 'integrations' },
  { method: 'POST', path: '/api/integrations/{id}/attribute-preview', group: 'integrations' },
  // 'Check against platform': a dry run that looks people up on the integration's platform (with
  // the connection test, the only routes that call a platform: the provisioning routes carry no adapter).
  { method: 'POST', path: '/api/integrations/{id}/check', group: 'integrations' },
  { method: 'DELETE', path: '/api/integrations/{id}', group: 'integrations' },
  { method: 'GET', path: '/api/email-templates', group: 'email-templates' },
  { method: 'POST', path: '/api/email-templates', group: 'email-templates' },
  { method: 'PUT', path: '/api/email-templates/{id}', group: 'email-templates' },
  { method: 'DELETE', path: '/api/email-templates/{id}', group: 'email-templates' },
  // Provisioning runs: a project's accounts created on an integration's platform by the provisioning worker.
  { method: 'POST', path: '/api/projects/{id}/provision', group: 'provisioning' },
  // Account actions: Deactivate / Reactivate / Delete some (or all) of a project's accounts, the platform first (functions/account-actions).
  { method: 'POST', path: '/api/projects/{id}/account-actions', group: 'provisioning' },
  { method: 'GET', path: '/api/account-actions/{id}', group: 'provisioning' },
  // The Account Database's bulk actions over the ticked rows or all matching, across projects: a job per project (docs/jobs.md).
  { method: 'POST', path: '/api/directory-actions', group: 'provisioning' },
  { method: 'GET', path: '/api/directory-actions/{id}', group: 'provisioning' },
  // How many accounts a bulk-bar filter takes now (its confirmation's count; functions/account-jobs/selection.ts).
  { method: 'GET', path: '/api/projects/{id}/account-selection', group: 'provisioning' },
  { method: 'GET', path: '/api/provisioning-jobs/{id}', group: 'provisioning' },
  // One-time credential links: public, the link's token (in the body, never in a URL, so no
  // access log holds it) is the credential. .../state reads the link and spends nothing (mail
  // scanners open links); .../reveal shows the credentials once (docs/credential-links.md).
  { method: 'POST', path: '/api/credential-links/state', group: 'credential-links' },
  { method: 'POST', path: '/api/credential-links/reveal', group: 'credential-links' },
  // The user's suppression list (addresses that bounced or complained): every plan may see and edit it.
  { method: 'GET', path: '/api/email-suppressions', group: 'email-suppressions' },
  { method: 'DELETE', path: '/api/email-suppressions/{email}', group: 'email-suppressions' },
  // Credential e-mails to a project's account holders, sent by the mail worker (docs/email.md).
  { method: 'POST', path: '/api/projects/{id}/send-credentials', group: 'mail-sends' },
  { method: 'GET', path: '/api/mail-sends/{id}', group: 'mail-sends' },
  // The Security Center (docs/security.md): settings enforced by the account gate and sign-in.
  { method: 'GET', path: '/api/security/settings', group: 'security' },
  { method: 'PUT', path: '/api/security/settings', group: 'security' },
  // The user's security events (newest first, paged) and the overview cards ('Export Logs' is an export: POST /api/exports/security-events).
  { method: 'GET', path: '/api/security/events', group: 'security' },
  { method: 'GET', path: '/api/security/overview', group: 'security' },
  // Two-factor authentication: a new TOTP secret (QR code), then on or off with a code from the app.
  { method: 'POST', path: '/api/security/two-factor/setup', group: 'security' },
  { method: 'POST', path: '/api/security/two-factor/enable', group: 'security' },
  { method: 'POST', path: '/api/security/two-factor/disable', group: 'security' },
  // Reset Passwords: new passwords for a project's accounts, as a job on the provisioning queue.
  { method: 'POST', path: '/api/security/reset-passwords', group: 'security' },
  { method: 'GET', path: '/api/security/reset-passwords/{id}', group: 'security' },
  // Analytics from the user's counters (docs/analytics.md): the same few items for any number of accounts.
  { method: 'GET', path: '/api/analytics', group: 'analytics' },
];

/** API Gateway's routeKey for a route: "GET /api/auth/user". */
export const routeKey = (route: Pick<RouteDefinition, 'method' | 'path'>): string =>
  `${route.method} ${route.path}`;

/** The route table: each route's `auth` from publicRouteKeys. Pure: a bundle that reads only publicRouteKeys leaves the table out. */
const withAuth = (list: readonly Omit<RouteDefinition, 'auth'>[]): readonly RouteDefinition[] =>
  list.map((route) => ({ ...route, auth: publicRouteKeys.includes(routeKey(route)) ? 'none' : 'jwt' }));
export const routes: readonly RouteDefinition[] = /* @__PURE__ */ withAuth(definitions);

// The queues (shared/queues.ts): kept apart so a worker that only needs them bundles no route table.
export { queues, queueUrlEnv, type QueueDefinition } from './queues';
import type { QueueDefinition } from './queues';

/** A percent-encoded path segment decoded, or undefined when its encoding is malformed ('%', '%zz', '%C3%28'). */
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Whether every segment of a path decodes; a gateway answers 400 to one that does not. */
export const isWellEncodedPath = (path: string): boolean => path.split('/').every((segment) => decodeSegment(segment) !== undefined);

/**
 * Splits "/api/projects/{id}" into a matcher for concrete paths; returns path parameters.
 * Never throws: a parameter whose encoding is malformed matches nothing.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith('{') && w.endsWith('}')) {
      const value = g === '' ? undefined : decodeSegment(g);
      if (value === undefined) return undefined;
      params[w.slice(1, -1)] = value;
    } else if (w !== g) {
      return undefined;
    }
  }
  return params;
}

export function findRoute(method: string, path: string):
  | { route: RouteDefinition; pathParameters: Record<string, string> }
  | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const pathParameters = matchPath(route.path, path);
    if (pathParameters) return { route, pathParameters };
  }
  return undefined;
}

/**
 * What each function may touch, so the CDK grants exactly this (least privilege) and nothing
 * else. The local stack ignores it (emulators have no IAM).
 */
/**
 * DynamoDB actions a function may be granted, named as IAM names them. A transaction needs the
 * action of each item it holds (Put, Update, Delete, ConditionCheck); Query is granted on the
 * table's indexes too. Scan: only the expiry schedule, for its one-time backfill of the expiry
 * index (functions/schedules/backfill-expiry-index.ts: paged, resumable, done once per table);
 * no request and no recurring work scans. BatchGetItem: only the export worker (a directory export's listed accounts), the SES events worker, the bulk worker (a chunk's first read), a sync's apply (the bulk-upload worker), the account
 * search, which reads the accounts it shows by key (its indexes project only keys and names), and the provisioning routes (an
 * action over the Account Database resolves its selection through the directory's pages), and the provisioning worker
 * (a recount of a project's attribute counters reads a value's accounts by key).
 */
export const tableActions = ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'BatchGetItem', 'ConditionCheckItem', 'Scan'] as const;
export type TableAction = (typeof tableActions)[number];

const read = ['GetItem', 'Query'] as const satisfies readonly TableAction[];
const readWrite = [...read, 'PutItem', 'UpdateItem'] as const satisfies readonly TableAction[];
/**
 * Every route group with signed-in routes passes the account gate (functions/core/account-gate.ts):
 * GetItem of the user item, and PutItem of the `session_timeout` security event when it refuses a
 * session older than the user's session timeout.
 */
const gateWrite = ['PutItem'] as const satisfies readonly TableAction[];

export interface FunctionAccess {
  /** Exactly the DynamoDB actions it uses (test/infra checks each is referenced by its code). */
  table?: readonly TableAction[];
  /** Queues it sends to. */
  sendTo?: readonly QueueDefinition['name'][];
  /** Export files (exports/<user>/): 'read' signs download links; 'readWrite' also writes them and deletes one whose export ended meanwhile. */
  exportBucket?: 'read' | 'readWrite';
  /** Profile photos (profile-photos/<user>/ in the export bucket): 'read' signs links to them, 'readWrite' also takes uploads and deletes. */
  profilePhotos?: 'read' | 'readWrite';
  /**
   * Uploaded CSV files (uploads/<user>/ in the export bucket): 'sign' signs the upload form, looks
   * at an upload's size and deletes one refused; 'read' reads and deletes them (the worker).
   */
  csvUploads?: 'sign' | 'read';
  /** May list and delete the objects under the per-user prefixes of the export bucket (account deletion). */
  exportBucketDelete?: boolean;
  /** May delete users of the user pool (AdminDeleteUser; USER_POOL_ID). */
  deleteUsers?: boolean;
  sendEmail?: boolean;
  /** May read the key that encrypts stored passwords (ENCRYPTION_KEY_SECRET_ARN). */
  encryptionKey?: boolean;
  /** May read the Stripe secret (API key and webhook signing secret, STRIPE_SECRET_ARN). */
  stripeSecret?: boolean;
}

export const groupAccess: Record<RouteGroup, FunctionAccess> = {
  // auth creates the user record on first sign-in and queues the welcome e-mail.
  // It records each sign-in and signs the link to the user's photo. Sign-in: the guard per e-mail
  // (conditional UpdateItem), the user's settings (GetItem), security events and alerts (PutItem,
  // the mail queue), the sessions with their refresh tokens encrypted (PutItem; Query and
  // DeleteItem to sign the others out). Cognito's InitiateAuth, RespondToAuthChallenge,
  // RevokeToken and ChangePassword are public app-client calls: no IAM grant.
  auth: { table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], sendTo: ['mail'], profilePhotos: 'read', encryptionKey: true },
  // Profile, onboarding, the welcome dialog's dismissal and the photo (checked, replaced, removed);
  // settings (a transaction puts the settings and puts or deletes the weekly-digest subscription);
  // notifications are listed (Query) and marked read; DELETE /api/user/account marks the user item
  // and queues the deletion job.
  // The deletion is recorded as a security event with an alert (PutItem, the mail queue).
  user: { table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'], profilePhotos: 'readWrite', sendTo: ['account-deletion', 'mail'] },
  // Creates projects and accounts (passwords encrypted) and queues large creations.
  // Signs uploads of large CSV files (presigned POST), checks their size and queues their reading.
  bulk: { table: [...readWrite, 'BatchWriteItem', 'DeleteItem'], sendTo: ['bulk', 'provisioning', 'mail', 'bulk-uploads'], encryptionKey: true, csvUploads: 'sign' },
  // Reads projects and accounts, decrypting passwords for Show Passwords and the CSV export;
  // records each reveal and download as a security event (PutItem, also the gate's). Edits and
  // completes projects (a transaction of Updates: the project and the analytics counters it moves).
  // DELETE /api/projects/{id}: the project's lock and the deletion job in one transaction (UpdateItem,
  // PutItem), queued on the provisioning queue; its security event (PutItem). An edit that turns
  // the expiry reminder off or removes the date deletes its reminder item in the edit's
  // transaction (DeleteItem, project-reminder.ts).
  projects: { table: [...readWrite, 'DeleteItem'], sendTo: ['provisioning'], encryptionKey: true },
  // GetItem: the account gate every route passes (functions/core/account-gate.ts). PutItem: a
  // search that shows passwords is recorded as a security event (and the gate's); the Account
  // Database fills a project's Sync Failed / Removed lists once (PutItem, UpdateItem of the project).
  // An edit is one transaction: the account (UpdateItem), its history entry (PutItem) and, for a
  // regenerated username, the old name item (DeleteItem), the new one (PutItem) and the user's
  // bulk lock (ConditionCheckItem). The Attribute filter on a project older than its value
  // counters starts their recount (UpdateItem of the project, its first step on the provisioning queue).
  accounts: { table: ['GetItem', 'Query', 'BatchGetItem', ...gateWrite, 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'], sendTo: ['provisioning'], encryptionKey: true },
  // Reads the analytics counters (the change labels), filling them once for a user whose projects
  // predate them (a transaction of Updates).
  dashboard: { table: [...read, ...gateWrite, 'UpdateItem'] },
  subscription: { table: ['GetItem', ...gateWrite] },
  // Records export requests and queues them.
  exports: { table: readWrite, sendTo: ['exports'] },
  // Lists exports and signs download links for finished files (apart from exports: no S3 client
  // in the request path that queues, no queue client here; both bundles stay small); each
  // download is recorded as a security event (PutItem, also the gate's).
  'export-history': { table: [...read, ...gateWrite], exportBucket: 'read' },
  // Applies Stripe's subscription events to user items and records processed event ids; creates
  // the user's Stripe customer once and Checkout / Billing Portal sessions.
  billing: { table: ['GetItem', 'PutItem', 'UpdateItem'], stripeSecret: true },
  // Stores integrations with their credentials encrypted, and calls the platform to test one or to
  // look people up on it ('Check against platform', on the integration's turn: UpdateItem).
  // A test that succeeds queues the resume of the integration's paused provisioning runs.
  integrations: { table: [...readWrite, 'DeleteItem'], sendTo: ['provisioning'], encryptionKey: true },
  'email-templates': { table: [...readWrite, 'DeleteItem', 'ConditionCheckItem'] },
  // Starts provisioning runs (the project's lock, the run item) and reads their progress (no
  // platform is called here: the runs' calls are the worker's).
  // An action over the Account Database resolves its selection through the directory's pages
  // (BatchGetItem of the accounts and blocks they show) and may start credential sends (the mail queue).
  provisioning: { table: [...readWrite, 'BatchGetItem'], sendTo: ['provisioning', 'mail'], encryptionKey: true },
  // Reads a link, its account and project; spends the link and marks the account viewed
  // (UpdateItem); decrypts the one password it reveals. Issuing links is the sender's (PutItem).
  'credential-links': { table: ['GetItem', 'UpdateItem'], encryptionKey: true },
  // Lists the user's suppressed addresses and removes one.
  // (GetItem: every route's account gate reads the caller's user item, functions/core/account-gate.ts.)
  'email-suppressions': { table: ['GetItem', 'Query', 'DeleteItem', ...gateWrite] },
  // Starts credential sends (the project's lock, the send item, a copy of the template) and reads their progress.
  // BatchGetItem: a chunk's state blocks read by key (its code holds the credential send's chunk: readShardBlocks).
  'mail-sends': { table: [...readWrite, 'BatchGetItem'], sendTo: ['mail'] },
  // Security settings on the user item (GetItem, conditional UpdateItem) and the security events
  // (PutItem; an alert's notification and e-mail: the mail queue); the event list, its CSV and
  // the overview (the integrations' test dates) Query.
  // The TOTP secret is kept encrypted on the user item (to check the code that turns two-factor off).
  // Reset Passwords: the project's lock and the job in one transaction, queued on the provisioning
  // queue (its worker makes the passwords); reading a job lists its refused accounts (Query).
  security: { table: ['GetItem', 'Query', 'PutItem', 'UpdateItem'], sendTo: ['mail', 'provisioning'], encryptionKey: true },
  // Reads the user's counters (a total item, 12 month items, past expiration dates), the settings
  // (timezone) and the latest activity; fills the counters once from the project items (Updates).
  analytics: { table: [...read, ...gateWrite, 'UpdateItem'] },
};

/**
 * The user pool's Lambda trigger (post authentication, post confirmation of a forgotten password;
 * functions/security/sign-in-trigger.ts): reads the sign-in guard (GetItem), records the login or
 * the reset (PutItem; an alert's notification and e-mail: the mail queue) and the password's age
 * (UpdateItem on the user item).
 */
export const cognitoTriggerAccess: FunctionAccess = { table: ['GetItem', 'PutItem', 'UpdateItem'], sendTo: ['mail'] };

export type WorkerName = NonNullable<QueueDefinition['worker'] | QueueDefinition['deadLetterWorker']>;

export const workerAccess: Record<WorkerName, FunctionAccess> = {
  // Welcome and notification e-mails; credential sends: plans their chunks, leases each chunk
  // (its MailSendChunk item), claims and records each account in the project's MAIL state blocks
  // (PutItem; passwords decrypted to render them; one-time links issued: PutItem in a
  // transaction), marks the chunk done with the send's counts and the project's e-mail counters
  // in one transaction, queues chunks again. No item per e-mail: SES's events find the account
  // by the e-mail's tags.
  // Expiry reminders are a kind of account job too (functions/schedules/expiry-reminder-job.ts): its
  // start checks the project (ConditionCheckItem) beside the job item, each chunk leases (PutItem,
  // DeleteItem) and claims each account (PutItem; a claim given back when SES takes no e-mail: DeleteItem).
  // A chunk's state blocks are read by key (BatchGetItem: readShardBlocks).
  'mail-worker': { table: [...readWrite, 'DeleteItem', 'ConditionCheckItem', 'BatchGetItem'], sendTo: ['mail'], sendEmail: true, encryptionKey: true },
  // Gives up a credentials chunk that failed every delivery: the chunk's reads (passwords are
  // decrypted for the send's template), its accounts' MAIL blocks and counts written as the mail
  // worker writes them, its successor queued. Never sends an e-mail (no SES grant).
  // A reminder's chunk given up: its lease (DeleteItem) and its accounts' claims, failed.
  'mail-dead-letter-worker': { table: [...readWrite, 'DeleteItem', 'BatchGetItem'], sendTo: ['mail'], encryptionKey: true },
  // Writes a job's accounts with encrypted passwords and its progress.
  // A finished job queues its project-completion e-mail (sent if the user is Pro and asked for it).
  // A recorded chunk puts its job's next waiting chunk on the bulk queue and deletes its waiting
  // item (fair turns between jobs: functions/bulk/bulk-jobs.ts CHUNK_WINDOW).
  // A job adding people to a project starts, once it ends, the provisioning run to the project's
  // integration (the provisioning queue) and the credential e-mails asked for (the mail queue).
  // A chunk's first read is one BatchGetItem: its marker and its job.
  'bulk-worker': { table: [...readWrite, 'BatchWriteItem', 'DeleteItem', 'BatchGetItem'], sendTo: ['mail', 'bulk', 'provisioning'], encryptionKey: true },
  // Records a chunk that could not be written as failed rows of its job; the job it fails
  // queues its project-completion e-mail, as a job the bulk worker ends does. It releases the
  // next waiting chunk like the bulk worker (a dead chunk whose accounts were all stored).
  'bulk-dead-letter-worker': { table: [...readWrite, 'BatchWriteItem', 'DeleteItem'], sendTo: ['mail', 'bulk', 'provisioning'] },
  // Marks an export failed when every delivery stopped without an answer (timeout, crash), reads
  // what it was of and tells the user in the bell (a notification: PutItem).
  'export-dead-letter-worker': { table: ['UpdateItem', 'GetItem', 'PutItem'] },
  // Streams a project's accounts (passwords decrypted) into a file in the export bucket; deletes
  // that file again when the export was stopped or erased meanwhile (account deletion).
  // BatchGetItem: a directory export reads the accounts its Sync Failed / Removed lists name (functions/accounts/browse-accounts.ts).
  'export-worker': { table: [...readWrite, 'BatchGetItem'], exportBucket: 'readWrite', encryptionKey: true },
  // Creates accounts on platforms (passwords and credentials decrypted) and records their status;
  // a chunk's lease is deleted when its delivery ends.
  // A project's deletion: its accounts removed from their platform and erased (transactions of
  // Deletes), then the project's partitions (BatchWriteItem) and its item.
  // The recount of a project's attribute counters (functions/accounts/attribute-recount.ts): a
  // value's accounts read by key (BatchGetItem), its counter corrected in a transaction with
  // ConditionChecks of the user's import lock and the project's recount. A chunk's state blocks
  // (an action's piece: its ACT and PROV blocks together) are read by key too (readShardBlocks).
  'provisioning-worker': { table: [...readWrite, 'DeleteItem', 'BatchWriteItem', 'BatchGetItem', 'ConditionCheckItem'], sendTo: ['provisioning'], encryptionKey: true },
  // Records a chunk that failed every delivery as failed accounts, or a run that could not start
  // (its module holds the chunk lease's release: DeleteItem).
  // Sends: a recorded chunk puts its run's next waiting chunk on the queue (chunk-window.ts).
  // A project deletion's chunk given up keeps its accounts; its module (project-deletion-chunk.ts)
  // also holds the erasure of the project's partitions (BatchWriteItem).
  'provisioning-dead-letter-worker': { table: [...readWrite, 'DeleteItem', 'BatchWriteItem', 'BatchGetItem'], sendTo: ['provisioning'] },
  // Reads an uploaded CSV (S3 stream), keeps its report or starts its bulk job as POST
  // /api/bulk-create does (the same creation: plan, lock, usernames' slots, project, chunks to the
  // bulk queue, provisioning and credential sends asked for), then deletes the file. A sync's
  // preview and apply (functions/sync): the file read against the project's accounts; the changed
  // accounts read by key (BatchGetItem) and written, account actions started, its next step queued.
  'bulk-upload-worker': { table: [...readWrite, 'BatchWriteItem', 'BatchGetItem', 'DeleteItem'], sendTo: ['bulk', 'provisioning', 'mail', 'bulk-uploads'], csvUploads: 'read', encryptionKey: true },
  // Ends a reading that failed every delivery (the upload failed, its file deleted).
  'bulk-upload-dead-letter-worker': { table: ['GetItem', 'UpdateItem'], csvUploads: 'read' },
  // Finds an SES event's message, moves its account's e-mail status and the project's counters
  // (one transaction of Updates) and puts bounced / complained addresses on the suppression list.
  // A batch's plain events: one BatchGetItem of their accounts and blocks, one transaction.
  'mail-events-worker': { table: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'] },
  // Erases one user: reads the user's partitions, deletes their items (and the global items they
  // name), the user's export files, the Cognito user, and ends billing (the Stripe secret).
  'account-deletion-worker': { table: ['GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], exportBucketDelete: true, deleteUsers: true, stripeSecret: true },
  // A deletion that failed every delivery: reads the user item and queues the deletion again.
  'account-deletion-dead-letter-worker': { table: ['GetItem'], sendTo: ['account-deletion'] },
};

/**
 * Functions started on a schedule (EventBridge Scheduler in the CDK app; the local stack runs a
 * timer with the same rule). Code in functions/schedules/<name>.ts.
 */
export interface ScheduleDefinition {
  name: 'weekly-digest' | 'project-expiry';
  /** EventBridge Scheduler expression, in UTC. */
  expression: string;
  description: string;
  /** For the local timer: the UTC weekday (0 = Sunday) and hour of the rule above; neither: every hour, on the hour. */
  weekday?: number;
  hourUtc?: number;
}

export const schedules: readonly ScheduleDefinition[] = [
  { name: 'weekly-digest', expression: 'cron(0 8 ? * MON *)', description: 'Queues the weekly digest e-mail of every opted-in Pro user', weekday: 1, hourUtc: 8 },
  // Hourly: an expiration date arrives at midnight in its owner's timezone; the next run (within the hour) starts the expiry.
  { name: 'project-expiry', expression: 'cron(0 * * * ? *)', description: 'Starts the deactivation of the projects whose expiration date arrived in their owner\'s timezone' },
];
export type ScheduleName = ScheduleDefinition['name'];

export const scheduleAccess: Record<ScheduleName, FunctionAccess> = {
  // Reads the digest's subscribers and their user items, and queues one e-mail each.
  'weekly-digest': { table: ['Query', 'GetItem'], sendTo: ['mail'] },
  // Queries the ProjectsByExpiry index (the due dates), reads each project, its import's bulk job, its owner's settings
  // (timezone) and integration name; starts the expiry as an account action (the project's lock,
  // expiredAt and the index entry removed, the job: one transaction; its start message on the
  // provisioning queue; an UpdateItem marks a project without accounts expired) and records the
  // security event and notification (PutItem); the e-mail through the mail queue. Scan: once per
  // table, the one-time backfill giving projects older than the index their keys (paged, resumable,
  // its progress in a marker item; every run after it is done reads only the marker).
  // ConditionCheckItem: the user's creation lock not held, in the start's transaction.
  'project-expiry': { table: ['Query', 'GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'Scan'], sendTo: ['provisioning', 'mail'] },
};
