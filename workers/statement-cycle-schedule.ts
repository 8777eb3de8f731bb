/**
 * Keeps the statement cycle's Temporal Schedule in place (issue 11 §3; DESIGN-processes P6 "Statements"): every
 * worker process, at start, creates the schedule or brings it to the current definition
 * (`ensureStatementCycleSchedule`, idempotent, safe from any number of processes). When Temporal does not answer,
 * the worker still starts and the attempt is repeated every `retryMs` until it succeeds.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { ensureStatementCycleSchedule } from '../workflows/statement-cycle/client';

export interface StatementCycleSchedulerOptions {
  client: Client;
  logger: Logger;
  /** Schedule id (tests use their own); default `statement-cycle`. */
  scheduleId?: string;
  /** Wait before another attempt after a failure, milliseconds (default 60 000). */
  retryMs?: number;
}

/**
 * Ensures the schedule now, and again every `retryMs` after a failure, until it succeeds. Resolves to the stop
 * function, which cancels a pending retry and waits for an attempt in progress. Never rejects.
 */
export async function startStatementCycleScheduler(
  options: StatementCycleSchedulerOptions,
): Promise<() => Promise<void>> {
  const retryMs = options.retryMs ?? 60_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let attempt: Promise<void> = Promise.resolve();
  const tryOnce = async () => {
    try {
      const outcome = await ensureStatementCycleSchedule(options.client, options.scheduleId);
      options.logger.info({ outcome }, 'statement cycle schedule in place');
    } catch (err) {
      options.logger.warn({ err, retryMs }, 'statement cycle schedule not ensured; retrying');
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
