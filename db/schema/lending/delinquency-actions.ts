/**
 * Delinquency actions of a loan (Apache Fineract's `m_loan_delinquency_action`, `LoanDelinquencyActionData`):
 * a PAUSE over `[startDate, endDate]` stops delinquent days from counting; a RESUME on a date ends the active pause
 * there. Append-only in practice: rows are inserted, never changed. Tenant-owned under row-level security.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, date, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, identityId, tenantId, tenantIsolation, tenantKey, tenantReference } from '../columns';
import { loans } from './lending';

export const loanDelinquencyActions = pgTable(
  'loan_delinquency_actions',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    /** Fineract `DelinquencyAction`: PAUSE or RESUME. */
    action: text({ enum: ['PAUSE', 'RESUME'] }).notNull(),
    startDate: date({ mode: 'string' }).notNull(),
    /** The last paused day of a PAUSE; null for a RESUME. */
    endDate: date({ mode: 'string' }),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    check(
      'loan_delinquency_actions_dates_check',
      sql`(${t.action} = 'PAUSE' and ${t.endDate} > ${t.startDate}) or (${t.action} = 'RESUME' and ${t.endDate} is null)`,
    ),
    tenantKey('loan_delinquency_actions', t),
    tenantReference('loan_delinquency_actions_loan_fk', t, t.loanId, loans),
    index('loan_delinquency_actions_loan_idx').on(t.tenantId, t.loanId, t.id),
    uniqueIndex('loan_delinquency_actions_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('loan_delinquency_actions'),
  ],
).enableRLS();
