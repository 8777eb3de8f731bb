/**
 * Inputs, state and results of the close-of-business run and its daily launcher (docs/processes.md P7 "The run"),
 * JSON-serializable. Dates are ISO calendar dates (`YYYY-MM-DD`) in the tenant's compliance time zone.
 */
import type { CloseOfBusinessInput, CobRunLoans, CobRunStatus } from '../../../domain/lending/cob-runs';

export type { CloseOfBusinessInput, CobRunLoans };

/** Sizes of the work; the defaults are `defaultCobTuning` (workflow.ts), tests pass smaller ones. */
export interface CobTuning {
  /** Loans per chunk activity. */
  chunkSize: number;
  /** Chunk activities at once. */
  chunksInParallel: number;
  /** Chunks per workflow run before continue-as-new (a multiple of `chunksInParallel` keeps rounds full). */
  chunksPerRun: number;
  /** Loan steps at once inside a chunk (each its own transaction). */
  loanConcurrency: number;
  /** Heartbeat timeout of a chunk activity, milliseconds: how soon a dead worker's chunk is retried elsewhere. */
  chunkHeartbeatTimeoutMs: number;
}

/** What a run carries across continue-as-new. */
export interface CobRunState {
  /** The run's loans counted (`countCobRunLoans`). */
  total: number;
  /** Loans closed now or found closed for D (a chunk's `closed` + `skipped`). */
  processed: number;
  failed: number;
  /** Whole-tenant run: the loans up to this id are done. */
  afterLoanId: number;
  /** Run of named loans: the index in `loanIds` of the next loan. */
  nextIndex: number;
}

/** The input of `closeOfBusinessWorkflow`: the run, and after continue-as-new its state. */
export interface CloseOfBusinessWorkflowInput extends CloseOfBusinessInput {
  tuning?: Partial<CobTuning>;
  state?: CobRunState;
}

/** What a run did. */
export interface CloseOfBusinessResult {
  runId: string;
  businessDate: string;
  status: Exclude<CobRunStatus, 'RUNNING'>;
  loans: CobRunLoans;
}

/** The input of `closeOfBusinessLauncherWorkflow`, as the tenant's schedule passes it. */
export interface CloseOfBusinessLauncherInput {
  tenantId: string;
  /** The tenant's IANA zone when the schedule was last ensured (the schedule fires at 00:30 in it). */
  timeZone: string;
  /** The launch instant (epoch ms) whose day before is closed; default the schedule's time of this launch. */
  atMs?: number;
}

/** What a launch did: the run of the day that ended, found or opened, and whether its workflow was started now. */
export interface CloseOfBusinessLauncherResult {
  tenantId: string;
  businessDate: string;
  runId: string;
  workflowId: string;
  started: boolean;
}
