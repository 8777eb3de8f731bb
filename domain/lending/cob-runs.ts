/**
 * The close-of-business run as data (docs/processes.md P7 "The run"; Apache Fineract's Loan COB job): its start
 * spec, the day a scheduled launch closes, and the run's public view. Pure: safe in the workflow bundle.
 */
import { addDays } from '../calendar';
import { closeOfBusinessWorkflowId, taskQueues } from '../ids';
import { localDate } from '../time-zone';
import type { WorkflowStartSpec } from '../workflow-start';

/** A run's status (spec names): RUNNING until its workflow ends, then COMPLETED or COMPLETED_WITH_ERRORS. */
export type CobRunStatus = 'RUNNING' | 'COMPLETED' | 'COMPLETED_WITH_ERRORS';

/** Loans of a run: `total` covered, `processed` (closed now or found already closed for D), `failed`. */
export interface CobRunLoans {
  total: number;
  processed: number;
  failed: number;
}

/** A run as `GET /v1/cob/runs/{runId}` shows it; instants ISO 8601 UTC, `completedAt` null while RUNNING. */
export interface CobRunView {
  runId: string;
  businessDate: string;
  status: CobRunStatus;
  loans: CobRunLoans;
  startedAt: string;
  completedAt: string | null;
}

/** The status a run ends with: COMPLETED_WITH_ERRORS when any loan's step failed, else COMPLETED. */
export function finalCobRunStatus(failed: number): Exclude<CobRunStatus, 'RUNNING'> {
  return failed > 0 ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED';
}

/** The input of `closeOfBusinessWorkflow` (JSON). */
export interface CloseOfBusinessInput {
  tenantId: string;
  /** The run's public id (`cob_…`). */
  runId: string;
  /** ISO date D of the day closed. */
  businessDate: string;
  /** The loans an operator named (ascending, distinct), or null for every loan active on D. */
  loanIds: number[] | null;
}

/**
 * The start spec of a run (docs/conventions.md §9): id `close-of-business/<tenant>/<D>` for the whole-tenant run
 * (REJECT_DUPLICATE: a day's run happens once), `…/<runId>` for a run of named loans; queue `lending`; search
 * attribute `TenantId`; a summary naming the day and what it covers.
 */
export function closeOfBusinessStartSpec(
  input: CloseOfBusinessInput,
): WorkflowStartSpec<CloseOfBusinessInput> {
  const whole = input.loanIds === null;
  return {
    workflowType: 'closeOfBusinessWorkflow',
    workflowId: closeOfBusinessWorkflowId(
      input.tenantId,
      input.businessDate,
      whole ? undefined : input.runId,
    ),
    taskQueue: taskQueues.lending,
    input,
    tenantId: input.tenantId,
    searchAttributes: {},
    staticSummary: whole
      ? `Close of business ${input.businessDate} for ${input.tenantId}: every loan active on the day`
      : `Close of business ${input.businessDate} for ${input.tenantId}: ${input.loanIds?.length ?? 0} named loan(s)`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}

/** The summary a run shows once it counted its loans (the Temporal UI's current details). */
export function closeOfBusinessSummary(businessDate: string, total: number): string {
  return `Close of business ${businessDate}: ${total} loan(s)`;
}

/** The tenant-local time the daily schedule launches the run of the day that ended (docs/processes.md P7). */
export const cobScheduleTime = { hour: 0, minute: 30 } as const;

/**
 * The business date a scheduled launch closes: the tenant-local day before the local date of the scheduled
 * instant `scheduledAtMs` (epoch ms) in `timeZone` (IANA). At 00:30 local time that is the day that just ended,
 * whatever the zone's offset or a DST change that night.
 */
export function cobBusinessDateOfLaunch(scheduledAtMs: number, timeZone: string): string {
  return addDays(localDate(scheduledAtMs, timeZone), -1);
}

/** True when D has ended in the tenant's calendar: D is before the tenant's `today` (ISO dates). */
export function cobDayHasEnded(businessDate: string, today: string): boolean {
  return businessDate < today;
}
