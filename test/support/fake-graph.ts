import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that plays what Microsoft Graph v1.0 documents (learn.microsoft.com/graph:
 * Create user, JSON batching, Throttling, List users with $filter), for contract and integration
 * tests, never proof against the live service: POST /users answers 201 with the user; a
 * userPrincipalName already held answers 400 "Another object with the same value for property
 * userPrincipalName already exists." (ObjectConflict), a mail another user holds 400 "... for
 * property proxyAddresses already exists."; a UPN off the verified domain and a weak
 * password answer 400; POST /$batch takes up to 20 requests and answers each with its own id,
 * status, headers and body, in any order (here: reversed), a throttled one 429 with its own
 * Retry-After; the Microsoft identity platform's token endpoint grants client credentials only
 * with a scope (AADSTS90014 otherwise). GET /users/{id} answers the user ($select honoured);
 * PATCH /users/{id} (Update user) answers 204, a userPrincipalName another user holds 400
 * ObjectConflict; DELETE /users/{id} 204; an unknown id 404 Request_ResourceNotFound. Groups
 * (Create group, List groups, Add member, Remove member): POST /groups needs displayName,
 * mailEnabled, mailNickname and securityEnabled (400 otherwise) and answers 201; GET
 * /groups?$filter=displayName eq '...' answers { value } (display names are not unique in Entra
 * ID); POST /groups/{id}/members/$ref with an @odata.id naming a directory object answers 204, a
 * member already there 400 "One or more added object references already exist for the following
 * modified properties: 'members'."; DELETE /groups/{id}/members/{userId}/$ref 204, 404 when not a
 * member. The API is under /v1.0.
 *
 * The user's other properties as the user resource documents them (v1.0): POST /users and PATCH
 * /users/{id} answer 400 "Invalid value specified for property '<name>' of resource 'User'." for a
 * string over its maximum length (employeeId 16, department 64, jobTitle 128, mobilePhone 64,
 * companyName 64, postalCode 40, ...), a businessPhones that is not a list of at most one string,
 * a usageLocation that is not two letters, and "Cannot convert the literal '<value>' to the
 * expected type 'Edm.DateTimeOffset'." for an employeeHireDate that is not an ISO 8601 date and
 * time; the manager is a navigation property (/manager/$ref), not one a user body may carry. The
 * properties taken are kept on the user (null clears one) and read back with $select.
 */
export interface GraphReceived {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}
export interface GraphUserRecord {
  id: string;
  userPrincipalName: string;
  mail: string | null;
  otherMails: string[];
  accountEnabled: boolean;
  displayName: string;
  givenName?: string;
  surname?: string;
  /** Any other property the user was created or updated with (employeeId, department, businessPhones...). */
  [property: string]: unknown;
}

/** The user resource's documented maximum lengths (learn.microsoft.com/graph/api/resources/user, v1.0). */
const USER_STRING_MAX: Record<string, number> = {
  displayName: 256,
  givenName: 64,
  surname: 64,
  mailNickname: 64,
  department: 64,
  jobTitle: 128,
  employeeId: 16,
  mobilePhone: 64,
  companyName: 64,
  officeLocation: 128,
  city: 128,
  state: 128,
  country: 128,
  streetAddress: 1024,
  postalCode: 40,
};
/** Properties set by their own requests, never in a user's body. */
const NAVIGATION_PROPERTIES = new Set(['manager', 'directReports', 'memberOf']);
const DATE_TIME_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

export interface FakeGraph {
  origin: string;
  /** The base URL an integration names: <origin>/v1.0. */
  baseUrl: string;
  domain: string;
  oauth: { clientId: string; clientSecret: string; tokenUrl: string; accessToken: string };
  users: Map<string, GraphUserRecord>;
  /** Groups by id: display name and member ids. */
  groups: Map<string, { id: string; displayName: string; mailNickname: string; securityEnabled: boolean; members: Set<string> }>;
  received: GraphReceived[];
  tokenRequests: URLSearchParams[];
  /** UPNs (lower case) whose next creation inside a $batch is throttled: 429, Retry-After retryAfterSeconds. */
  throttleInBatch: Set<string>;
  /**
   * throttleCalls: the next N calls answer 429 (Retry-After: 3) as a whole; throttleSubRequests:
   * the next N user creations inside a $batch answer 429 (Retry-After: retryAfterSeconds) alone.
   */
  limits: { throttleCalls: number; throttleSubRequests: number; retryAfterSeconds: number };
  /** Answers played, in order, before the normal ones to calls on one user (/v1.0/users/{id}). */
  queued: Answer[];
  seed(userPrincipalName: string, mail: string | null, otherMails?: string[]): string;
  reset(): void;
  stop(): Promise<void>;
}

const graphError = (status: number, code: string, message: string, details?: { code: string; target: string }[]) => ({
  status,
  body: { error: { code, message, ...(details ? { details } : {}), innerError: { date: '2026-11-23T00:00:00', 'request-id': 'req-1', 'client-request-id': 'req-1' } } },
});

export type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

const send = (res: http.ServerResponse, answer: Answer) => {
  res.writeHead(answer.status, { ...(answer.body !== undefined ? { 'content-type': 'application/json' } : {}), ...answer.headers });
  res.end(answer.body !== undefined ? JSON.stringify(answer.body) : undefined);
};

export async function startFakeGraph(options: { host?: string; port?: number; domain?: string } = {}): Promise<FakeGraph> {
  const domain = options.domain ?? 'contoso.example';
  const tenant = '11111111-2222-3333-4444-555555555555';
  const accessToken = 'graph-access-token';
  const clientSecret = 'graph-client-secret';
  let nextId = 1;
  const users = new Map<string, GraphUserRecord>();
  const groups: FakeGraph['groups'] = new Map();
  // Emptied in place by reset(): tests hold these.
  const received: GraphReceived[] = [];
  const tokenRequests: URLSearchParams[] = [];
  const throttleInBatch = new Set<string>();
  const limits = { throttleCalls: 0, throttleSubRequests: 0, retryAfterSeconds: 7 };
  const queued: Answer[] = [];

  /** Graph's 400 for a user body's property out of its documented shape, if any. */
  function refusedProperty(user: Record<string, unknown>): Answer | undefined {
    const invalid = (name: string) => graphError(400, 'Request_BadRequest', `Invalid value specified for property '${name}' of resource 'User'.`);
    for (const [name, value] of Object.entries(user)) {
      if (value === null) continue;
      if (NAVIGATION_PROPERTIES.has(name)) return invalid(name);
      const max = USER_STRING_MAX[name];
      if (max !== undefined && (typeof value !== 'string' || value.length > max)) return invalid(name);
      if (name === 'businessPhones' && !(Array.isArray(value) && value.length <= 1 && value.every((v) => typeof v === 'string'))) return invalid(name);
      if (name === 'usageLocation' && !(typeof value === 'string' && /^[A-Z]{2}$/.test(value))) return invalid(name);
      if (name === 'employeeHireDate' && !(typeof value === 'string' && DATE_TIME_OFFSET.test(value) && !Number.isNaN(Date.parse(value)))) {
        return graphError(400, 'BadRequest', `Cannot convert the literal '${String(value)}' to the expected type 'Edm.DateTimeOffset'.`);
      }
    }
    return undefined;
  }

  /** One Graph request (top level or inside a $batch), relative to /v1.0. */
  function graphRequest(method: string, url: URL, body: unknown): Answer {
    if (method === 'POST' && url.pathname === '/users') {
      const user = body as Record<string, unknown> & { passwordProfile?: { password?: string } };
      const refused = refusedProperty(user ?? {});
      if (refused) return refused;
      for (const field of ['accountEnabled', 'displayName', 'mailNickname', 'userPrincipalName', 'passwordProfile']) {
        if (user?.[field] === undefined) return graphError(400, 'Request_BadRequest', `Invalid value specified for property '${field}' of resource 'User'.`);
      }
      const upn = String(user.userPrincipalName);
      if (!upn.toLowerCase().endsWith(`@${domain}`)) {
        return graphError(400, 'Request_BadRequest', 'The domain portion of the userPrincipalName property is invalid. You must use one of the verified domain names in your organization.', [
          { code: 'InvalidValue', target: 'userPrincipalName' },
        ]);
      }
      if ((user.passwordProfile?.password ?? '').length < 8) {
        return graphError(400, 'Request_BadRequest', 'The specified password does not comply with password complexity requirements. Please provide a different password.');
      }
      if ([...users.values()].some((u) => u.userPrincipalName.toLowerCase() === upn.toLowerCase())) {
        return graphError(400, 'Request_BadRequest', 'Another object with the same value for property userPrincipalName already exists.', [{ code: 'ObjectConflict', target: 'userPrincipalName' }]);
      }
      // mail becomes the user's primary SMTP proxy address, unique across the tenant.
      const mail = typeof user.mail === 'string' ? user.mail.toLowerCase() : undefined;
      if (mail && [...users.values()].some((u) => u.mail?.toLowerCase() === mail || u.otherMails.some((m) => m.toLowerCase() === mail))) {
        return graphError(400, 'Request_BadRequest', 'Another object with the same value for property proxyAddresses already exists.', [{ code: 'ObjectConflict', target: 'proxyAddresses' }]);
      }
      const id = `00000000-0000-0000-0000-${String(nextId++).padStart(12, '0')}`;
      const { passwordProfile: _password, ...properties } = user;
      const created: GraphUserRecord = { ...properties, id, userPrincipalName: upn, mail: typeof user.mail === 'string' ? user.mail : null, otherMails: [], accountEnabled: user.accountEnabled === true, displayName: String(user.displayName), ...(typeof user.givenName === 'string' ? { givenName: user.givenName } : {}), ...(typeof user.surname === 'string' ? { surname: user.surname } : {}) };
      users.set(id, created);
      return { status: 201, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users/$entity', ...created, givenName: user.givenName, surname: user.surname } };
    }
    if (method === 'GET' && url.pathname === '/users') {
      const match = /^userPrincipalName eq '((?:[^']|'')*)'$/.exec(url.searchParams.get('$filter') ?? '');
      if (!match) return graphError(400, 'Request_UnsupportedQuery', 'Unsupported Query.');
      const upn = match[1]!.replace(/''/g, "'").toLowerCase();
      const value = [...users.values()].filter((u) => u.userPrincipalName.toLowerCase() === upn);
      return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users(id,userPrincipalName,mail,otherMails,accountEnabled)', value } };
    }
    const one = /^\/users\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const found = users.get(decodeURIComponent(one[1]!));
      if (!found) return graphError(404, 'Request_ResourceNotFound', `Resource '${one[1]}' does not exist or one of its queried reference-property objects are not present.`);
      if (method === 'GET') {
        const select = url.searchParams.get('$select')?.split(',');
        const user = { ...found } as Record<string, unknown>;
        return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users/$entity', ...(select ? Object.fromEntries(select.map((k) => [k, user[k] ?? null])) : user) } };
      }
      if (method === 'PATCH') {
        const refused = refusedProperty((body ?? {}) as Record<string, unknown>);
        if (refused) return refused;
        const upn = (body as { userPrincipalName?: unknown }).userPrincipalName;
        if (typeof upn === 'string' && [...users.values()].some((u) => u.id !== found.id && u.userPrincipalName.toLowerCase() === upn.toLowerCase())) {
          return graphError(400, 'Request_BadRequest', 'Another object with the same value for property userPrincipalName already exists.', [{ code: 'ObjectConflict', target: 'userPrincipalName' }]);
        }
        Object.assign(found, body as object);
        return { status: 204 };
      }
      if (method === 'DELETE') {
        users.delete(found.id);
        return { status: 204 };
      }
    }
    if (method === 'POST' && url.pathname === '/groups') {
      const group = body as Record<string, unknown>;
      for (const field of ['displayName', 'mailEnabled', 'mailNickname', 'securityEnabled']) {
        if (group?.[field] === undefined) return graphError(400, 'Request_BadRequest', `Invalid value specified for property '${field}' of resource 'Group'.`);
      }
      if (/[\s@()\\[\]";:<>,]/.test(String(group.mailNickname))) return graphError(400, 'Request_BadRequest', "Invalid value specified for property 'mailNickname' of resource 'Group'.");
      const id = `11111111-0000-0000-0000-${String(nextId++).padStart(12, '0')}`;
      groups.set(id, { id, displayName: String(group.displayName), mailNickname: String(group.mailNickname), securityEnabled: group.securityEnabled === true, members: new Set() });
      return { status: 201, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#groups/$entity', id, displayName: group.displayName, mailEnabled: group.mailEnabled, mailNickname: group.mailNickname, securityEnabled: group.securityEnabled } };
    }
    if (method === 'GET' && url.pathname === '/groups') {
      const match = /^displayName eq '((?:[^']|'')*)'$/.exec(url.searchParams.get('$filter') ?? '');
      if (!match) return graphError(400, 'Request_UnsupportedQuery', 'Unsupported Query.');
      const name = match[1]!.replace(/''/g, "'").toLowerCase();
      return { status: 200, body: { value: [...groups.values()].filter((g) => g.displayName.toLowerCase() === name).map((g) => ({ id: g.id, displayName: g.displayName })) } };
    }
    const add = /^\/groups\/([^/]+)\/members\/\$ref$/.exec(url.pathname);
    const remove = /^\/groups\/([^/]+)\/members\/([^/]+)\/\$ref$/.exec(url.pathname);
    const group = groups.get(decodeURIComponent((add ?? remove)?.[1] ?? ''));
    if ((add || remove) && !group) return graphError(404, 'Request_ResourceNotFound', `Resource '${(add ?? remove)![1]}' does not exist or one of its queried reference-property objects are not present.`);
    if (method === 'POST' && add && group) {
      const member = /\/directoryObjects\/([^/]+)$/.exec(String((body as { '@odata.id'?: unknown } | undefined)?.['@odata.id'] ?? ''))?.[1];
      if (!member || !users.has(decodeURIComponent(member))) return graphError(404, 'Request_ResourceNotFound', `Resource '${member}' does not exist or one of its queried reference-property objects are not present.`);
      if (group.members.has(decodeURIComponent(member))) return graphError(400, 'Request_BadRequest', "One or more added object references already exist for the following modified properties: 'members'.");
      group.members.add(decodeURIComponent(member));
      return { status: 204 };
    }
    if (method === 'DELETE' && remove && group) {
      if (!group.members.delete(decodeURIComponent(remove[2]!))) return graphError(404, 'Request_ResourceNotFound', `Resource '${remove[2]}' does not exist or one of its queried reference-property objects are not present.`);
      return { status: 204 };
    }
    return graphError(400, 'BadRequest', `Resource not found for the segment '${url.pathname}'.`);
  }

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://graph.test');
      if (url.pathname === `/${tenant}/oauth2/v2.0/token`) {
        const form = new URLSearchParams(raw);
        tokenRequests.push(form);
        if (!form.get('scope')) return send(res, { status: 400, body: { error: 'invalid_request', error_description: "AADSTS90014: The required field 'scope' is missing from the credential." } });
        if (form.get('client_secret') !== clientSecret) return send(res, { status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' } });
        return send(res, { status: 200, body: { token_type: 'Bearer', expires_in: 3599, access_token: accessToken } });
      }
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      if (req.headers.authorization !== `Bearer ${accessToken}`) {
        return send(res, graphError(401, 'InvalidAuthenticationToken', 'Access token validation failure. Invalid audience.'));
      }
      if (limits.throttleCalls > 0) {
        limits.throttleCalls--;
        return send(res, { ...graphError(429, 'TooManyRequests', 'Please retry again later.'), headers: { 'retry-after': '3' } });
      }
      if (queued.length > 0 && /^\/v1\.0\/users\/[^/]+$/.test(url.pathname)) return send(res, queued.shift()!);
      if (!url.pathname.startsWith('/v1.0/')) return send(res, graphError(400, 'BadRequest', 'Invalid version.'));
      const path = url.pathname.slice('/v1.0'.length);
      if (req.method === 'POST' && path === '/$batch') {
        const requests = (body as { requests?: { id: string; method: string; url: string; headers?: Record<string, string>; body?: unknown }[] }).requests ?? [];
        if (requests.length > 20) return send(res, graphError(400, 'BadRequest', 'The number of requests in the batch exceeds the limit of 20.'));
        const responses = requests.map((r) => {
          const upn = String((r.body as { userPrincipalName?: unknown } | undefined)?.userPrincipalName ?? '').toLowerCase();
          const throttled = throttleInBatch.delete(upn) || (limits.throttleSubRequests > 0 && limits.throttleSubRequests-- > 0);
          if (throttled) {
            return { id: r.id, status: 429, headers: { 'Retry-After': String(limits.retryAfterSeconds), 'Content-Type': 'application/json' }, body: graphError(429, 'TooManyRequests', 'Too many requests.').body };
          }
          if (r.body !== undefined && r.headers?.['Content-Type'] !== 'application/json') {
            return { id: r.id, ...graphError(400, 'BadRequest', `Write request id : ${r.id} does not contain Content-Type header or body.`) };
          }
          const answer = graphRequest(r.method, new URL(r.url, 'http://graph.test'), r.body);
          return { id: r.id, status: answer.status, headers: { 'Content-Type': 'application/json' }, body: answer.body };
        });
        // Graph answers a batch in any order: the client must match by id.
        return send(res, { status: 200, body: { responses: responses.reverse() } });
      }
      return send(res, graphRequest(req.method ?? 'GET', new URL(path + url.search, 'http://graph.test'), body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const origin = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}/v1.0`,
    domain,
    oauth: { clientId: 'graph-app-id', clientSecret, tokenUrl: `${origin}/${tenant}/oauth2/v2.0/token`, accessToken },
    users,
    groups,
    received,
    tokenRequests,
    throttleInBatch,
    limits,
    queued,
    seed(userPrincipalName, mail, otherMails = []) {
      const id = `seeded-${nextId++}`;
      users.set(id, { id, userPrincipalName, mail, otherMails, accountEnabled: true, displayName: 'Seeded' });
      return id;
    },
    reset() {
      users.clear();
      groups.clear();
      received.length = 0;
      tokenRequests.length = 0;
      throttleInBatch.clear();
      limits.throttleCalls = 0;
      limits.throttleSubRequests = 0;
      limits.retryAfterSeconds = 7;
      queued.length = 0;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
