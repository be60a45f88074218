import './log-level';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { AppConfig } from '../../shared/app-config';
import { queues, queueUrlEnv, type WorkerName } from '../../shared/routes';
import { createLocalCheckout } from './local-checkout';
import { sesMailer } from '../../functions/mail/ses-mailer';
import { endpoints, ensureBucket, ensureTable, ensureUserPool, localCredentials, queueUrls, type UserPoolIds } from './bootstrap';
import { startCognito, startDynamoDb, startS3, startSes, startSqs, type CognitoEmulator, type SesEmulator, type Stoppable } from './emulators';
import { startSesEventPublisher } from './ses-events';
import { cognitoEmail, cognitoFromAddress } from './cognito-messages';
import { cognitoAccessTokenVerifier, createGateway } from './gateway';
import { COGNITO_TRIGGER_FUNCTION } from './lambda-invoke';
import { startPoller, type Delivery } from './poller';
import { startSchedules } from './schedules';
import { startScimServer } from './scim-server';
import { assertPortsFree } from './ports';
import { HOST, REGION, projectRoot, resourceNames, type LocalPorts } from './settings';
import { staticWeb } from './static-web';

type WorkerModule = { handler: (...args: never[]) => unknown };
/** Queue workers, loaded on first message like a Lambda cold start. */
const workerModules: Record<WorkerName, () => Promise<WorkerModule>> = {
  'mail-worker': () => import('../../functions/workers/mail-worker'),
  'bulk-worker': () => import('../../functions/workers/bulk-worker'),
  'mail-dead-letter-worker': () => import('../../functions/workers/mail-dead-letter-worker'),
  'bulk-dead-letter-worker': () => import('../../functions/workers/bulk-dead-letter-worker'),
  'export-dead-letter-worker': () => import('../../functions/workers/export-dead-letter-worker'),
  'export-worker': () => import('../../functions/workers/export-worker'),
  'provisioning-worker': () => import('../../functions/workers/provisioning-worker'),
  'provisioning-dead-letter-worker': () => import('../../functions/workers/provisioning-dead-letter-worker'),
  'mail-events-worker': () => import('../../functions/workers/mail-events-worker'),
  'account-deletion-worker': () => import('../../functions/workers/account-deletion-worker'),
  'account-deletion-dead-letter-worker': () => import('../../functions/workers/account-deletion-dead-letter-worker'),
  'bulk-upload-worker': () => import('../../functions/workers/bulk-upload-worker'),
  'bulk-upload-dead-letter-worker': () => import('../../functions/workers/bulk-upload-dead-letter-worker'),
};

export interface LocalStackOptions {
  ports: LocalPorts;
  /** Folder for persistent data (DynamoDB, S3 objects, Cognito, keys). */
  dataDir: string;
  /** Keep DynamoDB on disk (npm start) or in memory (tests). */
  persistDynamoDb: boolean;
  /** 'vite': dev server with HMR; 'static': the built frontend/dist; 'none': API only. */
  web: 'vite' | 'static' | 'none';
  log?: (message: string) => void;
  /** Log every API request. */
  logRequests?: boolean;
  /**
   * Private origins integrations may call (tests' fake platforms); otherwise only public https
   * addresses, as on AWS. OUTBOUND_ALLOWED_ORIGINS in the environment does the same for npm start.
   */
  outboundAllowedOrigins?: readonly string[];
  /** Queue workers this process does not run: a bench runs one in a process of its own to measure it alone (bench/upload.ts). */
  externalWorkers?: readonly WorkerName[];
  /** Told of every batch a queue worker handled, with its times (a bench's breakdown of a job's time). */
  observeDeliveries?: (delivery: Delivery) => void;
  /** Told what is starting and when each part is ready, with its time (npm start prints it). */
  progress?: (message: string) => void;
  /**
   * Run the schedules on their timers (default: yes). Test stacks do not: a test runs a schedule's
   * function itself with the clock it needs, and the hourly expiry sweep firing on the hour would
   * expire other tests' past-dated projects in the middle of their test.
   */
  schedules?: boolean;
  /**
   * The provisioning queue's workers (a deploy's provisioningWorkers, docs/capacity.md); default:
   * the queue's own (shared/routes.ts) or PROVISIONING_WORKERS in the environment (npm start).
   */
  provisioningWorkers?: number;
}

export interface LocalStack {
  ports: LocalPorts;
  urls: ReturnType<typeof endpoints> & { mailViewer: string };
  userPool: UserPoolIds;
  appConfig: AppConfig;
  queueUrls: Record<string, string>;
  cognito: CognitoEmulator;
  /** The local SCIM directory (bin/local/scim-server.ts): its base URL and the operator's bearer token (users get their own tenant's from GET /api/integration-templates). */
  scim: { url: string; token: string };
  stop(): Promise<void>;
}

/** Tracks child process ids so a stack killed hard can be cleaned up by the next start. */
const pidFile = (dataDir: string) => path.join(dataDir, 'pids.json');

/**
 * A stack whose terminal or npm was killed hard can leave its processes behind: the stack's own
 * Node process (holding the app port) and the emulators. The next start stops them first.
 */
async function stopLeftovers(dataDir: string, log: (m: string) => void) {
  const file = pidFile(dataDir);
  if (!fs.existsSync(file)) return;
  const pids = JSON.parse(fs.readFileSync(file, 'utf8')) as number[];
  const commandLine = (pid: number) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return undefined;
    }
  };
  const ours = (cmdline: string | undefined) =>
    cmdline !== undefined && ['DynamoDBLocal', 'cognito-local', 'bin/local.ts', 'bin/local/'].some((mark) => cmdline.includes(mark));
  const leftovers = pids.filter((pid) => pid !== process.pid && ours(commandLine(pid)));
  for (const pid of leftovers) {
    // A leftover stack gets the chance to stop its emulators itself.
    process.kill(pid, 'SIGTERM');
    log(`Stopping a leftover local-stack process (${pid}) from an earlier run.`);
  }
  for (let waited = 0; waited < 5000 && leftovers.some((pid) => ours(commandLine(pid))); waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const pid of leftovers) if (ours(commandLine(pid))) process.kill(pid, 'SIGKILL');
  fs.rmSync(file, { force: true });
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const log = options.log ?? ((m: string) => console.log(m));
  const { ports } = options;
  const dataDir = path.resolve(options.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  await stopLeftovers(dataDir, log);
  await assertPortsFree(ports);
  const began = performance.now();
  const report = options.progress ?? (() => undefined);
  /** Reports `what` as ready, with the seconds since the start, when `promise` is. */
  const ready = <T>(what: string, promise: Promise<T>): Promise<T> =>
    promise.then((value) => {
      report(`  ${what} ready (${((performance.now() - began) / 1000).toFixed(1)} s)`);
      return value;
    });

  const running: Stoppable[] = [];
  const stopAll = async () => {
    for (const service of running.reverse()) await service.stop().catch(() => undefined);
    running.length = 0;
    fs.rmSync(pidFile(dataDir), { force: true });
  };
  try {
    report('Starting the emulators: DynamoDB Local (a JVM, the slowest), S3, SQS, SES and Cognito...');
    const started = await Promise.allSettled([
      ready(`DynamoDB Local on port ${ports.dynamodb}`, startDynamoDb(ports.dynamodb, options.persistDynamoDb ? path.join(dataDir, 'dynamodb') : undefined)),
      ready(`S3 on port ${ports.s3}`, startS3(ports.s3, path.join(dataDir, 's3'))),
      ready(`SQS on port ${ports.sqs}`, startSqs(ports.sqs)),
      ready(`SES and the mail viewer on port ${ports.ses}`, startSes(ports.ses)),
      // The user pool's post-authentication and post-confirmation trigger, run by the gateway's Lambda Invoke endpoint.
      ready(
        `Cognito on port ${ports.cognito}`,
        startCognito(ports.cognito, path.join(dataDir, 'cognito'), log, {
          functions: { PostAuthentication: COGNITO_TRIGGER_FUNCTION, PostConfirmation: COGNITO_TRIGGER_FUNCTION },
          lambdaEndpoint: `http://${HOST}:${ports.app}`,
        }),
      ),
    ]);
    for (const result of started) if (result.status === 'fulfilled') running.push(result.value);
    const failure = started.find((r) => r.status === 'rejected');
    if (failure) throw (failure as PromiseRejectedResult).reason;
    const cognito = (started[4] as PromiseFulfilledResult<CognitoEmulator>).value;
    const ses = (started[3] as PromiseFulfilledResult<SesEmulator>).value;
    const childPids = running.flatMap((s) => (s.pid ? [s.pid] : []));
    fs.writeFileSync(pidFile(dataDir), JSON.stringify([process.pid, ...childPids]));
    // However this process ends, its emulator children end with it (kill is synchronous).
    process.once('exit', () => {
      for (const pid of childPids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    });

    // The local SCIM directory, a ready target for the provisioning integrations. Its users, the
    // operator's token and the key users' tenant tokens are made with (each made once) stay in
    // the data folder like the other emulators' state. Each user gets a tenant of their own.
    const secretFile = (name: string) => {
      const file = path.join(dataDir, name);
      if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
      return fs.readFileSync(file, 'utf8').trim();
    };
    const scimToken = secretFile('scim-token');
    const scimTenantKey = secretFile('scim-tenant-key');
    const scimServer = await startScimServer({
      port: ports.scim,
      host: HOST,
      token: scimToken,
      dataFile: path.join(dataDir, 'scim-directory.json'),
      tenants: { key: scimTenantKey, dataDir: path.join(dataDir, 'scim-tenants') },
      log,
    });
    running.push({ name: 'SCIM directory', stop: () => scimServer.stop() });
    const scim = { url: scimServer.url, token: scimToken };
    // Integrations may call these private origins (the SSRF guard refuses them otherwise): the
    // ones named by the caller or by OUTBOUND_ALLOWED_ORIGINS, and the SCIM directory.
    const outboundAllowedOrigins = [
      ...new Set([
        ...(options.outboundAllowedOrigins ?? (process.env.OUTBOUND_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean)),
        new URL(scim.url).origin,
      ]),
    ];

    const urls = { ...endpoints(ports), mailViewer: `http://${HOST}:${ports.ses}/` };
    // Cognito e-mails its codes itself (not through the app's SES): here into the mail viewer.
    const cognitoMail = new SESv2Client({ region: REGION, endpoint: urls.ses, credentials: localCredentials });
    const cognitoMailer = sesMailer(cognitoMail, cognitoFromAddress);
    cognito.onDelivery((delivery) => (delivery.medium === 'EMAIL' ? cognitoMailer.send(cognitoEmail(delivery)) : undefined));
    report('Creating the table, bucket, user pool and queues (kept in the data folder after the first start)...');
    const [, , userPool, queueUrlMap] = await Promise.all([
      ready('table', ensureTable(ports.dynamodb)),
      ready('bucket', ensureBucket(ports.s3)),
      ready('user pool', ensureUserPool(ports.cognito, dataDir)),
      ready('queues', queueUrls(ports.sqs)),
    ]);

    // The key that encrypts stored passwords; in AWS it lives in Secrets Manager.
    const keyFile = path.join(dataDir, 'encryption.key');
    if (!fs.existsSync(keyFile)) fs.writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });

    // The Stripe webhook's signing secret; the local checkout signs its events with it. In AWS it
    // comes from Secrets Manager.
    const webhookSecretFile = path.join(dataDir, 'stripe-webhook-secret');
    if (!fs.existsSync(webhookSecretFile)) fs.writeFileSync(webhookSecretFile, `whsec_${randomBytes(32).toString('base64')}`, { mode: 0o600 });
    // Real Stripe (test mode) when all three are given, as in AWS; otherwise the local test checkout.
    const realStripe = Boolean(process.env.STRIPE_SECRET_KEY && process.env.STRIPE_PRICE_ID && process.env.STRIPE_WEBHOOK_SECRET);
    const webhookSecret = realStripe ? process.env.STRIPE_WEBHOOK_SECRET! : fs.readFileSync(webhookSecretFile, 'utf8').trim();

    // The handlers read their configuration from the environment, exactly as in Lambda; the SDK
    // sends each service's calls to AWS_ENDPOINT_URL_<SERVICE>, here the emulators.
    Object.assign(process.env, {
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: urls.dynamodb,
      AWS_ENDPOINT_URL_S3: urls.s3,
      AWS_ENDPOINT_URL_SQS: urls.sqs,
      AWS_ENDPOINT_URL_SESV2: urls.ses,
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: urls.cognito,
      S3_FORCE_PATH_STYLE: 'true',
      TABLE_NAME: resourceNames.table,
      EXPORT_BUCKET: resourceNames.exportBucket,
      // The export worker's file before its PUT, beside the stack's S3 objects (Lambda: /tmp).
      EXPORT_TEMP_DIR: path.join(dataDir, 'export-files'),
      SES_FROM_ADDRESS: resourceNames.sesFromAddress,
      SES_CONFIGURATION_SET: resourceNames.sesConfigurationSet,
      USER_POOL_ID: userPool.userPoolId,
      USER_POOL_CLIENT_ID: userPool.userPoolClientId,
      APP_URL: urls.app,
      ENCRYPTION_KEY_FILE: keyFile,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      ...(realStripe ? {} : { BILLING_MODE: 'local' }),
      OUTBOUND_ALLOWED_ORIGINS: outboundAllowedOrigins.join(','),
      LOCAL_SCIM_URL: scim.url,
      LOCAL_SCIM_TENANT_KEY: scimTenantKey,
      // local-aws-sqs counts in-flight messages in ApproximateNumberOfMessages too (SQS: only the
      // visible ones); a queued bulk job's "chunks ahead" must not count them twice (functions/bulk/queue-wait.ts).
      SQS_VISIBLE_COUNT_INCLUDES_IN_FLIGHT: 'true',
      POWERTOOLS_SERVICE_NAME: 'bulkonboard-local',
      POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
    });
    delete process.env.AWS_PROFILE;
    for (const q of queues) process.env[queueUrlEnv(q.name)] = queueUrlMap[q.name];

    const sqsClient = new SQSClient({ region: REGION, endpoint: urls.sqs, credentials: localCredentials });
    // SES event publishing (configuration set -> SNS -> the mail-events queue on AWS): the SES
    // emulator publishes nothing, so the stack puts the same events on the local queue.
    const sesEvents = startSesEventPublisher({ client: sqsClient, queueUrl: queueUrlMap['mail-events']!, log });
    ses.onAccepted((mail) => sesEvents.publish(mail));
    running.push({ name: 'SES event publishing', stop: () => sesEvents.stop() });
    const provisioningWorkers = options.provisioningWorkers ?? (Number(process.env.PROVISIONING_WORKERS) || undefined);
    const consumers = queues.flatMap((q) => [
      ...(q.worker
        ? [{ worker: q.worker, queueUrl: queueUrlMap[q.name]!, batchSize: q.batchSize, concurrency: q.name === 'provisioning' && provisioningWorkers ? provisioningWorkers : q.maxConcurrency }]
        : []),
      ...(q.deadLetterWorker ? [{ worker: q.deadLetterWorker, queueUrl: queueUrlMap[`${q.name}-dlq`]!, batchSize: 1, concurrency: 1 }] : []),
    ]);
    for (const { worker, queueUrl, batchSize, concurrency } of consumers) {
      if (options.externalWorkers?.includes(worker)) continue;
      running.push(
        startPoller({
          name: worker,
          client: sqsClient,
          queueUrl,
          batchSize,
          concurrency,
          loadHandler: async () => (await workerModules[worker]()).handler as never,
          log,
          observe: options.observeDeliveries,
        }),
      );
    }

    // EventBridge Scheduler's part: the weekly digest on its weekly timer, the expiry sweep hourly (npm run digest / expire: now).
    if (options.schedules !== false) running.push(startSchedules(log));

    const appConfig: AppConfig = {
      region: REGION,
      userPoolId: userPool.userPoolId,
      userPoolClientId: userPool.userPoolClientId,
      userPoolEndpoint: urls.cognito,
      authFlow: 'USER_PASSWORD_AUTH',
      stage: 'local',
      mailViewerUrl: urls.mailViewer,
    };

    let web: Parameters<typeof createGateway>[0]['web'];
    let closeVite: (() => Promise<void>) | undefined;
    const localCheckout = realStripe ? undefined : createLocalCheckout({ dataDir, webhookSecret, webhookUrl: `${urls.app}/api/stripe/webhook`, log });
    const server: Server = createGateway({
      appConfig,
      verify: cognitoAccessTokenVerifier(urls.cognito, userPool.userPoolId, userPool.userPoolClientId),
      web: (req, res) => {
        if (localCheckout?.handles(new URL(req.url ?? '/', 'http://localhost').pathname)) localCheckout.serve(req, res);
        else if (web) web(req, res);
        else res.writeHead(404).end();
      },
      log: options.logRequests ? log : (m) => (m.startsWith('gateway error') ? log(m) : undefined),
    });
    report(`Starting the queue workers' pollers, the API gateway and ${options.web === 'vite' ? 'Vite' : 'the web app'}...`);
    if (options.web === 'vite') {
      const { createServer } = await import('vite');
      const vite = await createServer({
        configFile: path.join(projectRoot, 'frontend', 'vite.config.ts'),
        server: { middlewareMode: true, ws: { server } },
        appType: 'spa',
        logLevel: 'warn',
      });
      web = (req, res) => vite.middlewares(req, res);
      closeVite = () => vite.close();
    } else if (options.web === 'static') {
      web = staticWeb(path.join(projectRoot, 'frontend', 'dist'));
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports.app, HOST, () => resolve());
    });
    running.push({
      name: 'gateway',
      stop: async () => {
        await closeVite?.();
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      },
    });

    return {
      ports,
      urls,
      userPool,
      appConfig,
      queueUrls: queueUrlMap,
      cognito,
      scim,
      stop: async () => {
        sqsClient.destroy();
        cognitoMail.destroy();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
