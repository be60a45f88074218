import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import { Code, Function as LambdaFunction, Runtime, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { constructId } from '../../lib/construct-id';
import { AppHttpApi } from '../../lib/constructs/http-api';
import { workerTimeout } from '../../lib/stateless-stack';
import { testAssemblyDir } from './synth-app';
import { routeGroups, type RouteDefinition, type RouteGroup } from '../../shared/routes';

function apiWith(routes: RouteDefinition[]): Stack {
  const stack = new Stack(new App({ outdir: testAssemblyDir() }), 'Test');
  const userPool = new UserPool(stack, 'Pool');
  const handler = new LambdaFunction(stack, 'Fn', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('export const handler = async () => ({})'),
  });
  const handlers = {} as Record<RouteGroup, IFunction>;
  for (const group of routeGroups) handlers[group] = handler;
  new AppHttpApi(stack, 'Api', {
    prefix: 'test',
    userPool,
    webClient: userPool.addClient('Client'),
    routes,
    handlers,
  });
  return stack;
}

describe('AppHttpApi', () => {
  it('refuses paths outside /api/ (CloudFront would serve them the web app)', () => {
    expect(() => apiWith([{ method: 'GET', path: '/health', group: routeGroups[0], auth: 'none' }])).toThrow(/must start with \/api\//);
  });

  it('keeps path parameters and literal segments apart', () => {
    const stack = apiWith([
      { method: 'GET', path: '/api/projects/{id}', group: routeGroups[0], auth: 'jwt' },
      { method: 'GET', path: '/api/projects/id', group: routeGroups[0], auth: 'jwt' },
    ]);
    Template.fromStack(stack).resourceCountIs('AWS::ApiGatewayV2::Route', 2);
  });
});

describe('workerTimeout', () => {
  it.each([
    [60, 10],
    [300, 50],
    [900, 150],
    [8, 8],
    [43_200, 900],
  ])('visibility %i s -> %i s', (visibilityTimeoutSeconds, expected) => {
    const queue = { name: 'mail', batchSize: 1, maxConcurrency: 2, maxReceiveCount: 3, visibilityTimeoutSeconds } as const;
    expect(workerTimeout(queue).toSeconds()).toBe(expected);
  });
});

describe('constructId', () => {
  it('PascalCases names from the route table', () => {
    expect(constructId('mail-worker')).toBe('MailWorker');
    expect(constructId('GET', '/api/auth/user')).toBe('GETApiAuthUser');
  });
});
