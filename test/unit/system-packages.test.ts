import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { javaMajorVersion, planSystemPackages } from '../../bin/system-packages';

const root = { isRoot: true, hasAptGet: true };

describe('planSystemPackages: what a fresh machine lacks, and what to do about it', () => {
  it('does nothing when everything is there', () => {
    expect(planSystemPackages({ missing: [], isRoot: false, hasAptGet: false })).toEqual({ kind: 'ready' });
  });

  it('installs what is missing with apt-get when running as root (a fresh CI machine)', () => {
    const plan = planSystemPackages({ missing: ['java', 'chromium'], ...root });
    expect(plan).toMatchObject({
      kind: 'install',
      packages: ['openjdk-17-jre-headless', 'chromium'],
      commands: [
        ['apt-get', 'update'],
        ['apt-get', 'install', '-y', '--no-install-recommends', 'openjdk-17-jre-headless', 'chromium'],
      ],
    });
    expect(planSystemPackages({ missing: ['chromium'], ...root })).toMatchObject({ kind: 'install', packages: ['chromium'] });
  });

  it("installs slapd (the LDAP provisioning tests' directory) like the others", () => {
    expect(planSystemPackages({ missing: ['slapd'], ...root })).toMatchObject({
      kind: 'install',
      packages: ['slapd'],
      commands: [
        ['apt-get', 'update'],
        ['apt-get', 'install', '-y', '--no-install-recommends', 'slapd'],
      ],
    });
  });

  it('stops with the exact command when it cannot install (not root)', () => {
    const plan = planSystemPackages({ missing: ['java'], isRoot: false, hasAptGet: true });
    expect(plan.kind).toBe('stop');
    expect(plan.kind === 'stop' && plan.message).toContain('Java 17 or newer');
    expect(plan.kind === 'stop' && plan.message).toContain('sudo apt-get update && sudo apt-get install -y --no-install-recommends openjdk-17-jre-headless');
  });

  it('names the packages when there is no apt-get', () => {
    const plan = planSystemPackages({ missing: ['java', 'chromium'], isRoot: true, hasAptGet: false });
    expect(plan).toEqual({
      kind: 'stop',
      message: expect.stringContaining("Install them with your system's package manager (Debian/Ubuntu: openjdk-17-jre-headless chromium)"),
    });
  });

  it('never installs over a CHROMIUM_PATH that points nowhere: says so', () => {
    const plan = planSystemPackages({ missing: ['chromium'], ...root, chromiumPath: '/opt/nowhere/chrome' });
    expect(plan).toEqual({ kind: 'stop', message: expect.stringContaining('CHROMIUM_PATH is /opt/nowhere/chrome, but there is no browser there') });
  });

  it('reads the Java major version from java -version', () => {
    expect(javaMajorVersion('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(javaMajorVersion('java version "1.8.0_402"')).toBe(8);
    expect(javaMajorVersion('openjdk version "21" 2023-09-19')).toBe(21);
    expect(javaMajorVersion('bash: java: command not found')).toBeUndefined();
  });
});

describe('bin/ensure-system-packages.ts', () => {
  const script = path.join(import.meta.dirname, '..', '..', 'bin', 'ensure-system-packages.ts');
  // The system's Node (20) when present, as on a fresh machine before npm brings Node 24.
  const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => spawnSync(p, ['--version']).status === 0) ?? process.execPath;

  it('is silent and succeeds when Java is there, also on the system Node', () => {
    const result = spawnSync(systemNode, ['--import', 'tsx', script, 'java'], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  });

  it('stops at once, exit 1, with what to do', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', script, 'java', 'chromium'], {
      encoding: 'utf8',
      env: { ...process.env, CHROMIUM_PATH: '/opt/nowhere/chrome' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('CHROMIUM_PATH is /opt/nowhere/chrome, but there is no browser there');
  });

  it('refuses an unknown need', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', script, 'slapd-typo'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('unknown need slapd-typo (known: java, chromium, slapd)');
  });
});
