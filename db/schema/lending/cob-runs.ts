/**
 * Close-of-business runs and their errors (docs/processes.md P7 "The run"; Apache Fineract's Loan COB job). A run
 * closes one business day D of a tenant, for every loan active on D (`loan_ids` null: the whole-tenant run, unique
 * per tenant and day) or for the loans an operator named (`loan_ids`, a run of its own each time). Its workflow
 * (workflows/lending/close-of-business/) writes the final status and counts; while it runs, its progress comes
 * from the workflow's query. `cob_run_errors` keeps one row per (run, loan): the latest error of a loan whose step
 * failed. Tenant-owned under row-level security (docs/design.md §3).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  foreignKey,
  integer,
  jsonb,
  pgTable,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  createdAt,
  identityId,
  instant,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { loans } from './lending';

/** Statuses of a run (spec names): RUNNING until its workflow ends, then COMPLETED or COMPLETED_WITH_ERRORS. */
export const cobRunStatuses = ['RUNNING', 'COMPLETED', 'COMPLETED_WITH_ERRORS'] as const;

export const cobRuns = pgTable(
  'cob_runs',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** Opaque public id, `cob_` + 24 hex digits (activities/lending/open-cob-run.ts `newCobRunId`). */
    runId: text().notNull(),
    /** ISO date D of the day closed (tenant time zone). */
    businessDate: date({ mode: 'string' }).notNull(),
    /** The loans named by the operator (ids, ascending), or null for every loan active on D. */
    loanIds: jsonb().$type<number[]>(),
    /** `close-of-business/<tenant>/<D>` or, for a run of named loans, `close-of-business/<tenant>/<D>/<runId>`. */
    workflowId: text().notNull(),
    status: text({ enum: cobRunStatuses }).notNull().default('RUNNING'),
    /** Loans the run covers (known once its workflow counted them), processed (closed or found closed), failed. */
    loansTotal: integer().notNull().default(0),
    loansProcessed: integer().notNull().default(0),
    loansFailed: integer().notNull().default(0),
    startedAt: createdAt(),
    completedAt: instant(),
  },
  (t) => [
    tenantKey('cob_runs', t),
    unique('cob_runs_tenant_run_id_key').on(t.tenantId, t.runId),
    uniqueIndex('cob_runs_tenant_whole_day_idx').on(t.tenantId, t.businessDate).where(sql`loan_ids is null`),
    check(
      'cob_runs_counts_check',
      sql`${t.loansTotal} >= 0 and ${t.loansProcessed} >= 0 and ${t.loansFailed} >= 0`,
    ),
    tenantIsolation('cob_runs'),
  ],
).enableRLS();

export const cobRunErrors = pgTable(
  'cob_run_errors',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** The run's public id (`cob_runs.run_id`). */
    runId: text().notNull(),
    loanId: bigint({ mode: 'number' }).notNull(),
    /** The step's error message (the latest, when the loan failed again in a retried chunk). */
    error: text().notNull(),
    recordedAt: createdAt(),
  },
  (t) => [
    tenantKey('cob_run_errors', t),
    foreignKey({
      name: 'cob_run_errors_run_fk',
      columns: [t.tenantId, t.runId],
      foreignColumns: [cobRuns.tenantId, cobRuns.runId],
    }),
    tenantReference('cob_run_errors_loan_fk', t, t.loanId, loans),
    uniqueIndex('cob_run_errors_tenant_run_loan_idx').on(t.tenantId, t.runId, t.loanId),
    tenantIsolation('cob_run_errors'),
  ],
).enableRLS();
