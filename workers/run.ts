/**
 * Runs a worker process's share of the service (docs/processes.md P0): one Temporal worker per
 * chosen task queue (workers/registry.ts) and, unless turned off, the background services. Used
 * by `npm run start:worker` (scripts/start-worker.ts) and by the all-in-one `npm start`.
 */
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, type NativeConnection, type Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import { createActivities, createPlatformOperations, type Deps } from '../activities';
import type { WorkflowCacheLimits } from './config';
import { workflowInterceptorModulesFor, workflowsPathFor } from './queue-worker';
import { backgroundServices, queueWorkers, type WorkflowBundle } from './registry';
import { tracingEnabled } from './tracing';

const quietBundlerLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error: console.error,
  log() {},
} as never;

export interface RunningWorkers {
  queues: string[];
  /** Activity slots given to each queue's worker. */
  activitySlotsPerQueue: number;
  /** Stops the background services, then the workers (they finish their running tasks). */
  stop(): Promise<void>;
}

/** The queues named in `--queues a,b`, checked against the registry. Errors: unknown or none. */
export function parseQueues(value: string | undefined): string[] {
  const known = Object.keys(queueWorkers);
  if (value === undefined || value.trim() === '') return known;
  const queues = [
    ...new Set(
      value
        .split(',')
        .map((q) => q.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = queues.filter((q) => !known.includes(q));
  if (unknown.length > 0 || queues.length === 0) {
    throw new Error(`unknown task queue(s): ${unknown.join(', ') || '(none)'}; known: ${known.join(', ')}`);
  }
  return queues;
}

/**
 * Activity slots per queue so that every running activity can hold a pooled connection at once:
 * `(poolSize − reserved) / queues`, at least 1, where one connection is reserved for the
 * background services when they run.
 */
export function activitySlotsPerQueue(poolSize: number, queueCount: number, background: boolean): number {
  const reserved = background && poolSize > 1 ? 1 : 0;
  return Math.max(1, Math.floor((poolSize - reserved) / Math.max(1, queueCount)));
}

export async function runWorkers(options: {
  queues: string[];
  deps: Deps;
  connection: NativeConnection;
  client: Client;
  namespace: string;
  logger: Logger;
  /** Connections of `deps.db`'s pool (DATABASE_POOL_SIZE). */
  poolSize: number;
  /**
   * Prebuilt bundle: one for every queue, or the bundle of each queue (scripts/build.ts writes one per queue entry,
   * workers/queue-worker.ts `workflowBundleFileName`); unset, each queue's entry (`workflowsPathFor`) is bundled
   * here once.
   */
  workflowBundle?: WorkflowBundle | ((queue: string) => WorkflowBundle) | undefined;
  /** Run the background services (default true). */
  background?: boolean;
  /** Sticky-cache size and workflow tasks at once of each queue's worker (WORKER_MAX_CACHED_WORKFLOWS…). */
  workflowCache?: WorkflowCacheLimits | undefined;
  /** The data converter of every queue's worker (workers/payload-codec.ts `temporalDataConverter`). */
  dataConverter?: DataConverter | undefined;
}): Promise<RunningWorkers> {
  const background = options.background ?? true;
  const activities = createActivities(options.deps);
  const platform = createPlatformOperations(options.deps);
  const slots = activitySlotsPerQueue(options.poolSize, options.queues.length, background);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) {
      try {
        await fn();
      } catch (err) {
        options.logger.warn({ err }, 'error while stopping workers');
      }
    }
  };
  try {
    // One bundle per workflow entry (queues sharing an entry share it), built here when none is given.
    const built = new Map<string, Promise<WorkflowBundle>>();
    const bundleFor = (queue: string): Promise<WorkflowBundle> => {
      if (options.workflowBundle) {
        const given = options.workflowBundle;
        return Promise.resolve(typeof given === 'function' ? given(queue) : given);
      }
      const entry = workflowsPathFor(queue);
      let bundle = built.get(entry);
      if (!bundle) {
        bundle = bundleWorkflowCode({
          workflowsPath: entry,
          workflowInterceptorModules: workflowInterceptorModulesFor(tracingEnabled()),
          logger: quietBundlerLogger,
        }).then((b) => ({ code: b.code }));
        built.set(entry, bundle);
      }
      return bundle;
    };
    // Bundling runs in parallel, before the first worker is created.
    const bundles = new Map(options.queues.map((queue) => [queue, bundleFor(queue)]));
    const workers: Worker[] = [];
    for (const queue of options.queues) {
      const factory = queueWorkers[queue];
      if (!factory) throw new Error(`no worker for task queue ${queue}`);
      workers.push(
        await factory({
          connection: options.connection,
          namespace: options.namespace,
          taskQueue: queue,
          deps: options.deps,
          activities,
          workflowBundle: await bundles.get(queue),
          maxConcurrentActivityTaskExecutions: slots,
          workflowCache: options.workflowCache,
          dataConverter: options.dataConverter,
          logger: options.logger,
        }),
      );
    }
    for (const worker of workers) {
      const run = worker.run();
      run.catch((err) => options.logger.error({ err }, 'worker stopped with an error'));
      stops.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await run.catch(() => {});
      });
    }
    if (background) {
      for (const service of backgroundServices) {
        stops.push(
          await service.start({
            client: options.client,
            deps: options.deps,
            activities,
            platform,
            logger: options.logger,
          }),
        );
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { queues: options.queues, activitySlotsPerQueue: slots, stop };
}
