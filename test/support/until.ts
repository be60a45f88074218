/**
 * Polls `read` until `done` holds and answers that value, or fails at the deadline with what it
 * waited for and the last value read (tests wait for state, never for a fixed time).
 */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 120_000, every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
