import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { startDynamoDb } from '../../bin/local/emulators';
import { DYNAMODB_START_PROBE_PORT_GAP } from '../support/test-stack';

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
    const port = Number(new URL(inject('stack').urls.dynamodb).port) + DYNAMODB_START_PROBE_PORT_GAP;
    // A JVM does not start in 1 ms: the start gives up.
    await expect(startDynamoDb(port, undefined, 1)).rejects.toThrow(/did not start on port/);
    // Left running, it would open the port within seconds; killed, it never does.
    await new Promise((r) => setTimeout(r, 15_000));
    expect(await accepts(port)).toBe(false);
    // And the next start on that port works.
    const dynamodb = await startDynamoDb(port, undefined);
    expect(await accepts(port)).toBe(true);
    await dynamodb.stop();
  });
});
