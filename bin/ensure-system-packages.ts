/**
 * What `npm test` and `npm start` run first, so the README's two commands work on a fresh machine:
 * installs what is missing when it can (root with apt-get), otherwise stops at once with the
 * exact command to run. Silent when all is there. As a script (`tsx bin/ensure-system-packages.ts
 * java chromium slapd`) it also runs on the system's Node (20 or newer), before the project's own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSystemNeed, javaMajorVersion, planSystemPackages, SLAPADD, SLAPD, systemNeeds, type SystemFacts, type SystemNeed } from './system-packages';

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

function isMet(need: SystemNeed): boolean {
  if (need === 'chromium') return fs.existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
  if (need === 'slapd') return fs.existsSync(SLAPD) && fs.existsSync(SLAPADD);
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) return false;
  return (javaMajorVersion(`${java.stderr}${java.stdout}`) ?? 0) >= 17;
}

function facts(needs: SystemNeed[]): SystemFacts {
  return {
    missing: needs.filter((need) => !isMet(need)),
    isRoot: process.getuid?.() === 0,
    hasAptGet: onPath('apt-get'),
    ...(process.env.CHROMIUM_PATH ? { chromiumPath: process.env.CHROMIUM_PATH } : {}),
  };
}

/** Meets the needs or throws an Error whose message says what to do. */
export function ensureSystemPackages(needs: SystemNeed[]): void {
  const plan = planSystemPackages(facts(needs));
  if (plan.kind === 'ready') return;
  if (plan.kind === 'stop') throw new Error(plan.message);
  console.log(plan.message);
  for (const [command, ...args] of plan.commands) {
    const result = spawnSync(command!, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      throw new Error(`${[command, ...args].join(' ')} failed (exit ${result.status ?? result.signal}). Run it yourself, then this again.`);
    }
  }
  const after = planSystemPackages(facts(needs));
  if (after.kind !== 'ready') throw new Error(`Installed ${plan.packages.join(' ')}, but:\n${after.message}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !isSystemNeed(name));
  if (unknown.length) {
    console.error(`ensure-system-packages: unknown need ${unknown.join(', ')} (known: ${Object.keys(systemNeeds).join(', ')})`);
    process.exit(2);
  }
  try {
    ensureSystemPackages(names.filter(isSystemNeed));
  } catch (error) {
    console.error(`\n${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
