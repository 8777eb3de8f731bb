/**
 * The start-intent relay (docs/processes.md P0): the one generic mechanism that starts durable
 * processes whose start was recorded (activities/platform/start-intents.ts) but never confirmed,
 * because the process that stored them stopped between commit and start. Runs in worker
 * processes, any number of instances: each batch is claimed with `FOR UPDATE SKIP LOCKED` and a
 * lease, and starting is idempotent (deterministic ids; an already started workflow counts as
 * started), so two relays never start a process twice.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { PlatformOperations } from '../activities';
import { startWorkflowOf } from '../workflows/common/client-start';

export interface StartIntentRelayOptions {
  client: Client;
  platform: Pick<
    PlatformOperations,
    'claimDueStartIntents' | 'markStartIntentStarted' | 'recordStartIntentFailure'
  >;
  logger: Logger;
  /** Intents younger than this are left to the API that wrote them (default 30 000 ms). */
  graceMs?: number;
  /** How long a claim holds an intent against other relays (default 60 000 ms). */
  leaseMs?: number;
  /** After a failed start, wait this long before the next attempt (default 15 000 ms). */
  retryAfterMs?: number;
  /** Intents per claim (default 100). */
  batchSize?: number;
  /** Only this tenant's intents (tests); unset: every tenant. */
  tenantId?: string;
}

/**
 * One pass: claims due intents and starts each; returns how many were started (or found
 * already started). A failed start is recorded on its intent and retried after `retryAfterMs`.
 */
export async function relayStartIntentsOnce(options: StartIntentRelayOptions): Promise<number> {
  const claimed = await options.platform.claimDueStartIntents({
    graceMs: options.graceMs ?? 30_000,
    leaseMs: options.leaseMs ?? 60_000,
    limit: options.batchSize ?? 100,
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
  });
  let started = 0;
  for (const { spec, attempts } of claimed) {
    const ref = { tenantId: spec.tenantId, workflowId: spec.workflowId };
    try {
      await startWorkflowOf(options.client, spec);
      await options.platform.markStartIntentStarted(ref);
      started += 1;
      options.logger.warn(
        { ...ref, workflowType: spec.workflowType, attempts },
        'started a missed workflow start',
      );
    } catch (err) {
      options.logger.error({ err, ...ref, attempts }, 'start-intent relay could not start a workflow');
      await options.platform
        .recordStartIntentFailure({
          ...ref,
          error: err instanceof Error ? err.message : String(err),
          retryAfterMs: options.retryAfterMs ?? 15_000,
        })
        .catch((recordErr) => options.logger.error({ err: recordErr }, 'could not record a start failure'));
    }
  }
  return started;
}

/**
 * Runs `relayStartIntentsOnce` every `intervalMs` (default 5 000), one pass at a time, until the
 * returned stop function is called (which waits for the pass in progress).
 */
export function startStartIntentRelay(
  options: StartIntentRelayOptions & { intervalMs?: number },
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        // Drain a backlog without waiting a whole interval between full batches.
        while (!stopped && (await relayStartIntentsOnce(options)) >= (options.batchSize ?? 100)) {}
      } catch (err) {
        options.logger.error({ err }, 'start-intent relay pass failed');
      }
    });
  }, options.intervalMs ?? 5_000);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
