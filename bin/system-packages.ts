/**
 * What the README's two commands need from the machine beyond Node, and what to do when it is
 * missing: install it (root with apt-get, as on a fresh CI machine) or stop at once with the exact
 * command to run. The decision is a pure function (planSystemPackages), the probing and the
 * installing are in bin/ensure-system-packages.ts.
 */
export type SystemNeed = 'java' | 'chromium' | 'slapd';

export const systemNeeds: Record<SystemNeed, { what: string; debianPackage: string }> = {
  java: { what: 'Java 17 or newer (DynamoDB Local runs on it)', debianPackage: 'openjdk-17-jre-headless' },
  chromium: { what: 'Chromium at /usr/bin/chromium (the browser tests drive it)', debianPackage: 'chromium' },
  slapd: { what: "OpenLDAP's slapd (the LDAP provisioning tests run a real directory)", debianPackage: 'slapd' },
};

/** Where Debian's slapd package puts the server and its offline loader (test/support/slapd.ts runs them). */
export const SLAPD = '/usr/sbin/slapd';
export const SLAPADD = '/usr/sbin/slapadd';

export const isSystemNeed = (name: string): name is SystemNeed => Object.hasOwn(systemNeeds, name);

export interface SystemFacts {
  /** Needs that are not met, in the order asked for. */
  missing: SystemNeed[];
  /** Running as root (uid 0): apt-get can install. */
  isRoot: boolean;
  /** apt-get is on the PATH (Debian, Ubuntu). */
  hasAptGet: boolean;
  /** CHROMIUM_PATH, when set: a browser of the user's choosing, which no package installs. */
  chromiumPath?: string;
}

export type SystemPlan =
  | { kind: 'ready' }
  | { kind: 'install'; packages: string[]; commands: string[][]; message: string }
  | { kind: 'stop'; message: string };

const aptCommands = (packages: string[]) => [
  ['apt-get', 'update'],
  ['apt-get', 'install', '-y', '--no-install-recommends', ...packages],
];

export function planSystemPackages(facts: SystemFacts): SystemPlan {
  const { missing } = facts;
  if (missing.length === 0) return { kind: 'ready' };
  const list = missing.map((need) => `  - ${systemNeeds[need].what}`).join('\n');

  if (facts.chromiumPath && missing.includes('chromium')) {
    return {
      kind: 'stop',
      message: `CHROMIUM_PATH is ${facts.chromiumPath}, but there is no browser there. Point it at a Chromium, or unset it to use /usr/bin/chromium (apt-get install -y chromium).`,
    };
  }
  const packages = missing.map((need) => systemNeeds[need].debianPackage);
  const commands = aptCommands(packages);
  if (facts.isRoot && facts.hasAptGet) {
    return { kind: 'install', packages, commands, message: `This machine lacks:\n${list}\nInstalling ${packages.join(' ')} from the distribution's packages.` };
  }
  const howTo = facts.hasAptGet
    ? `Install with:\n  ${commands.map((c) => `sudo ${c.join(' ')}`).join(' && ')}`
    : `Install ${missing.length > 1 ? 'them' : 'it'} with your system's package manager (Debian/Ubuntu: ${packages.join(' ')}), then run this again.`;
  return { kind: 'stop', message: `This machine lacks:\n${list}\n${howTo}` };
}

/** The major version in `java -version` output ("17.0.15", "1.8.0_402", "21"), or undefined. */
export function javaMajorVersion(output: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(output);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}
