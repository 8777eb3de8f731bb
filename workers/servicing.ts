/**
 * The `servicing` task-queue worker: privacy-request workflows and the servicing operations as
 * activities, plus the start sweep that restarts any stored request whose workflow never began.
 */
import type { Client } from '@temporalio/client';
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Activities } from '../activities';
import { createTemporalGateway } from '../api/temporal-gateway';
import { taskQueues } from '../domain/ids';
import { asTemporalActivities } from './activities';
import { projectRoot } from './config';

export const workflowsPath = `${projectRoot}/workflows/index.ts`;

/**
 * Creates (does not run) the servicing worker. Pass `workflowBundle` (from `bundleWorkflowCode`)
 * to skip bundling; otherwise the workflows are bundled from `workflows/index.ts`.
 */
export async function createServicingWorker(options: {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  workflowBundle?: { code: string } | { codePath: string };
}): Promise<Worker> {
  const common: Partial<WorkerOptions> = {
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.servicing,
    activities: asTemporalActivities(options.activities),
    maxConcurrentActivityTaskExecutions: 50,
  };
  return Worker.create(
    options.workflowBundle
      ? { ...common, taskQueue: common.taskQueue!, workflowBundle: options.workflowBundle }
      : { ...common, taskQueue: common.taskQueue!, workflowsPath },
  );
}

/**
 * Every `intervalMs`, starts the workflows of privacy requests stored more than `graceMs` ago
 * whose workflow never reported its start (the process that stored them stopped before starting
 * it). Starting is idempotent (deterministic ids). Returns a stop function.
 */
export function startPrivacyStartSweep(options: {
  client: Client;
  activities: Activities;
  logger: Logger;
  intervalMs?: number;
  graceMs?: number;
}): () => Promise<void> {
  const gateway = createTemporalGateway(options.client);
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    try {
      const pending = await options.activities.listUnstartedPrivacyRequests({
        graceMs: options.graceMs ?? 30_000,
        limit: 100,
      });
      for (const start of pending) {
        await gateway.startPrivacyRequest(start);
        options.logger.warn(
          { workflowId: start.workflowId },
          'started a privacy-request workflow that was never started',
        );
      }
    } catch (err) {
      options.logger.error({ err }, 'privacy start sweep failed');
    }
  };
  const timer = setInterval(() => {
    running = running.then(sweep);
  }, options.intervalMs ?? 15_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
