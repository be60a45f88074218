/// <reference types="vite/client" />
/**
 * The longest any progress poll of the app waits (a background job, an export), when the build
 * says so: `VITE_POLL_MAX_MS`, set only by the e2e tests' build (test/e2e/global-setup.ts), where
 * a screen waiting on a job should see its end within a second instead of within the up to 5 s a
 * long job's polls slow down to. Unset (every deployed build): each poll keeps its own interval.
 */
export function pollCap(ms: number): number {
  const cap = Number(import.meta.env.VITE_POLL_MAX_MS);
  return Number.isFinite(cap) && cap > 0 ? Math.min(ms, cap) : ms;
}
