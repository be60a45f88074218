import { afterAll } from 'vitest';
import { removeTestAssemblies } from './synth-app';

// Every infra test file's cloud assemblies (and the bundles and layers in them) go with it.
afterAll(removeTestAssemblies);
