import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Resolved from this file, so the config works from any working directory: `vite build
// --config frontend/vite.config.ts` and the local stack's middleware-mode dev server alike.
const frontendDir = fileURLToPath(new URL('.', import.meta.url));
const repoDir = fileURLToPath(new URL('..', import.meta.url));
const sharedDir = fileURLToPath(new URL('../shared', import.meta.url));

export default defineConfig({
  root: frontendDir,
  plugins: [react()],
  resolve: {
    alias: { '@shared': sharedDir },
  },
  // No proxy: /api/* and /config.json come from the same origin (CloudFront in AWS, the
  // local gateway that hosts this dev server in middleware mode under `npm start`).
  server: {
    fs: { allow: [repoDir] },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // React changes less often than the app: its own long-cached chunk. (Only React: a
          // Chakra group would drag components used by lazy pages into the landing's first load.)
          groups: [{ name: 'react', test: /[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/ }],
        },
      },
    },
  },
});
