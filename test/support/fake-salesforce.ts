import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that answers as Salesforce's REST API documents (a contract fake, not the live
 * service): the OAuth token endpoint (client credentials), sObject Collections create (POST
 * /composite/sobjects: one SaveResult per record, in order, errors as [{statusCode, message,
 * fields}]), SOQL query on User by Username, the User Password resource (204), sObject Rows GET
 * (?fields=) and PATCH (204; a Username held here or in another org 400 DUPLICATE_USERNAME; a new
 * Email waits for its owner's confirmation, as Salesforce does, in `pendingEmail`). Permission
 * sets and public groups: SOQL on PermissionSet (Name or Label), Group (Type 'Regular', Name or
 * DeveloperName), PermissionSetAssignment and GroupMember; POST /sobjects/Group (201 {id,
 * success}; a DeveloperName held: 400 DUPLICATE_DEVELOPER_NAME), POST
 * /sobjects/PermissionSetAssignment and /sobjects/GroupMember (201; the same pair again: 400
 * DUPLICATE_VALUE), DELETE /sobjects/<object>/{id} (204). Errors outside a collection are
 * [{message, errorCode}]. Every request is recorded.
 */
export const SALESFORCE_TEST_VERSION = '/services/data/v62.0';

export interface Received {
  method: string;
  path: string;
  authorization?: string;
  body: unknown;
}
export interface OrgUser {
  Id: string;
  Username: string;
  Email: string;
  IsActive: boolean;
  LastLoginDate: string | null;
  FirstName?: string;
  LastName?: string;
  /** A new Email Salesforce has sent its confirmation message to; Email changes once confirmed. */
  pendingEmail?: string;
  password?: string;
}

export interface FakeSalesforceState {
  received: Received[];
  users: Map<string, OrgUser>;
  /** User names held by other Salesforce orgs: DUPLICATE_USERNAME, and not found by our query. */
  elsewhere: Set<string>;
  /** Answers to play before the normal ones, matched on "METHOD path" prefix. */
  queued: { match: string; status: number; headers?: Record<string, string>; body?: unknown }[];
  tokens: number;
  secret: string;
  nextId: number;
  /** Permission sets (seeded by tests: set up in Salesforce, never created here). */
  permissionSets: Map<string, { Id: string; Name: string; Label: string }>;
  /** Public groups (Type 'Regular'). */
  groups: Map<string, { Id: string; Name: string; DeveloperName: string; Type: string }>;
  /** Rows of PermissionSetAssignment and GroupMember, by Id. */
  assignments: Map<string, { Id: string; AssigneeId: string; PermissionSetId: string }>;
  members: Map<string, { Id: string; GroupId: string; UserOrGroupId: string }>;
}

export interface FakeSalesforce {
  origin: string;
  state: FakeSalesforceState;
  reset(): void;
  stop(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};

export async function startFakeSalesforce(options: { port?: number; host?: string; secret?: string } = {}): Promise<FakeSalesforce> {
  const VERSION = SALESFORCE_TEST_VERSION;
  const secret = options.secret ?? 'right-secret';
  const state: FakeSalesforceState = { received: [], users: new Map(), elsewhere: new Set(), queued: [], tokens: 0, secret, nextId: 1, permissionSets: new Map(), groups: new Map(), assignments: new Map(), members: new Map() };
  let origin = '';
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      let body: unknown = raw;
      if (req.headers['content-type']?.includes('json')) {
        try {
          body = JSON.parse(raw) as unknown;
        } catch {
          return json(res, 400, [{ message: 'The request body is not JSON', errorCode: 'JSON_PARSER_ERROR' }]);
        }
      }
      state.received.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization, body });
      if (url.pathname === '/services/oauth2/token') {
        const form = new URLSearchParams(raw);
        if (form.get('grant_type') !== 'client_credentials' || form.get('client_secret') !== state.secret) return json(res, 400, { error: 'invalid_client', error_description: 'invalid client credentials' });
        state.tokens++;
        return json(res, 200, { access_token: `token-${state.tokens}`, instance_url: origin, token_type: 'Bearer', issued_at: '1' });
      }
      const queued = state.queued.findIndex((q) => `${req.method} ${url.pathname}`.startsWith(q.match));
      if (queued >= 0) {
        const [answer] = state.queued.splice(queued, 1);
        return json(res, answer!.status, answer!.body, answer!.headers);
      }
      if (!/^Bearer token-\d+$/.test(req.headers.authorization ?? '') || Number(req.headers.authorization!.slice(13)) > state.tokens) {
        return json(res, 401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
      }

      if (req.method === 'POST' && url.pathname === `${VERSION}/composite/sobjects`) {
        const { allOrNone, records } = body as { allOrNone: boolean; records: Record<string, unknown>[] };
        if (allOrNone !== false || !Array.isArray(records) || records.length > 200) return json(res, 400, [{ message: 'bad request', errorCode: 'INVALID_FIELD' }]);
        return json(
          res,
          200,
          records.map((r) => {
            const username = String(r.Username);
            if (!String(r.Email).includes('@')) return { success: false, errors: [{ statusCode: 'INVALID_EMAIL_ADDRESS', message: `Email: invalid email address: ${String(r.Email)}`, fields: ['Email'] }] };
            if (state.users.has(username) || state.elsewhere.has(username)) {
              return { success: false, errors: [{ statusCode: 'DUPLICATE_USERNAME', message: 'Duplicate Username.<br>The username already exists in this or another Salesforce organization.', fields: ['Username'] }] };
            }
            const id = `005${String(state.nextId++).padStart(15, '0')}`;
            state.users.set(username, { Id: id, Username: username, Email: String(r.Email), IsActive: true, LastLoginDate: null, FirstName: String(r.FirstName), LastName: String(r.LastName) });
            return { id, success: true, errors: [] };
          }),
        );
      }
      const soql = url.searchParams.get('q') ?? '';
      const from = /FROM (\w+)/.exec(soql)?.[1];
      if (req.method === 'GET' && url.pathname === `${VERSION}/query` && from && from !== 'User') {
        // Each `Field = 'value'` of the WHERE clause (values unescaped); SOQL's = on text ignores case.
        const where = new Map<string, string[]>();
        for (const [, field, value] of soql.matchAll(/(\w+) = '((?:[^'\\]|\\.)*)'/g)) where.set(field!, [...(where.get(field!) ?? []), value!.replace(/\\(.)/g, '$1').toLowerCase()]);
        const is = (field: string, value: string) => (where.get(field) ?? []).includes(value.toLowerCase());
        const rows: Record<string, unknown>[] =
          from === 'PermissionSet'
            ? [...state.permissionSets.values()].filter((p) => is('Name', p.Name) || is('Label', p.Label))
            : from === 'Group'
              ? [...state.groups.values()].filter((g) => g.Type === 'Regular' && (is('Name', g.Name) || is('DeveloperName', g.DeveloperName)))
              : from === 'PermissionSetAssignment'
                ? [...state.assignments.values()].filter((a) => is('AssigneeId', a.AssigneeId) && is('PermissionSetId', a.PermissionSetId))
                : from === 'GroupMember'
                  ? [...state.members.values()].filter((m) => is('UserOrGroupId', m.UserOrGroupId) && is('GroupId', m.GroupId))
                  : [];
        return json(res, 200, { totalSize: rows.length, done: true, records: rows.map((r) => ({ attributes: { type: from }, ...r })) });
      }
      const create = new RegExp(`^${VERSION}/sobjects/(Group|PermissionSetAssignment|GroupMember)$`).exec(url.pathname);
      if (req.method === 'POST' && create) {
        const fields = body as Record<string, string>;
        const id = `0${create[1] === 'Group' ? '0G' : create[1] === 'GroupMember' ? '11' : 'Pa'}${String(state.nextId++).padStart(15, '0')}`;
        const duplicate = () => json(res, 400, [{ message: 'duplicate value found: <unknown> duplicates value on record with id: <unknown>', errorCode: 'DUPLICATE_VALUE', fields: [] }]);
        if (create[1] === 'Group') {
          if ([...state.groups.values()].some((g) => g.DeveloperName.toLowerCase() === String(fields.DeveloperName).toLowerCase())) {
            return json(res, 400, [{ message: 'The Group Name you specified is already in use.', errorCode: 'DUPLICATE_DEVELOPER_NAME', fields: ['DeveloperName'] }]);
          }
          state.groups.set(id, { Id: id, Name: String(fields.Name), DeveloperName: String(fields.DeveloperName), Type: String(fields.Type) });
        } else if (create[1] === 'PermissionSetAssignment') {
          if (![...state.users.values()].some((u) => u.Id === fields.AssigneeId) || !state.permissionSets.has(String(fields.PermissionSetId))) {
            return json(res, 400, [{ message: 'invalid cross reference id', errorCode: 'INVALID_CROSS_REFERENCE_KEY', fields: [] }]);
          }
          if ([...state.assignments.values()].some((a) => a.AssigneeId === fields.AssigneeId && a.PermissionSetId === fields.PermissionSetId)) return duplicate();
          state.assignments.set(id, { Id: id, AssigneeId: String(fields.AssigneeId), PermissionSetId: String(fields.PermissionSetId) });
        } else {
          if (![...state.users.values()].some((u) => u.Id === fields.UserOrGroupId) || !state.groups.has(String(fields.GroupId))) {
            return json(res, 400, [{ message: 'invalid cross reference id', errorCode: 'INVALID_CROSS_REFERENCE_KEY', fields: [] }]);
          }
          if ([...state.members.values()].some((m) => m.UserOrGroupId === fields.UserOrGroupId && m.GroupId === fields.GroupId)) return duplicate();
          state.members.set(id, { Id: id, GroupId: String(fields.GroupId), UserOrGroupId: String(fields.UserOrGroupId) });
        }
        return json(res, 201, { id, success: true, errors: [] });
      }
      const row = new RegExp(`^${VERSION}/sobjects/(PermissionSetAssignment|GroupMember)/([^/]+)$`).exec(url.pathname);
      if (req.method === 'DELETE' && row) {
        const table = row[1] === 'GroupMember' ? state.members : state.assignments;
        if (!table.delete(row[2]!)) return json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
        return json(res, 204);
      }
      if (req.method === 'GET' && url.pathname === `${VERSION}/query`) {
        const [, field, quoted] = /WHERE (Username|Email) = '((?:[^'\\]|\\.)*)'/.exec(url.searchParams.get('q') ?? '') ?? [];
        const wanted = quoted?.replace(/\\(.)/g, '$1');
        // SOQL's = on text is case-insensitive.
        const user = wanted ? [...state.users.values()].find((u) => (field === 'Email' ? u.Email : u.Username).toLowerCase() === wanted.toLowerCase()) : undefined;
        const records = user ? [{ attributes: { type: 'User', url: `${VERSION}/sobjects/User/${user.Id}` }, Id: user.Id, Username: user.Username, Email: user.Email, IsActive: user.IsActive, LastLoginDate: user.LastLoginDate }] : [];
        return json(res, 200, { totalSize: records.length, done: true, records });
      }
      const password = new RegExp(`^${VERSION}/sobjects/User/([^/]+)/password$`).exec(url.pathname);
      if (req.method === 'POST' && password) {
        const user = [...state.users.values()].find((u) => u.Id === password[1]);
        if (!user) return json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
        const next = String((body as { NewPassword?: unknown }).NewPassword);
        if (next.length < 8) return json(res, 400, [{ message: 'Your password must be at least 8 characters long.', errorCode: 'INVALID_NEW_PASSWORD' }]);
        user.password = next;
        return json(res, 204);
      }
      const record = new RegExp(`^${VERSION}/sobjects/User/([^/]+)$`).exec(url.pathname);
      if (req.method === 'PATCH' && record) {
        const user = [...state.users.values()].find((u) => u.Id === record[1]);
        if (!user) return json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
        const changes = body as Partial<Pick<OrgUser, 'IsActive' | 'FirstName' | 'LastName' | 'Email' | 'Username'>>;
        if (changes.Username !== undefined && changes.Username.toLowerCase() !== user.Username.toLowerCase()) {
          const taken = state.users.has(changes.Username) || state.elsewhere.has(changes.Username);
          if (taken) return json(res, 400, [{ message: 'Duplicate Username.<br>The username already exists in this or another Salesforce organization.', errorCode: 'DUPLICATE_USERNAME', fields: ['Username'] }]);
          state.users.delete(user.Username);
          user.Username = changes.Username;
          state.users.set(user.Username, user);
        }
        if (changes.IsActive !== undefined) user.IsActive = changes.IsActive;
        if (changes.FirstName !== undefined) user.FirstName = changes.FirstName;
        if (changes.LastName !== undefined) user.LastName = changes.LastName;
        if (changes.Email !== undefined && changes.Email.toLowerCase() !== user.Email.toLowerCase()) user.pendingEmail = changes.Email;
        return json(res, 204);
      }
      if (req.method === 'GET' && record) {
        const user = [...state.users.values()].find((u) => u.Id === record[1]);
        if (!user) return json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
        const fields = (url.searchParams.get('fields') ?? 'Id,Username,Email,IsActive').split(',');
        const full = user as unknown as Record<string, unknown>;
        return json(res, 200, { attributes: { type: 'User', url: `${VERSION}/sobjects/User/${user.Id}` }, ...Object.fromEntries(fields.map((f) => [f, full[f] ?? null])) });
      }
      if (req.method === 'GET' && url.pathname === '/services/data/') return json(res, 200, [{ label: "Winter '25", url: VERSION, version: '62.0' }]);
      json(res, 404, [{ message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }]);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  origin = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    state,
    reset() {
      state.received = [];
      state.users.clear();
      state.elsewhere.clear();
      state.queued = [];
      state.permissionSets.clear();
      state.groups.clear();
      state.assignments.clear();
      state.members.clear();
      state.secret = secret;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
