import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { workerRetry, type RetryPolicy } from '../core/dynamo-retry';
import { logger } from '../core/logger';
import { deleteObject, putObject, s3LinkSigner, type S3LinkSigner } from '../core/s3-links';
import type { ExportFiles } from './export-files';

export interface ExportUploadOptions {
  /** Where a file is written before it is sent: `os.tmpdir()` itself unless given (tests), so no folder of ours is left there. */
  directory?: string;
  /** Retries of the PUT and of a removal: the worker's (60 s, within the invocation's time left). */
  policy?: RetryPolicy;
  /** A PUT's attempt without progress this long is sent again (s3-links.ts, PUT_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

/**
 * A file older than this in the directory belongs to no running upload: no invocation lives
 * longer than Lambda's 15 minutes. What `finally` cannot remove (an invocation cut off by its
 * timeout; /tmp may outlive it in the same execution environment) is removed by the next upload.
 */
const STALE_MS = 15 * 60_000;

/** An export's temporary file: `<prefix><uuid>.part`, straight in the directory (the sweep takes only these). */
const FILE_PREFIX = 'bulkonboard-export-';

/** The files this process is writing or sending (never swept). */
const live = new Set<string>();

/**
 * Export files stored in the export bucket without the S3 client (issue 29, item 5: the client,
 * lib-storage and their checksum and XML packages were ~140 KB of the export worker's bundle).
 *
 * The export is written to a temporary file first, then sent with ONE presigned PUT
 * (`putObject`, core/s3-links.ts) of its known size: a plain PUT needs the length up front, which a
 * generated stream does not have, and a multipart upload over presigned URLs would be a hand-made
 * S3 client. One PUT takes up to 5 GB; an export is far below (docs/deploy.md: the worker's 2 GiB of
 * /tmp). Memory stays small: the file is written and read in 64 KB chunks, never held whole. The
 * file holds decrypted passwords: readable by this process's user only (0600), on Lambda's
 * encrypted /tmp, and removed in `finally` whatever happens (written, sent, failed or stopped).
 */
export function s3Uploads(bucket: string, signer: S3LinkSigner = s3LinkSigner(), options: ExportUploadOptions = {}): Pick<ExportFiles, 'upload' | 'remove'> {
  const directory = options.directory ?? tmpdir();
  const policy = options.policy ?? workerRetry;
  return {
    remove: (key) => deleteObject(signer, bucket, key, policy),
    upload({ key, body, contentType, contentDisposition }) {
      const stopping = new AbortController();
      let phase: 'writing' | 'sending' | 'over' = 'writing';
      let running: Promise<void> | undefined;
      // The body may fail before the write takes it (while the directory is made and swept): that
      // error is kept for the write, not thrown into the process as an 'error' nobody listens to.
      let early: unknown;
      const onEarly = (error: unknown) => {
        early ??= error;
      };
      body.on('error', onEarly);
      const run = async () => {
        await mkdir(directory, { recursive: true });
        await sweep(directory);
        const file = path.join(directory, `${FILE_PREFIX}${randomUUID()}.part`);
        live.add(file);
        try {
          body.off('error', onEarly);
          if (early !== undefined) throw early;
          await pipeline(body, createWriteStream(file, { flags: 'wx', mode: 0o600 }), { signal: stopping.signal });
          const { size } = await stat(file);
          phase = 'sending';
          await putObject(signer, { bucket, key, contentType, contentDisposition }, { open: () => createReadStream(file), size }, { policy, signal: stopping.signal, idleTimeoutMs: options.idleTimeoutMs });
        } finally {
          phase = 'over';
          live.delete(file);
          await rm(file, { force: true });
        }
      };
      return {
        done: () => (running ??= stopping.signal.aborted ? Promise.reject(stopping.signal.reason as Error) : run()),
        async abort() {
          if (stopping.signal.aborted || phase === 'over') return;
          const cutMidPut = phase === 'sending';
          stopping.abort();
          // Stopped: the write or the PUT rejects with an AbortError, and the temporary file is gone.
          await running?.catch(() => undefined);
          // A PUT cut after S3 had the whole body may still have stored it: nothing is left at the key.
          if (cutMidPut) await deleteObject(signer, bucket, key, policy);
        },
      };
    },
  };
}

/** Removes what earlier uploads left behind (see STALE_MS); a file another process removed meanwhile is skipped. */
async function sweep(directory: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(directory)) {
    const file = path.join(directory, name);
    if (!name.startsWith(FILE_PREFIX) || !name.endsWith('.part') || live.has(file)) continue;
    try {
      if (now - (await stat(file)).mtimeMs < STALE_MS) continue;
      await rm(file, { force: true });
      logger.warn('Removed an export file left in the temporary directory', { file });
    } catch {
      // Gone already.
    }
  }
}
