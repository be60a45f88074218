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
