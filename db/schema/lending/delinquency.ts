/**
 * A loan's delinquency history (docs/lending.md "Delinquency"; Fineract `LoanDelinquencyTagHistory`): one row per
 * stored change of classification, by a close-of-business loan step (`source` CLOSE_OF_BUSINESS, at most one per
 * (loan, business date): a partial unique index, beside the step's own idempotency by the loan's
 * `last_closed_business_date`) or by a money operation that changed what is overdue (`source` TRANSACTION, any
 * number per business date: a payment cures, its return makes the loan overdue again the same day). Append-only (the migration revokes UPDATE, DELETE and TRUNCATE from lending_app). Tenant-owned under row-level security (docs/design.md §3). Read by
 * `GET /v1/loans/{loanId}/delinquency-history` (db/queries/lending/delinquency.ts).
 */
import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  createdAt,
  identityId,
  money,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { loans } from './lending';

export const loanDelinquencyHistory = pgTable(
  'loan_delinquency_history',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    /**
     * ISO date: for a step, the day the run closed (D: the classification is as of D + 1); for a transaction, the
     * loan's business date (its last closed day + 1, the classification is as of that day).
     */
    businessDate: date({ mode: 'string' }).notNull(),
    /** CLOSE_OF_BUSINESS (a loan step) or TRANSACTION (a money operation's re-post). */
    source: text().$type<'CLOSE_OF_BUSINESS' | 'TRANSACTION'>().notNull().default('CLOSE_OF_BUSINESS'),
    /** The range's classification, or NO_DELINQUENCY. */
    classification: text().notNull(),
    /** The classification before the change (NO_DELINQUENCY before the first). */
    previousClassification: text().notNull(),
    /** The range's id, null for NO_DELINQUENCY. */
    delinquencyRangeId: bigint({ mode: 'number' }),
    /** Days, ≥ 0. */
    delinquentDays: integer().notNull(),
    /** In the loan's currency. */
    delinquentAmount: money().notNull(),
    /** The collections case the change opened or closed, null when none. */
    collectionsCaseId: bigint({ mode: 'number' }),
    /** The restriction type that held a collections case back (COLLECTIONS_HOLD, COMMUNICATION_HOLD), or null. */
    collectionsSuppressedBy: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('loan_delinquency_history', t),
    tenantReference('loan_delinquency_history_loan_fk', t, t.loanId, loans),
    uniqueIndex('loan_delinquency_history_tenant_loan_step_date_idx')
      .on(t.tenantId, t.loanId, t.businessDate)
      .where(sql`source = 'CLOSE_OF_BUSINESS'`),
    check('loan_delinquency_history_source_check', sql`${t.source} in ('CLOSE_OF_BUSINESS', 'TRANSACTION')`),
    index('loan_delinquency_history_tenant_loan_id_idx').on(t.tenantId, t.loanId, t.id),
    tenantIsolation('loan_delinquency_history'),
  ],
).enableRLS();
