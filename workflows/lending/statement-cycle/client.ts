/**
 * The typed port to the statement cycle (docs/processes.md P6 "Statements"): the Temporal Schedule that
 * starts `dailyStatementCycleWorkflow` every day, and an operator's start of one tenant's run for a date. Imports
 * `@temporalio/client`: never part of the workflow bundle.
 */
import {
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import { taskQueues } from '../../../domain/ids';
import {
  statementCycleScheduleId,
  type TenantStatementCycleInput,
  tenantStatementCycleStartSpec,
} from '../../../domain/lending/statements';
import { ensureSchedule } from '../../common/client-schedule';
import { startWorkflowOf } from '../../common/client-start';
import type { dailyStatementCycleWorkflow } from './workflow';

/**
 * When the daily run starts: 12:00 UTC. At that instant every zone from UTC−12 to UTC+14 is between 00:00 and
 * 02:00 or later of one local date, DST or not, so each tenant's local date advances by exactly one day per run
 * (no day issued twice, none skipped, whatever the tenant's offset changes).
 */
export const statementCycleTime = { hour: 12, minute: 0 } as const;

type DailyAction = ScheduleOptionsStartWorkflowAction<typeof dailyStatementCycleWorkflow>;

/**
 * The schedule's definition: every day at 12:00 UTC start `dailyStatementCycleWorkflow({})` on queue `lending`;
 * overlap `SKIP`, catch-up window one day (a server outage shorter than a day still runs the missed day).
 */
export function statementCycleSchedule(scheduleId = statementCycleScheduleId): ScheduleOptions<DailyAction> {
  return {
    scheduleId,
    spec: {
      calendars: [{ hour: statementCycleTime.hour, minute: statementCycleTime.minute }],
      timezone: 'UTC',
    },
    action: {
      type: 'startWorkflow',
      workflowType: 'dailyStatementCycleWorkflow',
      workflowId: scheduleId,
      taskQueue: taskQueues.lending,
      args: [{}],
      staticSummary: "Daily statements of every tenant's loans (due date − lead days, tenant time zone)",
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
}

/**
 * Creates the daily schedule, or brings an existing one to the current definition: idempotent, so every worker
 * process calls it at start (workers/registry.ts) and any number may race. A paused schedule stays paused. Answers
 * `created` or `updated`. Errors: DomainError 503 when Temporal is unreachable.
 */
export async function ensureStatementCycleSchedule(
  client: Client,
  scheduleId = statementCycleScheduleId,
): Promise<'created' | 'updated'> {
  return ensureSchedule(client, statementCycleSchedule(scheduleId));
}

/**
 * Starts one tenant's statement run for the ISO date `asOf` (id `statement-cycle/<tenant>/<asOf>`); a no-op while
 * the same run is in progress, and a rerun generates nothing new (statements are unique per loan and due date).
 * Answers the workflow id. Errors: DomainError 503 when Temporal is unreachable.
 */
export async function startTenantStatementCycle(
  client: Client,
  input: TenantStatementCycleInput,
): Promise<string> {
  const spec = tenantStatementCycleStartSpec(input);
  await startWorkflowOf(client, spec);
  return spec.workflowId;
}
