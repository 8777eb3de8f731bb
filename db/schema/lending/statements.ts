/**
 * Periodic statements of loans (docs/design.md §5 "Statements"; docs/processes.md P6; OpenAPI `GET
 * /v1/loans/{loanId}/statements`). One row per (tenant, loan, due date): the unique key makes generation
 * idempotent. Append-only (custom migration revoking UPDATE, DELETE and TRUNCATE from lending_app): a statement,
 * once issued, is never changed. Tenant-owned under row-level security (docs/design.md §3).
 */
import { bigint, date, index, jsonb, pgTable, uniqueIndex } from 'drizzle-orm/pg-core';
import type { StatementFigures } from '../../../domain/lending/statements';
import { createdAt, identityId, tenantId, tenantIsolation, tenantKey, tenantReference } from '../columns';
import { loans } from './lending';

export const statements = pgTable(
  'statements',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    /** ISO date of the installment the statement is for. */
    dueDate: date({ mode: 'string' }).notNull(),
    /** ISO date it was issued (due date − lead days, tenant time zone); the period's last day. */
    statementDate: date({ mode: 'string' }).notNull(),
    periodStart: date({ mode: 'string' }).notNull(),
    periodEnd: date({ mode: 'string' }).notNull(),
    /** domain/lending/statements.ts `StatementFigures`: amounts as decimal strings. */
    figures: jsonb().notNull().$type<StatementFigures>(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('statements', t),
    tenantReference('statements_loan_fk', t, t.loanId, loans),
    uniqueIndex('statements_tenant_loan_due_date_idx').on(t.tenantId, t.loanId, t.dueDate),
    index('statements_tenant_loan_statement_date_idx').on(t.tenantId, t.loanId, t.statementDate, t.id),
    tenantIsolation('statements'),
  ],
).enableRLS();
