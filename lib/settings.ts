import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Node } from 'constructs';
import { queues } from '../shared/routes';

/** The repository root: entry files, the lock file and frontend/dist are resolved from here, not from the cwd. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Used for synth only when no sender is configured; a deploy with it cannot send e-mail. */
export const placeholderSesFromAddress = 'no-reply@example.com';

/**
 * Everything the CDK app can be told from outside. Each setting is read from CDK context
 * (`-c name=value` or cdk.json) first, then from the environment; docs/deploy.md lists them.
 */
export interface AppSettings {
  /** Prefix of stack and resource names, one per deployed copy (stage): `<prefix>-stateful`, `<prefix>-stateless`. */
  prefix: string;
  /** Target account and region; undefined makes the stacks environment-agnostic (synth only). */
  account: string | undefined;
  region: string | undefined;
  /** Sender of every e-mail (SES). */
  sesFromAddress: string;
  /** Verify the sender address itself ('address', one click in a mail) or its whole domain ('domain', DNS records). */
  sesIdentity: 'address' | 'domain';
  /** Log level of the functions (Powertools LOG_LEVEL). */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Built web app (Vite output) deployed to the web bucket; undefined when not built (a placeholder page is deployed). */
  webAssetsPath: string | undefined;
  /** Whether the stateful stack is protected against deletion. */
  terminationProtection: boolean;
  /**
   * The Stripe Price (`price_...`) of the Pro plan's monthly subscription, handed to the functions
   * that may read the Stripe secret; undefined until configured (checkout then answers 503).
   */
  stripePriceId: string | undefined;
  /** Address that receives the alarms (SNS e-mail subscription); undefined: the topic has no subscriber yet. */
  alarmEmail: string | undefined;
  /**
   * Who sends Cognito's own e-mails (sign-up codes, password resets): 'ses', through the app's SES
   * identity (no daily cap beyond SES's), or 'cognito', Cognito's built-in sender (about 50 a day),
   * only for the very first deploy of an account, before the SES identity is verified: Cognito
   * refuses an unverified identity.
   */
  cognitoEmail: 'ses' | 'cognito';
  /**
   * Credential e-mails a second for all mail workers together, handed to the functions that send
   * as MAIL_SEND_RATE: the account's SES MaxSendRate (1 in the sandbox). Undefined: the sender's
   * default, 14 (SES's usual starting production quota).
   */
  mailSendRate: number | undefined;
  /**
   * Provisioning workers at most (the provisioning queue's Lambda maximumConcurrency, 2 to 1,000):
   * each customer's job on a platform holds one at a time (docs/capacity.md, Step 2), so this is how
   * many customers' platforms are called at once. Undefined: the queue's default (shared/routes.ts).
   */
  provisioningWorkers: number | undefined;
  /** Credential e-mails one customer may send in a UTC day, handed over as MAIL_DAILY_CAP (0: no cap). Undefined: the sender's default, 50,000. */
  mailDailyCap: number | undefined;
  /** The share of the send rate left free for Cognito's codes (0 to 0.5), handed over as MAIL_RESERVED_SHARE. Undefined: the sender's default, 0.1. */
  mailReservedShare: number | undefined;
  /** The bounce rate (0 to 1) over which a customer's sends pause, handed over as MAIL_BOUNCE_CUTOFF (0: none). Undefined: the sender's default, 0.05. */
  mailBounceCutoff: number | undefined;
}

/** A problem worth a warning at synth time, but not worth failing it (synth must work offline). */
export interface SettingsWarning {
  /** Acknowledgeable id of the warning (Validations.of(stack).acknowledge). */
  id: string;
  message: string;
}

export interface SettingsResult {
  settings: AppSettings;
  warnings: SettingsWarning[];
}

type Env = Record<string, string | undefined>;

/** The provisioning queue's workers when provisioningWorkers is not set (shared/routes.ts). */
const defaultProvisioningWorkers = queues.find((queue) => queue.name === 'provisioning')?.maxConcurrency ?? 2;

const logLevels = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** Reads the settings from CDK context, then the environment, then defaults. */
export function readSettings(node: Node, env: Env = process.env): SettingsResult {
  const readContext = (contextKey: string): string | undefined => {
    const fromContext: unknown = node.tryGetContext(contextKey);
    return fromContext === undefined || fromContext === null || String(fromContext) === '' ? undefined : String(fromContext);
  };
  const read = (contextKey: string, envKey: string): string | undefined => {
    const fromEnv = env[envKey];
    return readContext(contextKey) ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  };
  const warnings: SettingsWarning[] = [];

  const prefix = read('prefix', 'APP_PREFIX') ?? 'bulkonboard';
  if (!/^[a-z][a-z0-9-]{1,30}$/.test(prefix)) {
    throw new Error(`prefix "${prefix}" must be 2-31 lower-case letters, digits or dashes, starting with a letter`);
  }

  let sesFromAddress = read('sesFromAddress', 'SES_FROM_ADDRESS');
  if (sesFromAddress === undefined) {
    sesFromAddress = placeholderSesFromAddress;
    warnings.push({
      id: 'bulkonboard:sesFromAddressMissing',
      message: `sesFromAddress is not set: using ${placeholderSesFromAddress} (fine for synth; set -c sesFromAddress=... or SES_FROM_ADDRESS before deploying)`,
    });
  } else if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(sesFromAddress)) {
    throw new Error(`sesFromAddress "${sesFromAddress}" is not an e-mail address`);
  }

  const sesIdentity = read('sesIdentity', 'SES_IDENTITY') ?? 'address';
  if (sesIdentity !== 'address' && sesIdentity !== 'domain') {
    throw new Error(`sesIdentity must be 'address' or 'domain', not "${sesIdentity}"`);
  }

  const logLevel = (read('logLevel', 'LOG_LEVEL') ?? 'INFO').toUpperCase();
  if (!isLogLevel(logLevel)) throw new Error(`logLevel must be one of ${logLevels.join(', ')}, not "${logLevel}"`);

  // Not STRIPE_PRICE_ID: in a shell that belongs to `npm start` against Stripe's test mode, and a
  // test-mode price must not reach a deploy by accident. The deploy workflow sets DEPLOY_STRIPE_PRICE_ID.
  const stripePriceId = read('stripePriceId', 'DEPLOY_STRIPE_PRICE_ID');
  if (stripePriceId === undefined) {
    warnings.push({
      id: 'bulkonboard:stripePriceIdMissing',
      message: 'stripePriceId is not set: checkout answers 503 (set -c stripePriceId=price_... once the Pro price exists in Stripe, docs/deploy.md)',
    });
  } else if (!/^price_[A-Za-z0-9]+$/.test(stripePriceId)) {
    throw new Error(`stripePriceId "${stripePriceId}" is not a Stripe Price id (price_...)`);
  }

  const alarmEmail = read('alarmEmail', 'ALARM_EMAIL');
  if (alarmEmail === undefined) {
    warnings.push({
      id: 'bulkonboard:alarmEmailMissing',
      message: 'alarmEmail is not set: alarms go to an SNS topic nobody is subscribed to (set -c alarmEmail=... or ALARM_EMAIL, docs/deploy.md)',
    });
  } else if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`alarmEmail "${alarmEmail}" is not an e-mail address`);
  }

  const cognitoEmail = read('cognitoEmail', 'COGNITO_EMAIL') ?? 'ses';
  if (cognitoEmail !== 'ses' && cognitoEmail !== 'cognito') {
    throw new Error(`cognitoEmail must be 'ses' or 'cognito', not "${cognitoEmail}"`);
  }

  // Not MAIL_SEND_RATE: in a shell that is npm start's (0 turns pacing off for local measurements),
  // and it must not reach a deploy by accident. The deploy workflow sets DEPLOY_MAIL_SEND_RATE.
  const mailSendRateText = read('mailSendRate', 'DEPLOY_MAIL_SEND_RATE');
  let mailSendRate: number | undefined;
  if (mailSendRateText === undefined) {
    warnings.push({
      id: 'bulkonboard:mailSendRateMissing',
      message:
        "mailSendRate is not set: credential e-mails are paced to 14 a second (SES's usual production quota); an account in the SES sandbox allows 1 (set -c mailSendRate=... or DEPLOY_MAIL_SEND_RATE to the account's MaxSendRate, docs/deploy.md)",
    });
  } else {
    mailSendRate = Number(mailSendRateText);
    if (!/^\d+(\.\d+)?$/.test(mailSendRateText) || !(mailSendRate > 0)) {
      throw new Error(`mailSendRate "${mailSendRateText}" must be a number of e-mails a second above 0 (the account's SES MaxSendRate)`);
    }
  }

  // Sized by docs/capacity.md: one worker per customer provisioning at once (e.g. 100 in production, a few in a sandbox).
  const provisioningWorkersText = read('provisioningWorkers', 'DEPLOY_PROVISIONING_WORKERS');
  let provisioningWorkers: number | undefined;
  if (provisioningWorkersText === undefined) {
    warnings.push({
      id: 'bulkonboard:provisioningWorkersMissing',
      message: `provisioningWorkers is not set: ${defaultProvisioningWorkers} provisioning workers, so at most ${defaultProvisioningWorkers} customers' platforms are called at once (set -c provisioningWorkers=... or DEPLOY_PROVISIONING_WORKERS: about one per customer provisioning at once, e.g. 100 in production; docs/deploy.md, docs/capacity.md)`,
    });
  } else {
    provisioningWorkers = Number(provisioningWorkersText);
    if (!/^\d+$/.test(provisioningWorkersText) || provisioningWorkers < 2 || provisioningWorkers > 1000) {
      throw new Error(`provisioningWorkers "${provisioningWorkersText}" must be a whole number from 2 to 1000 (Lambda's maximum concurrency of a queue's event source)`);
    }
  }
  // Not MAIL_DAILY_CAP / MAIL_RESERVED_SHARE: like the rate, npm start's shell may set those.
  const mailDailyCapText = read('mailDailyCap', 'DEPLOY_MAIL_DAILY_CAP');
  if (mailDailyCapText !== undefined && !/^\d{1,9}$/.test(mailDailyCapText)) {
    throw new Error(`mailDailyCap "${mailDailyCapText}" must be a whole number of e-mails per customer a day (0: no cap)`);
  }
  const mailDailyCap = mailDailyCapText === undefined ? undefined : Number(mailDailyCapText);
  const mailReservedShareText = read('mailReservedShare', 'DEPLOY_MAIL_RESERVED_SHARE');
  if (mailReservedShareText !== undefined && !(/^0(\.\d+)?$/.test(mailReservedShareText) && Number(mailReservedShareText) <= 0.5)) {
    throw new Error(`mailReservedShare "${mailReservedShareText}" must be a share of the send rate from 0 to 0.5 (e.g. 0.1)`);
  }
  const mailReservedShare = mailReservedShareText === undefined ? undefined : Number(mailReservedShareText);
  const mailBounceCutoffText = read('mailBounceCutoff', 'DEPLOY_MAIL_BOUNCE_CUTOFF');
  if (mailBounceCutoffText !== undefined && !/^(0(\.\d+)?|1)$/.test(mailBounceCutoffText)) {
    throw new Error(`mailBounceCutoff "${mailBounceCutoffText}" must be a bounce rate from 0 to 1 (e.g. 0.05; 0: no cut-off)`);
  }
  const mailBounceCutoff = mailBounceCutoffText === undefined ? undefined : Number(mailBounceCutoffText);

  let webAssetsPath: string | undefined = path.resolve(projectRoot, read('webAssetsPath', 'WEB_ASSETS_PATH') ?? 'frontend/dist');
  if (!existsSync(path.join(webAssetsPath, 'index.html'))) {
    warnings.push({
      id: 'bulkonboard:webBuildMissing',
      message: `${path.relative(projectRoot, webAssetsPath)}/index.html not found: the web bucket gets a placeholder page (run npm run build before deploying)`,
    });
    webAssetsPath = undefined;
  }

  return {
    settings: {
      prefix,
      // An explicit -c account/region wins over the CLI's default profile.
      account: read('account', 'CDK_DEFAULT_ACCOUNT'),
      region: read('region', 'CDK_DEFAULT_REGION'),
      sesFromAddress,
      sesIdentity,
      logLevel,
      webAssetsPath,
      terminationProtection: read('terminationProtection', 'TERMINATION_PROTECTION') !== 'false',
      stripePriceId,
      alarmEmail,
      cognitoEmail,
      mailSendRate,
      provisioningWorkers,
      mailDailyCap,
      mailReservedShare,
      mailBounceCutoff,
    },
    warnings,
  };
}

function isLogLevel(value: string): value is AppSettings['logLevel'] {
  return (logLevels as readonly string[]).includes(value);
}

/**
 * The export bucket's name, known to both stacks without a cross-stack reference, so the grant on
 * its export files can be written (and reviewed by cdk-nag) as a plain ARN in the stateless stack.
 * S3 allows 63 characters: account ids have 12 and region names at most 16, so the prefix part
 * gets 25; a longer prefix is cut to 16 characters plus 8 hex of its hash (still one name per prefix).
 */
export const exportBucketName = (prefix: string, account: string, region: string): string => {
  const part = prefix.length <= 25 ? prefix : `${prefix.slice(0, 16)}-${createHash('sha256').update(prefix).digest('hex').slice(0, 8)}`;
  return `${part}-exports-${account}-${region}`;
};
