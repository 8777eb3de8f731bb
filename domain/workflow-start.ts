/**
 * What it takes to start one durable process, as plain JSON (docs/processes.md P0 "one shared
 * helper builds start options"; docs/conventions.md §9). An operation builds it when it stores the row a process
 * is started for, stores it as a start intent in the same transaction, and the API (right after
 * commit) or the start-intent relay (after a crash) hands it to `workflows/common/client-start.ts`,
 * which turns it into Temporal start options. Pure data: safe in `domain/`.
 */
import type { TaskQueue } from './ids';

/** Search attributes the project registers (domain/ids.ts `searchAttributes`), besides `TenantId`. */
export interface WorkflowSearchAttributes {
  CustomerRef?: string;
  CaseId?: number;
  LoanId?: string;
}

/** Temporal's workflow-id reuse policies we use (docs/conventions.md §9). */
export type WorkflowIdReusePolicy = 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE_FAILED_ONLY' | 'ALLOW_DUPLICATE';

export interface WorkflowStartSpec<Input = unknown> {
  /** The workflow function's name (its type in the UI). */
  workflowType: string;
  /** Deterministic id `<process>/<tenant>/<businessId>` (domain/ids.ts). */
  workflowId: string;
  taskQueue: TaskQueue;
  /** The workflow's one argument (JSON-serializable). */
  input: Input;
  /** Always set as the `TenantId` search attribute. */
  tenantId: string;
  searchAttributes: WorkflowSearchAttributes;
  /** One line shown in the Temporal UI's workflow list. */
  staticSummary: string;
  idReusePolicy: WorkflowIdReusePolicy;
}
