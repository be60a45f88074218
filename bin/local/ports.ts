import net from 'node:net';
import { HOST, portNames, portVariableOf, type LocalPorts } from './settings';

const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });

/** Every port the stack needs must be free; otherwise say which one and how to move it. */
export async function assertPortsFree(ports: LocalPorts): Promise<void> {
  const taken: string[] = [];
  for (const [name, port] of Object.entries(ports) as [keyof LocalPorts, number][]) {
    // DynamoDB Local binds every interface, so check the wildcard address for it too.
    if (!(await isFree(port))) {
      taken.push(`  port ${port} (${portNames[name]}) is already in use: stop what uses it, or set ${portVariableOf(name)}=<port> (or LOCAL_PORT_OFFSET=<n> to move all ports)`);
    }
  }
  if (taken.length > 0) throw new Error(`Cannot start the local stack:\n${taken.join('\n')}`);
}

/**
 * Resolves once something accepts TCP connections on the port.
 *
 * A port in the kernel's ephemeral range (32768-60999 on Linux: the bench's and shifted test
 * ports) can be picked as the source port of our own probe while nothing listens yet: the socket
 * then connects to itself ("TCP simultaneous open") and holds the port, so the emulator we wait
 * for fails to bind it (EADDRINUSE). Such a connection is no answer: drop it at once and look
 * again (the emulators bind with SO_REUSEADDR, so the leftover TIME-WAIT does not stop them).
 */
export async function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host: HOST });
      socket.once('connect', () => {
        const toItself = socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress;
        socket.destroy();
        resolve(!toItself);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start on port ${port} within ${timeoutMs / 1000} s`);
}
