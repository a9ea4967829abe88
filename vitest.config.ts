import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/per-file-reset.ts'],
    // Test files share their worker's process instead of each loading the service, the 20 connectors and
    // the store code again (measured: 184 s of imports in a run, 35 s shared; the suite from 560 s to
    // 406 s). What files change globally is reset before each one (per-file-reset.ts).
    isolate: false,
    // Most suites wait on I/O (spawned services, sockets, a PostgreSQL cluster), so two workers on two cores
    // keep both busy; vitest's default (cores - 1) runs one file at a time here.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
