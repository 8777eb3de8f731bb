/**
 * Inputs and results of the daily reconciliation (docs/processes.md P1 "Reconciliation exceptions"),
 * JSON-serializable. Dates are ISO calendar dates (`YYYY-MM-DD`) in the rail's calendar (America/New_York).
 */
import type {
  ReconciliationFinding,
  TenantReconciliationInput,
} from '../../../domain/payments/daily-reconciliation';

export type { TenantReconciliationInput };

/** Counts by the exception types the daily reconciliation opens. */
export type FindingCounts = Record<ReconciliationFinding['exceptionType'], number>;

/** The input of `dailyReconciliationWorkflow`; the schedule passes `{}`. */
export interface DailyReconciliationInput {
  /** The day to compare; default the day before the run's date (`reconciliationDateOf`). */
  date?: string;
  /** The tenants to compare; default every tenant with payment intents (`listTenantsWithPaymentIntents`). */
  tenantIds?: string[];
}

/** What one tenant's reconciliation did. */
export interface TenantReconciliationResult {
  tenantId: string;
  from: string;
  to: string;
  /** Settlement-report lines and intents compared. */
  linesCompared: number;
  intentsCompared: number;
  /** Exceptions created by this run, by type. */
  opened: FindingCounts;
  /** Findings that were already open: their `lastSeenAt` moved, nothing was added. */
  recurred: FindingCounts;
  /** Ids of the exceptions found (created or recurred), in the order of the findings. */
  exceptionIds: number[];
}

/** What the daily run did over every tenant. */
export interface DailyReconciliationResult {
  /** The day compared. */
  date: string;
  /** Tenants reconciled successfully. */
  tenantsReconciled: number;
  /** Sums over those tenants. */
  opened: FindingCounts;
  recurred: FindingCounts;
}
