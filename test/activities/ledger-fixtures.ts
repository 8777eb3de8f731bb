/**
 * Loans for the money tests (test/activities/ledger.test.ts, test/api/loan-money.test.ts): a product and a
 * customer through the operations, then an APPROVED loan and its installments (domain/lending/schedule.ts
 * `generateSchedule`) inserted directly, as loan creation and approval would leave them. Replace with
 * `POST /v1/loans` + approve once those exist.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Activities } from '../../activities';
import type { Db } from '../../db/client';
import { journalEntries, loanInstallments, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { generateSchedule, type Schedule, type ScheduleCharge } from '../../domain/lending/schedule';

export interface LoanFixtureOptions {
  /** Decimal string; default `"300.00"`. */
  principal?: string;
  /** Decimal string; default the principal. */
  approvedPrincipal?: string;
  /** Default `USD`. */
  currency?: string;
  /** Default `advanced-payment-allocation-strategy` (the docs/design.md §5 default order). */
  strategy?: 'advanced-payment-allocation-strategy' | 'mifos-standard-strategy';
  numberOfRepayments?: number;
  /** Annual nominal rate in percent, flat interest; default `"12"` (1 % a month). */
  annualRate?: string;
  /** Flat fee per installment (decimal string); default `"2.00"`. */
  installmentFee?: string | null;
  /** The product's NSF charge (a penalty of a specified due date); default none. */
  nsfChargeId?: number;
  /** Expected disbursement date; default `2025-01-01` (monthly installments from then). */
  expectedDisbursementDate?: string;
  /** Default `2024-12-20`. */
  approvedOnDate?: string;
  /** Default `APPROVED`. */
  status?: 'SUBMITTED' | 'APPROVED';
  /** The product's `lmsConfig` (e.g. statements enabled); default none. */
  lmsConfig?: Record<string, unknown> | null;
}

export interface LoanFixture {
  tenantId: string;
  customerId: number;
  productId: number;
  loanId: number;
  accountNo: string;
  schedule: Schedule;
}

/** A product, a borrower and an approved loan with its schedule, in `tenantId`. */
export async function approvedLoan(
  ctx: { db: Db; activities: Activities },
  tenantId: string,
  options: LoanFixtureOptions = {},
): Promise<LoanFixture> {
  const currency = options.currency ?? 'USD';
  const digits = currency === 'JPY' ? 0 : 2;
  const principal = options.principal ?? '300.00';
  const strategy = options.strategy ?? 'advanced-payment-allocation-strategy';
  const numberOfRepayments = options.numberOfRepayments ?? 3;
  const annualRate = options.annualRate ?? '12';
  const expectedDisbursementDate = options.expectedDisbursementDate ?? '2025-01-01';
  const product = await ctx.activities.createLoanProduct({
    tenantId,
    name: 'Small loan',
    shortName: `S${randomBytes(2).toString('hex').slice(0, 3)}`,
    currencyCode: currency,
    digitsAfterDecimal: digits,
    inMultiplesOf: 0,
    installmentAmountInMultiplesOf: null,
    principal,
    minPrincipal: null,
    maxPrincipal: null,
    numberOfRepayments,
    minNumberOfRepayments: null,
    maxNumberOfRepayments: null,
    interestRatePerPeriod: annualRate,
    minInterestRatePerPeriod: null,
    maxInterestRatePerPeriod: null,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRateFrequencyType: 3,
    interestType: 1,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 365,
    daysInMonthType: 30,
    graceOnPrincipalPayment: 0,
    graceOnInterestPayment: 0,
    transactionProcessingStrategyCode: strategy,
    paymentAllocation: null,
    charges: [],
    nsfChargeId: options.nsfChargeId ?? null,
    lmsConfig: (options.lmsConfig ?? null) as never,
  });
  const customer = await ctx.activities.createCustomer({ tenantId, firstName: 'Ada', lastName: 'Lovelace' });
  const charges: ScheduleCharge[] =
    options.installmentFee === null
      ? []
      : [{ chargeTimeType: 8, chargeCalculationType: 1, amount: options.installmentFee ?? '2.00' }];
  const schedule = generateSchedule({
    principal,
    numberOfRepayments,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: annualRate,
    interestRateFrequencyType: 3,
    interestType: 1,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 365,
    daysInMonthType: 30,
    expectedDisbursementDate,
    currency: { code: currency, digitsAfterDecimal: digits },
    charges,
  });
  const accountNo = `LN-${randomBytes(4).toString('hex')}`;
  const loanId = await withTenantTransaction(ctx.db, tenantId, async (tx) => {
    const [loan] = await tx
      .insert(loans)
      .values({
        tenantId,
        accountNo,
        clientId: customer.customerId,
        productId: product.productId,
        loanType: 'individual',
        status: options.status ?? 'APPROVED',
        currencyCode: currency,
        principal,
        approvedPrincipal: options.status === 'SUBMITTED' ? null : (options.approvedPrincipal ?? principal),
        terms: { principal, numberOfRepayments, interestRatePerPeriod: annualRate },
        transactionProcessingStrategyCode: strategy,
        submittedOnDate: '2024-12-15',
        expectedDisbursementDate,
        approvedOnDate: options.status === 'SUBMITTED' ? null : (options.approvedOnDate ?? '2024-12-20'),
        aprDisclosure:
          options.status === 'SUBMITTED'
            ? null
            : { annualPercentageRate: '21.47', finalizedAt: '2024-12-20' },
      })
      .returning({ id: loans.id });
    const [, ...periods] = schedule.periods;
    await tx.insert(loanInstallments).values(
      periods.map((p) => ({
        tenantId,
        loanId: loan!.id,
        installmentNumber: p.period,
        fromDate: p.fromDate,
        dueDate: p.dueDate,
        principalDue: p.principalDue,
        interestDue: p.interestDue,
        feeChargesDue: p.feeChargesDue,
        penaltyChargesDue: p.penaltyChargesDue,
      })),
    );
    return loan!.id;
  });
  return {
    tenantId,
    customerId: customer.customerId,
    productId: product.productId,
    loanId,
    accountNo,
    schedule,
  };
}

/** Σ debit and Σ credit of the tenant's whole journal per currency, as decimal strings (numeric sums in SQL). */
export async function tenantTrialBalance(
  db: Db,
  tenantId: string,
): Promise<{ currency: string; debit: string; credit: string }[]> {
  return withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({
        currency: journalEntries.currencyCode,
        debit: sql<string>`sum(${journalEntries.debit})::text`,
        credit: sql<string>`sum(${journalEntries.credit})::text`,
      })
      .from(journalEntries)
      .where(eq(journalEntries.tenantId, tenantId))
      .groupBy(journalEntries.currencyCode),
  );
}

/** Balance (Σ debit − Σ credit, decimal string) per account code of one loan's journal. */
export async function accountBalances(
  db: Db,
  tenantId: string,
  loanId: number,
): Promise<Record<string, string>> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({
        accountCode: journalEntries.accountCode,
        balance: sql<string>`(sum(${journalEntries.debit}) - sum(${journalEntries.credit}))::numeric(19,2)::text`,
      })
      .from(journalEntries)
      .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.loanId, loanId)))
      .groupBy(journalEntries.accountCode),
  );
  return Object.fromEntries(rows.map((r) => [r.accountCode, r.balance]));
}
