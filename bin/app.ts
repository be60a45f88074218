// The CDK app (cdk.json runs it with tsx). Settings: docs/deploy.md.
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';
import { readSettings } from '../lib/settings';

const app = new App();
const { settings, warnings } = readSettings(app.node);
buildApp(app, settings, warnings);
