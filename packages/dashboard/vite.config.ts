import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The dashboard's build: hashed assets under /assets (the service serves them immutable), the
 * heavy pages (flow editor preview, analytics charts, journey canvas) split into lazy chunks.
 * `npm run dev -w @guidance/dashboard` proxies /api, /sdk and /docs to a service on :3000.
 */
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:3000',
      '/sdk': 'http://127.0.0.1:3000',
      '/docs': 'http://127.0.0.1:3000',
    },
  },
});
