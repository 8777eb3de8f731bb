/**
 * The API process's start-mark buffer (docs/processes.md P0 "Start intents"): after a route started a durable
 * process (api/start-after-commit.ts), the intent's "started" mark is not written by the request but noted here, in
 * memory, and written every `flushMs` (default 100 ms) as ONE multi-row UPDATE per tenant
 * (`markStartIntentsStarted`). The request path is then one transaction (row + intent) and one Temporal start.
 *
 * Losing the buffer is harmless: a process that stops before a flush (or a flush that fails) leaves intents
 * unmarked, and the start-intent relay (workers/start-intent-relay.ts) finds those after its grace period, sees their
 * workflow already exists (a start of the same deterministic id is a no-op) and marks them then. So the guarantee
 * "a committed intent is always started" rests on the relay, never on this buffer.
 */
import type { Logger } from 'pino';
import type { PlatformOperations } from '../activities';

/** What a route needs: note one started intent (synchronous, no I/O). */
export interface StartMarkSink {
  /** Notes that the workflow `workflowId` of `tenantId` was started; written at the next flush. */
  noteStarted(ref: { tenantId: string; workflowId: string }): void;
}

export interface StartMarkBuffer extends StartMarkSink {
  /** Writes every noted mark now (one UPDATE per tenant); resolves when written. Errors are logged, not thrown. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  stop(): Promise<void>;
  /** Marks noted and not yet written (tests, metrics). */
  pending(): number;
}

/**
 * Builds and starts the buffer. `platform.markStartIntentsStarted` writes a tenant's batch; `flushMs` is the flush
 * period in milliseconds (default 100); `maxPending` (default 5 000) flushes at once when that many marks wait, so a
 * burst never holds an unbounded list.
 */
export function createStartMarkBuffer(options: {
  platform: Pick<PlatformOperations, 'markStartIntentsStarted'>;
  logger: Logger;
  flushMs?: number;
  maxPending?: number;
}): StartMarkBuffer {
  const maxPending = options.maxPending ?? 5_000;
  let byTenant = new Map<string, string[]>();
  let count = 0;
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (count === 0) return writing;
    const batch = byTenant;
    byTenant = new Map();
    count = 0;
    // One flush at a time: a slow database never gets two overlapping writes of this process.
    writing = writing.then(async () => {
      await Promise.all(
        [...batch].map(([tenantId, workflowIds]) =>
          options.platform.markStartIntentsStarted({ tenantId, workflowIds }).catch((err: unknown) => {
            // Harmless: the start-intent relay marks these after its grace period.
            options.logger.warn(
              { err, tenantId, marks: workflowIds.length },
              'could not mark started intents; the start-intent relay will',
            );
          }),
        ),
      );
    });
    return writing;
  };

  const timer = setInterval(() => void flush(), options.flushMs ?? 100);
  timer.unref();

  return {
    noteStarted(ref) {
      const ids = byTenant.get(ref.tenantId);
      if (ids) ids.push(ref.workflowId);
      else byTenant.set(ref.tenantId, [ref.workflowId]);
      count += 1;
      if (count >= maxPending) void flush();
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
    pending: () => count,
  };
}
