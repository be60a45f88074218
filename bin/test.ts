/**
 * `npm test`: every check, in the order that keeps two cores busy. First the system packages
 * (bin/ensure-system-packages.ts); then the type check and lint beside the unit and infra tests
 * (the compilers use one core, the tests mostly the other); then the integration and e2e tests
 * (each file against a test stack of its own worker: test/support/test-stack.ts). Stops after a
 * stage with a failure, as `a && b` would, and prints each step's time at the end.
 *
 * Every step gets a temp folder of this run's own (TMPDIR, which os.tmpdir() and the tools it
 * starts read): whatever is left in it at the end fails the run, named, and is removed, so a run
 * leaves the machine's temp folder as it found it and a test that leaks files is caught at once,
 * even with a second `npm test` beside it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from './local/settings';

const runTemp = fs.mkdtempSync(path.join(os.tmpdir(), 'bulkonboard-test-'));
/** TMPDIR for Node and the tools that read it; java.io.tmpdir for the JVMs (DynamoDB Local unpacks its SQLite library there). */
const runEnv = { ...process.env, TMPDIR: runTemp, JAVA_TOOL_OPTIONS: `${process.env.JAVA_TOOL_OPTIONS ?? ''} -Djava.io.tmpdir=${runTemp}`.trim() };
/**
 * Caches kept on purpose between runs in the machine's temp folder (tsx's transform cache, Node's
 * compile cache): linked into the run's folder so the run still uses them, and not counted as left.
 */
const sharedCaches = [`tsx-${os.userInfo().uid}`, 'node-compile-cache'];
for (const cache of sharedCaches) {
  fs.mkdirSync(path.join(os.tmpdir(), cache), { recursive: true });
  fs.symlinkSync(path.join(os.tmpdir(), cache), path.join(runTemp, cache));
}
const removeRunTemp = () => fs.rmSync(runTemp, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    removeRunTemp();
    process.exit(130);
  });
}

interface Step {
  name: string;
  command: string[];
  /** Print the output when the step ends (a step that runs beside others), else as it comes. */
  buffered?: boolean;
}

const stages: Step[][] = [
  [{ name: 'system packages', command: ['tsx', 'bin/ensure-system-packages.ts', 'java', 'chromium', 'slapd'] }],
  [
    { name: 'typecheck', command: ['npm', 'run', '--silent', 'typecheck'], buffered: true },
    { name: 'lint', command: ['npm', 'run', '--silent', 'lint'], buffered: true },
    { name: 'unit and infra tests', command: ['vitest', 'run', '--project', 'unit', '--project', 'infra'] },
  ],
  [{ name: 'integration tests', command: ['vitest', 'run', '--project', 'integration'] }],
  [{ name: 'e2e tests', command: ['vitest', 'run', '--project', 'e2e'] }],
];

interface Result {
  name: string;
  ok: boolean;
  seconds: number;
}

function run(step: Step): Promise<Result> {
  const started = Date.now();
  return new Promise((resolve) => {
    // npm puts node_modules/.bin on the PATH of its scripts: tsx, vitest and the project's Node.
    const child = spawn(step.command[0]!, step.command.slice(1), { cwd: projectRoot, env: runEnv, stdio: step.buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const output: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    let finished = false;
    const finish = (ok: boolean, note = '') => {
      if (finished) return;
      finished = true;
      const seconds = (Date.now() - started) / 1000;
      if (step.buffered || !ok) process.stdout.write(`\n[${step.name}] ${ok ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s${note}\n`);
      if (output.length > 0) process.stdout.write(Buffer.concat(output));
      resolve({ name: step.name, ok, seconds });
    };
    child.once('error', (error) => finish(false, `: ${error.message}`));
    child.once('close', (code, signal) => finish(code === 0, code === 0 ? '' : ` (${signal ?? `exit code ${code}`})`));
  });
}

const results: Result[] = [];
let failed = false;
for (const stage of stages) {
  results.push(...(await Promise.all(stage.map(run))));
  failed = results.some((r) => !r.ok);
  if (failed) break;
}

const left = fs
  .readdirSync(runTemp, { withFileTypes: true })
  .filter((entry) => !sharedCaches.includes(entry.name))
  .map((entry) => `${entry.name}${entry.isDirectory() ? '/' : ''}`);
removeRunTemp();
if (left.length > 0) {
  process.stdout.write(`\n[temp folder] FAILED: the tests left ${left.length} entries in the temp folder (removed now):\n  ${left.slice(0, 20).join('\n  ')}\n`);
  results.push({ name: 'temp folder left as found', ok: false, seconds: 0 });
  failed = true;
} else {
  results.push({ name: 'temp folder left as found', ok: true, seconds: 0 });
}
process.stdout.write(`\n${results.map((r) => `${r.ok ? 'passed' : 'FAILED'}  ${r.seconds.toFixed(0).padStart(4)} s  ${r.name}`).join('\n')}\n`);
process.exit(failed ? 1 : 0);
