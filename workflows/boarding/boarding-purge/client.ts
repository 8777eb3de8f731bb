/**
 * The typed port to the daily purge of finished boarding batches' raw lines (domain/boarding/retention.ts): the
 * Temporal Schedule that starts `boardingRawPurgeWorkflow` every day. Imports `@temporalio/client`: never part of the
 * workflow bundle.
 */
import {
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import {
  boardingRawPurgeCutoffMs,
  boardingRawPurgeScheduleId,
  boardingRawRetentionDaysDefault,
} from '../../../domain/boarding/retention';
import { taskQueues } from '../../../domain/ids';
import { ensureSchedule } from '../../common/client-schedule';
import type { boardingRawPurgeWorkflow } from './workflow';

/** When the daily run starts: 03:00 UTC. */
export const boardingRawPurgeTime = { hour: 3, minute: 0 } as const;

type PurgeAction = ScheduleOptionsStartWorkflowAction<typeof boardingRawPurgeWorkflow>;

/**
 * The schedule's definition: every day at 03:00 UTC start `boardingRawPurgeWorkflow({retentionDays})` on queue
 * `boarding`; overlap `SKIP`, catch-up window one day. Throws RangeError for a retention outside 0..3650 days.
 */
export function boardingRawPurgeSchedule(
  retentionDays = boardingRawRetentionDaysDefault,
  scheduleId = boardingRawPurgeScheduleId,
): ScheduleOptions<PurgeAction> {
  boardingRawPurgeCutoffMs(0, retentionDays);
  return {
    scheduleId,
    spec: {
      calendars: [{ hour: boardingRawPurgeTime.hour, minute: boardingRawPurgeTime.minute }],
      timezone: 'UTC',
    },
    action: {
      type: 'startWorkflow',
      workflowType: 'boardingRawPurgeWorkflow',
      workflowId: scheduleId,
      taskQueue: taskQueues.boarding,
      args: [{ retentionDays }],
      staticSummary: `Purge of the raw lines of boarding batches finished more than ${retentionDays} days ago`,
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
}

/**
 * Creates the daily schedule, or brings an existing one to the current definition (`boardingRawPurgeSchedule`):
 * idempotent, so every worker process calls it at start (workers/registry.ts). Answers `created` or `updated`.
 * Errors: DomainError 503 when Temporal is unreachable (common/client-schedule.ts `ensureSchedule`).
 */
export async function ensureBoardingRawPurgeSchedule(
  client: Client,
  retentionDays = boardingRawRetentionDaysDefault,
  scheduleId = boardingRawPurgeScheduleId,
): Promise<'created' | 'updated'> {
  return ensureSchedule(client, boardingRawPurgeSchedule(retentionDays, scheduleId));
}
