import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

/**
 * Lambda's Invoke API (POST /2015-03-31/functions/<name>/invocations), for the one caller that
 * invokes functions by name locally: the Cognito emulator's triggers (its config.json
 * `TriggerFunctions` and `LambdaClient.endpoint`, written by startCognito). It runs the same
 * handler module the CDK deploys as the user pool's trigger, and answers as Lambda does: the
 * result as the payload, or a thrown error as `X-Amz-Function-Error: Unhandled` with
 * {errorMessage, errorType}, which Cognito turns into a failed sign-in.
 */
type TriggerModule = { handler: (event: never) => Promise<unknown> };

/** The function name Cognito is configured with, and the module it runs. */
export const COGNITO_TRIGGER_FUNCTION = 'bulkonboard-cognito-trigger';
const functionModules: Record<string, () => Promise<TriggerModule>> = {
  [COGNITO_TRIGGER_FUNCTION]: () => import('../../functions/security/sign-in-trigger') as Promise<TriggerModule>,
};

export const LAMBDA_INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

const readAll = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export async function serveLambdaInvoke(req: IncomingMessage, res: ServerResponse, pathname: string, log: (message: string) => void): Promise<void> {
  const name = decodeURIComponent(LAMBDA_INVOKE_PATH.exec(pathname)?.[1] ?? '');
  const load = functionModules[name];
  const headers = { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() };
  if (req.method !== 'POST' || !load) {
    res.writeHead(404, { ...headers, 'x-amzn-errortype': 'ResourceNotFoundException' });
    res.end(JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }));
    return;
  }
  const body = await readAll(req);
  try {
    const { handler } = await load();
    const result = await handler(JSON.parse(body || '{}') as never);
    res.writeHead(200, { ...headers, 'x-amz-executed-version': '$LATEST' });
    res.end(JSON.stringify(result ?? null));
  } catch (error) {
    const failure = error instanceof Error ? { errorMessage: error.message, errorType: error.name } : { errorMessage: String(error), errorType: 'Error' };
    log(`${name} failed: ${failure.errorMessage}`);
    res.writeHead(200, { ...headers, 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });
    res.end(JSON.stringify(failure));
  }
}
