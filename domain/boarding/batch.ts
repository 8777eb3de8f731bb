/**
 * Portfolio boarding (docs/processes.md P3; docs/migrating.md "Portfolio boarding"): the NDJSON
 * line format, the kinds in boarding order, the batch statuses and counts, and the durable process's input, state
 * and start spec. Pure data and functions: shared by the upload route, the boarding activities, the workflow and
 * its client port, the CLI and the generator.
 *
 * A batch file is NDJSON: one record per line, `{"kind", "sourceRef", "body"}`, lines numbered from 1. Each `body`
 * is the body of the public route of its kind with source refs in place of ids (docs/processes.md P3 lists them):
 * `charge`, `loanProduct` (`chargeSourceRefs`), `customer` (+ `identifiers`, `consents`, `paymentInstruments`),
 * `restriction` (`customerSourceRef`), `loan` (`customerSourceRef`, `productSourceRef`, `charges[].chargeSourceRef`,
 * optional `approval`), `funding` and `payment` (`loanSourceRef`), `verification` (`customerSourceRef`,
 * `instrumentSourceRef`). `externalId` / `externalRecordRef` default to the line's `sourceRef`.
 */
import { boardingWorkflowId, taskQueues } from '../ids';
import type { WorkflowStartSpec } from '../workflow-start';

/** The kinds of a line, in boarding order (docs/migrating.md "Portfolio boarding" products and charges first, then parties,
 * restrictions before any payment, loans, fundings, payment history in chronological order, then verification). */
export const boardingKinds = [
  'charge',
  'loanProduct',
  'customer',
  'restriction',
  'loan',
  'funding',
  'payment',
  'verification',
] as const;
export type BoardingKind = (typeof boardingKinds)[number];

export function isBoardingKind(value: unknown): value is BoardingKind {
  return typeof value === 'string' && (boardingKinds as readonly string[]).includes(value);
}

/** One line of a batch file as parsed (body not yet validated against its kind's schema). */
export interface BoardingLine {
  kind: BoardingKind;
  /** The source system's key of the record: 1–128 characters, never an identifier or account number. */
  sourceRef: string;
  body: Record<string, unknown>;
}

/** Statuses of a batch (docs/processes.md P3). */
export const boardingBatchStatuses = [
  'STAGED',
  'VALIDATING',
  'RUNNING',
  'PAUSED',
  'COMPLETED',
  'COMPLETED_WITH_ERRORS',
  'CANCELLED',
] as const;
export type BoardingBatchStatus = (typeof boardingBatchStatuses)[number];

/** Final statuses: the process has ended. */
export const finalBoardingBatchStatuses = ['COMPLETED', 'COMPLETED_WITH_ERRORS', 'CANCELLED'] as const;

/** States of one staged line. */
export const boardingLineStates = ['PENDING', 'BOARDED', 'FAILED', 'SKIPPED'] as const;
export type BoardingLineState = (typeof boardingLineStates)[number];

/** Per kind: lines in the batch, boarded, failed (malformed lines count under the kind they claim, else none). */
export interface BoardingKindCount {
  total: number;
  boarded: number;
  failed: number;
}
export type BoardingCounts = Record<BoardingKind, BoardingKindCount>;

/** Counts of zero for every kind. */
export function emptyBoardingCounts(): BoardingCounts {
  return Object.fromEntries(
    boardingKinds.map((k) => [k, { total: 0, boarded: 0, failed: 0 }]),
  ) as BoardingCounts;
}

/**
 * The batch as `GET /v1/boarding/batches/{batchId}` answers it (docs/processes.md P3): status, counts per kind,
 * when it started and completed (ISO 8601 instants or null), and the estimated seconds left (null when unknown or
 * done). `records` is the number of lines staged, `malformed` the lines that were not JSON of the line shape.
 */
export interface BoardingBatchView {
  batchId: number;
  status: BoardingBatchStatus;
  records: number;
  malformed: number;
  counts: BoardingCounts;
  startedAt: string | null;
  completedAt: string | null;
  etaSeconds: number | null;
}

/** The one argument of `boardingWorkflow` (JSON); `cursor` is set by continue-as-new. */
export interface BoardingWorkflowInput {
  tenantId: string;
  batchId: number;
  /** The uploaded file's name (for the summary), or null. */
  fileName: string | null;
  /** Lines staged. */
  records: number;
  /** Where a continued run resumes; null on the first run. */
  cursor: BoardingCursor | null;
  /** Sizes of the work (tests lower them, e.g. to force continue-as-new); absent = the workflow's defaults. */
  tuning?: Partial<BoardingTuning>;
}

/** How `boardingWorkflow` cuts its work (workflows/boarding/boarding-batch/workflow.ts `defaultBoardingTuning`). */
export interface BoardingTuning {
  /** Lines per validation page. */
  linesPerPage: number;
  /** Loans (with their fundings and payments) per chunk activity. */
  loansPerChunk: number;
  /** Lines of the other kinds per chunk activity. */
  linesPerChunk: number;
  /** Chunk activities in flight at once. */
  parallelChunks: number;
  /** Continue-as-new after this many activity completions (or when Temporal suggests it). */
  activitiesPerRun: number;
  /** Record the batch row (counts recounted) after this many chunks. */
  chunksPerProgressRecord: number;
}

/** Where the process stands, carried across continue-as-new. */
export interface BoardingCursor {
  phase: 'VALIDATING' | 'RUNNING';
  /** The kind being boarded (RUNNING). */
  kind: BoardingKind;
  /** The last line number handled in the phase/kind (lines are processed in line order within a kind). */
  afterLine: number;
  paused: boolean;
  counts: BoardingCounts;
  /** Epoch ms the batch started (first run). */
  startedAtMs: number;
  /** Epoch ms the RUNNING phase started (the ETA's rate is measured over it); null before. */
  runningStartedAtMs?: number | null;
  /** Lines boarded or failed when RUNNING started. */
  doneAtRunningStart?: number;
}

/**
 * How `boardingWorkflow` is started for a batch: id `boarding/<tenant>/<batchId>`, queue `boarding`, search
 * attribute TenantId, summary naming the file and the line count, reuse REJECT_DUPLICATE (one process per batch).
 */
export function boardingStartSpec(input: BoardingWorkflowInput): WorkflowStartSpec<BoardingWorkflowInput> {
  return {
    workflowType: 'boardingWorkflow',
    workflowId: boardingWorkflowId(input.tenantId, input.batchId),
    taskQueue: taskQueues.boarding,
    input,
    tenantId: input.tenantId,
    searchAttributes: {},
    staticSummary: `Boarding batch ${input.batchId}: ${input.fileName ?? 'upload'}, ${input.records} lines`,
    idReusePolicy: 'REJECT_DUPLICATE',
  };
}

/** Lines handled (boarded or failed) over every kind. */
export function boardingLinesDone(counts: BoardingCounts): number {
  return Object.values(counts).reduce((n, c) => n + c.boarded + c.failed, 0);
}

/**
 * Seconds left of a batch at the rate measured since RUNNING started (docs/processes.md P3 `etaSeconds`): lines not
 * yet handled × elapsed ms ÷ lines handled since RUNNING started, rounded up to whole seconds; null when nothing was
 * handled yet in the phase or no time passed (no rate to go by).
 */
export function boardingEtaSeconds(
  counts: BoardingCounts,
  doneAtRunningStart: number,
  elapsedMs: number,
): number | null {
  const done = boardingLinesDone(counts);
  const total = Object.values(counts).reduce((n, c) => n + c.total, 0);
  const doneSince = done - doneAtRunningStart;
  if (elapsedMs <= 0 || doneSince <= 0) return null;
  return Math.ceil((Math.max(0, total - done) * elapsedMs) / doneSince / 1000);
}
