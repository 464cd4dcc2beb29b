import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';

// Relative base so the built folder works when copied anywhere (wiki embeds, offline workshops).
export default defineConfig({
  base: './',
  plugins: [react(), tailwindcss()],
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
