/**
 * Merchant advances (docs/processes.md P6 "Merchant advances"; docs/lending.md "Merchant advances"):
 * the advance (a purchase of future receivables), the sales the merchant reports per period and the remittances
 * recorded against them. Money is `numeric(19,6)` (decimal strings in code, docs/design.md §3); the holdback rate is
 * `numeric(5,4)` in (0, 1]; periods are closed ISO date ranges. Opaque ids (`mca_…`, `mrem_…`) are minted by the
 * database (`mint_opaque_ref`, migration 0027). Every table is tenant-owned under row-level security; postings go to
 * `journal_entries` with `loan_id` null and refs `merchant-advance/<advanceId>…` (domain/lending/merchant-advance.ts).
 */
import { sql } from 'drizzle-orm';
import { bigint, date, index, numeric, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  createdAt,
  identityId,
  instant,
  money,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { customers } from '../customers/customers';

export const merchantRemittanceFrequency = pgEnum('merchant_remittance_frequency', ['DAILY', 'WEEKLY']);
export const merchantRemittanceStatus = pgEnum('merchant_remittance_status', ['POSTED', 'RETURNED']);

export const merchantAdvances = pgTable(
  'merchant_advances',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** The public `advanceId`: `mca_` + 32 letters a–p. */
    advanceRef: text().notNull().default(sql`mint_opaque_ref('mca_')`),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** Cash paid to the merchant. */
    advanceAmount: money().notNull(),
    /** Receivables bought (≥ advanceAmount): what the remittances repay. */
    purchasedAmount: money().notNull(),
    /** Share of reported sales remitted, in (0, 1]. */
    holdbackRate: numeric({ precision: 5, scale: 4 }).notNull(),
    currencyCode: text().notNull(),
    remittanceFrequency: merchantRemittanceFrequency().notNull(),
    /** ISO date the advance was posted (UTC day of creation). */
    fundedOnDate: date({ mode: 'string' }).notNull(),
    /** The create call's Idempotency-Key (unique per tenant when given): a retried create finds its advance. */
    requestKey: text(),
    actorUsername: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('merchant_advances', t),
    uniqueIndex('merchant_advances_tenant_ref_idx').on(t.tenantId, t.advanceRef),
    uniqueIndex('merchant_advances_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantReference('merchant_advances_customer_fk', t, t.customerId, customers),
    tenantIsolation('merchant_advances'),
  ],
).enableRLS();

export const merchantSalesReports = pgTable(
  'merchant_sales_reports',
  {
    id: identityId(),
    tenantId: tenantId(),
    advanceId: bigint({ mode: 'number' }).notNull(),
    periodStart: date({ mode: 'string' }).notNull(),
    periodEnd: date({ mode: 'string' }).notNull(),
    /** Gross sales of the period (≥ 0). */
    amount: money().notNull(),
    /** The reporting system's reference; unique per advance. */
    sourceRef: text().notNull(),
    actorUsername: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('merchant_sales_reports', t),
    tenantReference('merchant_sales_reports_advance_fk', t, t.advanceId, merchantAdvances),
    uniqueIndex('merchant_sales_reports_period_idx').on(t.tenantId, t.advanceId, t.periodStart),
    uniqueIndex('merchant_sales_reports_source_ref_idx').on(t.tenantId, t.advanceId, t.sourceRef),
    tenantIsolation('merchant_sales_reports'),
  ],
).enableRLS();

export const merchantRemittances = pgTable(
  'merchant_remittances',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** The public `remittanceId`: `mrem_` + 32 letters a–p. */
    remittanceRef: text().notNull().default(sql`mint_opaque_ref('mrem_')`),
    advanceId: bigint({ mode: 'number' }).notNull(),
    periodStart: date({ mode: 'string' }).notNull(),
    periodEnd: date({ mode: 'string' }).notNull(),
    amount: money().notNull(),
    /** ISO date the money arrived (value date of the posting). */
    effectiveDate: date({ mode: 'string' }).notNull(),
    /** Unique per tenant for ever; the replay key of record-external. */
    externalRecordRef: text().notNull(),
    contentDigest: text().notNull(),
    status: merchantRemittanceStatus().notNull(),
    returnCode: text(),
    returnReason: text(),
    returnedAt: instant(),
    actorUsername: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('merchant_remittances', t),
    tenantReference('merchant_remittances_advance_fk', t, t.advanceId, merchantAdvances),
    uniqueIndex('merchant_remittances_tenant_ref_idx').on(t.tenantId, t.remittanceRef),
    uniqueIndex('merchant_remittances_external_record_ref_idx').on(t.tenantId, t.externalRecordRef),
    index().on(t.tenantId, t.advanceId, t.periodStart),
    tenantIsolation('merchant_remittances'),
  ],
).enableRLS();
