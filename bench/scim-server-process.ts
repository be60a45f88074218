/**
 * A SCIM server of the provisioning bench in a process of its own (as a platform is: never in
 * the worker's process, where it would share one event loop with the worker it serves). Started
 * with child_process.fork; options as JSON in argv[2]; answers the parent's 'stats', 'users' and
 * 'reset' messages; prints nothing.
 */
import { startScimServer, type ScimServerOptions } from '../bin/local/scim-server';

const options = JSON.parse(process.argv[2] ?? '{}') as ScimServerOptions;
const server = await startScimServer(options);
process.on('message', (message: { id: number; command: 'stats' | 'users' | 'reset' | 'stop' }) => {
  const reply = (value: unknown) => process.send?.({ id: message.id, value });
  if (message.command === 'stats') reply(server.stats());
  else if (message.command === 'users') reply(server.users());
  else if (message.command === 'reset') reply(server.reset());
  else if (message.command === 'stop') void server.stop().then(() => (reply(null), process.exit(0)));
});
process.send?.({ id: 0, value: server.url });
