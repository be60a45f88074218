import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { startDynamoDb } from '../../bin/local/emulators';
import { DYNAMODB_START_PROBE_PORT_GAP } from '../support/test-stack';
import { until } from '../support/until';

/** The processes whose command line asks DynamoDB Local for this port (read from /proc). */
const jvmsOn = (port: number): number[] =>
  fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args.includes('DynamoDBLocal.jar') || args.some((a) => a.endsWith('DynamoDBLocal.jar')) ? (args[args.indexOf('-port') + 1] === String(port) ? [Number(pid)] : []) : [];
    } catch {
      return []; // ended while being read
    }
  });

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('DynamoDB Local that does not start in time', () => {
  it('is killed, so the port is free for the next start', async () => {
    const stackPort = Number(new URL(inject('stack').urls.dynamodb).port);
    const port = stackPort + DYNAMODB_START_PROBE_PORT_GAP;
    // The probe finds a running JVM: the stack's own.
    expect(jvmsOn(stackPort)).toHaveLength(1);
    // A JVM does not start in 1 ms: the start gives up.
    await expect(startDynamoDb(port, undefined, 1)).rejects.toThrow(/did not start on port/);
    // Left running, it would open the port within seconds; killed, its process is gone (SIGKILL
    // ends it as soon as the kernel reaps it) and never opens the port.
    await until('the JVM given up on to end', async () => jvmsOn(port), (pids) => pids.length === 0, 10_000);
    expect(await accepts(port)).toBe(false);
    // And the next start on that port works.
    const dynamodb = await startDynamoDb(port, undefined);
    expect(await accepts(port)).toBe(true);
    await dynamodb.stop();
  });
});
