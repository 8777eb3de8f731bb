/**
 * End to end: a migration team boards one consumer loan with a year of history (docs/migrating.md "Portfolio boarding") against the service started exactly as `npm start` starts it, with a credential
 * from the admin CLI, through scripts/lending-demo-flow.ts over plain HTTP — then Ctrl-C stops everything.
 *
 * Oracle: the figures are computed here from first principles with decimal.js, never copied from the service:
 * 1200.00 USD at 12 % nominal a year, 12 monthly equal installments, declining balance (periodic rate 1 %,
 * interest of a period = balance × 1 % rounded half-even to cents), installment = P·r / (1 − (1 + r)^−12) =
 * 106.6185… → 106.62, the last installment's principal the balance left; a flat 2.00 fee with every installment.
 * The APR is Appendix J's for equal monthly unit-periods: the i with amount financed = Σ payment_k / (1 + i)^k,
 * APR = 12 · i, rounded half-up to 0.01 %. Posting rules (domain/lending/ledger.ts, cash basis): disbursement Dr
 * LOAN_PORTFOLIO / Cr EXTERNAL_CLEARING; payment Dr EXTERNAL_CLEARING / Cr LOAN_PORTFOLIO principal, Cr
 * INTEREST_INCOME interest, Cr FEE_INCOME fee.
 *
 * The fee is an installment fee: a fee due at disbursement (a prepaid finance charge) is disclosed, but the
 * ledger books nothing for it (payment allocation replays installments 1…n only), so the regulation-correct
 * books for it (Dr LOAN_PORTFOLIO principal / Cr EXTERNAL_CLEARING principal − fee / Cr FEE_INCOME fee) cannot
 * be asserted yet.
 */
import Decimal from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from '../../scripts/demo-flow';
import { type JsonBody, type LendingDemoResult, runLendingDemoFlow } from '../../scripts/lending-demo-flow';
import { type BootedService, bootService, createClientWithAdminCli } from './boot';

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
const cents = (x: Decimal.Value) => new D(x).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN);
const money = (x: Decimal.Value) => cents(x).toFixed(2);
const sum = (xs: Decimal.Value[]) => xs.reduce<Decimal>((a, b) => a.plus(b), new D(0));

// ---- the hand-computed loan ----------------------------------------------------------------------------------

const principal = new D('1200.00');
const monthlyRate = new D(12).div(12).div(100); // 12 % a year, same-as-repayment-period interest: 1 % a month
const n = 12;
const fee = new D('2.00');

/** ISO date `months` calendar months after `iso` (day ≤ 28, so never clamped). */
function plusMonths(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1 + months, d)).toISOString().slice(0, 10);
}

/** About a year ago: 13 months before today (UTC), day ≤ 28, so the 12th due date is a month ago. */
const today = new Date();
const disbursementDate = new Date(
  Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth() - 1, Math.min(today.getUTCDate(), 28)),
)
  .toISOString()
  .slice(0, 10);

const installment = cents(principal.times(monthlyRate).div(new D(1).minus(monthlyRate.plus(1).pow(-n))));
const expectedRows: {
  period: number;
  dueDate: string;
  principal: Decimal;
  interest: Decimal;
  total: Decimal;
}[] = [];
{
  let balance = principal;
  for (let k = 1; k <= n; k++) {
    const interest = cents(balance.times(monthlyRate));
    const principalPart = k < n ? installment.minus(interest) : balance;
    balance = balance.minus(principalPart);
    expectedRows.push({
      period: k,
      dueDate: plusMonths(disbursementDate, k),
      principal: principalPart,
      interest,
      total: principalPart.plus(interest).plus(fee),
    });
  }
}
const totalInterest = sum(expectedRows.map((r) => r.interest));
const totalFees = fee.times(n);
const totalOfPayments = sum(expectedRows.map((r) => r.total));
const financeCharge = totalOfPayments.minus(principal);

/** Appendix J, equal monthly unit-periods from the advance: bisection on the periodic rate i. */
function appendixJApr(amountFinanced: Decimal, payments: Decimal[]): Decimal {
  let low = new D(0);
  let high = new D(1);
  for (let step = 0; step < 120; step++) {
    const i = low.plus(high).div(2);
    const presentValue = sum(payments.map((p, k) => p.div(i.plus(1).pow(k + 1))));
    if (presentValue.gt(amountFinanced)) low = i;
    else high = i;
  }
  return low.plus(high).div(2).times(12).times(100);
}
const apr = appendixJApr(
  principal,
  expectedRows.map((r) => r.total),
).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

// ---- the run ---------------------------------------------------------------------------------------------------

let booted: BootedService | undefined;
let result: LendingDemoResult;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  booted = await bootService('lending-boarding-');
}, 120_000);

afterAll(async () => {
  await booted?.stop();
}, 60_000);

describe('boarding one loan with a year of history over HTTP (npm start, admin CLI, lending flow)', () => {
  it('the hand-computed loan is what the figures below assume', () => {
    expect(installment.toFixed(2)).toBe('106.62');
    expect(expectedRows.slice(0, 11).every((r) => r.total.eq('108.62'))).toBe(true);
    expect(money(expectedRows[11]!.total)).toBe('108.60');
    expect(money(totalInterest)).toBe('79.42');
    expect(money(totalOfPayments)).toBe('1303.42');
    expect(apr.toFixed(2)).toBe('15.54');
  });

  it('boards the loan, funds it a year back and replays 12 payments in date order', async () => {
    const credential = await createClientWithAdminCli(
      booted!,
      'e2e-lender',
      'servicing:read servicing:write lending:read lending:write',
    );
    expect(credential.clientSecret).toMatch(/^cs_test_/);
    result = await runLendingDemoFlow(
      booted!.baseUrl,
      { tenant: 'e2e-lender', clientId: credential.clientId, clientSecret: credential.clientSecret },
      (x) => exchanges.push(x),
      { disbursementDate },
    );
    const answered = exchanges.filter((x) => x.status !== 429);
    expect(answered.map((x) => `${x.method} ${x.status}`)).toEqual([
      'POST 200', // token
      'POST 201', // charge
      'POST 201', // product
      'GET 200', // product read back
      'POST 201', // customer
      'POST 201', // identifier
      'POST 201', // consent
      'POST 201', // instrument
      'POST 200', // verification
      'POST 201', // loan
      'POST 200', // approval
      'POST 201', // funding
      'GET 200', // schedule
      ...Array.from({ length: n }, () => 'POST 201'), // payments
      'GET 200', // summary
      'GET 200', // loan with schedule and transactions
      'GET 200', // journal
    ]);
    expect(result.disbursementDate).toBe(disbursementDate);
  });

  it('never echoes or reports the SSN; references carry no 8-digit run', () => {
    const identifierAnswer = exchanges.find((x) => x.path.endsWith('/identifiers'))!.responseBody as JsonBody;
    const ssn = result.demoSsn;
    expect(ssn).toMatch(/^\d{3}-\d{2}-\d{4}$/);
    expect(identifierAnswer).toMatchObject({ identifierType: 'SSN', mask: `***-**-${ssn.slice(-4)}` });
    const reported = JSON.stringify(exchanges.map((x) => [x.requestBody, x.responseBody]));
    expect(reported).not.toContain(ssn);
    expect(reported).not.toContain(ssn.replace(/-/g, ''));
    const refs = exchanges
      .map((x) => (x.requestBody as JsonBody | undefined)?.externalRecordRef)
      .filter((ref): ref is string => typeof ref === 'string');
    expect(refs).toHaveLength(n + 1);
    expect(refs.at(1)).toBe(`IMPORT-${result.runId}-PMT-01`);
    for (const ref of refs) expect(ref).not.toMatch(/[0-9]{8}/);
  });

  it('allocates each payment to its installment: principal, interest and fee as computed by hand', () => {
    expect(result.payments).toHaveLength(n);
    result.payments.forEach((payment, k) => {
      const row = expectedRows[k]!;
      expect(payment).toMatchObject({
        status: 'POSTED',
        amount: money(row.total),
        currency: 'USD',
        effectiveDate: row.dueDate,
        allocation: {
          principal: money(row.principal),
          interest: money(row.interest),
          fee: money(fee),
          penalty: '0.00',
          overpayment: '0.00',
        },
      });
    });
  });

  it('closes the loan: every installment complete on its due date, nothing outstanding', () => {
    const { loan, schedule, summary } = result;
    const closed = {
      id: 600,
      code: 'loanStatusType.closed.obligations.met',
      value: 'Closed (obligations met)',
    };
    expect(loan.status).toEqual(closed);
    expect(summary.status).toEqual(closed);
    expect(loan.timeline).toMatchObject({
      submittedOnDate: disbursementDate,
      expectedDisbursementDate: disbursementDate,
      approvedOnDate: disbursementDate,
      actualDisbursementDate: disbursementDate,
    });

    const [disbursement, ...periods] = schedule.periods as JsonBody[];
    expect(disbursement).toMatchObject({ dueDate: disbursementDate, principalDisbursed: '1200.00' });
    expect(periods).toHaveLength(n);
    periods.forEach((period, k) => {
      const row = expectedRows[k]!;
      expect(period).toMatchObject({
        period: row.period,
        dueDate: row.dueDate,
        principalDue: money(row.principal),
        interestDue: money(row.interest),
        feeChargesDue: money(fee),
        penaltyChargesDue: '0.00',
        totalDueForPeriod: money(row.total),
        principalPaid: money(row.principal),
        interestPaid: money(row.interest),
        feeChargesPaid: money(fee),
        totalPaidForPeriod: money(row.total),
        principalOutstanding: '0.00',
        interestOutstanding: '0.00',
        feeChargesOutstanding: '0.00',
        penaltyChargesOutstanding: '0.00',
        totalOutstandingForPeriod: '0.00',
        complete: true,
        obligationsMetOnDate: row.dueDate,
      });
    });
    expect(money(sum(periods.map((p) => p.interestPaid)))).toBe(schedule.totalInterestCharged);
    expect(schedule).toMatchObject({
      totalPrincipalExpected: '1200.00',
      totalPrincipalPaid: '1200.00',
      totalInterestCharged: money(totalInterest),
      totalInterestPaid: money(totalInterest),
      totalFeeChargesCharged: money(totalFees),
      totalFeeChargesPaid: money(totalFees),
      totalRepaymentExpected: money(totalOfPayments),
      totalRepayment: money(totalOfPayments),
      totalOutstanding: '0.00',
    });

    expect(summary.balances).toEqual({
      principalOutstanding: '0.00',
      interestOutstanding: '0.00',
      feeOutstanding: '0.00',
      penaltyOutstanding: '0.00',
      totalOutstanding: '0.00',
      overpayment: '0.00',
    });
    expect(summary.overdue).toMatchObject({ total: '0.00', oldestOverdueDueDate: null, daysPastDue: 0 });
    expect(summary.payoff).toMatchObject({ principal: '0.00', interest: '0.00', fee: '0.00', total: '0.00' });

    const transactions = loan.transactions as JsonBody[];
    expect(transactions.map((t) => [t.type.code, t.date, t.amount])).toEqual([
      ['loanTransactionType.disbursement', disbursementDate, '1200.00'],
      ...expectedRows.map((r) => ['loanTransactionType.repayment', r.dueDate, money(r.total)]),
    ]);
  });

  it('freezes the Regulation Z disclosure: APR by Appendix J, finance charge = total of payments − amount financed', () => {
    const disclosure = result.loan.aprDisclosure as JsonBody;
    expect(disclosure).toMatchObject({
      currency: 'USD',
      annualPercentageRate: apr.toFixed(2),
      amountFinanced: '1200.00',
      totalOfPayments: money(totalOfPayments),
      financeCharge: money(financeCharge),
      itemization: {
        principal: '1200.00',
        amountGivenToBorrower: '1200.00',
        prepaidFinanceChargeTotal: '0.00',
      },
      toleranceCheck: { withinTolerance: true },
    });
    expect(typeof disclosure.finalizedAt).toBe('string');
    expect(new D(disclosure.aprExact).minus(apr).abs().lte('0.005')).toBe(true);
    expect(money(new D(disclosure.totalOfPayments).minus(disclosure.amountFinanced))).toBe(
      disclosure.financeCharge,
    );
    expect(money(financeCharge)).toBe(money(totalInterest.plus(totalFees)));
    expect(disclosure.paymentSchedule).toEqual([
      {
        count: n - 1,
        amount: money(expectedRows[0]!.total),
        firstDueDate: expectedRows[0]!.dueDate,
        frequency: { every: 1, unit: 'MONTHS' },
      },
      {
        count: 1,
        amount: money(expectedRows[n - 1]!.total),
        firstDueDate: expectedRows[n - 1]!.dueDate,
        frequency: { every: 1, unit: 'MONTHS' },
      },
    ]);
    expect(result.summary.aprDisclosure).toEqual(disclosure);
  });

  it('books balanced journal entries: portfolio, clearing, interest and fee income as computed by hand', () => {
    const lines = result.journal.pageItems;
    // one disbursement (2 lines) and 12 payments (Dr clearing; Cr portfolio, interest, fee), no re-allocation
    expect(result.journal.totalFilteredRecords).toBe(2 + n * 4);
    expect(lines).toHaveLength(2 + n * 4);
    expect(lines.every((l) => l.reversesEntryId === null && l.currency === 'USD')).toBe(true);

    const byAccount = new Map<string, { debit: Decimal; credit: Decimal }>();
    const byRef = new Map<string, Decimal>();
    for (const line of lines) {
      const account = byAccount.get(line.accountCode) ?? { debit: new D(0), credit: new D(0) };
      account.debit = account.debit.plus(line.debit);
      account.credit = account.credit.plus(line.credit);
      byAccount.set(line.accountCode, account);
      byRef.set(
        line.transactionRef,
        (byRef.get(line.transactionRef) ?? new D(0)).plus(line.debit).minus(line.credit),
      );
    }
    const totals = Object.fromEntries(
      [...byAccount].map(([code, t]) => [code, { debit: money(t.debit), credit: money(t.credit) }]),
    );
    expect(totals).toEqual({
      LOAN_PORTFOLIO: { debit: '1200.00', credit: '1200.00' },
      EXTERNAL_CLEARING: { debit: money(totalOfPayments), credit: '1200.00' },
      INTEREST_INCOME: { debit: '0.00', credit: money(totalInterest) },
      FEE_INCOME: { debit: '0.00', credit: money(totalFees) },
    });
    // EXTERNAL_CLEARING nets to the cash the borrower paid back beyond the principal lent: interest + fees
    const clearing = byAccount.get('EXTERNAL_CLEARING')!;
    expect(money(clearing.debit.minus(clearing.credit))).toBe(money(totalOfPayments.minus(principal)));
    expect(money(totalOfPayments.minus(principal))).toBe(money(totalInterest.plus(totalFees)));
    // trial balance: every entry balances, and so does the whole journal
    expect(byRef.size).toBe(1 + n);
    for (const [ref, difference] of byRef) expect(difference.isZero(), ref).toBe(true);
    const debits = sum(lines.map((l) => l.debit));
    const credits = sum(lines.map((l) => l.credit));
    expect(money(debits)).toBe(money(credits));
    expect(money(debits)).toBe(money(principal.plus(totalOfPayments)));
    expect(lines.find((l) => l.transactionRef === `funding/${result.fundingId}`)?.entryDate).toBe(
      disbursementDate,
    );
  });

  it('stops everything cleanly on Ctrl-C', async () => {
    const service = booted!.service;
    const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));
    service.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(await fetch(`${booted!.baseUrl}/healthz`).catch(() => null)).toBeNull();
  });
});
