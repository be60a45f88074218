import path from 'node:path';

/** Ports of the local stack; each can be moved with its variable, or all with LOCAL_PORT_OFFSET. */
export interface LocalPorts {
  app: number;
  dynamodb: number;
  s3: number;
  sqs: number;
  ses: number;
  cognito: number;
  scim: number;
}

export const defaultPorts: LocalPorts = { app: 3000, dynamodb: 8000, s3: 4569, sqs: 9324, ses: 8005, cognito: 9229, scim: 9250 };

const portVariables: Record<keyof LocalPorts, string> = {
  app: 'APP_PORT',
  dynamodb: 'DYNAMODB_PORT',
  s3: 'S3_PORT',
  sqs: 'SQS_PORT',
  ses: 'SES_PORT',
  cognito: 'COGNITO_PORT',
  scim: 'SCIM_PORT',
};

export const portNames: Record<keyof LocalPorts, string> = {
  app: 'web app and local API gateway',
  dynamodb: 'DynamoDB Local',
  s3: 'S3 emulator (s3rver)',
  sqs: 'SQS emulator',
  ses: 'SES emulator and mail viewer',
  cognito: 'Cognito emulator (cognito-local)',
  scim: 'SCIM directory',
};

export function portsFromEnv(env: NodeJS.ProcessEnv, offset = Number(env.LOCAL_PORT_OFFSET ?? 0)): LocalPorts {
  const ports = { ...defaultPorts };
  for (const name of Object.keys(ports) as (keyof LocalPorts)[]) {
    const override = env[portVariables[name]];
    ports[name] = override ? Number(override) : ports[name] + offset;
    if (!Number.isInteger(ports[name]) || ports[name] <= 0 || ports[name] > 65535) {
      throw new Error(`${portVariables[name]} must be a port number, got ${override}`);
    }
  }
  return ports;
}

/**
 * The ports the test stacks take (test/support/test-stack.ts): integration from offset 10000, e2e
 * from 20000, each moved by TEST_PORT_SHIFT (0 to 9000) and 100 a lane, over the stack's ports
 * (3000 to 9325) and the fake platforms' (offset + 4010 and 4389/4390). A local stack there would
 * take a test run's ports or lose them to it, so `npm start` refuses it (assertOutsideTestPorts),
 * and the test stacks refuse a shift that leaves it (test/unit/test-stack-ports.test.ts).
 */
export const TEST_PORT_RANGE = { from: 13_000, to: 39_999 } as const;

export const inTestPortRange = (port: number): boolean => port >= TEST_PORT_RANGE.from && port <= TEST_PORT_RANGE.to;

/** Refuses local-stack ports the test stacks use, with what to set instead. */
export function assertOutsideTestPorts(ports: LocalPorts): void {
  const clashing = (Object.entries(ports) as [keyof LocalPorts, number][]).filter(([, port]) => inTestPortRange(port));
  if (clashing.length === 0) return;
  throw new Error(
    `Cannot start the local stack on ports ${TEST_PORT_RANGE.from}-${TEST_PORT_RANGE.to}: the test stacks of \`npm test\` use them ` +
      `(integration from ${TEST_PORT_RANGE.from}, e2e from 23000, moved by TEST_PORT_SHIFT).\n` +
      clashing.map(([name, port]) => `  port ${port} (${portNames[name]}, ${portVariables[name]})`).join('\n') +
      `\nChoose ports below ${TEST_PORT_RANGE.from} or from ${TEST_PORT_RANGE.to + 1} up: e.g. LOCAL_PORT_OFFSET=100 or LOCAL_PORT_OFFSET=40000.`,
  );
}

export const portVariableOf = (name: keyof LocalPorts): string => portVariables[name];

export const HOST = '127.0.0.1';
export const REGION = 'us-east-1';
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** Names of the local resources (the same names the CDK stack gives them, minus the stage). */
export const resourceNames = {
  table: 'bulkonboard',
  exportBucket: 'bulkonboard-exports',
  userPool: 'bulkonboard-users',
  userPoolClient: 'bulkonboard-web',
  queue: (name: string) => `bulkonboard-${name}`,
  deadLetterQueue: (name: string) => `bulkonboard-${name}-dlq`,
  sesFromAddress: 'no-reply@bulkonboard.local',
  /** Named in every send, as on AWS (the emulator accepts any name). */
  sesConfigurationSet: 'bulkonboard',
};
