import { createRequire } from 'node:module';
import { PassThrough, type Writable } from 'node:stream';
import type * as Archiver from 'archiver';

/**
 * archiver (with its zip and stream packages, ~350 KB minified: a third of the export worker's
 * bundle) ships in the export worker's Lambda layer (lib/package-layer.ts) and is loaded on the
 * first zipped export only (Export All Data, an xlsx); csv and json exports (and cold starts) never
 * load it. `require` resolves it through Lambda's NODE_PATH, and through node_modules locally.
 */
let archiver: typeof Archiver | undefined;
const loadArchiver = (): typeof Archiver => (archiver ??= createRequire(import.meta.url)('archiver') as typeof Archiver);

export interface ZipOutput {
  /** A small entry, whole. */
  text(name: string, content: string): void;
  /**
   * One streamed entry: `fill` writes it with backpressure (output-stream.ts `write`) and ends it;
   * the zip takes it only as fast as it compresses and `out` takes the result, so a full buffer
   * anywhere down to `out` makes `fill` wait.
   */
  streamed(name: string, fill: (entry: Writable) => Promise<unknown>): Promise<void>;
  /** Writes the zip's directory, then waits until `out` has taken everything. */
  finish(): Promise<void>;
}

/** A zip written into `out` entry after entry (each dated `now`), with backpressure from `out`. */
export function zipOutput(out: Writable, now: Date, level = 6): ZipOutput {
  const zip = new (loadArchiver().ZipArchive)({ zlib: { level } });
  const failed = new Promise<never>((_, reject) => {
    zip.on('error', reject);
    zip.on('warning', reject);
  });
  failed.catch(() => undefined);
  zip.pipe(out);
  const whenFinished = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    out.on('close', () => (out.writableFinished ? resolve() : reject(out.errored ?? new Error('The output stream was closed'))));
  });
  whenFinished.catch(() => undefined);
  return {
    text: (name, content) => zip.append(Buffer.from(content, 'utf8'), { name, date: now }),
    async streamed(name, fill) {
      const entry = new PassThrough({ highWaterMark: 1024 * 1024 });
      zip.append(entry, { name, date: now });
      await Promise.race([fill(entry), failed]);
    },
    async finish() {
      await Promise.race([zip.finalize(), failed]);
      await Promise.race([whenFinished, failed]);
    },
  };
}
