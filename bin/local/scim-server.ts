import { createHash, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response } from 'express';
import SCIMMY from 'scimmy';
import SCIMMYRouters from 'scimmy-routers';
import { tenantOfLocalScimToken } from '../../functions/integrations/local-scim-tenant';
import { planBulk } from './scim-bulk-plan';
import { DirectoryConflict, DirectoryNotFound, passwordMatches, ScimDirectory, type StoredGroup, type StoredUser } from './scim-directory';

/**
 * The local SCIM directory: a real SCIM 2.0 service provider (RFC 7643/7644) on loopback, built
 * on scimmy (schemas, filters, PATCH, bulk) and scimmy-routers (the HTTP endpoints), for the
 * provisioning adapter to talk to in `npm start`, the tests and the bench. It adds what those
 * packages leave to the implementer: the store (bin/local/scim-directory.ts), the bearer check,
 * userName uniqueness without regard to case, the advertised limits, and fault injection.
 */
export interface ScimServerOptions {
  /** 0 = any free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** JSON store; absent = memory only. */
  dataFile?: string;
  /** Bearer token required on every request (401 SCIM error otherwise). */
  token: string;
  /**
   * For the bench and tests: the share of /Users and /Bulk requests answered 429 (with
   * Retry-After) or 500 before anything is done, so a retry is always safe. Deterministic.
   */
  faults?: { rate429?: number; rate500?: number; retryAfterSeconds?: number };
  /** /Bulk limit advertised and enforced (default 1000). */
  maxOperations?: number;
  /** Bytes, advertised and enforced on every request (default 1048576). */
  maxPayloadSize?: number;
  /** Keep e-mail addresses unique too (409 uniqueness), as some providers do; default off. */
  uniqueEmails?: boolean;
  /**
   * Users' own tenants (`npm start` and the test stack): a token made with this key for a user
   * (functions/integrations/local-scim-tenant.ts) opens that user's directory only, a store of its
   * own, in `dataDir/<tenant>.json` when a dataDir is given. `token` keeps opening the operator's
   * directory (the one `users()`, `stats()` and `passwordMatches()` read).
   */
  tenants?: { key: string; dataDir?: string };
  log?: (message: string) => void;
}

export interface ScimUserSummary {
  id: string;
  userName: string;
  active: boolean;
  emails: string[];
}

export interface ScimServer {
  /** Base URL, e.g. http://127.0.0.1:PORT/scim/v2 */
  url: string;
  stop(): Promise<void>;
  stats(): { requests: number; created: number; faults429: number; faults500: number; users: number };
  users(): ScimUserSummary[];
  /** The operator directory's groups: displayName and the member ids. */
  groups(): { id: string; displayName: string; members: string[] }[];
  /** Whether this password is the user's now (tests: the directory keeps only a salted hash). */
  passwordMatches(userName: string, password: string): boolean;
  /** Forgets every user and zeroes the stats and the fault sequence. */
  reset(): void;
}

export const SCIM_BASE_PATH = '/scim/v2';
const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** What scimmy hands the resource handlers: the store of the server the request came to. */
interface HandlerContext {
  directory: ScimDirectory;
}

const directoryOf = (ctx: unknown): ScimDirectory => {
  const directory = (ctx as Partial<HandlerContext> | undefined)?.directory;
  if (!directory) throw new SCIMMY.Types.Error(500, null as unknown as string, 'No directory for this request');
  return directory;
};

function toScim(user: StoredUser) {
  return { ...user.attributes, id: user.id, meta: { resourceType: 'User', created: user.created, lastModified: user.lastModified } };
}

/** The inbound User as scimmy coerced it, minus what the server owns. */
function attributesOf(instance: SCIMMY.Schemas.User): StoredUser['attributes'] {
  const { id: _id, meta: _meta, schemas: _schemas, ...attributes } = JSON.parse(JSON.stringify(instance)) as Record<string, unknown>;
  return attributes as StoredUser['attributes'];
}

/**
 * `userName eq "x"` and `emails.value eq "x"` (alone or or-ed) go through the store's
 * case-insensitive indexes; any other filter is matched by scimmy over all users.
 */
function findUsers(directory: ScimDirectory, filter: SCIMMY.Types.Filter | undefined): object[] {
  if (!filter) return directory.all().map(toScim);
  const indexed: StoredUser[] = [];
  for (const expression of filter as unknown as Record<string, unknown>[]) {
    const keys = Object.keys(expression);
    const userName = expression.userName;
    const emailValue = (expression.emails as Record<string, unknown> | undefined)?.value;
    if (keys.length === 1 && Array.isArray(userName) && userName.length === 2 && userName[0] === 'eq' && typeof userName[1] === 'string') {
      const user = directory.byUserName(userName[1]);
      if (user) indexed.push(user);
    } else if (
      keys.length === 1 &&
      Object.keys(expression.emails ?? {}).length === 1 &&
      Array.isArray(emailValue) &&
      emailValue.length === 2 &&
      emailValue[0] === 'eq' &&
      typeof emailValue[1] === 'string'
    ) {
      indexed.push(...directory.byEmail(emailValue[1]));
    } else {
      return filter.match(directory.all().map(toScim));
    }
  }
  return [...new Map(indexed.map((u) => [u.id, u])).values()].map(toScim);
}

function groupToScim(group: StoredGroup) {
  return { ...group.attributes, id: group.id, meta: { resourceType: 'Group', created: group.created, lastModified: group.lastModified } };
}

/**
 * Groups (RFC 7643 4.2) in the request's store: scimmy reads (egress), applies a PATCH's add and
 * remove of members to what it read, and hands the result back (ingress) to be saved.
 */
function declareGroups() {
  SCIMMY.Resources.Group.basepath(SCIM_BASE_PATH);
  SCIMMY.Resources.declare(
    SCIMMY.Resources.Group.ingress((resource, instance, ctx) => {
      const { id: _id, meta: _meta, schemas: _schemas, ...attributes } = JSON.parse(JSON.stringify(instance)) as Record<string, unknown>;
      try {
        return groupToScim(directoryOf(ctx).saveGroup(resource.id ?? undefined, attributes as StoredGroup['attributes'])) as never;
      } catch (error) {
        if (error instanceof DirectoryConflict) throw new SCIMMY.Types.Error(409, 'uniqueness', error.message);
        if (error instanceof DirectoryNotFound) throw new SCIMMY.Types.Error(404, null as unknown as string, error.message);
        throw error;
      }
    })
      .egress((resource, ctx) => {
        const directory = directoryOf(ctx);
        if (resource.id) {
          const group = directory.group(resource.id);
          if (!group) throw new SCIMMY.Types.Error(404, null as unknown as string, `Resource ${resource.id} not found`);
          return groupToScim(group) as never;
        }
        const groups = directory.groups().map(groupToScim);
        // displayName is not case-exact (RFC 7643 8.7.1): `displayName eq "x"` ignores case, as for userName.
        const [expression, more] = (resource.filter ?? []) as unknown as Record<string, unknown>[];
        const wanted = expression?.displayName;
        if (!more && expression && Object.keys(expression).length === 1 && Array.isArray(wanted) && wanted[0] === 'eq' && typeof wanted[1] === 'string') {
          return groups.filter((g) => g.displayName.toLowerCase() === (wanted[1] as string).toLowerCase()) as never;
        }
        return (resource.filter ? resource.filter.match(groups) : groups) as never;
      })
      .degress((resource, ctx) => {
        try {
          directoryOf(ctx).removeGroup(resource.id!);
        } catch (error) {
          if (error instanceof DirectoryNotFound) throw new SCIMMY.Types.Error(404, null as unknown as string, error.message);
          throw error;
        }
      }),
  );
}

/** scimmy's resource handlers are process-wide; each request brings its own store in the context. */
let usersDeclared = false;
function declareUsers() {
  if (usersDeclared) return;
  usersDeclared = true;
  // Every server is mounted at the same path, so the process-wide base paths are the same for all
  // (scimmy-routers sets them again per request; a /Bulk first request would otherwise lack them).
  for (const resource of [SCIMMY.Resources.User, SCIMMY.Resources.Schema, SCIMMY.Resources.ResourceType, SCIMMY.Resources.ServiceProviderConfig]) {
    resource.basepath(SCIM_BASE_PATH);
  }
  declareGroups();
  SCIMMY.Resources.declare(
    SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false)
      .ingress((resource, instance, ctx) => {
        const directory = directoryOf(ctx);
        // writeOnly: scimmy keeps it on the inbound instance but never sends it out.
        const password = (instance as { password?: unknown }).password;
        const attributes = attributesOf(instance);
        try {
          const user = resource.id
            ? directory.replace(resource.id, attributes, typeof password === 'string' ? password : undefined)
            : directory.create(attributes, typeof password === 'string' ? password : undefined);
          return toScim(user) as never;
        } catch (error) {
          if (error instanceof DirectoryConflict) throw new SCIMMY.Types.Error(409, 'uniqueness', error.message);
          if (error instanceof DirectoryNotFound) throw new SCIMMY.Types.Error(404, null as unknown as string, error.message);
          throw error;
        }
      })
      .egress((resource, ctx) => {
        const directory = directoryOf(ctx);
        if (resource.id) {
          const user = directory.get(resource.id);
          if (!user) throw new SCIMMY.Types.Error(404, null as unknown as string, `Resource ${resource.id} not found`);
          return toScim(user) as never;
        }
        const users = findUsers(directory, resource.filter);
        // scimmy pages the list it is given (RFC 7644 3.4.2.4), but a startIndex past its end would
        // answer the first page: past the end, no users, and the total still said.
        const constraints = (resource as unknown as { constraints?: { startIndex?: number; totalResults?: number } }).constraints;
        if (constraints && (constraints.startIndex ?? 1) > users.length) {
          constraints.totalResults = users.length;
          return [] as never;
        }
        return users as never;
      })
      .degress((resource, ctx) => {
        try {
          directoryOf(ctx).remove(resource.id!);
        } catch (error) {
          if (error instanceof DirectoryNotFound) throw new SCIMMY.Types.Error(404, null as unknown as string, error.message);
          throw error;
        }
      }),
  );
}

/** A small seeded generator (mulberry32): faults come in a fixed, repeatable sequence. */
function seededRandom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAULT_SEED = 0x5c1a;

function scimError(res: Response, status: number, detail: string, scimType?: string) {
  res
    .status(status)
    .type('application/scim+json')
    .send(JSON.stringify({ schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail }));
}

/** Runs a parse; on failure answers the SCIM error (400 invalidFilter when scimmy threw a plain error). */
function parsesAsQuery(res: Response, parse: () => void): boolean {
  try {
    parse();
    return true;
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) scimError(res, error.status, error.message, error.scimType ?? undefined);
    else scimError(res, 400, `The filter or attribute list cannot be parsed (${(error as Error).message})`, 'invalidFilter');
    return false;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export async function startScimServer(options: ScimServerOptions): Promise<ScimServer> {
  const host = options.host ?? '127.0.0.1';
  const maxOperations = options.maxOperations ?? 1000;
  const maxPayloadSize = options.maxPayloadSize ?? 1_048_576;
  const rate429 = options.faults?.rate429 ?? 0;
  const rate500 = options.faults?.rate500 ?? 0;
  const retryAfterSeconds = options.faults?.retryAfterSeconds ?? 1;
  const log = options.log ?? (() => undefined);
  const directory = new ScimDirectory({ dataFile: options.dataFile, log, uniqueEmails: options.uniqueEmails });
  const tenantDirectories = new Map<string, ScimDirectory>();
  const tenantDirectory = (tenant: string) => {
    let found = tenantDirectories.get(tenant);
    if (!found) {
      const dataDir = options.tenants?.dataDir;
      found = new ScimDirectory({ ...(dataDir ? { dataFile: path.join(dataDir, `${tenant}.json`) } : {}), log, uniqueEmails: options.uniqueEmails });
      tenantDirectories.set(tenant, found);
    }
    return found;
  };
  /** The directory the request's bearer token opens (set by the token check). */
  const contextOf = (res: Response): Partial<HandlerContext> => ({ directory: (res.locals as { directory?: ScimDirectory }).directory });
  const expectedToken = digest(options.token);
  const counters = { requests: 0, faults429: 0, faults500: 0 };
  let random = seededRandom(FAULT_SEED);
  let origin = '';

  declareUsers();
  const scim = express.Router();

  scim.use((req, res, next) => {
    counters.requests += 1;
    const header = req.header('authorization') ?? '';
    const presented = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    // Compare digests: equal length, constant time.
    const operator = presented !== undefined && timingSafeEqual(digest(presented), expectedToken);
    const tenant = presented !== undefined && !operator && options.tenants ? tenantOfLocalScimToken(options.tenants.key, presented) : undefined;
    (res.locals as { directory?: ScimDirectory }).directory = operator ? directory : tenant ? tenantDirectory(tenant) : undefined;
    if (!operator && !tenant) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="Local SCIM directory"');
      scimError(res, 401, presented === undefined ? 'A bearer token is required (Authorization: Bearer <token>)' : 'The bearer token is not valid');
      return;
    }
    next();
  });

  // Before anything is read or written, so a client may retry the request as it is. The slash
  // after /Users is looked at, not taken: a layer whose match takes it stands aside for
  // /Users/{id} (Express checks the rest of the path starts at a slash).
  scim.use(/^\/(Users|Bulk)(?=\/|$)/, (_req, res, next) => {
    if (rate429 <= 0 && rate500 <= 0) return next();
    const draw = random();
    if (draw < rate429) {
      counters.faults429 += 1;
      res.setHeader('Retry-After', String(retryAfterSeconds));
      scimError(res, 429, 'Too many requests (fault injected by the local SCIM directory); retry after the Retry-After delay');
    } else if (draw < rate429 + rate500) {
      counters.faults500 += 1;
      scimError(res, 500, 'Internal error (fault injected by the local SCIM directory); the request did nothing and may be retried');
    } else next();
  });

  // Ids are ours (UUIDs); one that cannot exist is simply not found (scimmy would build a filter
  // from it and answer 400 for a quote in it).
  scim.use('/Users/:id', (req, res, next) => {
    if (/^[\w.~-]+$/.test(String(req.params.id))) return next();
    scimError(res, 404, `Resource ${String(req.params.id)} not found`);
  });

  // scimmy applies a PATCH's attributes/excludedAttributes to the user it reads before patching,
  // and stores what is left: ?attributes=userName would erase every other attribute. A PATCH
  // answers the whole user instead.
  scim.patch('/Users/:id', (req, _res, next) => {
    req.url = req.url.split('?')[0]!;
    next();
  });

  scim.use((req, res, next) => {
    if (Number(req.header('content-length') ?? 0) > maxPayloadSize) {
      scimError(res, 413, `The request is larger than maxPayloadSize (${maxPayloadSize} bytes)`);
      return;
    }
    next();
  });
  // scimmy-routers parses bodies too, with the process-wide limit; this one (per server) runs first.
  scim.use(express.json({ type: ['application/scim+json', 'application/json'], limit: maxPayloadSize }));

  // scimmy takes startIndex and count only as numbers, and a query string holds strings: it
  // ignored both and answered every page as the first (RFC 7644 3.4.2.4). Integers are passed on
  // as numbers; anything else is a 400.
  scim.get('/Users', (req, res, next) => {
    const query = { ...(req.query as Record<string, unknown>) };
    for (const key of ['startIndex', 'count'] as const) {
      const value = query[key];
      if (value === undefined) continue;
      if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) return scimError(res, 400, `${key} must be an integer`, 'invalidValue');
      query[key] = Number(value);
    }
    // Express 5 parses req.query anew on every read: the numbers replace it for this request.
    Object.defineProperty(req, 'query', { value: query, configurable: true, enumerable: true, writable: true });
    next();
  });

  // scimmy parses filters and attribute lists when it builds a resource; some malformed ones
  // ('"a"', 'not', 'pr', 'a..b', ',') make it throw a plain TypeError, which scimmy-routers
  // answers with 500. Parse them first and answer 400 invalidFilter.
  scim.get(['/Users', '/Users/:id'], (req, res, next) => {
    if (parsesAsQuery(res, () => new SCIMMY.Resources.User(undefined, req.query as Record<string, string>))) next();
  });
  scim.post(['/.search', '/Users/.search'], (req, res, next) => {
    const parse = () => {
      const search = new SCIMMY.Messages.SearchRequest(req.body);
      new SCIMMY.Resources.User(undefined, {
        ...(search.filter ? { filter: search.filter } : {}),
        ...(search.attributes ? { attributes: search.attributes.join(',') } : {}),
        ...(search.excludedAttributes ? { excludedAttributes: search.excludedAttributes.join(',') } : {}),
      });
    };
    if (parsesAsQuery(res, parse)) next();
  });

  // scimmy reports resource locations relative to the base path; clients get absolute ones, and
  // a created resource's Location header (RFC 7644 3.3).
  scim.use((_req, res, next) => {
    res.json = (body: unknown) => {
      const absolute = (value: unknown) => (typeof value === 'string' && value.startsWith('/') ? `${origin}${value}` : value);
      // A list's itemsPerPage is what the page holds (RFC 7644 3.4.2), not the count asked for.
      const list = body as { schemas?: unknown; Resources?: unknown; itemsPerPage?: unknown } | null;
      if (Array.isArray(list?.schemas) && list.schemas.includes(LIST_SCHEMA) && Array.isArray(list.Resources)) list.itemsPerPage = list.Resources.length;
      const text = JSON.stringify(body, (key, value: unknown) => (key === 'location' ? absolute(value) : value));
      const created = (body as { meta?: { location?: unknown } } | null)?.meta?.location;
      if (res.statusCode === 201 && typeof created === 'string') res.setHeader('Location', absolute(created) as string);
      res.type('application/scim+json');
      return res.send(text);
    };
    next();
  });

  // This server's own limits: scimmy's Config is process-wide, and two servers may differ.
  scim.get('/ServiceProviderConfig', (_req, res) => {
    res.send(
      new SCIMMY.Schemas.ServiceProviderConfig(
        {
          documentationUri: `${origin}/`,
          patch: { supported: true },
          bulk: { supported: true, maxOperations, maxPayloadSize },
          filter: { supported: true, maxResults: 200 },
          // A PATCH or PUT with a password replaces the stored hash (Reset Passwords uses it).
          changePassword: { supported: true },
          sort: { supported: true },
          etag: { supported: false },
          authenticationSchemes: [
            {
              type: 'oauthbearertoken',
              name: 'OAuth Bearer Token',
              description: 'Authentication scheme using the OAuth Bearer Token Standard',
              specUri: 'https://datatracker.ietf.org/doc/html/rfc6750',
              primary: true,
            },
          ],
        },
        `${SCIM_BASE_PATH}/ServiceProviderConfig`,
      ),
    );
  });

  scim.post('/Bulk', async (req: Request, res: Response, next: NextFunction) => {
    try {
      // scimmy checks the message itself (schema, maxOperations -> 413) ...
      const checked = new SCIMMY.Messages.BulkRequest(req.body, maxOperations);
      // ... and runs the operations in an order where references work (bin/local/scim-bulk-plan.ts).
      const plan = planBulk(checked.Operations);
      if ('problem' in plan) return scimError(res, 400, plan.problem, 'invalidValue');
      const request = new SCIMMY.Messages.BulkRequest({ ...checked, Operations: plan.order.map((i) => checked.Operations[i]!) }, maxOperations);
      const resourceTypes = [SCIMMY.Resources.User] as unknown as (typeof SCIMMY.Types.Resource)[];
      const response = await request.apply(resourceTypes, contextOf(res));
      // Answers in the client's order. Operations not run after failOnErrors are left out, always a
      // tail of the run order, so the k-th answer belongs to the k-th operation run.
      response.Operations = response.Operations.map((result, k) => ({ result, index: plan.order[k]! }))
        .sort((a, b) => a.index - b.index)
        .map(({ result }) => result);
      res.status(200).send(response);
    } catch (error) {
      next(error);
    }
  });

  scim.use(
    new SCIMMYRouters({
      type: 'bearer',
      // The bearer token was checked above.
      handler: () => 'local-scim-client',
      context: (req: Request) => contextOf(req.res!),
    }) as unknown as express.Router,
  );

  const app = express();
  app.disable('x-powered-by');
  app.use(SCIM_BASE_PATH, scim);
  app.use((_req, res) => scimError(res, 404, `Not found: the SCIM endpoints are under ${SCIM_BASE_PATH}`));
  const errors: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    // scimmy-routers answers its own errors and passes on those >= 500: already answered.
    if (res.headersSent) {
      log(`SCIM directory: ${(error as Error).message}`);
      return;
    }
    const status = (error as { status?: unknown }).status;
    const type = (error as { type?: unknown }).type;
    if (type === 'entity.too.large') return scimError(res, 413, `The request is larger than maxPayloadSize (${maxPayloadSize} bytes)`);
    if (type === 'entity.parse.failed') return scimError(res, 400, 'The request body is not valid JSON', 'invalidSyntax');
    if (error instanceof SCIMMY.Types.Error || (typeof status === 'number' && status >= 400 && status < 500)) {
      const { scimType, message } = error as { scimType?: string; message: string };
      return scimError(res, Number(status), message, scimType ?? undefined);
    }
    log(`SCIM directory: ${(error as Error).stack ?? String(error)}`);
    scimError(res, 500, 'Internal error');
  };
  app.use(errors);

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${host}:${port}`;

  return {
    url: `${origin}${SCIM_BASE_PATH}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([directory, ...tenantDirectories.values()].map((d) => d.flush()));
    },
    stats: () => ({ ...counters, created: directory.created, users: directory.size }),
    users: () =>
      directory.all().map((user) => {
        const emails = (user.attributes.emails as { value?: unknown }[] | undefined) ?? [];
        return {
          id: user.id,
          userName: user.attributes.userName,
          active: user.attributes.active !== false,
          emails: emails.flatMap((e) => (typeof e.value === 'string' ? [e.value] : [])),
        };
      }),
    groups: () =>
      directory.groups().map((group) => ({ id: group.id, displayName: group.attributes.displayName, members: (group.attributes.members ?? []).map((m) => m.value) })),
    passwordMatches: (userName, password) => {
      const hash = directory.byUserName(userName)?.passwordHash;
      return hash !== undefined && passwordMatches(hash, password);
    },
    reset: () => {
      directory.clear();
      for (const tenant of tenantDirectories.values()) tenant.clear();
      counters.requests = 0;
      counters.faults429 = 0;
      counters.faults500 = 0;
      random = seededRandom(FAULT_SEED);
    },
  };
}
