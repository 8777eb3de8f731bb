/**
 * The `webhooks` task-queue worker (DESIGN §1): runs `webhookDeliveryWorkflow` and the delivery
 * activities. Deliveries wait on a queue of their own, so a slow receiver never holds back the
 * servicing or lending queues. Self-contained: the outbox relay (`outbox-relay.ts`) runs beside it.
 */
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../activities';
import { taskQueues } from '../domain/ids';
import { asTemporalActivities } from './activities';
import { workflowsPath } from './servicing';

/**
 * Creates (does not run) the webhooks worker. Pass `workflowBundle` to skip bundling. At most
 * `maxConcurrentActivityTaskExecutions` (default 100) attempts run at once; each is mostly waiting
 * on a receiver (15 s at most).
 */
export async function createWebhooksWorker(options: {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  workflowBundle?: { code: string } | { codePath: string };
  maxConcurrentActivityTaskExecutions?: number;
}): Promise<Worker> {
  const common = {
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.webhooks,
    activities: asTemporalActivities(options.activities),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions ?? 100,
  };
  return Worker.create(
    options.workflowBundle
      ? { ...common, workflowBundle: options.workflowBundle }
      : { ...common, workflowsPath },
  );
}
