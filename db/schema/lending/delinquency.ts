/**
 * A loan's delinquency history (docs/lending.md "Delinquency"; Fineract `LoanDelinquencyTagHistory`): one row per
 * change of classification that a close-of-business run stored, unique per (loan, business date) so a repeated
 * run writes nothing twice. Append-only (the migration revokes UPDATE, DELETE and TRUNCATE from lending_app). Tenant-owned under row-level security (docs/design.md §3). Read by
 * `GET /v1/loans/{loanId}/delinquency-history` (db/queries/lending/delinquency.ts).
 */
import { bigint, date, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
    /** ISO date of the day the run closed (D: the classification is as of D + 1). */
    businessDate: date({ mode: 'string' }).notNull(),
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
    uniqueIndex('loan_delinquency_history_tenant_loan_date_idx').on(t.tenantId, t.loanId, t.businessDate),
    index('loan_delinquency_history_tenant_loan_id_idx').on(t.tenantId, t.loanId, t.id),
    tenantIsolation('loan_delinquency_history'),
  ],
).enableRLS();
