import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp, type BuiltApp } from '../../lib/app';
import { projectRoot, readSettings, type AppSettings, type SettingsWarning } from '../../lib/settings';

export const testEnv = {
  CDK_DEFAULT_ACCOUNT: '123456789012',
  CDK_DEFAULT_REGION: 'eu-west-1',
  SES_FROM_ADDRESS: 'no-reply@bulkonboard.test',
} as const;

/** The feature flags of cdk.json, so tests synthesize exactly what `cdk synth` does. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return cdkJson.context;
}

export interface SynthOptions {
  /** Extra CDK context (-c); wins over cdk.json. */
  context?: Record<string, unknown>;
  /** Environment seen by readSettings; defaults to testEnv. */
  env?: Record<string, string | undefined>;
  /**
   * Skip esbuild (CDK's own `aws:cdk:bundling-stacks` switch, as `cdk synth --exclusively` uses):
   * the functions keep their runtime, handler and settings, only the zip is not built.
   */
  skipBundling?: boolean;
}

export interface SynthesizedApp extends BuiltApp {
  app: App;
  settings: AppSettings;
  warnings: SettingsWarning[];
}

/** Cloud assembly folders of this test file's apps, removed after it (test/infra/setup.ts). */
const assemblies: string[] = [];

/** A cloud assembly folder of its own for a test's App (an App without one makes a temp folder it never removes). */
export function testAssemblyDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cdk.out-test-'));
  assemblies.push(dir);
  return dir;
}

export function removeTestAssemblies(): void {
  for (const dir of assemblies.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Builds the app the way bin/app.ts does, from context and an explicit environment. */
export function buildTestApp(options: SynthOptions = {}): SynthesizedApp {
  const app = new App({
    outdir: testAssemblyDir(),
    context: {
      ...cdkJsonContext(),
      ...(options.skipBundling ? { 'aws:cdk:bundling-stacks': [] } : {}),
      ...options.context,
    },
  });
  const { settings, warnings } = readSettings(app.node, options.env ?? testEnv);
  return { app, settings, warnings, ...buildApp(app, settings, warnings) };
}
