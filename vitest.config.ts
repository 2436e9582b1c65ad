import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/globalSetup.ts'],
    include: ['core/**/*.test.ts', 'functions/**/*.test.ts', 'stacks/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on a 2-core machine (vitest's default there is one): most files wait on
    // sockets, Chromium or a child process, so the second core is otherwise idle.
    maxWorkers: 2,
  },
});
