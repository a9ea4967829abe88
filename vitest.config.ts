import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Most suites wait on I/O (spawned services, sockets, a PostgreSQL cluster), so two workers on two cores
    // keep both busy; vitest's default (cores - 1) runs one file at a time here.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
