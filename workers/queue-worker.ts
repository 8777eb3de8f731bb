/**
 * A task queue's worker (servicing, lending, webhooks: workers/registry.ts): every workflow of the
 * one bundle and every operation as an activity; queues are pools and failure domains (STYLE §9).
 * Missed workflow starts are the start-intent relay's job (workers/start-intent-relay.ts).
 */
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../activities';
import { taskQueues } from '../domain/ids';
import { asTemporalActivities } from './activities';
import { projectRoot } from './config';

export const workflowsPath = `${projectRoot}/workflows/index.ts`;

/**
 * Creates (does not run) a worker on `taskQueue` (default `servicing`) with every workflow and
 * every operation. Pass `workflowBundle` (prebuilt, `bundleWorkflowCode`) to skip bundling;
 * otherwise the workflows are bundled from `workflows/index.ts` at start.
 * `maxConcurrentActivityTaskExecutions` (default 10) should not exceed the database pool: each
 * activity holds at most one pooled connection (DESIGN-processes P0 "Failure answers").
 */
export async function createQueueWorker(options: {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  workflowBundle?: { code: string } | { codePath: string } | undefined;
  maxConcurrentActivityTaskExecutions?: number;
}): Promise<Worker> {
  const common = {
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.servicing,
    activities: asTemporalActivities(options.activities),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions ?? 10,
  };
  return Worker.create(
    options.workflowBundle
      ? { ...common, workflowBundle: options.workflowBundle }
      : { ...common, workflowsPath },
  );
}
