import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that plays what Okta's Users API documents (developer.okta.com/docs/api,
 * Users and Rate limits), for contract and integration tests, never proof against the live
 * service: create with ?activate=true answers 200 with the user; a login already held answers 400
 * E0000001 with the cause "login: An object with this field already exists..."; a short password
 * 400 E0000001 with the policy's cause; filter=profile.login eq "..." answers an array;
 * lifecycle/deactivate (403 E0000038 on a deactivated user) then DELETE (a DELETE on a user who is
 * not deactivated only deactivates it); lifecycle/activate (STAGED or DEPROVISIONED only; with
 * sendEmail=false the answer holds the activation link; a user whose password did not survive the
 * deactivation, `passwords` without it, is PROVISIONED until they finish activation, ACTIVE
 * otherwise), lifecycle/suspend (ACTIVE only) and lifecycle/unsuspend (SUSPENDED only), each
 * refused in another status with 403 E0000038; POST /api/v1/users/{id} a partial update of the
 * profile (a login held by another user: 400 E0000001, as at creation) or the password; 401 E0000011 for a wrong token; 429 E0000047 with
 * X-Rate-Limit-Limit/-Remaining/-Reset (epoch seconds); the org authorization server's token
 * endpoint (/oauth2/v1/token) for client credentials. Groups API: GET
 * /api/v1/groups?search=profile.name eq "..." answers an array; POST /api/v1/groups with
 * profile.name creates an OKTA_GROUP (a name held: 400 E0000001 "name: An object with this field
 * already exists"); PUT /api/v1/groups/{groupId}/users/{userId} and DELETE on it answer 204 (an
 * unknown group or user 404 E0000007); an APP_GROUP's membership is refused (400 E0000060:
 * "Unsupported operation.", as Okta answers for a group it does not manage).
 */
export interface OktaReceived {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}
export interface OktaUserRecord {
  id: string;
  status: 'ACTIVE' | 'STAGED' | 'DEPROVISIONED' | 'PASSWORD_EXPIRED' | 'PROVISIONED' | 'SUSPENDED';
  profile: { login: string; email: string; firstName: string; lastName: string };
}

export interface FakeOkta {
  origin: string;
  token: string;
  oauth: { clientId: string; clientSecret: string; tokenUrl: string; accessToken: string };
  users: Map<string, OktaUserRecord>;
  /** Groups by id: name, type and member ids. */
  groups: Map<string, { id: string; type: 'OKTA_GROUP' | 'APP_GROUP'; profile: { name: string; description?: string }; members: Set<string> }>;
  /** Each user's current password (a test double: Okta itself never shows one). */
  passwords: Map<string, string>;
  received: OktaReceived[];
  tokenRequests: URLSearchParams[];
  /** The next N POST /api/v1/users answers are 429 with X-Rate-Limit-Reset resetInSeconds ahead of Okta's clock (ours + clockSkewSeconds). */
  limits: { rateLimited: number; resetInSeconds: number; clockSkewSeconds: number };
  /** Answers played, in order, before the normal ones to calls on one user (/api/v1/users/{id}...). */
  queued: { status: number; body?: unknown; headers?: Record<string, string> }[];
  /** A user as if someone else had made it on Okta before. */
  seed(profile: OktaUserRecord['profile'], status?: OktaUserRecord['status']): string;
  reset(): void;
  stop(): Promise<void>;
}

const oktaError = (code: string, summary: string, causes: string[] = []) => ({
  errorCode: code,
  errorSummary: summary,
  errorLink: code,
  errorId: `oae${code}`,
  errorCauses: causes.map((errorSummary) => ({ errorSummary })),
});

const send = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers });
  res.end(body !== undefined ? JSON.stringify(body) : undefined);
};

export async function startFakeOkta(options: { host?: string; port?: number; token?: string } = {}): Promise<FakeOkta> {
  const token = options.token ?? 'okta-api-token';
  const accessToken = 'okta-oauth-access-token';
  const clientSecret = 'okta-client-secret';
  let nextId = 1;
  const passwords = new Map<string, string>();
  const users = new Map<string, OktaUserRecord>();
  const groups: FakeOkta['groups'] = new Map();
  // Emptied in place by reset(): tests hold these arrays.
  const state = { received: [] as OktaReceived[], tokenRequests: [] as URLSearchParams[] };
  const limits = { rateLimited: 0, resetInSeconds: 30, clockSkewSeconds: 0 };
  const queued: FakeOkta['queued'] = [];

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://okta.test');
      if (url.pathname === '/oauth2/v1/token') {
        const form = new URLSearchParams(raw);
        state.tokenRequests.push(form);
        if (!form.get('scope')) return send(res, 400, { error: 'invalid_scope', error_description: "The authorization server resource does not have any configured default scopes, 'scope' must be provided." });
        if (form.get('client_secret') !== clientSecret) return send(res, 401, { error: 'invalid_client', error_description: 'The client secret supplied for a confidential client is invalid.' });
        return send(res, 200, { token_type: 'Bearer', expires_in: 3600, access_token: accessToken, scope: form.get('scope') });
      }
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      state.received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      if (req.headers.authorization !== `SSWS ${token}` && req.headers.authorization !== `Bearer ${accessToken}`) {
        return send(res, 401, oktaError('E0000011', 'Invalid token provided'));
      }
      const user = (id: string) => users.get(decodeURIComponent(id));
      const notFound = (id: string) => send(res, 404, oktaError('E0000007', `Not found: Resource not found: ${id} (User)`));

      if (req.method === 'GET' && url.pathname === '/api/v1/groups') {
        const match = /^profile\.name eq "(.*)"$/.exec(url.searchParams.get('search') ?? '');
        if (!match) return send(res, 400, oktaError('E0000031', 'Invalid search criteria.'));
        const name = (JSON.parse(`"${match[1]}"`) as string).toLowerCase();
        return send(res, 200, [...groups.values()].filter((g) => g.profile.name.toLowerCase() === name).map(({ members: _members, ...group }) => group));
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/groups') {
        const profile = (body as { profile?: { name?: unknown; description?: unknown } } | undefined)?.profile;
        if (typeof profile?.name !== 'string' || !profile.name) return send(res, 400, oktaError('E0000001', 'Api validation failed: name', ['name: The field cannot be left blank']));
        const name = profile.name;
        if ([...groups.values()].some((g) => g.profile.name.toLowerCase() === name.toLowerCase())) {
          return send(res, 400, oktaError('E0000001', 'Api validation failed: name', ['name: An object with this field already exists in the current organization']));
        }
        const id = `00g${String(nextId++).padStart(17, '0')}`;
        groups.set(id, { id, type: 'OKTA_GROUP', profile: { name, ...(typeof profile.description === 'string' ? { description: profile.description } : {}) }, members: new Set() });
        return send(res, 200, { id, type: 'OKTA_GROUP', profile: groups.get(id)!.profile, _links: {} });
      }
      const member = /^\/api\/v1\/groups\/([^/]+)\/users\/([^/]+)$/.exec(url.pathname);
      if (member && (req.method === 'PUT' || req.method === 'DELETE')) {
        const group = groups.get(decodeURIComponent(member[1]!));
        if (!group) return send(res, 404, oktaError('E0000007', `Not found: Resource not found: ${member[1]} (UserGroup)`));
        if (!user(member[2]!)) return notFound(member[2]!);
        if (group.type !== 'OKTA_GROUP') return send(res, 400, oktaError('E0000060', 'Unsupported operation.'));
        if (req.method === 'PUT') group.members.add(decodeURIComponent(member[2]!));
        else group.members.delete(decodeURIComponent(member[2]!));
        return send(res, 204);
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/users') {
        if (limits.rateLimited > 0) {
          limits.rateLimited--;
          // Okta's clock, which may differ from the caller's (clockSkewSeconds): its Date header and its reset agree.
          const oktaNow = Date.now() + limits.clockSkewSeconds * 1000;
          return send(res, 429, oktaError('E0000047', 'API call exceeded rate limit due to too many requests.'), {
            date: new Date(oktaNow).toUTCString(),
            'x-rate-limit-limit': '600',
            'x-rate-limit-remaining': '0',
            'x-rate-limit-reset': String(Math.floor(oktaNow / 1000) + limits.resetInSeconds),
          });
        }
        const { profile, credentials } = body as { profile: OktaUserRecord['profile']; credentials?: { password?: { value?: string } } };
        if ((credentials?.password?.value ?? '').length < 8) {
          return send(res, 400, oktaError('E0000001', 'Api validation failed: password', ['password: Password requirements were not met. Password requirements: at least 8 characters.']));
        }
        if ([...users.values()].some((u) => u.profile.login.toLowerCase() === profile.login.toLowerCase())) {
          return send(res, 400, oktaError('E0000001', 'Api validation failed: login', ['login: An object with this field already exists in the current organization']));
        }
        const id = `00u${String(nextId++).padStart(17, '0')}`;
        // nextLogin=changePassword (with activate=true): the password is created expired (PASSWORD_EXPIRED).
        const activate = url.searchParams.get('activate') !== 'false';
        const status = !activate ? 'STAGED' : url.searchParams.get('nextLogin') === 'changePassword' ? 'PASSWORD_EXPIRED' : 'ACTIVE';
        const created: OktaUserRecord = { id, status, profile };
        users.set(id, created);
        passwords.set(id, credentials!.password!.value!);
        return send(res, 200, { ...created, credentials: { password: {}, provider: { type: 'OKTA', name: 'OKTA' } }, _links: {} });
      }
      if (req.method === 'GET' && url.pathname === '/api/v1/users') {
        const match = /^profile\.login eq "(.*)"$/.exec(url.searchParams.get('filter') ?? '');
        if (!match) return send(res, 400, oktaError('E0000031', 'Invalid search criteria.'));
        const login = (JSON.parse(`"${match[1]}"`) as string).toLowerCase();
        return send(res, 200, [...users.values()].filter((u) => u.profile.login.toLowerCase() === login));
      }
      if (queued.length > 0 && /^\/api\/v1\/users\/[^/]+/.test(url.pathname)) {
        const answer = queued.shift()!;
        return send(res, answer.status, answer.body, answer.headers);
      }
      const notNow = () => send(res, 403, oktaError('E0000038', "This operation is not allowed in the user's current status."));
      const transition = /^\/api\/v1\/users\/([^/]+)\/lifecycle\/(activate|suspend|unsuspend)$/.exec(url.pathname);
      if (req.method === 'POST' && transition) {
        const found = user(transition[1]!);
        if (!found) return notFound(transition[1]!);
        const operation = transition[2]!;
        if (operation === 'activate') {
          if (found.status !== 'STAGED' && found.status !== 'DEPROVISIONED') return notNow();
          found.status = passwords.has(found.id) ? 'ACTIVE' : 'PROVISIONED';
          return url.searchParams.get('sendEmail') === 'false'
            ? send(res, 200, { activationUrl: `${'https://okta.test'}/welcome/XE6wE17zmphl3KqAPFxO`, activationToken: 'XE6wE17zmphl3KqAPFxO' })
            : send(res, 200, {});
        }
        if (operation === 'suspend') {
          if (found.status !== 'ACTIVE') return notNow();
          found.status = 'SUSPENDED';
          return send(res, 200, {});
        }
        if (found.status !== 'SUSPENDED') return notNow();
        found.status = 'ACTIVE';
        return send(res, 200, {});
      }
      const expire = /^\/api\/v1\/users\/([^/]+)\/lifecycle\/expire_password$/.exec(url.pathname);
      if (req.method === 'POST' && expire) {
        const found = user(expire[1]!);
        if (!found) return notFound(expire[1]!);
        found.status = 'PASSWORD_EXPIRED';
        return send(res, 200, found);
      }
      const lifecycle = /^\/api\/v1\/users\/([^/]+)\/lifecycle\/deactivate$/.exec(url.pathname);
      if (req.method === 'POST' && lifecycle) {
        const found = user(lifecycle[1]!);
        if (!found) return notFound(lifecycle[1]!);
        if (found.status === 'DEPROVISIONED') return send(res, 403, oktaError('E0000038', "This operation is not allowed in the user's current status."));
        found.status = 'DEPROVISIONED';
        return send(res, 200, {});
      }
      const one = /^\/api\/v1\/users\/([^/]+)$/.exec(url.pathname);
      // Update User (POST: a partial update): an administrator sets credentials.password without the old one.
      if (one && req.method === 'POST') {
        const found = user(one[1]!);
        if (!found) return notFound(one[1]!);
        const value = (body as { credentials?: { password?: { value?: string } } }).credentials?.password?.value;
        if (value !== undefined && value.length < 8) {
          return send(res, 400, oktaError('E0000001', 'Api validation failed: password', ['password: Password requirements were not met. Password requirements: at least 8 characters.']));
        }
        const profile = (body as { profile?: Partial<OktaUserRecord['profile']> }).profile;
        const login = profile?.login;
        if (login !== undefined && [...users.values()].some((u) => u.id !== found.id && u.profile.login.toLowerCase() === login.toLowerCase())) {
          return send(res, 400, oktaError('E0000001', 'Api validation failed: login', ['login: An object with this field already exists in the current organization']));
        }
        if (value !== undefined) passwords.set(found.id, value);
        if (profile) found.profile = { ...found.profile, ...profile };
        return send(res, 200, { ...found, credentials: { password: {}, provider: { type: 'OKTA', name: 'OKTA' } } });
      }
      if (one && req.method === 'GET') {
        const found = user(one[1]!);
        return found ? send(res, 200, found) : notFound(one[1]!);
      }
      if (one && req.method === 'DELETE') {
        const found = user(one[1]!);
        if (!found) return notFound(one[1]!);
        if (found.status !== 'DEPROVISIONED') found.status = 'DEPROVISIONED';
        else users.delete(found.id);
        return send(res, 204);
      }
      return send(res, 404, oktaError('E0000022', 'The endpoint does not support the provided HTTP method'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const origin = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    token,
    oauth: { clientId: 'okta-service-app', clientSecret, tokenUrl: `${origin}/oauth2/v1/token`, accessToken },
    users,
    groups,
    passwords,
    received: state.received,
    tokenRequests: state.tokenRequests,
    limits,
    queued,
    seed(profile, status = 'ACTIVE') {
      const id = `00useeded${String(nextId++).padStart(11, '0')}`;
      users.set(id, { id, status, profile });
      return id;
    },
    reset() {
      users.clear();
      groups.clear();
      state.received.length = 0;
      state.tokenRequests.length = 0;
      limits.rateLimited = 0;
      limits.resetInSeconds = 30;
      limits.clockSkewSeconds = 0;
      queued.length = 0;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
