import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules', 'cdk.out', 'frontend/dist', '.local-data*', '.test-data', 'test-results', 'screenshots', 'bench/out'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // Secrets (passwords, ids, codes) come from node:crypto / Web Crypto, never Math.random.
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Use node:crypto or crypto.getRandomValues.' }],
      'no-restricted-syntax': [
        'error',
        {
          // `import { z } from 'zod'` keeps all of zod (locales included) in a bundle; the namespace import tree-shakes.
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message: "Use `import * as z from 'zod'`: it tree-shakes.",
        },
        {
          selector: "CallExpression[callee.object.name=/^(describe|it|test)$/][callee.property.name=/^(only|skip)$/]",
          message: 'No focused or skipped tests in the repository.',
        },
      ],
    },
  },
  {
    files: ['frontend/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
);
