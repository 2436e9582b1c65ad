import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * `npm run build:web` writes web/dist, which the local server (and the StaticSite on AWS) serves.
 * `npm run dev:web` serves the sources with hot reload and hands `/api` (and its WebSocket
 * stream) to the API at VIGIL_API_ORIGIN, by default `npm start`'s http://localhost:3000.
 */
const api = process.env.VIGIL_API_ORIGIN ?? 'http://localhost:3000';

export default defineConfig({
  root: import.meta.dirname,
  // Beside the sources, not in node_modules: a git worktree may share its node_modules with another.
  cacheDir: '.vite-cache',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, assetsInlineLimit: 0 },
  server: { port: 5173, strictPort: true, proxy: { '/api': { target: api, changeOrigin: false, ws: true } } },
});
