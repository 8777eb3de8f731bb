/**
 * Inputs and results of the statement cycle (docs/processes.md P6 "Statements"), JSON-serializable.
 * Dates are ISO calendar dates (`YYYY-MM-DD`) in each tenant's compliance time zone.
 */
import type { TenantStatementCycleInput } from '../../../domain/lending/statements';

export type { TenantStatementCycleInput };

/** The input of `dailyStatementCycleWorkflow`; the schedule passes `{}`. */
export interface DailyStatementCycleInput {
  /**
   * The instant (epoch ms) whose tenant-local date is each tenant's asOf; default the run's time (`workflowNow()`).
   * Tests and operators replaying a day pass it.
   */
  atMs?: number;
  /** The tenants to run; default every tenant with a statement-enabled product (`listStatementTenants`). */
  tenantIds?: string[];
}

/** A statement the run generated or found. */
export interface CycleStatement {
  loanId: number;
  dueDate: string;
  statementId: number;
}

/**
 * The state a tenant's run carries across continue-as-new (inside `TenantStatementCycleInput`). The counts are
 * exact; the lists keep their first `listedMax` entries (workflows/lending/statement-cycle/workflow.ts), so the state stays
 * far below Temporal's payload limit whatever the number of loans.
 */
export interface TenantStatementCycleProgress {
  /** Loans up to this id are done. */
  afterLoanId: number;
  counts: { generated: number; existing: number; skipped: number };
  generated: CycleStatement[];
  /** Statements that already existed (a rerun of the day). */
  existing: CycleStatement[];
  /** Candidates refused by the operation (e.g. the loan closed between the list and the generation). */
  skipped: { loanId: number; dueDate: string; reason: string }[];
}

/** What one tenant's run for a date did. */
export interface TenantStatementCycleResult extends TenantStatementCycleProgress {
  tenantId: string;
  asOf: string;
}

/** What the daily run did over every tenant. */
export interface DailyStatementCycleResult {
  /** Tenants run successfully, with their asOf and counts. */
  tenants: { tenantId: string; asOf: string; generated: number; existing: number; skipped: number }[];
}
