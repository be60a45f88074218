/**
 * Setup file of the integration and e2e projects: points a test file at the stack of the worker
 * it runs in. Their global setups start one stack per worker (test/support/test-stack.ts); vitest
 * numbers its running workers 1 to maxWorkers (VITEST_POOL_ID), so two files that run at once
 * never share a stack. `inject('stack')` then answers this worker's stack, and process.env holds
 * its settings (table, queues, endpoints, key file) for test code that calls the app's modules,
 * as when the stack ran in the vitest process itself.
 */
import { inject } from 'vitest';

const lane = Number(process.env.VITEST_POOL_ID ?? '1');
const stacks = inject('stacks');
const mine = stacks[lane - 1];
if (!mine) throw new Error(`Test worker ${lane} has no test stack: the global setup started ${stacks.length} (one per worker)`);
// inject() hands out the worker's own copy of the provided context: give 'stack' this lane's values.
Object.assign(inject('stack'), mine);
if (inject('stack').urls.app !== mine.urls.app) throw new Error("inject('stack') could not be pointed at this worker's stack");
for (const key of mine.env.unset) delete process.env[key];
Object.assign(process.env, mine.env.set);
