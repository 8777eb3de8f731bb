/**
 * Portfolio boarding (docs/processes.md P3; docs/migrating.md "Portfolio boarding").
 *
 * `boardingWorkflow`: id `boarding/<tenant>/<batchId>` (domain/ids.ts `boardingWorkflowId`), queue `boarding`,
 * search attribute `TenantId`, static summary naming the file and its line count (domain/boarding/batch.ts
 * `boardingStartSpec`). Started by the upload once the lines are staged (state PENDING).
 *
 * 1. VALIDATING: kind by kind in boarding order, page by page (`validateBoardingPage`, `linesPerPage` lines a call):
 *    bad lines become FAILED with their Shape A error; nothing is written to business tables.
 * 2. RUNNING: kind by kind in boarding order (charges, loan products, customers, restrictions, loans, verifications;
 *    fundings and payments board with their loan, or after the loans when their loan was boarded by an earlier
 *    batch), in chunks (`planBoardingChunks`, then `boardBoardingChunk`:
 *    `loansPerChunk` loans or `linesPerChunk` other lines a call), at most `parallelChunks` chunks in flight. The
 *    kinds run one after the other, so every restriction is applied before any payment is posted.
 * 3. The end: COMPLETED, or COMPLETED_WITH_ERRORS when any line FAILED, with `completedAt`; CANCELLED on `cancel`.
 * The batch row records status, counts (recounted from the lines) and times at each phase change and every
 * `chunksPerProgressRecord` chunks (`recordBoardingProgress`), so the batch reads well after the process closed.
 *
 * Messages (messages.ts): signal `pause` (no new chunk or page is started; the ones in flight finish; status
 * PAUSED), `resume`, `cancel` (stops after the work in flight; CANCELLED; PENDING lines stay PENDING); query
 * `getProgress` → status, counts per kind, startedAtMs, completedAtMs, etaSeconds (lines left at the rate measured
 * over the RUNNING phase).
 *
 * Continue-as-new after `activitiesPerRun` activity completions (default 200) or when Temporal suggests it, always
 * between chunks with nothing in flight, carrying `BoardingCursor` (phase, kind, last line handled, paused, counts,
 * times), so the history stays small whatever the batch size. Every activity is idempotent (activities/boarding),
 * so a retried chunk boards nothing twice.
 *
 * Deterministic: time only through `workflowNow()`; activities through `proxyActivities` (`dbWrite`; chunks with a
 * 10-minute start-to-close and a 30-second heartbeat timeout).
 */
import { condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import {
  type BoardingBatchStatus,
  type BoardingCursor,
  type BoardingKind,
  type BoardingTuning,
  boardingEtaSeconds,
  boardingKinds,
  boardingLinesDone,
  emptyBoardingCounts,
} from '../../../domain/boarding/batch';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { cancelSignal, getProgressQuery, pauseSignal, resumeSignal } from './messages';
import type { BoardingProgress, BoardingWorkflowInput, BoardingWorkflowResult } from './types';

const { validateBoardingPage, planBoardingChunks, recordBoardingProgress } =
  proxyActivities<Activities>(dbWrite);
// A chunk may take minutes; it heartbeats every 5 s (workers/activities.ts), so a dead worker's chunk is retried
// after 30 s.
const { boardBoardingChunk } = proxyActivities<Activities>({
  ...dbWrite,
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
});

/** The default sizes of the work (module note). */
export const defaultBoardingTuning: BoardingTuning = {
  linesPerPage: 2_000,
  loansPerChunk: 25,
  linesPerChunk: 50,
  parallelChunks: 6,
  activitiesPerRun: 200,
  chunksPerProgressRecord: 20,
};

/** The kinds boarded by their own chunks (fundings and payments board inside their loan's chunk). */
const runningKinds: BoardingKind[] = [
  'charge',
  'loanProduct',
  'customer',
  'restriction',
  'loan',
  // Fundings and payments of loans boarded by an earlier batch (the others board inside their loan's chunk).
  'funding',
  'payment',
  'verification',
];

/** The boarding process of one batch (module note). Returns the final status and counts. */
export async function boardingWorkflow(input: BoardingWorkflowInput): Promise<BoardingWorkflowResult> {
  const tuning: BoardingTuning = { ...defaultBoardingTuning, ...(input.tuning ?? {}) };
  const ref = { tenantId: input.tenantId, batchId: input.batchId };
  const cursor: BoardingCursor = input.cursor ?? {
    phase: 'VALIDATING',
    kind: boardingKinds[0],
    afterLine: 0,
    paused: false,
    counts: emptyBoardingCounts(),
    startedAtMs: workflowNow(),
    runningStartedAtMs: null,
    doneAtRunningStart: 0,
  };
  let phase = cursor.phase;
  let paused = cursor.paused;
  let cancelled = false;
  let counts = cursor.counts;
  let status: BoardingBatchStatus = paused ? 'PAUSED' : phase;
  let completedAtMs: number | null = null;
  let runningStartedAtMs = cursor.runningStartedAtMs ?? null;
  let doneAtRunningStart = cursor.doneAtRunningStart ?? 0;
  let completions = 0;

  setHandler(pauseSignal, () => {
    paused = true;
  });
  setHandler(resumeSignal, () => {
    paused = false;
  });
  setHandler(cancelSignal, () => {
    cancelled = true;
  });
  setHandler(getProgressQuery, (): BoardingProgress => {
    const etaSeconds =
      phase === 'RUNNING' && completedAtMs === null && runningStartedAtMs !== null
        ? boardingEtaSeconds(counts, doneAtRunningStart, workflowNow() - runningStartedAtMs)
        : null;
    return {
      batchId: input.batchId,
      status,
      counts,
      startedAtMs: cursor.startedAtMs,
      completedAtMs,
      etaSeconds,
    };
  });

  const record = async (recount: boolean) => {
    const recorded = await recordBoardingProgress({
      ...ref,
      status,
      startedAtMs: cursor.startedAtMs,
      completedAtMs,
      counts: recount ? null : counts,
    });
    counts = recorded;
    completions += 1;
  };
  const finish = async (final: 'CANCELLED' | 'DONE'): Promise<BoardingWorkflowResult> => {
    await record(true);
    const failed = Object.values(counts).some((c) => c.failed > 0);
    status = final === 'CANCELLED' ? 'CANCELLED' : failed ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED';
    completedAtMs = workflowNow();
    await record(false);
    return { batchId: input.batchId, status, counts };
  };
  /** Waits while paused (status PAUSED on the row); false when cancelled. */
  const mayGoOn = async (): Promise<boolean> => {
    if (paused && !cancelled) {
      status = 'PAUSED';
      await record(false);
      await condition(() => !paused || cancelled);
      if (!cancelled) {
        status = phase;
        await record(false);
      }
    }
    return !cancelled;
  };
  const shouldContinueAsNew = () =>
    completions >= tuning.activitiesPerRun || workflowInfo().continueAsNewSuggested;
  const continued = (kind: BoardingKind, afterLine: number) =>
    continueAsNew<typeof boardingWorkflow>({
      ...input,
      cursor: {
        phase,
        kind,
        afterLine,
        paused,
        counts,
        startedAtMs: cursor.startedAtMs,
        runningStartedAtMs,
        doneAtRunningStart,
      },
    });

  if (input.cursor === null) await record(true);

  if (phase === 'VALIDATING') {
    for (let k = boardingKinds.indexOf(cursor.kind); k < boardingKinds.length; k++) {
      const kind = boardingKinds[k] as BoardingKind;
      let after = kind === cursor.kind ? cursor.afterLine : 0;
      for (;;) {
        if (!(await mayGoOn())) return finish('CANCELLED');
        if (shouldContinueAsNew()) return continued(kind, after);
        const page = await validateBoardingPage({
          ...ref,
          kind,
          afterLine: after,
          limit: tuning.linesPerPage,
        });
        completions += 1;
        counts[kind].failed += page.failed;
        if (page.lastLine !== null) after = page.lastLine;
        if (page.done) break;
      }
    }
    phase = 'RUNNING';
    status = paused ? 'PAUSED' : 'RUNNING';
    await record(true);
    runningStartedAtMs = workflowNow();
    doneAtRunningStart = boardingLinesDone(counts);
  }

  const firstKind = runningKinds.includes(cursor.kind) && cursor.phase === 'RUNNING' ? cursor.kind : 'charge';
  let chunksSinceRecord = 0;
  for (let k = runningKinds.indexOf(firstKind); k < runningKinds.length; k++) {
    const kind = runningKinds[k] as BoardingKind;
    let after = cursor.phase === 'RUNNING' && kind === cursor.kind ? cursor.afterLine : 0;
    for (;;) {
      if (!(await mayGoOn())) return finish('CANCELLED');
      if (shouldContinueAsNew()) return continued(kind, after);
      const chunks = await planBoardingChunks({
        ...ref,
        kind,
        afterLine: after,
        chunkSize: kind === 'loan' ? tuning.loansPerChunk : tuning.linesPerChunk,
        maxChunks: tuning.parallelChunks * 4,
      });
      completions += 1;
      if (chunks.length === 0) break;
      const inFlight = new Set<Promise<void>>();
      for (const chunk of chunks) {
        while (inFlight.size >= tuning.parallelChunks) await Promise.race(inFlight);
        if (paused || cancelled || completions >= tuning.activitiesPerRun) break;
        const run = boardBoardingChunk({ ...ref, kind, ...chunk }).then((delta) => {
          for (const [deltaKind, d] of Object.entries(delta)) {
            const c = counts[deltaKind as BoardingKind];
            c.boarded += d.boarded;
            c.failed += d.failed;
          }
          completions += 1;
          chunksSinceRecord += 1;
        });
        const tracked = run.finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
        // Chunks are started in line order and all of them finish before the cursor moves past them.
        after = chunk.throughLine;
      }
      await Promise.all(inFlight);
      if (chunksSinceRecord >= tuning.chunksPerProgressRecord) {
        chunksSinceRecord = 0;
        await record(true);
      }
    }
  }
  return finish('DONE');
}
