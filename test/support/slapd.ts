import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SLAPADD, SLAPD } from '../../bin/system-packages';

/**
 * A real OpenLDAP server (Debian's slapd) for the LDAP provisioning tests: a temporary folder with
 * a generated slapd.conf and an mdb database loaded with slapadd, listening on loopback only (a
 * plain ldap:// port and, with `tls`, an ldaps:// port on a self-signed certificate made with
 * openssl). `.ci/run` installs slapd (bin/ensure-system-packages.ts slapd).
 */
export interface Slapd {
  url: string;
  /** ldaps:// URL when started with tls. */
  secureUrl?: string;
  /** The certificate of the ldaps:// port (PEM), for the client's CA. */
  certificate?: string;
  suffix: string;
  rootDn: string;
  rootPassword: string;
  stop(): Promise<void>;
}

export interface SlapdOptions {
  port: number;
  /** Also listen on port + 1 with ldaps:// (self-signed certificate for 127.0.0.1). */
  tls?: boolean;
  /** Extra schema files (slapd.conf syntax) after core, cosine and inetorgperson. */
  schemas?: string[];
  /** LDIF added after the suffix and ou=People (e.g. a user with read rights only). */
  ldif?: string;
  /** Close connections idle this long (slapd's idletimeout), as directories do. */
  idleTimeoutSeconds?: number;
  /**
   * Load the password policy overlay (slapo-ppolicy) with a default policy entry
   * (cn=default,ou=Policies): pwdAccountLockedTime locks an account, pwdReset asks for a new
   * password. Its schema is built into the module in OpenLDAP 2.5.
   */
  ppolicy?: boolean;
}

const SCHEMA_DIR = '/etc/ldap/schema';
const MODULE_DIR = '/usr/lib/ldap';

const waitForPort = async (port: number, child: ChildProcess, log: () => string) => {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`slapd exited (${child.exitCode}):\n${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`slapd did not listen on ${port} within 10 s:\n${log()}`);
};

export async function startSlapd(options: SlapdOptions): Promise<Slapd> {
  if (!fs.existsSync(SLAPD) || !fs.existsSync(SLAPADD)) {
    throw new Error('slapd is not installed: run `sudo apt-get install -y slapd` (or `npx tsx bin/ensure-system-packages.ts slapd` as root).');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slapd-test-'));
  fs.mkdirSync(path.join(dir, 'data'));
  const suffix = 'dc=example,dc=org';
  const rootDn = `cn=admin,${suffix}`;
  const rootPassword = 'admin-secret';
  let certificate: string | undefined;
  const tlsLines: string[] = [];
  if (options.tls) {
    const made = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
    certificate = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    tlsLines.push(`TLSCertificateFile ${path.join(dir, 'cert.pem')}`, `TLSCertificateKeyFile ${path.join(dir, 'key.pem')}`);
  }
  const conf = [
    ...['core', 'cosine', 'inetorgperson'].map((name) => `include ${SCHEMA_DIR}/${name}.schema`),
    ...(options.schemas ?? []).map((file) => `include ${file}`),
    `pidfile ${path.join(dir, 'slapd.pid')}`,
    `modulepath ${MODULE_DIR}`,
    'moduleload back_mdb',
    ...(options.ppolicy ? ['moduleload ppolicy'] : []),
    ...tlsLines,
    ...(options.idleTimeoutSeconds ? [`idletimeout ${options.idleTimeoutSeconds}`] : []),
    'database mdb',
    'maxsize 10485760',
    `suffix "${suffix}"`,
    `rootdn "${rootDn}"`,
    `rootpw ${rootPassword}`,
    `directory ${path.join(dir, 'data')}`,
    ...(options.ppolicy ? ['overlay ppolicy', `ppolicy_default "cn=default,ou=Policies,${suffix}"`] : []),
    // Anyone bound may read; only the root DN writes (slapd's default, said out loud).
    'access to * by * read',
    '',
  ].join('\n');
  const confFile = path.join(dir, 'slapd.conf');
  fs.writeFileSync(confFile, conf);
  const ldif = [
    `dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
    `dn: ou=People,${suffix}\nobjectClass: organizationalUnit\nou: People\n`,
    ...(options.ppolicy
      ? [
          `dn: ou=Policies,${suffix}\nobjectClass: organizationalUnit\nou: Policies\n`,
          `dn: cn=default,ou=Policies,${suffix}\nobjectClass: organizationalRole\nobjectClass: pwdPolicy\ncn: default\npwdAttribute: userPassword\npwdLockout: TRUE\n`,
        ]
      : []),
    options.ldif ?? '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'base.ldif'), ldif);
  const loaded = spawnSync(SLAPADD, ['-f', confFile, '-l', path.join(dir, 'base.ldif')], { encoding: 'utf8' });
  if (loaded.status !== 0) throw new Error(`slapadd failed: ${loaded.stderr}`);

  const url = `ldap://127.0.0.1:${options.port}`;
  const secureUrl = options.tls ? `ldaps://127.0.0.1:${options.port + 1}` : undefined;
  let log = '';
  // -d 0: stays in the foreground (a child this process can stop), logging nothing but errors.
  const child = spawn(SLAPD, ['-f', confFile, '-h', [url, secureUrl].filter(Boolean).join(' '), '-d', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(options.port, child, () => log);
    if (options.tls) await waitForPort(options.port + 1, child, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, ...(secureUrl ? { secureUrl } : {}), ...(certificate ? { certificate } : {}), suffix, rootDn, rootPassword, stop };
}
