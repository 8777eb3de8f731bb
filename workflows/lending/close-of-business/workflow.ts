/**
 * Close of business (docs/processes.md P7 "The run"; Apache Fineract's Loan COB job, made a durable, resumable and
 * observable process that never locks a loan against the API).
 *
 * `closeOfBusinessWorkflow` closes one tenant's business day D (id `close-of-business/<tenant>/<D>` for the
 * whole-tenant run, `close-of-business/<tenant>/<D>/<runId>` for a run of named loans; queue `lending`; search
 * attribute `TenantId`). It counts its loans and stores the count (`countCobRunLoans`), then works in rounds: the
 * whole-tenant run plans the next `chunksInParallel` chunks of the loans active on D by id (`planCobChunks`: ACTIVE,
 * disbursed on or before D, not closed for a later day), a run of named loans slices its list; each chunk is one
 * activity (`closeCobChunk`) that runs the loans' steps (activities/lending/close-loan-business-day.ts, one short
 * transaction per loan under its row lock, idempotent per loan and day), heartbeats after each loan and records
 * the failed loans in the run's errors. A failing loan never stops the run. After `chunksPerRun` chunks (or when
 * Temporal suggests it) the run continues as new with its state (cursor and counts). At the end `completeCobRun`
 * stores the status (COMPLETED, or COMPLETED_WITH_ERRORS when a loan failed) and the counts.
 *
 * Counting: a chunk's loans are read afresh when it runs, including those already closed for D, so a chunk retried
 * after a worker died counts the loans its first attempt closed as processed (their step answers SKIPPED) and each
 * loan is counted once; `processed` = closed + skipped.
 *
 * Messages: query `progress` → `{total, processed, failed}`.
 *
 * `closeOfBusinessLauncherWorkflow` is what the tenant's daily Temporal Schedule starts at 00:30 tenant time
 * (client.ts `ensureCloseOfBusinessSchedule`): it takes D = the day before the local date of its scheduled time,
 * opens (or finds) the whole-tenant run of D (`openCobRun`) and starts its workflow (parent close policy ABANDON;
 * one already started or run is left as it is).
 *
 * Deterministic: time only through `workflowNow()` and the schedule's search attribute; activities through
 * `proxyActivities`.
 */
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
} from '@temporalio/common';
import {
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import {
  closeOfBusinessStartSpec,
  closeOfBusinessSummary,
  cobBusinessDateOfLaunch,
  finalCobRunStatus,
} from '../../../domain/lending/cob-runs';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { progressQuery } from './messages';
import type {
  CloseOfBusinessLauncherInput,
  CloseOfBusinessLauncherResult,
  CloseOfBusinessResult,
  CloseOfBusinessWorkflowInput,
  CobRunState,
  CobTuning,
} from './types';

const { countCobRunLoans, planCobChunks, completeCobRun, openCobRun } = proxyActivities<Activities>(dbWrite);

const tenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
const scheduledStartKey = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** The default sizes of the work (types.ts `CobTuning`). */
export const defaultCobTuning: CobTuning = {
  chunkSize: 200,
  chunksInParallel: 4,
  chunksPerRun: 40,
  loanConcurrency: 4,
  chunkHeartbeatTimeoutMs: 30_000,
};

/**
 * Closes day D for the run's loans (module note). Returns the run's status and counts, summed over
 * continue-as-new runs. Errors: the activities' transient errors are retried (`dbWrite`; a chunk also when its
 * worker stops heartbeating); a loan's failure is counted, never thrown.
 */
export async function closeOfBusinessWorkflow(
  input: CloseOfBusinessWorkflowInput,
): Promise<CloseOfBusinessResult> {
  const tuning: CobTuning = { ...defaultCobTuning, ...input.tuning };
  // A chunk may run for minutes; it heartbeats after each loan (workers/activities.ts), so a dead worker's chunk is
  // retried after the heartbeat timeout.
  const { closeCobChunk } = proxyActivities<Activities>({
    ...dbWrite,
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: tuning.chunkHeartbeatTimeoutMs,
  });
  const ref = { tenantId: input.tenantId, runId: input.runId, businessDate: input.businessDate };
  const state: CobRunState = input.state ?? {
    total: 0,
    processed: 0,
    failed: 0,
    afterLoanId: 0,
    nextIndex: 0,
  };
  // Registered first, so a query is answered from the first workflow task on (zeros until the loans are counted).
  setHandler(progressQuery, () => ({ total: state.total, processed: state.processed, failed: state.failed }));
  if (!input.state) {
    state.total = (await countCobRunLoans({ ...ref, loanIds: input.loanIds })).total;
  }
  setCurrentDetails(closeOfBusinessSummary(input.businessDate, state.total));

  const add = (r: { closed: number; skipped: number; failed: number }) => {
    state.processed += r.closed + r.skipped;
    state.failed += r.failed;
  };
  let chunksThisRun = 0;
  let done = false;
  while (!done) {
    if (chunksThisRun >= tuning.chunksPerRun || workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof closeOfBusinessWorkflow>({ ...input, state });
    }
    if (input.loanIds !== null) {
      const slices: number[][] = [];
      for (let i = 0; i < tuning.chunksInParallel; i++) {
        const from = state.nextIndex + i * tuning.chunkSize;
        const slice = input.loanIds.slice(from, from + tuning.chunkSize);
        if (slice.length > 0) slices.push(slice);
      }
      const results = await Promise.all(
        slices.map((loanIds) => closeCobChunk({ ...ref, loanIds, concurrency: tuning.loanConcurrency })),
      );
      results.forEach(add);
      state.nextIndex += slices.reduce((n, s) => n + s.length, 0);
      chunksThisRun += slices.length;
      done = state.nextIndex >= input.loanIds.length;
    } else {
      const plan = await planCobChunks({
        tenantId: input.tenantId,
        businessDate: input.businessDate,
        afterLoanId: state.afterLoanId,
        chunkSize: tuning.chunkSize,
        chunks: tuning.chunksInParallel,
      });
      const results = await Promise.all(
        plan.ranges.map((range) => closeCobChunk({ ...ref, range, concurrency: tuning.loanConcurrency })),
      );
      results.forEach(add);
      const last = plan.ranges[plan.ranges.length - 1];
      if (last) state.afterLoanId = last.lastLoanId;
      chunksThisRun += plan.ranges.length;
      done = plan.done;
    }
  }
  const loans = { total: state.total, processed: state.processed, failed: state.failed };
  await completeCobRun({ tenantId: input.tenantId, runId: input.runId, loans });
  return {
    runId: input.runId,
    businessDate: input.businessDate,
    status: finalCobRunStatus(loans.failed),
    loans,
  };
}

/**
 * The daily launch of a tenant's close of business (module note). Returns the run of the day that ended and
 * whether its workflow was started now. Errors: `openCobRun`'s transient errors are retried (`dbWrite`).
 */
export async function closeOfBusinessLauncherWorkflow(
  input: CloseOfBusinessLauncherInput,
): Promise<CloseOfBusinessLauncherResult> {
  const scheduledAt = workflowInfo().typedSearchAttributes.get(scheduledStartKey);
  const atMs = input.atMs ?? (scheduledAt ? scheduledAt.getTime() : workflowNow());
  const businessDate = cobBusinessDateOfLaunch(atMs, input.timeZone);
  const opened = await openCobRun({ tenantId: input.tenantId, businessDate, loanIds: null });
  const spec = closeOfBusinessStartSpec(opened.workflow.input);
  const workflowId = spec.workflowId;
  const found = {
    tenantId: input.tenantId,
    businessDate,
    runId: opened.run.runId,
    workflowId,
    started: false,
  };
  // A run that ended (an operator ran the day first) is never started again.
  if (!opened.created && opened.run.status !== 'RUNNING') return found;
  let started = true;
  try {
    await startChild(closeOfBusinessWorkflow, {
      workflowId,
      taskQueue: spec.taskQueue,
      args: [spec.input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [{ key: tenantIdKey, value: input.tenantId }],
      staticSummary: spec.staticSummary,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    started = false;
  }
  return { tenantId: input.tenantId, businessDate, runId: opened.run.runId, workflowId, started };
}
