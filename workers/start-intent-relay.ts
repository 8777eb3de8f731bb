/**
 * The start-intent relay (docs/processes.md P0): the one generic mechanism that starts durable
 * processes whose start was recorded (activities/platform/start-intents.ts) but never confirmed,
 * because the process that stored them stopped between commit and start. Runs in worker
 * processes, any number of instances: each batch is claimed with `FOR UPDATE SKIP LOCKED` and a
 * lease, and starting is idempotent (deterministic ids; an already started workflow counts as
 * started), so two relays never start a process twice. Since the API no longer marks intents in the request
 * (api/start-marks.ts batches the marks), the relay is also what marks an intent whose batch was lost when its API
 * process stopped: it finds the workflow already there and marks the whole batch in one statement.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Logger } from 'pino';
import type { ClaimedStartIntent, PlatformOperations } from '../activities';
import { toDomainError } from '../workflows/common/client-errors';
import { startWorkflowOf } from '../workflows/common/client-start';

export interface StartIntentRelayOptions {
  client: Client;
  platform: Pick<
    PlatformOperations,
    'claimDueStartIntents' | 'markStartIntentsStarted' | 'recordStartIntentFailure'
  >;
  logger: Logger;
  /**
   * Intents younger than this are left to the API that wrote them, whose start-mark buffer (api/start-marks.ts)
   * marks them within ~100 ms (default 30 000 ms).
   */
  graceMs?: number;
  /** How long a claim holds an intent against other relays (default 60 000 ms). */
  leaseMs?: number;
  /** After a failed start, wait this long before the next attempt (default 15 000 ms). */
  retryAfterMs?: number;
  /** Intents per claim (default 100). */
  batchSize?: number;
  /** Temporal calls in flight at once within a batch (default 8). */
  parallelism?: number;
  /** Only this tenant's intents (tests); unset: every tenant. */
  tenantId?: string;
}

/**
 * Whether the workflow of an ALLOW_DUPLICATE intent (an id reused by later starts, e.g. autopay after a
 * re-enrolment) was already started for THIS intent: a run of that id that started at or after the intent was
 * stored. A second start of such an id would otherwise open a duplicate run when the first already closed, so these
 * are asked about (one `DescribeWorkflowExecution`) before starting. Errors: DomainError 503 when Temporal is
 * unreachable.
 */
async function startedSince(client: Client, intent: ClaimedStartIntent): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(intent.spec.workflowId).describe();
    return description.startTime.getTime() >= intent.createdAt.getTime();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw toDomainError(err);
  }
}

/**
 * One pass: claims due intents (unmarked `graceMs` after they were stored) and makes sure each one's workflow
 * exists: an intent of a reject-duplicate id is started idempotently (one Temporal call: a workflow already
 * started by the API counts as started, nothing starts twice); an ALLOW_DUPLICATE one is described first and
 * started only when no run began since it was stored. Up to `parallelism` Temporal calls at once. Every intent found
 * or started is then marked in ONE UPDATE per tenant (`markStartIntentsStarted`). Returns how many were started or
 * found already started. A failed start is recorded on its intent and retried after `retryAfterMs`.
 */
export async function relayStartIntentsOnce(options: StartIntentRelayOptions): Promise<number> {
  const claimed = await options.platform.claimDueStartIntents({
    graceMs: options.graceMs ?? 30_000,
    leaseMs: options.leaseMs ?? 60_000,
    limit: options.batchSize ?? 100,
    ...(options.tenantId === undefined ? {} : { tenantId: options.tenantId }),
  });
  if (claimed.length === 0) return 0;
  const done = new Map<string, string[]>();
  const ensure = async (intent: ClaimedStartIntent) => {
    const { spec, attempts } = intent;
    const ref = { tenantId: spec.tenantId, workflowId: spec.workflowId };
    try {
      const started =
        spec.idReusePolicy === 'ALLOW_DUPLICATE' && (await startedSince(options.client, intent))
          ? false
          : await startWorkflowOf(options.client, spec);
      const ids = done.get(spec.tenantId);
      if (ids) ids.push(spec.workflowId);
      else done.set(spec.tenantId, [spec.workflowId]);
      if (started)
        options.logger.warn(
          { ...ref, workflowType: spec.workflowType, attempts },
          'started a missed workflow start',
        );
      else
        options.logger.info(
          { ...ref, workflowType: spec.workflowType, attempts },
          'found a workflow started but not marked; marking it',
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
  };
  // A bounded pool over the batch, oldest first.
  let next = 0;
  const lanes = Math.max(1, Math.min(options.parallelism ?? 8, claimed.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < claimed.length) await ensure(claimed[next++]!);
    }),
  );
  let count = 0;
  for (const [tenantId, workflowIds] of done) {
    await options.platform.markStartIntentsStarted({ tenantId, workflowIds });
    count += workflowIds.length;
  }
  return count;
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
