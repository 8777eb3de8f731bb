/**
 * What a worker process can run (docs/processes.md P0 "Processes run apart"): one factory per task
 * queue, and the background services every worker process runs beside its workers (relays).
 * `npm run start:worker -- --queues a,b` picks queues from `queueWorkers`; `npm start` runs them
 * all. To add a queue, add `name: (ctx) => createXWorker(ctx)`; to add a background service,
 * append `{ name, start: (ctx) => stopFn }` to `backgroundServices`.
 */
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Activities, Deps, PlatformOperations } from '../activities';
import { taskQueues } from '../domain/ids';
import { ensureBoardingRawPurgeSchedule } from '../workflows/boarding/boarding-purge/client';
import { ensureStatementCycleSchedule } from '../workflows/lending/statement-cycle/client';
import { ensureDailyReconciliationSchedule } from '../workflows/payments/daily-reconciliation/client';
import { startCloseOfBusinessSchedules } from './cob-schedules';
import { boardingRawRetentionDaysOf, defaultWorkflowCacheLimits, type WorkflowCacheLimits } from './config';
import { startOutboxRelay } from './outbox-relay';
import { createQueueWorker } from './queue-worker';
import { startScheduleKeeper } from './schedule-keeper';
import { startStartIntentRelay } from './start-intent-relay';

/** A workflow bundle as `Worker.create` takes it: its code, or the path of a prebuilt file. */
export type WorkflowBundle = { code: string } | { codePath: string };

/** What a queue's worker factory receives. */
export interface QueueWorkerContext {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: Deps;
  activities: Activities;
  /** Prebuilt workflow bundle; undefined bundles `workflows/index.ts` at start. */
  workflowBundle: WorkflowBundle | undefined;
  /** Activity slots of this queue's worker, sized to the database pool. */
  maxConcurrentActivityTaskExecutions: number;
  /** Sticky-cache size and workflow tasks at once of this queue's worker; unset → the defaults. */
  workflowCache?: WorkflowCacheLimits | undefined;
  /** The service's data converter with its payload codec (workers/payload-codec.ts); unset: the SDK's default. */
  dataConverter?: DataConverter | undefined;
  logger: Logger;
}

export type QueueWorkerFactory = (ctx: QueueWorkerContext) => Promise<Worker>;

/** What a background service receives. */
export interface BackgroundContext {
  client: Client;
  deps: Deps;
  activities: Activities;
  platform: PlatformOperations;
  logger: Logger;
}

export interface BackgroundService {
  name: string;
  /** Starts the service; resolves to its stop function (which waits for work in progress). */
  start(ctx: BackgroundContext): (() => Promise<void>) | Promise<() => Promise<void>>;
}

/**
 * Task queue → worker factory. Every queue's worker runs the one workflow bundle and every
 * operation (names are unique across workers); a queue is a pool and failure domain (docs/conventions.md §9).
 */
export const queueWorkers: Record<string, QueueWorkerFactory> = {
  [taskQueues.servicing]: (ctx) => createQueueWorker(ctx),
  [taskQueues.lending]: (ctx) => createQueueWorker(ctx),
  // Portfolio boarding (docs/processes.md P3): long batches on a pool of their own, so they never delay servicing.
  [taskQueues.boarding]: (ctx) => createQueueWorker(ctx),
  // Deliveries wait on a queue of their own, so a slow receiver never holds back the others. Its worker has
  // `webhookSendSlots` more activity slots than its share of the database pool: an attempt's HTTP call holds its
  // slot for up to the 15 s timeout but no connection, and with only the pool's share (7 of 30) five attempts to
  // receivers that never answer left the other tenants' deliveries two slots between them.
  [taskQueues.webhooks]: (ctx) =>
    createQueueWorker({
      ...ctx,
      maxConcurrentActivityTaskExecutions: ctx.maxConcurrentActivityTaskExecutions + webhookSendSlots,
    }),
  // Deliveries the relay delayed (a tenant's burst past its pace, an endpoint whose breaker is open): their own
  // pool, so a backlog of thousands never queues ahead of the live deliveries, with few workflow tasks at once so
  // that it leaves the process's CPU to the live pool, and a small sticky cache: a backlog delivery waits minutes
  // between its tasks (for a wake-up or a retry), so caching it saves little and holds about 1 MB a delivery.
  [taskQueues.webhooksBacklog]: (ctx) =>
    createQueueWorker({
      ...ctx,
      maxConcurrentActivityTaskExecutions: ctx.maxConcurrentActivityTaskExecutions + webhookSendSlots,
      workflowCache: {
        maxCachedWorkflows: Math.min(
          backlogMaxCachedWorkflows,
          (ctx.workflowCache ?? defaultWorkflowCacheLimits).maxCachedWorkflows,
        ),
        maxConcurrentWorkflowTaskExecutions: 2,
      },
    }),
};

/** Sticky cache of the `webhooks-backlog` worker, in workflows (at most the process's `WORKER_MAX_CACHED_WORKFLOWS`). */
export const backlogMaxCachedWorkflows = 10;

/**
 * Activity slots the `webhooks` worker adds for attempts' HTTP calls (which hold no database connection; the
 * database activities beyond the pool's size wait for a connection for a few milliseconds). With the per-tenant cap
 * of attempts in flight (5 by default), one tenant's hanging receivers take at most that many of them.
 */
export const webhookSendSlots = 50;

/** Services every worker process runs (any number of instances is safe for each). */
export const backgroundServices: BackgroundService[] = [
  {
    name: 'start-intent-relay',
    start: ({ client, platform, logger }) => startStartIntentRelay({ client, platform, logger }),
  },
  {
    name: 'outbox-relay',
    start: async ({ client, deps, logger }) => {
      const relay = await startOutboxRelay({
        db: deps.db,
        client,
        logger,
        ...(deps.webhookLimits?.deliveryStartPacing
          ? { startPacing: deps.webhookLimits.deliveryStartPacing }
          : {}),
      });
      return () => relay.stop();
    },
  },
  {
    // Creates or updates the Temporal Schedule of the daily reconciliation (idempotent across processes).
    name: 'daily-reconciliation-schedule',
    start: ({ client, logger }) =>
      startScheduleKeeper({
        name: 'daily reconciliation',
        ensure: () => ensureDailyReconciliationSchedule(client),
        logger,
      }),
  },
  {
    // Creates or updates the Temporal Schedule of the daily statement cycle (idempotent across processes).
    name: 'statement-cycle-schedule',
    start: ({ client, logger }) =>
      startScheduleKeeper({
        name: 'statement cycle',
        ensure: () => ensureStatementCycleSchedule(client),
        logger,
      }),
  },
  {
    // Creates or updates every tenant's daily close-of-business schedule (00:30 tenant time), and those of tenants
    // created or moved to another zone later (idempotent across processes).
    name: 'close-of-business-schedules',
    start: ({ client, deps, logger }) => startCloseOfBusinessSchedules({ client, db: deps.db, logger }),
  },
  {
    // Creates or updates the Temporal Schedule of the daily purge of finished boarding batches' raw lines, with the
    // configured retention (`BOARDING_RAW_RETENTION_DAYS`, default 30; read at start, a bad value stops the start).
    name: 'boarding-raw-purge-schedule',
    start: ({ client, logger }) => {
      const retentionDays = boardingRawRetentionDaysOf();
      return startScheduleKeeper({
        name: 'boarding raw purge',
        ensure: () => ensureBoardingRawPurgeSchedule(client, retentionDays),
        logger,
      });
    },
  },
];
