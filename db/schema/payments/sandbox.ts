/**
 * Sandbox context: the provider's side of the sandbox payment rail (activities/payments/sandbox-rail.ts,
 * docs/processes.md P1 "Rails", "Sandbox simulations"). These rows are what a payment provider keeps about
 * the transfers we sent it — never our ledger: payments, their allocations and journal entries live in the
 * lending context, and nothing of ours reads this table except the sandbox rail itself (its settlement report
 * is how the service learns of outcomes, as it would from a real provider). Written in the sandbox rail's own
 * transactions, never in one of an operation of ours (docs/conventions.md §5: the rail call is never in the same
 * activity as a database write of ours).
 *
 * One row per (tenant, paymentId): submitting twice finds the row (the provider's idempotency key). Money is
 * `numeric(19,6)`, dates are ISO calendar dates of the provider's business calendar (America/New_York).
 * Tenant-owned under row-level security. No foreign keys: the provider knows nothing of our tables.
 */
import { sql } from 'drizzle-orm';
import { bigint, check, date, index, numeric, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { identityId, instant, tenantId, tenantIsolation } from '../columns';

/**
 * `SUBMITTED` on an accepted submission; `DECLINED` when refused at submission (card decline, instant-rail
 * reject); `CANCELLED` when cancelled before settlement; `SETTLED`; `RETURNED` after a return of a settled
 * transfer; `FAILED` when it failed before settlement.
 */
export const sandboxRailTransferStatus = pgEnum('sandbox_rail_transfer_status', [
  'SUBMITTED',
  'DECLINED',
  'CANCELLED',
  'SETTLED',
  'RETURNED',
  'FAILED',
]);

export const sandboxRailTransfers = pgTable(
  'sandbox_rail_transfers',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** Our payment id: the idempotency key the provider keys the transfer by, with the tenant. */
    paymentId: bigint({ mode: 'number' }).notNull(),
    /** `ACH`, `DEBIT_CARD`, `RTP`, `FEDNOW`, `WIRE` or `CHECK` (domain/payments/rails.ts). */
    rail: text().notNull(),
    /** `sbx_<rail>_<20 letters>`, derived from (tenant, paymentId); never contains digits. */
    providerRef: text().notNull(),
    /** The amount asked for, `numeric(19,6)`. */
    amount: numeric({ precision: 19, scale: 6 }).notNull(),
    currencyCode: text().notNull(),
    /** The instrument's token at the provider (never an account or card number). */
    providerTokenRef: text().notNull(),
    instrumentType: text().notNull(),
    effectiveDate: date({ mode: 'string' }).notNull(),
    status: sandboxRailTransferStatus().notNull(),
    declineReason: text(),
    submittedAt: instant().notNull(),
    /** The provider's business date of the submission (America/New_York). */
    submittedOn: date({ mode: 'string' }).notNull(),
    cancelledAt: instant(),
    /** What actually settled, which a simulation may make differ from `amount`. */
    settledAmount: numeric({ precision: 19, scale: 6 }),
    settledOn: date({ mode: 'string' }),
    returnCode: text(),
    returnedOn: date({ mode: 'string' }),
    failureReason: text(),
    failedOn: date({ mode: 'string' }),
    updatedAt: instant().notNull(),
  },
  (t) => [
    uniqueIndex('sandbox_rail_transfers_tenant_payment_idx').on(t.tenantId, t.paymentId),
    uniqueIndex('sandbox_rail_transfers_tenant_provider_ref_idx').on(t.tenantId, t.providerRef),
    index('sandbox_rail_transfers_tenant_settled_on_idx').on(t.tenantId, t.settledOn),
    index('sandbox_rail_transfers_tenant_returned_on_idx').on(t.tenantId, t.returnedOn),
    index('sandbox_rail_transfers_tenant_failed_on_idx').on(t.tenantId, t.failedOn),
    check(
      'sandbox_rail_transfers_rail_check',
      sql`${t.rail} in ('ACH', 'DEBIT_CARD', 'RTP', 'FEDNOW', 'WIRE', 'CHECK')`,
    ),
    tenantIsolation('sandbox_rail_transfers'),
  ],
).enableRLS();
