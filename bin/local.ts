/**
 * `npm start`: the whole product on this machine, on loopback, with no AWS account: emulators of
 * DynamoDB, S3, SQS (plus pollers that invoke the workers), SES (with its mail viewer) and Cognito,
 * a local SCIM 2.0 directory, the local API gateway serving the shared route table with the
 * Lambda handlers, and Vite.
 */
import './local/log-level';
import path from 'node:path';
import { assertOutsideTestPorts, portsFromEnv, projectRoot } from './local/settings';
import { ensureSystemPackages } from './ensure-system-packages';

const began = performance.now();
const dataDir = path.resolve(projectRoot, process.env.LOCAL_DATA_DIR ?? '.local-data');
/** What is starting, as it starts: the banner comes only when everything answers (15-25 s on a fresh start). */
const progress = (message: string) => console.log(message);

try {
  const ports = portsFromEnv(process.env);
  assertOutsideTestPorts(ports);
  // A fresh machine may lack Java (DynamoDB Local): install it as root, or say how.
  ensureSystemPackages(['java']);
  progress('Loading the API handlers and emulators...');
  // Imported here, not at the top, so the line above shows while the handlers load.
  const { startLocalStack } = await import('./local/stack');
  const stack = await startLocalStack({
    progress,
    ports,
    dataDir,
    persistDynamoDb: true,
    web: process.env.LOCAL_WEB === 'static' ? 'static' : 'vite',
    logRequests: process.env.LOG_REQUESTS !== 'false',
  });
  stack.cognito.onCode((email, code) => console.log(`\n  Cognito code for ${email}: ${code}\n`));

  console.log(`
BulkOnboard is running locally (ready in ${((performance.now() - began) / 1000).toFixed(1)} s)

  App (web + /api)   ${stack.urls.app}
  Mail viewer        ${stack.urls.mailViewer}
  DynamoDB Local     ${stack.urls.dynamodb}
  S3 (s3rver)        ${stack.urls.s3}
  SQS                ${stack.urls.sqs}
  Cognito            ${stack.urls.cognito}  (pool ${stack.userPool.userPoolId})
  SCIM directory     ${stack.scim.url}  (each user's card opens their own tenant; the operator's token is in ${path.relative(process.cwd(), path.join(dataDir, 'scim-token'))})
  Data folder        ${path.relative(process.cwd(), dataDir) || '.'}

Sign-up and password-reset codes are printed here as "Cognito code for <e-mail>: <code>"
and e-mailed to the mail viewer.
Press Ctrl-C to stop.
`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack...`);
    await stack.stop();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGHUP', () => void shutdown('SIGHUP'));
} catch (error) {
  console.error(`\n${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
