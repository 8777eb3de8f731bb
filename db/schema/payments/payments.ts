/**
 * Payments context (OpenAPI `POST /v1/loans/{loanId}/payments`; docs/design.md §5 Enumerations; docs/processes.md
 * P1): payments (intents on a rail and payments recorded as external) with their status history, autopay
 * enrolments, and the reconciliation items of the money recorded as external. Money is `numeric(19,6)` (decimal
 * strings in code, docs/design.md §3); dates are ISO calendar dates. Every table is tenant-owned under row-level
 * security.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
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
import { paymentInstruments } from '../customers/customers';
import { loans } from '../lending/lending';

export const paymentStatus = pgEnum('payment_status', [
  'CREATED',
  'SUBMITTED',
  'POSTED',
  'FAILED',
  'RETURNED',
  'CANCELLED',
]);

export const payments = pgTable(
  'payments',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    amount: money().notNull(),
    currencyCode: text().notNull(),
    effectiveDate: date({ mode: 'string' }).notNull(),
    status: paymentStatus().notNull(),
    /** IMPORT for boarded history; the originating system otherwise. */
    source: text().notNull(),
    rationale: text(),
    /** Unique per tenant for ever; the replay key of record-external. */
    externalRecordRef: text(),
    /**
     * Fineract's transaction type: REPAYMENT, or DOWN_PAYMENT for the down payment recorded with a funding
     * (activities/lending/record-external-funding.ts; `loanTransactionType.downPayment` in the loan's transactions).
     */
    transactionType: text().notNull().default('REPAYMENT'),
    contentDigest: text(),
    /** How the ledger allocated it (principal/interest/fee/penalty per installment, overpayment). */
    allocation: jsonb().$type<Record<string, unknown>>(),
    actorUsername: text(),
    createdAt: createdAt(),
    /**
     * Payment intents only (spec `POST /v1/loans/{loanId}/payments`; null for payments recorded as external): the
     * rail (docs/design.md §5: ACH, DEBIT_CARD, RTP, FEDNOW, WIRE, CHECK), the instrument debited, the rail's reference once
     * submitted, the NACHA (or rail) return code once RETURNED, and the request key of the create call (unique per
     * tenant: a retried create finds its intent).
     */
    rail: text(),
    instrumentId: bigint({ mode: 'number' }),
    providerRef: text(),
    returnCode: text(),
    requestKey: text(),
    /** ISO dates: when the rail settled it and when it was returned. */
    settledOn: date({ mode: 'string' }),
    returnedOn: date({ mode: 'string' }),
    updatedAt: createdAt(),
  },
  (t) => [
    tenantReference('payments_loan_fk', t, t.loanId, loans),
    tenantReference('payments_instrument_fk', t, t.instrumentId, paymentInstruments),
    tenantKey('payments', t),
    check('payments_transaction_type_check', sql`${t.transactionType} in ('REPAYMENT', 'DOWN_PAYMENT')`),
    uniqueIndex('payments_tenant_external_record_ref_idx').on(t.tenantId, t.externalRecordRef),
    uniqueIndex('payments_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    index().on(t.tenantId, t.loanId, t.effectiveDate, t.id),
    /** The in-flight intents of a loan (the reservation against its outstanding): CREATED or SUBMITTED. */
    index('payments_in_flight_idx').on(t.tenantId, t.loanId).where(sql`status in ('CREATED', 'SUBMITTED')`),
    tenantIsolation('payments'),
  ],
).enableRLS();

/**
 * Every status a payment passed through, append-only (docs/processes.md P1 reads: `GET
 * /v1/loans/{loanId}/payments/{paymentId}` answers `history [{status, at, detail}]`), written in the transaction
 * that changed the status. `detail` holds what the change carried (providerRef, returnCode, reason, amounts as
 * decimal strings).
 */
export const paymentStatusHistory = pgTable(
  'payment_status_history',
  {
    id: identityId(),
    tenantId: tenantId(),
    paymentId: bigint({ mode: 'number' }).notNull(),
    status: paymentStatus().notNull(),
    at: createdAt(),
    detail: jsonb().$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  },
  (t) => [
    tenantReference('payment_status_history_payment_fk', t, t.paymentId, payments),
    index().on(t.tenantId, t.paymentId, t.id),
    tenantIsolation('payment_status_history'),
  ],
).enableRLS();

/** Autopay amount types (domain/payments/autopay.ts) and enrolment statuses. */
export const autopayAmountType = pgEnum('autopay_amount_type', ['INSTALLMENT_DUE', 'FIXED']);
export const autopayStatus = pgEnum('autopay_status', ['ACTIVE', 'CANCELLED']);

/**
 * Autopay enrolments (docs/processes.md P1 Autopay; docs/lending.md "Autopay": "Autopay enrollment carries
 * authorizationRef and never backfills history"): which instrument and rail pay a loan's installments, how much
 * (`INSTALLMENT_DUE`: what each installment still owes; `FIXED`: `fixedAmount`), how many calendar days before
 * the due date the intent is created, and the borrower's authorization reference (free text, never an account
 * number). At most one ACTIVE enrolment per loan (partial unique index); a cancelled one is kept as history.
 * `enrolledOn` (ISO date, UTC) is the no-backfill line: only installments due strictly after it are collected.
 */
export const autopayEnrolments = pgTable(
  'autopay_enrolments',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    instrumentId: bigint({ mode: 'number' }).notNull(),
    authorizationRef: text().notNull(),
    /** docs/design.md §5 rails (domain/payments/rails.ts). */
    rail: text().notNull(),
    amountType: autopayAmountType().notNull(),
    /** Decimal with the loan currency's digits; set iff `amountType` is FIXED. */
    fixedAmount: money(),
    /** Calendar days before the due date on which the intent is created (0..15). */
    daysBeforeDue: integer().notNull(),
    status: autopayStatus().notNull().default('ACTIVE'),
    enrolledAt: createdAt(),
    /** ISO date (UTC) of `enrolledAt`: installments due on or before it are never collected. */
    enrolledOn: date({ mode: 'string' }).notNull(),
    cancelledAt: instant(),
    actorUsername: text(),
    /** `<clientId>/<Idempotency-Key>` of the enrol call when one was sent. */
    requestKey: text(),
    updatedAt: createdAt(),
  },
  (t) => [
    tenantKey('autopay_enrolments', t),
    tenantReference('autopay_enrolments_loan_fk', t, t.loanId, loans),
    tenantReference('autopay_enrolments_instrument_fk', t, t.instrumentId, paymentInstruments),
    uniqueIndex('autopay_enrolments_one_active_idx').on(t.tenantId, t.loanId).where(sql`status = 'ACTIVE'`),
    index().on(t.tenantId, t.loanId, t.id),
    uniqueIndex('autopay_enrolments_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('autopay_enrolments'),
  ],
).enableRLS();

export const reconciliationItems = pgTable(
  'reconciliation_items',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** FUNDING or PAYMENT. */
    targetType: text().notNull(),
    targetId: bigint({ mode: 'number' }).notNull(),
    externalRecordRef: text().notNull(),
    status: text().notNull().default('open'),
    createdAt: createdAt(),
    lastSeenAt: createdAt(),
  },
  (t) => [
    uniqueIndex('reconciliation_items_tenant_target_idx').on(t.tenantId, t.targetType, t.targetId),
    index('reconciliation_items_open_idx').on(t.tenantId, t.id).where(sql`status = 'open'`),
    tenantIsolation('reconciliation_items'),
  ],
).enableRLS();
