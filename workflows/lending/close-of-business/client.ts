/**
 * The typed port to close of business (docs/processes.md P7 "The run"): starting a run's workflow, reading its
 * progress, and each tenant's daily Temporal Schedule of the launcher. Imports `@temporalio/client`: never part of
 * the workflow bundle.
 */
import {
  type Client,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
  ScheduleOverlapPolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { notFound } from '../../../domain/errors';
import { closeOfBusinessScheduleId, taskQueues } from '../../../domain/ids';
import {
  type CloseOfBusinessInput,
  type CobRunLoans,
  closeOfBusinessStartSpec,
  cobScheduleTime,
} from '../../../domain/lending/cob-runs';
import { toDomainError } from '../../common/client-errors';
import { ensureSchedule } from '../../common/client-schedule';
import { startWorkflowOf } from '../../common/client-start';
import { progressQuery } from './messages';
import type { CloseOfBusinessResult } from './types';
import type { closeOfBusinessLauncherWorkflow, closeOfBusinessWorkflow } from './workflow';

export interface CloseOfBusinessClient {
  /**
   * Starts the run's workflow (`close-of-business/<tenant>/<D>[/<runId>]`); a no-op when it runs or ran.
   * Errors: 503 when Temporal is unreachable.
   */
  start(input: CloseOfBusinessInput): Promise<void>;
  /**
   * The run's `{total, processed, failed}` so far (query `progress`). Errors: 404 when no such workflow exists;
   * 503 when Temporal is unreachable or no worker answers.
   */
  progress(workflowId: string): Promise<CobRunLoans>;
  /** Waits for the run's result. Errors: 404 when no such workflow exists; the workflow's failure. */
  result(workflowId: string): Promise<CloseOfBusinessResult>;
}

export function createCloseOfBusinessClient(client: Client): CloseOfBusinessClient {
  return {
    async start(input) {
      await startWorkflowOf(client, closeOfBusinessStartSpec(input));
    },
    async progress(workflowId) {
      try {
        return await client.workflow
          .getHandle<typeof closeOfBusinessWorkflow>(workflowId)
          .query(progressQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw notFound('Close-of-business run', workflowId);
        throw toDomainError(err);
      }
    },
    async result(workflowId) {
      try {
        return await client.workflow.getHandle<typeof closeOfBusinessWorkflow>(workflowId).result();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw notFound('Close-of-business run', workflowId);
        throw err;
      }
    },
  };
}

type LaunchAction = ScheduleOptionsStartWorkflowAction<typeof closeOfBusinessLauncherWorkflow>;

/**
 * A tenant's daily schedule (id `close-of-business/<tenant>`): every day at 00:30 in the tenant's `timeZone`
 * (IANA), start `closeOfBusinessLauncherWorkflow({tenantId, timeZone})` on queue `lending`, which closes the day
 * that ended; overlap SKIP, catch-up window one day (a Temporal outage shorter than a day still launches the missed
 * day; a longer one leaves the day to an operator, `npm run admin -- cob run`).
 */
export function closeOfBusinessSchedule(tenantId: string, timeZone: string): ScheduleOptions<LaunchAction> {
  const scheduleId = closeOfBusinessScheduleId(tenantId);
  return {
    scheduleId,
    spec: {
      calendars: [{ hour: cobScheduleTime.hour, minute: cobScheduleTime.minute }],
      timezone: timeZone,
    },
    action: {
      type: 'startWorkflow',
      workflowType: 'closeOfBusinessLauncherWorkflow',
      workflowId: `close-of-business-launch/${tenantId}`,
      taskQueue: taskQueues.lending,
      args: [{ tenantId, timeZone }],
      staticSummary: `Launches ${tenantId}'s close of business for the day that ended (00:30 ${timeZone})`,
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
  };
}

/**
 * Creates the tenant's daily schedule or brings it to the current definition (its zone included): idempotent, so
 * every worker process calls it at start for every tenant, and again when a tenant appears or its zone changes
 * (workers/registry.ts `close-of-business-schedules`). A paused schedule stays paused. Answers `created` or
 * `updated`. Errors: DomainError 503 when Temporal is unreachable.
 */
export async function ensureCloseOfBusinessSchedule(
  client: Client,
  tenant: { tenantId: string; timeZone: string },
): Promise<'created' | 'updated'> {
  return ensureSchedule(client, closeOfBusinessSchedule(tenant.tenantId, tenant.timeZone));
}
