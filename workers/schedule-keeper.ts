/**
 * Keeps a Temporal Schedule in place from every worker process (docs/processes.md P0: Temporal is the scheduler; used
 * for the daily reconciliation, P1, and the statement cycle, P6): at start the process creates the schedule or brings
 * it to the current definition through the process's idempotent `ensure` (safe from any number of processes). When
 * Temporal does not answer, the worker still starts and the attempt is repeated every `retryMs` until it succeeds.
 */
import type { Logger } from 'pino';

export interface ScheduleKeeperOptions {
  /** What the log lines name, e.g. `daily reconciliation`. */
  name: string;
  /** Creates or updates the schedule (a process port's `ensure…Schedule`); rejects when Temporal does not answer. */
  ensure: () => Promise<'created' | 'updated'>;
  logger: Logger;
  /** Wait before another attempt after a failure, milliseconds (default 60 000). */
  retryMs?: number;
}

/**
 * Ensures the schedule now, and again every `retryMs` after a failure, until it succeeds. Resolves to the stop
 * function, which cancels a pending retry and waits for an attempt in progress. Never rejects.
 */
export async function startScheduleKeeper(options: ScheduleKeeperOptions): Promise<() => Promise<void>> {
  const retryMs = options.retryMs ?? 60_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> = Promise.resolve();
  const tryOnce = async () => {
    try {
      const outcome = await options.ensure();
      options.logger.info({ outcome }, `${options.name} schedule in place`);
    } catch (err) {
      options.logger.warn({ err, retryMs }, `${options.name} schedule not ensured; retrying`);
      if (!stopped) {
        timer = setTimeout(() => {
          attempt = tryOnce();
        }, retryMs);
        timer.unref();
      }
    }
  };
  attempt = tryOnce();
  await attempt;
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await attempt;
  };
}
