import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Builds the operators' UI into dist/web, which the Controller serves at `/`. */
export default defineConfig({
  root: here,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    // No inline module-preload polyfill: the Content-Security-Policy allows scripts from 'self' only.
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npx vite src/web` during development: the API of a Controller started with `npm start`.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
