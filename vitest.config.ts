import { defineConfig } from 'vitest/config';

// Three projects: fast in-process suites; integration suites that need real services
// (PostgreSQL, Redis, MariaDB), which a global setup starts once for the run; and the trino
// suites, whose global setup starts a Trino coordinator and worker without waiting (they boot
// while the other projects run; only the trino tests wait for them).
export default defineConfig({
  test: {
    // Vitest's default on 2 cores is one worker (cores - 1): the whole run would be serial. Two
    // workers let the in-process unit files overlap the integration files, which mostly wait on
    // servers and child processes.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'test/trino/**', 'node_modules/**', 'dist/**'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-services.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Integration files share the started servers; run them one at a time on 2 cores.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'trino',
          include: ['test/trino/**/*.test.ts'],
          globalSetup: ['test/support/global-trino.ts'],
          testTimeout: 300_000,
          // the first file may wait for the boot (70–130 s, more on a loaded machine)
          hookTimeout: 900_000,
          // one Trino for the run: files take turns (they run after the parallel unit group)
          fileParallelism: false,
        },
      },
    ],
  },
});
