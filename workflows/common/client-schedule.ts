/**
 * The one way a process's port keeps its Temporal Schedule in place (docs/processes.md P0: Temporal is the
 * scheduler; the daily reconciliation, P1, and the statement cycle, P6): create the schedule, or, when it already
 * exists, bring it to the current definition. Imports `@temporalio/client`: never part of the workflow bundle.
 */
import { type Client, ScheduleAlreadyRunning, type ScheduleOptions } from '@temporalio/client';
import { toDomainError } from './client-errors';

/**
 * Creates the schedule `options.scheduleId`, or updates an existing one's spec, action and policies (its state is
 * kept: a paused schedule stays paused). Idempotent, so every worker process calls it at start and any number may
 * race (the loser's "already exists" is treated as done, then updated). Answers `created` or `updated`.
 * Errors: DomainError 503 when Temporal is unreachable (`toDomainError`).
 */
export async function ensureSchedule(
  client: Client,
  options: ScheduleOptions,
): Promise<'created' | 'updated'> {
  try {
    try {
      await client.schedule.create(options);
      return 'created';
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    await client.schedule.getHandle(options.scheduleId).update((previous) => ({
      spec: options.spec,
      action: options.action,
      policies: options.policies,
      state: previous.state,
    }));
    return 'updated';
  } catch (err) {
    throw toDomainError(err);
  }
}
