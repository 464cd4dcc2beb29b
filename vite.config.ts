import { defineConfig, type Plugin } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

/**
 * The dev server adds inline scripts (React's refresh preamble) and <style> elements (CSS reloaded as it changes), which
 * index.html's Content-Security-Policy forbids; the policy is for the built app, so `npm start` serves the page without it.
 */
function devWithoutPolicy(): Plugin {
  return {
    name: 'netmortem:dev-without-csp',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace(/<meta\s+http-equiv="Content-Security-Policy"[^>]*>\s*/, ''),
  };
}

// Relative base so the built folder works when copied anywhere (wiki embeds, offline workshops).
export default defineConfig({
  base: './',
  plugins: [react(), tailwindcss(), devWithoutPolicy()],
  worker: { format: 'es' },
  build: { outDir: 'dist', target: 'es2022' },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    // Vitest leaves one core free by default, which on a 2-core CI machine runs every file in one worker; the
    // talk-scale replay alone takes minutes, so use both.
    maxWorkers: 2,
  },
});
