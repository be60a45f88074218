import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that answers as Salesforce's REST API documents (a contract fake, not the live
 * service): the OAuth token endpoint (client credentials), sObject Collections create (POST
 * /composite/sobjects: one SaveResult per record, in order, errors as [{statusCode, message,
 * fields}]), SOQL query on User by Username, the User Password resource (204), sObject Rows GET
 * (?fields=) and PATCH (204; a Username held here or in another org 400 DUPLICATE_USERNAME; a new
 * Email waits for its owner's confirmation, as Salesforce does, in `pendingEmail`). Errors outside a
 * collection are [{message, errorCode}]. Every request is recorded.
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
  const state: FakeSalesforceState = { received: [], users: new Map(), elsewhere: new Set(), queued: [], tokens: 0, secret, nextId: 1 };
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
      state.secret = secret;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
