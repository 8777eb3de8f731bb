/**
 * Lending context (docs/lending.md "Lending core"): charges, loan products, loans with
 * their installments, parties, fundings and payments recorded as external money, and the
 * double-entry ledger (chart of accounts per tenant, append-only journal entries).
 * Money is `numeric(19,6)` (decimal strings in code, docs/design.md §3); dates are ISO calendar dates.
 * Every table is tenant-owned under row-level security.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  json,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { ReliefSummaryJson, ScheduleInstallmentJson } from '../../../domain/hardship/schedule-version';
import {
  createdAt,
  identityId,
  money,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';
import { customers } from '../customers/customers';
import { delinquencyBuckets, delinquencyRanges } from './delinquency-configuration';

/** A nominal rate in percent, `numeric(19,8)`. */
const rate = () => numeric({ precision: 19, scale: 8 });

export const charges = pgTable(
  'charges',
  {
    id: identityId(),
    tenantId: tenantId(),
    name: text().notNull(),
    currencyCode: text().notNull(),
    /** Flat amount, or the percentage for percentage charges. */
    amount: money().notNull(),
    /** Fineract: 1 loan. */
    chargeAppliesTo: integer().notNull(),
    /** Fineract: 1 disbursement, 2 specified due date, 8 installment fee, 9 overdue installment (never scheduled). */
    chargeTimeType: integer().notNull(),
    /** Fineract: 1 flat, 2 % of amount, 3 % of amount + interest, 4 % of interest. */
    chargeCalculationType: integer().notNull(),
    penalty: boolean().notNull().default(false),
    active: boolean().notNull().default(true),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('charges', t),
    uniqueIndex('charges_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('charges'),
  ],
).enableRLS();

export const loanProducts = pgTable(
  'loan_products',
  {
    id: identityId(),
    tenantId: tenantId(),
    name: text().notNull(),
    shortName: text().notNull(),
    currencyCode: text().notNull(),
    digitsAfterDecimal: integer().notNull(),
    inMultiplesOf: integer().notNull().default(0),
    installmentAmountInMultiplesOf: integer(),
    principal: money().notNull(),
    minPrincipal: money(),
    maxPrincipal: money(),
    numberOfRepayments: integer().notNull(),
    minNumberOfRepayments: integer(),
    maxNumberOfRepayments: integer(),
    interestRatePerPeriod: rate().notNull(),
    minInterestRatePerPeriod: rate(),
    maxInterestRatePerPeriod: rate(),
    repaymentEvery: integer().notNull(),
    repaymentFrequencyType: integer().notNull(),
    interestRateFrequencyType: integer().notNull(),
    interestType: integer().notNull(),
    amortizationType: integer().notNull(),
    interestCalculationPeriodType: integer().notNull(),
    allowPartialPeriodInterestCalcualtion: boolean().notNull().default(false),
    daysInYearType: integer().notNull(),
    daysInMonthType: integer().notNull(),
    graceOnPrincipalPayment: integer().notNull().default(0),
    graceOnInterestPayment: integer().notNull().default(0),
    transactionProcessingStrategyCode: text().notNull(),
    /** Allocation rules of the advanced strategy (order of components per due-ness). */
    paymentAllocation: jsonb().$type<unknown[]>(),
    /** `{productClass, aprEnabled, aprRounding, aprTolerancePolicy, statementEnabled, statementLeadDays}`. */
    lmsConfig: jsonb().notNull().$type<Record<string, unknown>>(),
    /**
     * The charge added to a loan when one of its payments is returned for insufficient funds (NACHA R01, R09):
     * a flat penalty of a specified due date in the product's currency (activities/payments/return-payment.ts).
     */
    nsfChargeId: bigint({ mode: 'number' }),
    /** CONFIGURED, or a state naming what approval still needs. */
    configurationStatus: text().notNull(),
    /** Fineract's down payment: a period due at disbursement of this percent of the principal (1–100, 6 digits). */
    enableDownPayment: boolean().notNull().default(false),
    disbursedAmountPercentageForDownPayment: numeric({ precision: 9, scale: 6 }),
    /** Record the down payment as a DOWN_PAYMENT transaction with the funding. */
    enableAutoRepaymentForDownPayment: boolean().notNull().default(false),
    /** The tenant's delinquency bucket whose ranges classify this product's loans (db/schema/lending/delinquency.ts). */
    delinquencyBucketId: bigint({ mode: 'number' }),
    /** Days after a due date before an overdue installment counts as delinquent (Fineract `graceOnArrearsAgeing`). */
    graceOnArrearsAgeing: integer().notNull().default(0),
    /** Classify overdue installments by their own days past due too (Fineract's installment-level delinquency). */
    enableInstallmentLevelDelinquency: boolean().notNull().default(false),
    /** Delinquent days at which close of business charges a loan off; null: never automatically. */
    chargeOffDaysPastDue: integer(),
    status: text().notNull().default('loanProduct.active'),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    /** domain/lending/products.ts `downPaymentErrors`: a percentage exactly with a down payment, 1–100. */
    check(
      'loan_products_down_payment_check',
      sql`(${t.enableDownPayment} and ${t.disbursedAmountPercentageForDownPayment} between 1 and 100) or (not ${t.enableDownPayment} and ${t.disbursedAmountPercentageForDownPayment} is null and not ${t.enableAutoRepaymentForDownPayment})`,
    ),
    check(
      'loan_products_delinquency_check',
      sql`${t.graceOnArrearsAgeing} >= 0 and (${t.chargeOffDaysPastDue} is null or ${t.chargeOffDaysPastDue} >= 1)`,
    ),
    tenantKey('loan_products', t),
    tenantReference('loan_products_nsf_charge_fk', t, t.nsfChargeId, charges),
    tenantReference('loan_products_delinquency_bucket_fk', t, t.delinquencyBucketId, delinquencyBuckets),
    uniqueIndex('loan_products_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('loan_products'),
  ],
).enableRLS();

export const loanProductCharges = pgTable(
  'loan_product_charges',
  {
    tenantId: tenantId(),
    productId: bigint({ mode: 'number' }).notNull(),
    chargeId: bigint({ mode: 'number' }).notNull(),
  },
  (t) => [
    tenantReference('loan_product_charges_product_fk', t, t.productId, loanProducts),
    tenantReference('loan_product_charges_charge_fk', t, t.chargeId, charges),
    primaryKey({ columns: [t.tenantId, t.productId, t.chargeId] }),
    tenantIsolation('loan_product_charges'),
  ],
).enableRLS();

export const loanStatus = pgEnum('loan_status', [
  'SUBMITTED',
  'APPROVED',
  'ACTIVE',
  'CLOSED_OBLIGATIONS_MET',
  'OVERPAID',
]);

export const loans = pgTable(
  'loans',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** Opaque ref used by the spec's `loanRef`, e.g. `LN-000123`. */
    accountNo: text().notNull(),
    clientId: bigint({ mode: 'number' }).notNull(),
    productId: bigint({ mode: 'number' }).notNull(),
    loanType: text().notNull(),
    status: loanStatus().notNull().default('SUBMITTED'),
    currencyCode: text().notNull(),
    principal: money().notNull(),
    approvedPrincipal: money(),
    /** The creation body as accepted (Fineract terms), the schedule's input. */
    terms: jsonb().notNull().$type<Record<string, unknown>>(),
    transactionProcessingStrategyCode: text().notNull(),
    submittedOnDate: date({ mode: 'string' }).notNull(),
    expectedDisbursementDate: date({ mode: 'string' }).notNull(),
    approvedOnDate: date({ mode: 'string' }),
    disbursedOnDate: date({ mode: 'string' }),
    externalId: text(),
    /** The Regulation Z §1026.18 disclosure, frozen at approval. */
    aprDisclosure: jsonb().$type<Record<string, unknown>>(),
    approvedBy: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
    /**
     * The delinquency classification stored by the close of business (docs/lending.md "Delinquency"): the range
     * of the product's bucket that held the loan's delinquent days when a run last changed it; null before the
     * loan's first run and while it is NO_DELINQUENCY. A range of the same tenant's delinquency configuration
     * (`loans_delinquency_range_fk`).
     */
    delinquencyRangeId: bigint({ mode: 'number' }),
    /** ISO date of the last day a close-of-business run closed for this loan; null before the first run. */
    lastClosedBusinessDate: date({ mode: 'string' }),
    /**
     * True once the loan is charged off (Fineract `m_loan.is_charged_off`), until an undo; the loan stays ACTIVE
     * (activities/lending/charge-off-loan.ts, undo-charge-off-loan.ts).
     */
    chargedOff: boolean().notNull().default(false),
    /** ISO date of the charge-off, null when not charged off. */
    chargedOffOnDate: date({ mode: 'string' }),
    /**
     * The installment-level delinquency tags (Fineract `m_loan_installment_delinquency_tag`; docs/lending.md
     * "Delinquency"): per overdue installment the range of its own days and what it owed when a close-of-business
     * step or a money operation last set the loan's tags; null or `[]` when none is set (before the first step,
     * while the loan's delinquent days are 0, or without installment-level delinquency). A step on a paused day
     * leaves them as they are.
     */
    installmentDelinquencyTags:
      jsonb().$type<{ installmentNumber: number; rangeId: number; amount: string }[]>(),
  },
  (t) => [
    tenantKey('loans', t),
    tenantReference('loans_client_fk', t, t.clientId, customers),
    tenantReference('loans_product_fk', t, t.productId, loanProducts),
    tenantReference('loans_delinquency_range_fk', t, t.delinquencyRangeId, delinquencyRanges),
    uniqueIndex('loans_tenant_account_no_idx').on(t.tenantId, t.accountNo),
    uniqueIndex('loans_tenant_external_id_idx').on(t.tenantId, t.externalId),
    uniqueIndex('loans_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    index().on(t.tenantId, t.clientId),
    index('loans_tenant_submitted_on_idx').on(t.tenantId, t.submittedOnDate, t.id),
    tenantIsolation('loans'),
  ],
).enableRLS();

/** The authoritative schedule of a loan, one row per installment; paid amounts follow the ledger. */
export const loanInstallments = pgTable(
  'loan_installments',
  {
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    installmentNumber: integer().notNull(),
    fromDate: date({ mode: 'string' }).notNull(),
    dueDate: date({ mode: 'string' }).notNull(),
    principalDue: money().notNull(),
    interestDue: money().notNull(),
    feeChargesDue: money().notNull(),
    penaltyChargesDue: money().notNull(),
    principalPaid: money().notNull().default('0'),
    interestPaid: money().notNull().default('0'),
    feeChargesPaid: money().notNull().default('0'),
    penaltyChargesPaid: money().notNull().default('0'),
    /**
     * Interest, fees and penalties a payoff waived (domain/lending/allocation/payoff.ts payoff rule; Fineract's
     * `interest_waived_derived`, …), kept by the ledger's repost like the paid columns.
     */
    interestWaived: money().notNull().default('0'),
    feeChargesWaived: money().notNull().default('0'),
    penaltyChargesWaived: money().notNull().default('0'),
    /** Date on which the installment became fully paid, null while it is not. */
    obligationsMetOnDate: date({ mode: 'string' }),
    /**
     * An installment added after the last scheduled one for a charge due after it (Fineract's "N+1" installment,
     * `LoanRepaymentScheduleInstallment.additional`): no principal or interest, only charges.
     */
    additional: boolean().notNull().default(false),
  },
  (t) => [
    tenantReference('loan_installments_loan_fk', t, t.loanId, loans),
    primaryKey({ columns: [t.tenantId, t.loanId, t.installmentNumber] }),
    tenantIsolation('loan_installments'),
  ],
).enableRLS();

/**
 * The history of a loan's schedule (docs/processes.md P5 "APPLIED: the loan's schedule is modified
 * (a new schedule version …)"): one row per version, append-only (custom migration). Version 1 is the schedule
 * before its first modification (stored lazily, when the first relief is applied); version n + 1 is written by
 * the operation that modifies the schedule, in the same transaction as the new `loan_installments` rows, under
 * the loan's lock. `loan_installments` always holds the current (latest) version; these rows are its history.
 * Amounts in the JSON columns are decimal strings of minor units of the loan's currency.
 */
export const loanScheduleVersions = pgTable(
  'loan_schedule_versions',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    /** 1, 2, … per loan, gapless. */
    version: integer().notNull(),
    /** ORIGINAL (version 1) or HARDSHIP_RELIEF. */
    reason: text().notNull(),
    /** What caused the version: HARDSHIP_OFFER (with `sourceId` = the offerId); null for ORIGINAL. */
    sourceKind: text(),
    sourceId: bigint({ mode: 'number' }),
    /** The relief applied (domain/hardship/relief.ts `ReliefType`); null for ORIGINAL. */
    reliefType: text(),
    /** ISO date the relief was applied as of (tenant calendar); null for ORIGINAL. */
    asOfDate: date({ mode: 'string' }),
    /** The installments of this version (domain/hardship/schedule-version.ts `ScheduleInstallmentJson[]`). */
    installments: jsonb().notNull().$type<ScheduleInstallmentJson[]>(),
    installmentCount: integer().notNull(),
    /** Σ due of every installment and component, decimal string of minor units. */
    totalDueMinor: numeric({ precision: 38, scale: 0 }).notNull(),
    /**
     * Loan principal this version wrote off (a PRINCIPAL_FORGIVENESS relief), minor units, else 0: the allocation
     * and the ledger read it (domain/lending/allocation/replay.ts `principalForgiveness`, journal entry `forgiveness/<id>`).
     */
    principalForgivenMinor: numeric({ precision: 38, scale: 0 }).notNull().default('0'),
    /** What the relief changed (domain `ReliefSummaryJson`); null for ORIGINAL. */
    summary: jsonb().$type<ReliefSummaryJson>(),
    createdAt: createdAt(),
    /** The actor of the operation (`Service-Actor`), null when none. */
    createdBy: text(),
  },
  (t) => [
    tenantKey('loan_schedule_versions', t),
    tenantReference('loan_schedule_versions_loan_fk', t, t.loanId, loans),
    uniqueIndex('loan_schedule_versions_tenant_loan_version_idx').on(t.tenantId, t.loanId, t.version),
    /** A source (e.g. one hardship offer) modifies a schedule at most once. */
    uniqueIndex('loan_schedule_versions_tenant_source_idx')
      .on(t.tenantId, t.sourceKind, t.sourceId)
      .where(sql`source_kind is not null`),
    tenantIsolation('loan_schedule_versions'),
  ],
).enableRLS();

/**
 * Charges added to an active loan (`POST /v1/loans/{loanId}/charges`; Fineract `m_loan_charge` of a
 * specified-due-date charge). Each belongs to the installment whose period holds its due date (domain/lending/
 * loan-charges.ts), whose `fee_charges_due`/`penalty_charges_due` include its amount. `amount_paid` and
 * `amount_waived` follow the ledger's repost like the installments' paid columns; `waiver_amount` and
 * `waived_on_date` record a waiver (Fineract WAIVE_CHARGES) and never change once set.
 */
export const loanCharges = pgTable(
  'loan_charges',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    chargeId: bigint({ mode: 'number' }).notNull(),
    installmentNumber: integer().notNull(),
    dueDate: date({ mode: 'string' }).notNull(),
    amount: money().notNull(),
    penalty: boolean().notNull(),
    amountPaid: money().notNull().default('0'),
    amountWaived: money().notNull().default('0'),
    waiverAmount: money(),
    waivedOnDate: date({ mode: 'string' }),
    /**
     * The business date it was added on (Fineract's `submittedOnDate`): under advanced payment allocation it joins
     * the replay that day, or on its due date when that is earlier (domain/lending/loan-allocation.ts
     * `chargeTimingOf`). Null for rows added before the column existed (they join on their due date).
     */
    submittedOnDate: date({ mode: 'string' }),
    externalId: text(),
    /** Who added it, and the idempotency key of the request that did (`<clientId>/<Idempotency-Key>`). */
    actorUsername: text(),
    requestKey: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('loan_charges', t),
    tenantReference('loan_charges_loan_fk', t, t.loanId, loans),
    tenantReference('loan_charges_charge_fk', t, t.chargeId, charges),
    uniqueIndex('loan_charges_tenant_external_id_idx').on(t.tenantId, t.externalId),
    uniqueIndex('loan_charges_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    index().on(t.tenantId, t.loanId, t.id),
    tenantIsolation('loan_charges'),
  ],
).enableRLS();

/**
 * Charge-off transactions of a loan (Fineract `LoanTransactionType.CHARGE_OFF`, id 27): what was outstanding on
 * the schedule when the loan was charged off, by portion (decimal strings in the loan's currency). The principal
 * portion is booked Dr CREDIT_LOSS_EXPENSE / Cr LOAN_PORTFOLIO (domain/lending/ledger.ts). An undo marks the row
 * reversed (`reversed_on_date`); at most one row per loan is not reversed.
 */
export const loanChargeOffs = pgTable(
  'loan_charge_offs',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    transactionDate: date({ mode: 'string' }).notNull(),
    reason: text().notNull(),
    externalId: text(),
    /** True when the close of business charged it off (the product's chargeOffDaysPastDue), false for the command. */
    automatic: boolean().notNull().default(false),
    amount: money().notNull(),
    principalPortion: money().notNull(),
    interestPortion: money().notNull(),
    feeChargesPortion: money().notNull(),
    penaltyChargesPortion: money().notNull(),
    currencyCode: text().notNull(),
    /**
     * The highest `payments.id` of the loan when it was charged off (null: none). A payment with a higher id
     * value-dated on or after `transaction_date` is a recovery; the others were received before the charge-off.
     */
    lastPaymentId: bigint({ mode: 'number' }),
    reversed: boolean().notNull().default(false),
    reversedOnDate: date({ mode: 'string' }),
    /**
     * Who charged it off, and the key of the request that did (`<clientId>/<Idempotency-Key>`, or the close of
     * business's `cob/<businessDate>/charge-off`): a repeated request returns this row.
     */
    actorUsername: text(),
    requestKey: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('loan_charge_offs', t),
    uniqueIndex('loan_charge_offs_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantReference('loan_charge_offs_loan_fk', t, t.loanId, loans),
    uniqueIndex('loan_charge_offs_tenant_external_id_idx').on(t.tenantId, t.externalId),
    uniqueIndex('loan_charge_offs_one_active_idx').on(t.tenantId, t.loanId).where(sql`not reversed`),
    tenantIsolation('loan_charge_offs'),
  ],
).enableRLS();

export const loanParties = pgTable(
  'loan_parties',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** CO_BORROWER, AUTHORIZED_PARTY, GUARANTOR. */
    role: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantReference('loan_parties_loan_fk', t, t.loanId, loans),
    tenantReference('loan_parties_customer_fk', t, t.customerId, customers),
    uniqueIndex('loan_parties_tenant_loan_customer_role_idx').on(t.tenantId, t.loanId, t.customerId, t.role),
    tenantIsolation('loan_parties'),
  ],
).enableRLS();

export const fundings = pgTable(
  'fundings',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    amount: money().notNull(),
    currencyCode: text().notNull(),
    fundingType: text().notNull(),
    recipientType: text().notNull(),
    recipientRef: text().notNull(),
    externalRecordRef: text().notNull(),
    reason: text().notNull(),
    fundingDate: date({ mode: 'string' }).notNull(),
    /** RECORDED_EXTERNAL for money that moved outside the system. */
    status: text().notNull(),
    /** SHA-256 of the canonical content: a reused externalRecordRef with other content is a conflict. */
    contentDigest: text().notNull(),
    actorUsername: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantReference('fundings_loan_fk', t, t.loanId, loans),
    uniqueIndex('fundings_tenant_external_record_ref_idx').on(t.tenantId, t.externalRecordRef),
    index().on(t.tenantId, t.loanId, t.id),
    tenantIsolation('fundings'),
  ],
).enableRLS();

/**
 * The loan summary's projection: one row per loan, kept by database triggers on `loan_installments`,
 * `fundings` and `payments` (migration 0018) in the transaction of every write to them, so the most polled read (`GET /v1/loans/{loanId}/summary`, db/queries/lending/ledger.ts
 * `getLoanSummary`) is one primary-key read instead of aggregating those tables on every request. It holds only
 * what those tables imply, never a figure of its own: the installments as the summary reads them (a JSON array of
 * one compact array per installment, ordered by installment number: its number, ISO dates and decimal strings,
 * migration `read_compact_installments_in_loan_summary`), the sum, count and last value date of the
 * fundings, of the POSTED payments the sum of their allocations' overpayments, their last value date and how
 * many are not allocated yet, and the count and sum of the payment intents in flight. A write to a source marks the loan's row `stale` (which locks it until commit) and a
 * deferred trigger recomputes it once at commit, so concurrent writers to one loan cannot leave it stale and a
 * transaction writing many statements (a 10,000-installment schedule in batches) pays for one recompute.
 */
export const loanSummaryProjections = pgTable(
  'loan_summary_projections',
  {
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }).notNull(),
    installments: json().notNull().default(sql`'[]'::json`),
    disbursed: money().notNull().default('0'),
    disbursementCount: integer().notNull().default(0),
    lastFundingDate: date({ mode: 'string' }),
    overpayment: money().notNull().default('0'),
    lastPaymentDate: date({ mode: 'string' }),
    unallocatedPayments: integer().notNull().default(0),
    /** Payment intents in flight (CREATED or SUBMITTED): their count and sum, reserved against the outstanding. */
    inFlightCount: integer().notNull().default(0),
    inFlightAmount: money().notNull().default('0'),
    /** True from a write to the sources until the deferred refresh at commit (never true once committed). */
    stale: boolean().notNull().default(false),
  },
  (t) => [
    foreignKey({
      name: 'loan_summary_projections_loan_fk',
      columns: [t.tenantId, t.loanId],
      foreignColumns: [loans.tenantId, loans.id],
    }).onDelete('cascade'),
    primaryKey({ columns: [t.tenantId, t.loanId] }),
    tenantIsolation('loan_summary_projections'),
  ],
).enableRLS();

export const glAccountType = pgEnum('gl_account_type', ['ASSET', 'LIABILITY', 'EQUITY', 'INCOME', 'EXPENSE']);

export const glAccounts = pgTable(
  'gl_accounts',
  {
    tenantId: tenantId(),
    /** e.g. LOAN_PORTFOLIO, EXTERNAL_CLEARING, INTEREST_INCOME, FEE_INCOME, PENALTY_INCOME, OVERPAYMENT_LIABILITY, PRINCIPAL_FORGIVENESS_EXPENSE. */
    code: text().notNull(),
    name: text().notNull(),
    accountType: glAccountType().notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.code] }), tenantIsolation('gl_accounts')],
).enableRLS();

/**
 * Append-only journal: each money event posts balanced lines (Σ debit = Σ credit per
 * `transactionRef`); a re-allocation reverses earlier lines with new ones, never edits them.
 */
export const journalEntries = pgTable(
  'journal_entries',
  {
    id: identityId(),
    tenantId: tenantId(),
    loanId: bigint({ mode: 'number' }),
    /**
     * e.g. `funding/12`, `payment/7`, `payment/7/reversal/3`; merchant advances (loan_id null):
     * `merchant-advance/<advanceId>`, `…/remittance/<remittanceId>`, `…/remittance/<remittanceId>/reversal`.
     */
    transactionRef: text().notNull(),
    accountCode: text().notNull(),
    /** Value date of the money event. */
    entryDate: date({ mode: 'string' }).notNull(),
    debit: money().notNull().default('0'),
    credit: money().notNull().default('0'),
    currencyCode: text().notNull(),
    /** Set on entries written to reverse an earlier posting. */
    reversesEntryId: bigint({ mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('journal_entries', t),
    tenantReference('journal_entries_loan_fk', t, t.loanId, loans),
    tenantReference('journal_entries_reverses_fk', t, t.reversesEntryId, t),
    foreignKey({
      name: 'journal_entries_account_fk',
      columns: [t.tenantId, t.accountCode],
      foreignColumns: [glAccounts.tenantId, glAccounts.code],
    }),
    index().on(t.tenantId, t.loanId, t.id),
    index().on(t.tenantId, t.transactionRef),
    tenantIsolation('journal_entries'),
  ],
).enableRLS();

export const documents = pgTable(
  'documents',
  {
    id: identityId(),
    tenantId: tenantId(),
    title: text().notNull(),
    documentType: text().notNull(),
    loanId: bigint({ mode: 'number' }),
    customerId: bigint({ mode: 'number' }),
    /** Where the bytes live (a storage provider's reference); the service keeps metadata only. */
    storageRef: text(),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('documents', t),
    tenantReference('documents_loan_fk', t, t.loanId, loans),
    tenantReference('documents_customer_fk', t, t.customerId, customers),
    uniqueIndex('documents_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('documents'),
  ],
).enableRLS();

export const documentHistory = pgTable(
  'document_history',
  {
    id: identityId(),
    tenantId: tenantId(),
    documentId: bigint({ mode: 'number' }).notNull(),
    /** DOCUMENT_CREATED, TITLE_CHANGED, … */
    action: text().notNull(),
    detail: jsonb().notNull().$type<Record<string, unknown>>(),
    actorUsername: text(),
    correlationId: text(),
    occurredAt: createdAt(),
  },
  (t) => [
    tenantReference('document_history_document_fk', t, t.documentId, documents),
    index().on(t.tenantId, t.documentId, t.id),
    tenantIsolation('document_history'),
  ],
).enableRLS();
