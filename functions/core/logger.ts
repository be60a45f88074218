import { Logger } from '@aws-lambda-powertools/logger';

/** One structured logger per function. Never log secrets, passwords, tokens or whole bodies. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'bulkonboard' });
