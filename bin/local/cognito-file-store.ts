import fs from 'node:fs';
import { writeFile, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';
import StormDB from 'stormdb';
import type { Context } from 'cognito-local/lib/services/context';
import { StormDBDataStore } from 'cognito-local/lib/services/dataStore/stormDb';
import type { DataStore } from 'cognito-local/lib/services/dataStore/dataStore';
import type { DataStoreFactory } from 'cognito-local/lib/services/dataStore/factory';

/** cognito-local stores dates as ISO strings in fields named ...Date and reads them back as Dates. */
const reviveDates = (key: string, value: unknown) =>
  key.endsWith('Date') && (typeof value === 'string' || typeof value === 'number') ? new Date(value) : value;

/**
 * The file engine under cognito-local's stores (one JSON file per user pool), made safe for
 * concurrent calls. stormdb's own engine starts one fs.writeFile per change without waiting for
 * the previous one: with a few sign-ups at once the writes overlap and leave a file with trailing
 * garbage, which the next start cannot parse (the pool, with every user, is then created anew).
 * Here writes run one at a time, a burst of changes is written once with the latest state, and
 * each write replaces the file atomically (temporary file, then rename), so a reader never sees
 * half a file.
 */
export class SerialFileEngine {
  private latest: unknown;
  private queued: Promise<void> | undefined;
  private previous: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  init(): object {
    return fs.existsSync(this.file) ? this.read() : {};
  }

  read(): object {
    const text = fs.readFileSync(this.file, 'utf8');
    return text === '' ? {} : (JSON.parse(text, reviveDates) as object);
  }

  write(data: unknown): Promise<void> {
    this.latest = data;
    // A write that has not started yet will write the latest state: this change rides along.
    if (this.queued) return this.queued;
    const next = this.previous
      .catch(() => undefined)
      .then(async () => {
        this.queued = undefined;
        const temporary = `${this.file}.${process.pid}.tmp`;
        await writeFile(temporary, JSON.stringify(this.latest, undefined, 2));
        await rename(temporary, this.file);
      });
    this.queued = next;
    this.previous = next;
    return next;
  }
}

/** cognito-local's StormDB data stores, on SerialFileEngine. */
export class SerialFileDataStoreFactory implements DataStoreFactory {
  constructor(private readonly directory: string) {}

  async create(_ctx: Context, id: string, defaults: object): Promise<DataStore> {
    await mkdir(this.directory, { recursive: true });
    const engine = new SerialFileEngine(path.join(this.directory, `${id}.json`));
    const db = new StormDB(engine as unknown as ConstructorParameters<typeof StormDB>[0]);
    db.default(defaults);
    await db.save();
    return new StormDBDataStore(db);
  }
}
