/**
 * Starts the heavy servers once per test run (docs/design.md §7): a throw-away embedded PostgreSQL with
 * the migrations applied, a headless in-memory Temporal dev server, and the workflow bundle,
 * written to a file that workers load. Tests read their addresses with `inject()`.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { createDb } from '../../db/client';
import { freePort, startEmbeddedPostgres } from '../../db/embedded';
import { applyMigrations } from '../../db/migrate';
import { endWithThisProcess } from '../../workers/child-watchdog';
import { workflowInterceptorModulesFor, workflowsPath } from '../../workers/queue-worker';
import { resolveTestServer, startTemporalDevServer } from '../../workers/temporal-server';
import { testNamespaces } from './namespaces';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
    testServerPath: string;
  }
}

const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;

export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(tmpdir(), 'lending-test-'));
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to enter the folder.
  await chmod(dir, 0o755);
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const testServerPath = resolveTestServer();
  const started = await Promise.allSettled([
    startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: pgPort, persistent: false, fast: true }),
    startTemporalDevServer({ port: temporalPort, uiPort: null, extraNamespaces: [...testNamespaces] }),
    // The traced bundle (OpenTelemetry's workflow interceptors): test/api/tracing.test.ts follows a trace through it.
    bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: workflowInterceptorModulesFor(true),
      logger: quietLogger,
    }),
  ] as const);
  const [pgResult, temporalResult, bundleResult] = started;
  if (
    pgResult.status === 'rejected' ||
    temporalResult.status === 'rejected' ||
    bundleResult.status === 'rejected'
  ) {
    if (pgResult.status === 'fulfilled') await pgResult.value.stop();
    if (temporalResult.status === 'fulfilled') await temporalResult.value.stop();
    const failure = started.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    throw failure.reason;
  }
  const [pg, temporal, bundle] = [pgResult.value, temporalResult.value, bundleResult.value];
  // PostgreSQL ends with the test run even when the runner is killed (the dev server has its own watchdog).
  const pgWatchdog =
    pg.pid === null ? null : endWithThisProcess({ pid: pg.pid, signal: 'SIGINT', group: false });
  const { db, close } = createDb(pg.url, { maxConnections: 1 });
  await applyMigrations(db);
  await close();
  const workflowBundlePath = path.join(dir, 'workflow-bundle.js');
  await writeFile(workflowBundlePath, bundle.code);
  project.provide('databaseUrl', pg.url);
  project.provide('temporalAddress', temporal.address);
  project.provide('workflowBundlePath', workflowBundlePath);
  project.provide('testServerPath', testServerPath);
  return async () => {
    await temporal.stop();
    pgWatchdog?.release();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
