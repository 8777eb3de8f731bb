import { defineConfig } from 'vitest/config';

/**
 * Two projects (docs/conventions.md §11): `unit` (pure, no servers) and `integration` (activities, API,
 * workflows, e2e), whose global setup starts each heavy server once per run: a throw-away
 * embedded PostgreSQL, a Temporal dev server, and the workflow bundle. Workflow files start
 * their own time-skipping server (time is global to one server).
 */
export default defineConfig({
  test: {
    // CI also writes a JSON report; .ci/run's closing line comes from vitest's own summary.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.data/vitest-report.json' }]]
      : ['default'],
    setupFiles: ['test/support/fast-check-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/{activities,api,workflows,e2e}/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
