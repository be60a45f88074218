import type { Writable } from 'node:stream';

/** Resolves once `out` wants more data; rejects if it fails or is closed first (never hangs). */
export function drained(out: Writable): Promise<void> {
  if (!out.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (out.destroyed) {
      reject(out.errored ?? new Error('The output stream was closed'));
      return;
    }
    const cleanup = () => {
      out.off('drain', onDrain);
      out.off('error', onError);
      out.off('close', onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(out.errored ?? new Error('The output stream was closed'));
    };
    out.on('drain', onDrain);
    out.on('error', onError);
    out.on('close', onClose);
  });
}

/** Writes with backpressure: waits for the reader whenever the stream's buffer is full. */
export async function write(out: Writable, chunk: string | Buffer): Promise<void> {
  if (!out.write(chunk)) await drained(out);
}

/** Ends the stream and waits until everything written has been taken in. */
export function end(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    out.end((error?: Error | null) => (error ? reject(error) : resolve()));
  });
}
