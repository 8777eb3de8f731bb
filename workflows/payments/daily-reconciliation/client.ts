/**
 * The typed port to the daily reconciliation (docs/processes.md P1 "Reconciliation exceptions"): the
 * Temporal Schedule that starts `dailyReconciliationWorkflow` every day, and an operator's start of one tenant's
 * reconciliation. Imports `@temporalio/client`: never part of the workflow bundle.
 */
import {
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { taskQueues } from '../../../domain/ids';
import {
  dailyReconciliationScheduleId,
  reconciliationTimeZone,
  type TenantReconciliationInput,
  tenantReconciliationStartSpec,
} from '../../../domain/payments/daily-reconciliation';
import { ensureSchedule } from '../../common/client-schedule';
import { startWorkflowOf } from '../../common/client-start';
import type { dailyReconciliationWorkflow } from './workflow';

/** When the daily run starts, wall-clock time in the rail's calendar (America/New_York). */
export const dailyReconciliationTime = { hour: 6, minute: 0 } as const;

type DailyAction = ScheduleOptionsStartWorkflowAction<typeof dailyReconciliationWorkflow>;

/**
 * The schedule's definition: every day at 06:00 America/New_York (the rail's calendar, DST followed by the server),
 * start `dailyReconciliationWorkflow({})` on queue `lending` with id `daily-reconciliation-<scheduled time>`;
 * overlap `SKIP` (a run still going when the next is due makes the next one skip, the following day's run covers
 * its own day and an operator reruns the skipped one), catch-up window one day (a server outage shorter than a day
 * still runs the missed day).
 */
export function dailyReconciliationSchedule(
  scheduleId = dailyReconciliationScheduleId,
): ScheduleOptions<DailyAction> {
  return {
    scheduleId,
    spec: {
      calendars: [{ hour: dailyReconciliationTime.hour, minute: dailyReconciliationTime.minute }],
      timezone: reconciliationTimeZone,
    },
    action: {
      type: 'startWorkflow',
      workflowType: 'dailyReconciliationWorkflow',
      workflowId: scheduleId,
      taskQueue: taskQueues.lending,
      args: [{}],
      staticSummary:
        "Daily reconciliation of every tenant's rail settlements (previous day, America/New_York)",
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
}

/**
 * Creates the daily schedule, or brings an existing one to the current definition (`dailyReconciliationSchedule`):
 * idempotent, so every worker process calls it at start (workers/registry.ts) and any number of them may race
 * (the loser's "already exists" is treated as done, then updated). A paused schedule stays paused. Answers
 * `created` or `updated`. Errors: DomainError 503 when Temporal is unreachable (common/client-schedule.ts
 * `ensureSchedule`).
 */
export async function ensureDailyReconciliationSchedule(
  client: Client,
  scheduleId = dailyReconciliationScheduleId,
): Promise<'created' | 'updated'> {
  return ensureSchedule(client, dailyReconciliationSchedule(scheduleId));
}

/**
 * Starts one tenant's reconciliation of the ISO dates `from`–`to` (an operator's rerun; id
 * `daily-reconciliation/<tenant>/<date>`); a no-op while the same run is in progress. Answers the workflow id.
 * Errors: DomainError 503 when Temporal is unreachable.
 */
export async function startTenantReconciliation(
  client: Client,
  input: TenantReconciliationInput,
): Promise<string> {
  const spec = tenantReconciliationStartSpec(input);
  await startWorkflowOf(client, spec);
  return spec.workflowId;
}
