import fs from 'node:fs';
import path from 'node:path';
import { rename, writeFile } from 'node:fs/promises';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * The store behind the local SCIM directory (bin/local/scim-server.ts): users in a Map, indexed
 * by lower-cased userName and e-mail (RFC 7643 makes userName case-insensitive, and a lookup must
 * not scan 10,000 users), persisted to a JSON file in the background.
 */
export interface StoredUser {
  id: string;
  /** The SCIM attributes as the client sent them, without id, meta, schemas and password. */
  attributes: Record<string, unknown> & { userName: string };
  created: string;
  lastModified: string;
  /** `sha256$<salt>$<hex>`; the clear password is never kept. */
  passwordHash?: string;
}

/** A SCIM Group (RFC 7643 4.2): its displayName (unique here, without regard to case) and members (`value`: a user's id). */
export interface StoredGroup {
  id: string;
  attributes: Record<string, unknown> & { displayName: string; members?: { value: string; display?: string; type?: string }[] };
  created: string;
  lastModified: string;
}

interface StoreFile {
  version: 1;
  users: StoredUser[];
  groups?: StoredGroup[];
}

/** Why the directory refused a change; the server maps these to SCIM errors. */
export class DirectoryConflict extends Error {}
export class DirectoryNotFound extends Error {}

export interface ScimDirectoryOptions {
  /** JSON file to load at start and write after changes; absent = memory only. */
  dataFile?: string;
  /** Time between a change and its write: a burst of creates is written once. */
  writeDelayMs?: number;
  clock?: () => Date;
  log?: (message: string) => void;
  /**
   * Also keep e-mail addresses unique without regard to case, as some providers do (better-auth's
   * SCIM server, for one): a second user with an address already held answers 409 uniqueness.
   */
  uniqueEmails?: boolean;
}

const lower = (value: string) => value.toLowerCase();

/**
 * A fast salted hash, on purpose: this is a local test directory that must take 10,000 creates
 * quickly, and the point is only that no clear password is kept or returned (a real directory
 * would use a slow KDF).
 */
export function hashPassword(password: string, salt = randomBytes(16).toString('base64url')): string {
  return `sha256$${salt}$${createHash('sha256').update(`${salt}:${password}`).digest('hex')}`;
}

export function passwordMatches(hash: string, password: string): boolean {
  const [scheme, salt] = hash.split('$');
  if (scheme !== 'sha256' || salt === undefined) return false;
  const expected = Buffer.from(hash);
  const actual = Buffer.from(hashPassword(password, salt));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function emailsOf(attributes: Record<string, unknown>): string[] {
  const emails = attributes.emails;
  if (!Array.isArray(emails)) return [];
  return emails.flatMap((e: unknown) =>
    e !== null && typeof e === 'object' && typeof (e as { value?: unknown }).value === 'string' ? [(e as { value: string }).value] : [],
  );
}

export class ScimDirectory {
  private readonly users = new Map<string, StoredUser>();
  private readonly byUserNameIndex = new Map<string, string>();
  private readonly byEmailIndex = new Map<string, Set<string>>();
  /**
   * Groups by id. A user's removal leaves its memberships as they are (RFC 7644 lets a provider
   * keep them; some do): a client that wants them gone removes them, as BulkOnboard does.
   */
  private readonly groupsById = new Map<string, StoredGroup>();
  private readonly clock: () => Date;
  private readonly writeDelayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  /** A write serialises every user: under a long burst, writes are spaced so they take at most ~5% of the time. */
  private lastWriteMs = 0;
  /** Users created since start (or the last clear), for the server's stats. */
  created = 0;

  constructor(private readonly options: ScimDirectoryOptions = {}) {
    this.clock = options.clock ?? (() => new Date());
    this.writeDelayMs = options.writeDelayMs ?? 200;
    if (options.dataFile) {
      fs.mkdirSync(path.dirname(options.dataFile), { recursive: true });
      this.load(options.dataFile);
    }
  }

  get size(): number {
    return this.users.size;
  }

  get(id: string): StoredUser | undefined {
    return this.users.get(id);
  }

  byUserName(userName: string): StoredUser | undefined {
    const id = this.byUserNameIndex.get(lower(userName));
    return id === undefined ? undefined : this.users.get(id);
  }

  byEmail(email: string): StoredUser[] {
    return [...(this.byEmailIndex.get(lower(email)) ?? [])].flatMap((id) => this.users.get(id) ?? []);
  }

  all(): StoredUser[] {
    return [...this.users.values()];
  }

  groups(): StoredGroup[] {
    return [...this.groupsById.values()];
  }

  group(id: string): StoredGroup | undefined {
    return this.groupsById.get(id);
  }

  /** Creates (no id) or replaces a group; a displayName another group holds is a conflict (409 uniqueness). */
  saveGroup(id: string | undefined, attributes: StoredGroup['attributes']): StoredGroup {
    const existing = id === undefined ? undefined : this.groupsById.get(id);
    if (id !== undefined && !existing) throw new DirectoryNotFound(`Resource ${id} not found`);
    const holder = [...this.groupsById.values()].find((g) => lower(g.attributes.displayName) === lower(attributes.displayName) && g.id !== id);
    if (holder) throw new DirectoryConflict(`displayName '${attributes.displayName}' is already taken by another group`);
    // RFC 7644 3.5.2.1: adding a value the attribute holds already changes nothing (scimmy's PATCH appends it again).
    if (Array.isArray(attributes.members)) attributes.members = [...new Map(attributes.members.map((m) => [m.value, m])).values()];
    const now = this.clock().toISOString();
    const group: StoredGroup = { id: existing?.id ?? randomUUID(), attributes, created: existing?.created ?? now, lastModified: now };
    this.groupsById.set(group.id, group);
    this.changed();
    return group;
  }

  removeGroup(id: string): void {
    if (!this.groupsById.delete(id)) throw new DirectoryNotFound(`Resource ${id} not found`);
    this.changed();
  }

  create(attributes: StoredUser['attributes'], password: string | undefined): StoredUser {
    this.assertUserNameFree(attributes.userName, undefined);
    this.assertEmailsFree(attributes, undefined);
    const now = this.clock().toISOString();
    const user: StoredUser = {
      id: randomUUID(),
      attributes,
      created: now,
      lastModified: now,
      ...(password !== undefined ? { passwordHash: hashPassword(password) } : {}),
    };
    this.index(user);
    this.created += 1;
    this.changed();
    return user;
  }

  /** PUT (and PATCH, which scimmy turns into a replace): all attributes; the password stays unless a new one is given. */
  replace(id: string, attributes: StoredUser['attributes'], password: string | undefined): StoredUser {
    const existing = this.users.get(id);
    if (!existing) throw new DirectoryNotFound(`Resource ${id} not found`);
    this.assertUserNameFree(attributes.userName, id);
    this.assertEmailsFree(attributes, id);
    this.unindex(existing);
    const user: StoredUser = {
      ...existing,
      attributes,
      lastModified: this.clock().toISOString(),
      ...(password !== undefined ? { passwordHash: hashPassword(password) } : {}),
    };
    this.index(user);
    this.changed();
    return user;
  }

  remove(id: string): void {
    const existing = this.users.get(id);
    if (!existing) throw new DirectoryNotFound(`Resource ${id} not found`);
    this.unindex(existing);
    this.changed();
  }

  clear(): void {
    this.users.clear();
    this.byUserNameIndex.clear();
    this.byEmailIndex.clear();
    this.groupsById.clear();
    this.created = 0;
    this.changed();
  }

  /** Writes any pending change now; resolves when the file holds the current state. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    if (this.dirty) await this.write();
  }

  private assertUserNameFree(userName: string, ownId: string | undefined) {
    const holder = this.byUserNameIndex.get(lower(userName));
    if (holder !== undefined && holder !== ownId) {
      throw new DirectoryConflict(`userName '${userName}' is already taken (user names are compared without regard to case)`);
    }
  }

  private assertEmailsFree(attributes: Record<string, unknown>, ownId: string | undefined) {
    if (!this.options.uniqueEmails) return;
    for (const email of emailsOf(attributes)) {
      if ([...(this.byEmailIndex.get(lower(email)) ?? [])].some((id) => id !== ownId)) {
        throw new DirectoryConflict(`The e-mail address '${email}' is already used by another user`);
      }
    }
  }

  private index(user: StoredUser) {
    this.users.set(user.id, user);
    this.byUserNameIndex.set(lower(user.attributes.userName), user.id);
    for (const email of emailsOf(user.attributes)) {
      const key = lower(email);
      const ids = this.byEmailIndex.get(key) ?? new Set<string>();
      ids.add(user.id);
      this.byEmailIndex.set(key, ids);
    }
  }

  private unindex(user: StoredUser) {
    this.users.delete(user.id);
    this.byUserNameIndex.delete(lower(user.attributes.userName));
    for (const email of emailsOf(user.attributes)) {
      const ids = this.byEmailIndex.get(lower(email));
      ids?.delete(user.id);
      if (ids?.size === 0) this.byEmailIndex.delete(lower(email));
    }
  }

  private load(file: string) {
    if (!fs.existsSync(file)) return;
    let parsed: StoreFile;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as StoreFile;
      if (parsed.version !== 1 || !Array.isArray(parsed.users)) throw new Error('not a SCIM directory file');
    } catch (error) {
      // Never overwrite what cannot be read: keep it aside for a person to look at, start empty.
      const aside = `${file}.unreadable-${this.clock().toISOString().replace(/[:.]/g, '-')}`;
      fs.renameSync(file, aside);
      this.options.log?.(`SCIM directory: ${file} could not be read (${(error as Error).message}); moved to ${aside}, starting empty.`);
      return;
    }
    for (const user of parsed.users) this.index(user);
    for (const group of parsed.groups ?? []) this.groupsById.set(group.id, group);
  }

  /** Batches a burst of changes into one write, some milliseconds later. */
  private changed() {
    if (!this.options.dataFile) return;
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, Math.max(this.writeDelayMs, 20 * this.lastWriteMs));
    // The stack's stop() flushes; a pending write must not keep a test process alive.
    this.timer.unref();
  }

  /** One write at a time, to a temporary file renamed over the store (a reader never sees half a file). */
  private write(): Promise<void> {
    const file = this.options.dataFile;
    if (!file) return Promise.resolve();
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const began = performance.now();
      const content: StoreFile = { version: 1, users: this.all(), groups: this.groups() };
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(content), { mode: 0o600 });
        await rename(temporary, file);
        this.lastWriteMs = performance.now() - began;
      } catch (error) {
        this.dirty = true;
        this.options.log?.(`SCIM directory: could not write ${file}: ${(error as Error).message}`);
      }
    });
    return this.writing;
  }
}
