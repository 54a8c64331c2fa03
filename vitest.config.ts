import { defineConfig } from 'vitest/config';

// Two projects: fast in-process suites, and integration suites that need real services
// (PostgreSQL, Redis, MariaDB), which a global setup starts once for the run.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'node_modules/**', 'dist/**'],
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
    ],
  },
});
