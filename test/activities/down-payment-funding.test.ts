/**
 * The automatic down payment of a funding recorded in a boarded history (activities/payments/
 * record-external-payment-history.ts → activities/lending/record-external-funding.ts `recordAutomaticDownPayment`), on the real
 * database: a loan of a product with `enableAutoRepaymentForDownPayment` boarded with its funding and payments
 * gets the DOWN_PAYMENT payment (`<funding ref>:down-payment`, value-dated to the funding date, `payment.posted`
 * with `transactionType`) in the same transaction, allocated to the down-payment installment by the one repost;
 * the journal balances; a second funding of a partly funded loan pays the down payment of its own amount only;
 * boarding the history again records nothing more. The statement cycle never bills the down payment.
 */
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundings, loanInstallments, payments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, expectDomainError, newTenant, outboxOf } from './helpers';
import { tenantTrialBalance } from './ledger-fixtures';

let h: ActivityHarness;
let tenantId: string;

beforeAll(async () => {
  h = createHarness();
  tenantId = await newTenant(h, 'dpay');
  h.now.value = new Date('2025-06-01T12:00:00Z');
});
afterAll(async () => h?.close());

/**
 * An approved loan of `principal` USD on a 25 % down-payment product with automatic repayment, 3 × 2 weeks, 0 %
 * (`monthlyWithStatements`: 3 × 1 month, statements 21 days ahead).
 */
async function approvedDownPaymentLoan(principal: string, monthlyWithStatements = false): Promise<number> {
  const every = monthlyWithStatements
    ? { repaymentEvery: 1, repaymentFrequencyType: 2 }
    : { repaymentEvery: 2, repaymentFrequencyType: 1 };
  const product = await h.activities.createLoanProduct({
    tenantId,
    name: 'Pay in 4',
    shortName: 'P4',
    currencyCode: 'USD',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    installmentAmountInMultiplesOf: null,
    principal: '400.00',
    minPrincipal: null,
    maxPrincipal: null,
    numberOfRepayments: 3,
    minNumberOfRepayments: null,
    maxNumberOfRepayments: null,
    interestRatePerPeriod: '0',
    minInterestRatePerPeriod: null,
    maxInterestRatePerPeriod: null,
    ...every,
    interestRateFrequencyType: 3,
    interestType: 1,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    allowPartialPeriodInterestCalcualtion: false,
    daysInYearType: 1,
    daysInMonthType: 1,
    graceOnPrincipalPayment: 0,
    graceOnInterestPayment: 0,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    paymentAllocation: null,
    charges: [],
    lmsConfig: {
      productClass: 'COMMERCIAL',
      aprEnabled: false,
      statementEnabled: monthlyWithStatements,
      statementLeadDays: monthlyWithStatements ? 21 : null,
    },
    enableDownPayment: true,
    disbursedAmountPercentageForDownPayment: '25',
    enableAutoRepaymentForDownPayment: true,
  });
  const customer = await h.activities.createCustomer({ tenantId, firstName: 'Ada', lastName: 'Lovelace' });
  const loan = await h.activities.createLoan({
    tenantId,
    clientId: customer.customerId,
    productId: product.productId,
    loanType: 'individual',
    principal,
    loanTermFrequency: monthlyWithStatements ? 3 : 6,
    loanTermFrequencyType: every.repaymentFrequencyType,
    numberOfRepayments: 3,
    ...every,
    interestRatePerPeriod: '0',
    interestType: 1,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    expectedDisbursementDate: '2025-05-05',
    submittedOnDate: '2025-05-05',
  });
  await h.activities.approveLoan({
    tenantId,
    loanId: loan.loanId,
    approvedOnDate: '2025-05-05',
    approvedLoanAmount: principal,
  });
  return loan.loanId;
}

const funding = (externalRecordRef: string, amount: string, fundingDate = '2025-05-05') => ({
  amount,
  currency: 'USD',
  fundingType: 'DISBURSEMENT' as const,
  recipientType: 'BORROWER' as const,
  recipientRef: 'borrower-primary',
  externalRecordRef,
  reason: 'Boarded from the originating platform',
  fundingDate,
});

async function paymentsOf(loanId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(payments)
      .where(and(eq(payments.tenantId, tenantId), eq(payments.loanId, loanId)))
      .orderBy(asc(payments.effectiveDate), asc(payments.id)),
  );
}

async function expectTrialBalanceZero() {
  for (const row of await tenantTrialBalance(h.db, tenantId)) expect(row.debit).toBe(row.credit);
}

describe('a boarded history records the down payment with its funding', () => {
  it('records, allocates and journals it once, then the payments', async () => {
    const loanId = await approvedDownPaymentLoan('400.00');
    const history = {
      tenantId,
      loanId,
      fundings: [funding('board-dp-fund-1', '400.00')],
      payments: [
        {
          amount: '100.00',
          currency: 'USD',
          effectiveDate: '2025-05-19',
          externalRecordRef: 'board-dp-pay-1',
          source: 'IMPORT',
        },
      ],
    };
    const result = await h.activities.recordExternalPaymentHistory(history);
    expect(result.fundingOutcomes.every((o) => o.ok)).toBe(true);
    expect(result.outcomes.every((o) => o.ok)).toBe(true);

    const rows = await paymentsOf(loanId);
    expect(
      rows.map((r) => [r.transactionType, r.externalRecordRef, r.effectiveDate, r.amount, r.source]),
    ).toEqual([
      ['DOWN_PAYMENT', 'board-dp-fund-1:down-payment', '2025-05-05', '100.000000', 'DOWN_PAYMENT'],
      ['REPAYMENT', 'board-dp-pay-1', '2025-05-19', '100.000000', 'IMPORT'],
    ]);
    const events = await outboxOf(h, tenantId, rows[0]!.id);
    expect(events.filter((e) => e.eventType === 'payment.posted').map((e) => e.data)).toEqual([
      expect.objectContaining({
        amount: '100.00',
        effectiveDate: '2025-05-05',
        transactionType: 'DOWN_PAYMENT',
      }),
    ]);
    const installments = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(loanInstallments)
        .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loanId)))
        .orderBy(asc(loanInstallments.installmentNumber)),
    );
    expect(installments.map((i) => [i.dueDate, i.principalDue, i.principalPaid])).toEqual([
      ['2025-05-05', '100.000000', '100.000000'],
      ['2025-05-19', '100.000000', '100.000000'],
      ['2025-06-02', '100.000000', '0.000000'],
      ['2025-06-16', '100.000000', '0.000000'],
    ]);
    await expectTrialBalanceZero();

    const again = await h.activities.recordExternalPaymentHistory(history);
    expect(again.fundingOutcomes.map((o) => o.ok && o.funding.created)).toEqual([false]);
    expect(await paymentsOf(loanId)).toHaveLength(2);
  });

  it('a second funding of a partly funded loan pays the down payment of its own amount', async () => {
    const loanId = await approvedDownPaymentLoan('400.00');
    await h.activities.recordExternalFunding({ tenantId, loanId, ...funding('dp-part-1', '200.00') });
    await h.activities.recordExternalFunding({
      tenantId,
      loanId,
      ...funding('dp-part-2', '200.00', '2025-05-06'),
    });
    const rows = await paymentsOf(loanId);
    expect(rows.map((r) => [r.externalRecordRef, r.effectiveDate, r.amount])).toEqual([
      ['dp-part-1:down-payment', '2025-05-05', '50.000000'],
      ['dp-part-2:down-payment', '2025-05-06', '50.000000'],
    ]);
    await expectTrialBalanceZero();
  });
});

describe('a down-payment ref already taken', () => {
  it('refuses the funding with 409 and records nothing', async () => {
    const active = await approvedDownPaymentLoan('400.00');
    await h.activities.recordExternalFunding({
      tenantId,
      loanId: active,
      ...funding('dp-taken-0', '400.00'),
    });
    await h.activities.recordExternalPayment({
      tenantId,
      loanId: active,
      amount: '10.00',
      currency: 'USD',
      effectiveDate: '2025-05-10',
      externalRecordRef: 'dp-taken-1:down-payment',
      source: 'IMPORT',
    });
    const loanId = await approvedDownPaymentLoan('400.00');
    await expectDomainError(
      h.activities.recordExternalFunding({ tenantId, loanId, ...funding('dp-taken-1', '400.00') }),
      'error.msg.external.record.ref.conflict',
    );
    const recorded = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(fundings)
        .where(and(eq(fundings.tenantId, tenantId), eq(fundings.loanId, loanId))),
    );
    expect(recorded).toEqual([]);
    expect(await paymentsOf(loanId)).toEqual([]);
  });
});

describe('statements', () => {
  it('bill the installments after the down payment, never the down payment itself', async () => {
    const loanId = await approvedDownPaymentLoan('300.00', true);
    await h.activities.recordExternalFunding({ tenantId, loanId, ...funding('dp-stmt-1', '300.00') });
    const candidates = async (asOf: string) =>
      (await h.activities.listStatementCandidates({ tenantId, asOf, limit: 500 })).filter(
        (c) => c.loanId === loanId,
      );
    // the down payment is due 2025-05-05 (21 days after 2025-04-14); the first installment 2025-06-05
    expect(await candidates('2025-04-14')).toEqual([]);
    expect(await candidates('2025-05-15')).toEqual([{ loanId, dueDate: '2025-06-05' }]);
  });
});
