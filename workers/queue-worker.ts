/**
 * A task queue's worker (servicing, lending, webhooks: workers/registry.ts): the workflows of its
 * queue's bundle and every operation as an activity; queues are pools and failure domains (docs/conventions.md §9).
 * Missed workflow starts are the start-intent relay's job (workers/start-intent-relay.ts).
 */
import { createRequire } from 'node:module';
import type { DataConverter } from '@temporalio/common';
import { type NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../activities';
import { taskQueues } from '../domain/ids';
import { asTemporalActivities } from './activities';
import { defaultWorkflowCacheLimits, projectRoot, type WorkflowCacheLimits } from './config';
import { metricsActivityInterceptors } from './metrics';
import { tracingActivityInterceptors, tracingEnabled, workflowSpanSinks } from './tracing';

/** Every workflow (workflows/index.ts): the entry of a worker on a queue of no entry of its own (tests, recordings). */
export const workflowsPath = `${projectRoot}/workflows/index.ts`;

/**
 * Task queue → the workflow entry its worker bundles (workflows/queues/*.ts): only the workflows started on that
 * queue (children run on their parent's queue). Every new workflow execution, and each replay after a cache
 * eviction, evaluates the whole bundle again, so a queue's bundle without the other queues' workflows (and the
 * domain modules they import) costs less CPU per execution (docs/operating.md "Workers").
 */
export const queueWorkflowsPaths: Readonly<Record<string, string>> = {
  [taskQueues.servicing]: `${projectRoot}/workflows/queues/servicing.ts`,
  [taskQueues.lending]: `${projectRoot}/workflows/queues/lending.ts`,
  [taskQueues.boarding]: `${projectRoot}/workflows/queues/boarding.ts`,
  [taskQueues.webhooks]: `${projectRoot}/workflows/queues/webhooks.ts`,
  [taskQueues.webhooksBacklog]: `${projectRoot}/workflows/queues/webhooks.ts`,
};

/** The workflow entry a worker on `taskQueue` bundles: its queue's (`queueWorkflowsPaths`), else every workflow. */
export function workflowsPathFor(taskQueue: string): string {
  return queueWorkflowsPaths[taskQueue] ?? workflowsPath;
}

/**
 * The file name of a queue's prebuilt bundle in dist/ (scripts/build.ts): `workflow-bundle-<entry>.js`, with
 * `-traced` for the one carrying OpenTelemetry's workflow interceptors; `workflow-bundle[-traced].js` holds every workflow.
 */
export function workflowBundleFileName(taskQueue: string | undefined, traced: boolean): string {
  const entry = taskQueue && queueWorkflowsPaths[taskQueue];
  const name = entry ? `-${entry.slice(entry.lastIndexOf('/') + 1, -'.ts'.length)}` : '';
  return `workflow-bundle${name}${traced ? '-traced' : ''}.js`;
}

/**
 * OpenTelemetry's workflow interceptor modules: a workflow span (child of the client's start span) and an
 * activity-schedule span per activity, exported through the worker's sink (workers/tracing.ts). They add no
 * commands, so a history recorded with them replays without them and the other way round (test/workflows/replay.test.ts
 * replays every fixture both ways).
 */
export const tracingWorkflowInterceptorModules: readonly string[] = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
];

/**
 * The workflow interceptor modules a bundle carries (`bundleWorkflowCode({ workflowInterceptorModules })`):
 * OpenTelemetry's when `traced` (tracing is on in the process: workers/tracing.ts `tracingEnabled()`), else none.
 * Not bundling them when tracing is off matters for speed: every new workflow execution (and every replay after a
 * cache eviction) evaluates the bundle's modules again, and the OpenTelemetry libraries are a third of the bundle;
 * measured with `npm run bench:payments -- --mode autopay-day`, they cost about a third of the worker's CPU per
 * autopay enrolment (docs/operating.md "Tracing").
 */
export function workflowInterceptorModulesFor(traced: boolean): string[] {
  return traced ? [...tracingWorkflowInterceptorModules] : [];
}

/**
 * Creates (does not run) a worker on `taskQueue` (default `servicing`) with its queue's workflows and
 * every operation. Pass `workflowBundle` (prebuilt, `bundleWorkflowCode`) to skip bundling;
 * otherwise the workflows are bundled at start from `workflowsPathFor(taskQueue)`.
 * `maxConcurrentActivityTaskExecutions` (default 10) should not exceed the database pool: each
 * activity holds at most one pooled connection (docs/processes.md P0 "Failure answers").
 * `workflowCache` bounds the worker's memory (default `defaultWorkflowCacheLimits`: 100 cached
 * workflows, 10 workflow tasks at once): without it the SDK caches about 600 workflows per GiB of
 * heap, and a backlog of waiting webhook deliveries grew the process to gigabytes.
 */
export async function createQueueWorker(options: {
  connection: NativeConnection;
  namespace: string;
  activities: Activities;
  taskQueue?: string;
  workflowBundle?: { code: string } | { codePath: string } | undefined;
  maxConcurrentActivityTaskExecutions?: number;
  workflowCache?: WorkflowCacheLimits;
  /** The service's data converter (workers/payload-codec.ts `temporalDataConverter`); unset: the SDK's default. */
  dataConverter?: DataConverter | undefined;
}): Promise<Worker> {
  const cache = options.workflowCache ?? defaultWorkflowCacheLimits;
  const common = {
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue ?? taskQueues.servicing,
    activities: asTemporalActivities(options.activities),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions ?? 10,
    maxCachedWorkflows: cache.maxCachedWorkflows,
    maxConcurrentWorkflowTaskExecutions: Math.min(
      cache.maxConcurrentWorkflowTaskExecutions,
      cache.maxCachedWorkflows,
    ),
    // Metrics of activity outcomes (workers/metrics.ts) and, when tracing is on, activity spans (workers/tracing.ts).
    sinks: workflowSpanSinks(),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
  };
  const activityInterceptors = [metricsActivityInterceptors, ...tracingActivityInterceptors()];
  // A prebuilt bundle carries its workflow interceptor modules (bundled with `workflowInterceptorModulesFor`).
  return Worker.create(
    options.workflowBundle
      ? {
          ...common,
          interceptors: { activity: activityInterceptors },
          workflowBundle: options.workflowBundle,
        }
      : {
          ...common,
          interceptors: {
            activity: activityInterceptors,
            workflowModules: workflowInterceptorModulesFor(tracingEnabled()),
          },
          workflowsPath: workflowsPathFor(options.taskQueue ?? taskQueues.servicing),
        },
  );
}
