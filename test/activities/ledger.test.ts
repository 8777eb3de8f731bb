/**
 * The money operations of a loan (activities/lending/*) on the real database: each write run twice leaves one row
 * and one set of journal lines; a reused externalRecordRef with other content is a conflict; the tenant's trial
 * balance is zero after every operation; a back-dated payment leaves installments, allocations and account
 * balances exactly as posting the same payments in date order; holds; over-funding; concurrent duplicates.
 * Loans come from ledger-fixtures.ts: 300.00 USD, 3 monthly installments from 2025-01-01 of 100.00 principal,
 * 3.00 flat interest and a 2.00 fee (105.00 each), the docs/design.md §5 default allocation order.
 */
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordExternalFundingInput } from '../../activities/lending/record-external-funding';
import type { RecordExternalPaymentInput } from '../../activities/payments/record-external-payment';
import {
  fundings,
  journalEntries,
  loanInstallments,
  loans,
  outboxEvents,
  payments,
  reconciliationItems,
} from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';
import { type ActivityHarness, createHarness, expectDomainError, newTenant, outboxOf } from './helpers';
import { accountBalances, approvedLoan, type LoanFixture, tenantTrialBalance } from './ledger-fixtures';

let h: ActivityHarness;
let tenantId: string;
let refCounter = 0;

beforeAll(async () => {
  h = createHarness();
  tenantId = await newTenant(h, 'ledger');
});
afterAll(async () => h?.close());
beforeEach(() => {
  h.now.value = new Date('2025-06-01T12:00:00Z');
});

const newRef = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(refCounter++).toString(36)}`;

function fundingInput(loan: LoanFixture, overrides: Partial<RecordExternalFundingInput> = {}) {
  return {
    tenantId: loan.tenantId,
    loanId: loan.loanId,
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT' as const,
    recipientType: 'BORROWER' as const,
    recipientRef: 'borrower-primary',
    externalRecordRef: newRef('fund'),
    reason: 'Disbursed by the originating bank',
    ...overrides,
  };
}

function paymentInput(loan: LoanFixture, overrides: Partial<RecordExternalPaymentInput> = {}) {
  return {
    tenantId: loan.tenantId,
    loanId: loan.loanId,
    amount: '105.00',
    currency: 'USD',
    effectiveDate: '2025-02-01',
    externalRecordRef: newRef('pay'),
    source: 'IMPORT',
    rationale: 'Boarded history',
    ...overrides,
  };
}

function rows<T>(fn: (tx: Tx) => Promise<T>, tenant = tenantId): Promise<T> {
  return withTenantTransaction(h.db, tenant, fn);
}

const loanRow = async (loan: LoanFixture) =>
  (await rows((tx) => tx.select().from(loans).where(eq(loans.id, loan.loanId)), loan.tenantId))[0]!;

const journalOf = (loan: LoanFixture) =>
  rows(
    (tx) =>
      tx
        .select()
        .from(journalEntries)
        .where(eq(journalEntries.loanId, loan.loanId))
        .orderBy(journalEntries.id),
    loan.tenantId,
  );

const installmentsOf = (loan: LoanFixture) =>
  rows(
    (tx) =>
      tx
        .select()
        .from(loanInstallments)
        .where(eq(loanInstallments.loanId, loan.loanId))
        .orderBy(loanInstallments.installmentNumber),
    loan.tenantId,
  );

const paymentsOf = (loan: LoanFixture) =>
  rows(
    (tx) =>
      tx.select().from(payments).where(eq(payments.loanId, loan.loanId)).orderBy(payments.effectiveDate),
    loan.tenantId,
  );

/** Σ debits = Σ credits per currency over the tenant's whole journal. */
async function expectTrialBalanceZero(tenant = tenantId) {
  const totals = await tenantTrialBalance(h.db, tenant);
  for (const total of totals) expect(total.debit, `${tenant} ${total.currency}`).toBe(total.credit);
}

/** The journal's lines of one transaction ref, as `ACCOUNT D|C amount` strings, sorted. */
function linesOf(journal: Awaited<ReturnType<typeof journalOf>>, transactionRef: string): string[] {
  return journal
    .filter((line) => line.transactionRef === transactionRef)
    .map((line) =>
      cents(line.debit) > 0n
        ? `${line.accountCode} D ${usd(cents(line.debit))}`
        : `${line.accountCode} C ${usd(cents(line.credit))}`,
    )
    .sort();
}

/** A stored or rendered USD amount in cents (exact). */
const cents = (amount: string): bigint => parseDecimalToMinor(amount, 2, { allowTrailingZeros: true });
const usd = (minor: bigint): string => formatMinor(minor, 2);

describe('recordExternalFunding', () => {
  it('records once: one funding, reconciliation item, journal entry and outbox event; the loan is active from the funding date', async () => {
    const loan = await approvedLoan(h, tenantId);
    const input = fundingInput(loan);
    const first = await h.activities.recordExternalFunding(input);
    await expectTrialBalanceZero();
    const second = await h.activities.recordExternalFunding(input);
    await expectTrialBalanceZero();

    expect(first).toEqual({
      fundingId: expect.any(Number),
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      status: 'RECORDED_EXTERNAL',
      amount: '300.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      fundingDate: '2025-01-01',
      created: true,
    });
    expect(second).toEqual({ ...first, created: false });

    const stored = await rows((tx) => tx.select().from(fundings).where(eq(fundings.loanId, loan.loanId)));
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      status: 'RECORDED_EXTERNAL',
      fundingDate: '2025-01-01',
      amount: '300.000000',
    });
    expect(stored[0]!.contentDigest).toMatch(/^[0-9a-f]{64}$/);

    const journal = await journalOf(loan);
    expect(journal).toHaveLength(2);
    expect(linesOf(journal, `funding/${first.fundingId}`)).toEqual([
      'EXTERNAL_CLEARING C 300.00',
      'LOAN_PORTFOLIO D 300.00',
    ]);
    expect(journal.every((line) => line.entryDate === '2025-01-01' && line.reversesEntryId === null)).toBe(
      true,
    );

    const items = await rows((tx) =>
      tx
        .select()
        .from(reconciliationItems)
        .where(
          and(
            eq(reconciliationItems.targetType, 'FUNDING'),
            eq(reconciliationItems.targetId, first.fundingId),
          ),
        ),
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'open', externalRecordRef: input.externalRecordRef });

    const events = (await outboxOf(h, tenantId, first.fundingId)).filter(
      (e) => e.eventType === 'funding.posted',
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: 'funding.posted',
      subjectType: 'funding',
      apiVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      data: {
        fundingId: first.fundingId,
        loanRef: loan.accountNo,
        status: 'RECORDED_EXTERNAL',
        amount: '300.00',
        currency: 'USD',
        fundingDate: '2025-01-01',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
      },
    });
    expect(events[0]!.eventId).toMatch(/^evt_/);

    expect(await loanRow(loan)).toMatchObject({ status: 'ACTIVE', disbursedOnDate: '2025-01-01' });
  });

  it('accepts tranches up to the approved principal and refuses more (409); the first funding date stays', async () => {
    const loan = await approvedLoan(h, tenantId);
    await h.activities.recordExternalFunding(
      fundingInput(loan, { amount: '200', fundingDate: '2025-01-01' }),
    );
    await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { amount: '100.01', fundingDate: '2025-01-10' })),
      'error.msg.loan.funding.exceeds.approved.principal',
    );
    await h.activities.recordExternalFunding(
      fundingInput(loan, { amount: '100.00', fundingDate: '2025-01-10' }),
    );
    await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { amount: '0.01', fundingDate: '2025-01-11' })),
      'error.msg.loan.funding.exceeds.approved.principal',
    );
    await expectTrialBalanceZero();
    expect(await loanRow(loan)).toMatchObject({ status: 'ACTIVE', disbursedOnDate: '2025-01-01' });
    expect(await accountBalances(h.db, tenantId, loan.loanId)).toEqual({
      LOAN_PORTFOLIO: '300.00',
      EXTERNAL_CLEARING: '-300.00',
    });
  });

  it('refuses a submitted loan (409), another currency (400), a future date or one before approval (400)', async () => {
    const submitted = await approvedLoan(h, tenantId, { status: 'SUBMITTED' });
    await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(submitted)),
      'error.msg.loan.invalid.state.transition',
    );
    const loan = await approvedLoan(h, tenantId);
    const mismatch = await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { currency: 'EUR' })),
      'validation.msg.payment.currency.mismatch',
    );
    expect(mismatch.errors.map((e) => e.parameterName)).toEqual(['currency']);
    const future = await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { fundingDate: '2025-06-03' })),
      'validation.msg.validation.errors.exist',
    );
    expect(future.errors.map((e) => e.parameterName)).toEqual(['fundingDate']);
    await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { fundingDate: '2024-12-19' })),
      'validation.msg.validation.errors.exist',
    );
    await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { amount: '1.001' })),
      'validation.msg.validation.errors.exist',
    );
    await expectDomainError(
      h.activities.recordExternalFunding(fundingInput(loan, { externalRecordRef: 'acct 021000021' })),
      'validation.msg.validation.errors.exist',
    );
    const written = await rows((tx) =>
      tx.select({ n: count() }).from(fundings).where(eq(fundings.loanId, loan.loanId)),
    );
    expect(written[0]!.n).toBe(0);
    expect(await loanRow(loan)).toMatchObject({ status: 'APPROVED', disbursedOnDate: null });
  });

  it('is blocked by an active DISBURSEMENT_HOLD (409, nothing written) and succeeds once it is released', async () => {
    const loan = await approvedLoan(h, tenantId);
    const hold = await h.activities.applyRestriction({
      tenantId,
      customerId: loan.customerId,
      restrictionType: 'DISBURSEMENT_HOLD',
      reason: 'Fraud review',
      loanId: loan.loanId,
    });
    const input = fundingInput(loan);
    await expectDomainError(
      h.activities.recordExternalFunding(input),
      'error.msg.loan.disbursement.hold.active',
    );
    expect(await journalOf(loan)).toHaveLength(0);
    expect(await loanRow(loan)).toMatchObject({ status: 'APPROVED' });
    await h.activities.releaseRestriction({
      tenantId,
      customerId: loan.customerId,
      restrictionId: hold.restrictionId,
      reason: 'Review closed',
    });
    const funded = await h.activities.recordExternalFunding(input);
    expect(funded.created).toBe(true);
    await expectTrialBalanceZero();
  });

  it('answers a reused externalRecordRef with other content with 409, on the same or another loan', async () => {
    const loan = await approvedLoan(h, tenantId);
    const other = await approvedLoan(h, tenantId);
    const input = fundingInput(loan);
    await h.activities.recordExternalFunding(input);
    await expectDomainError(
      h.activities.recordExternalFunding({ ...input, amount: '299.99' }),
      'error.msg.external.record.ref.conflict',
    );
    await expectDomainError(
      h.activities.recordExternalFunding({ ...input, reason: 'Another reason' }),
      'error.msg.external.record.ref.conflict',
    );
    await expectDomainError(
      h.activities.recordExternalFunding({ ...input, loanId: other.loanId }),
      'error.msg.external.record.ref.conflict',
    );
    // Same content, amount written differently and the default date spelled out: a replay.
    const replay = await h.activities.recordExternalFunding({
      ...input,
      amount: '300',
      fundingDate: '2025-01-01',
    });
    expect(replay.created).toBe(false);
  });
});

describe('recordExternalPayment', () => {
  async function fundedLoan(options: Parameters<typeof approvedLoan>[2] = {}) {
    const loan = await approvedLoan(h, tenantId, options);
    await h.activities.recordExternalFunding(fundingInput(loan, { amount: options.principal ?? '300.00' }));
    return loan;
  }

  it('posts once: one payment, allocation, journal entry, installment update and outbox event', async () => {
    const loan = await fundedLoan();
    const input = paymentInput(loan);
    const first = await h.activities.recordExternalPayment(input);
    await expectTrialBalanceZero();
    const second = await h.activities.recordExternalPayment(input);
    await expectTrialBalanceZero();

    expect(first).toEqual({
      paymentId: expect.any(Number),
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      status: 'POSTED',
      amount: '105.00',
      currency: 'USD',
      effectiveDate: '2025-02-01',
      allocation: {
        principal: '100.00',
        interest: '3.00',
        fee: '2.00',
        penalty: '0.00',
        overpayment: '0.00',
      },
      created: true,
    });
    expect(second).toEqual({ ...first, created: false });

    const stored = await paymentsOf(loan);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      status: 'POSTED',
      source: 'IMPORT',
      externalRecordRef: input.externalRecordRef,
    });
    expect(stored[0]!.allocation).toMatchObject({
      paymentId: first.paymentId,
      amount: '105.00',
      lines: [
        { installmentNumber: 1, component: 'INTEREST', amount: '3.00' },
        { installmentNumber: 1, component: 'PRINCIPAL', amount: '100.00' },
        { installmentNumber: 1, component: 'FEE', amount: '2.00' },
      ],
    });

    const journal = await journalOf(loan);
    expect(journal).toHaveLength(2 + 4);
    expect(linesOf(journal, `payment/${first.paymentId}`)).toEqual([
      'EXTERNAL_CLEARING D 105.00',
      'FEE_INCOME C 2.00',
      'INTEREST_INCOME C 3.00',
      'LOAN_PORTFOLIO C 100.00',
    ]);
    expect(journal.filter((l) => l.transactionRef === `payment/${first.paymentId}`)[0]!.entryDate).toBe(
      '2025-02-01',
    );

    const [one, two] = await installmentsOf(loan);
    expect(one).toMatchObject({
      principalPaid: '100.000000',
      interestPaid: '3.000000',
      feeChargesPaid: '2.000000',
      obligationsMetOnDate: '2025-02-01',
    });
    expect(two).toMatchObject({ principalPaid: '0.000000', obligationsMetOnDate: null });

    const events = (await outboxOf(h, tenantId, first.paymentId)).filter(
      (e) => e.eventType === 'payment.posted',
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      subjectType: 'payment',
      subjectId: String(first.paymentId),
      data: {
        paymentId: first.paymentId,
        loanRef: loan.accountNo,
        status: 'POSTED',
        amount: '105.00',
        currency: 'USD',
        effectiveDate: '2025-02-01',
      },
    });
    expect(Object.keys(events[0]!.data as object).sort()).toEqual(
      ['amount', 'currency', 'effectiveDate', 'loanRef', 'paymentId', 'status'].sort(),
    );
  });

  it('answers a reused externalRecordRef with other content with 409', async () => {
    const loan = await fundedLoan();
    const input = paymentInput(loan);
    await h.activities.recordExternalPayment(input);
    for (const change of [
      { amount: '105.01' },
      { effectiveDate: '2025-02-02' },
      { source: 'BANK_FEED' },
      { rationale: 'Other' },
    ]) {
      await expectDomainError(
        h.activities.recordExternalPayment({ ...input, ...change }),
        'error.msg.external.record.ref.conflict',
      );
    }
    expect(await paymentsOf(loan)).toHaveLength(1);
    await expectTrialBalanceZero();
  });

  it('a back-dated payment leaves installments, allocations and balances as posting in date order would', async () => {
    const backDated = await fundedLoan();
    const inOrder = await fundedLoan();
    const early = { amount: '50.00', effectiveDate: '2025-01-20' };
    const late = { amount: '150.00', effectiveDate: '2025-03-05' };

    const lateFirst = await h.activities.recordExternalPayment(paymentInput(backDated, late));
    await expectTrialBalanceZero();
    // Alone, the late payment pays installment 1 and 45.00 of installment 2 (interest 3.00, principal 42.00).
    expect(lateFirst.allocation).toEqual({
      principal: '142.00',
      interest: '6.00',
      fee: '2.00',
      penalty: '0.00',
      overpayment: '0.00',
    });
    await h.activities.recordExternalPayment(paymentInput(backDated, early));
    await expectTrialBalanceZero();

    await h.activities.recordExternalPayment(paymentInput(inOrder, early));
    await h.activities.recordExternalPayment(paymentInput(inOrder, late));
    await expectTrialBalanceZero();

    const split = (p: Awaited<ReturnType<typeof paymentsOf>>[number]) => {
      const { paymentId: _id, ...rest } = p.allocation as Record<string, unknown>;
      return { effectiveDate: p.effectiveDate, amount: p.amount, allocation: rest };
    };
    const backDatedPayments = (await paymentsOf(backDated)).map(split);
    expect(backDatedPayments).toEqual((await paymentsOf(inOrder)).map(split));
    // In date order: 50.00 in advance to installment 1 (interest 3.00, principal 47.00); then 150.00 pays the rest
    // of installment 1 (principal 53.00, fee 2.00) and of installment 2 (interest 3.00, principal 92.00).
    expect(backDatedPayments.map((p) => p.allocation)).toMatchObject([
      { principal: '47.00', interest: '3.00', fee: '0.00' },
      { principal: '145.00', interest: '3.00', fee: '2.00' },
    ]);

    const installmentState = (rowsOfLoan: Awaited<ReturnType<typeof installmentsOf>>) =>
      rowsOfLoan.map(({ tenantId: _t, loanId: _l, ...rest }) => rest);
    expect(installmentState(await installmentsOf(backDated))).toEqual(
      installmentState(await installmentsOf(inOrder)),
    );
    expect(await accountBalances(h.db, tenantId, backDated.loanId)).toEqual(
      await accountBalances(h.db, tenantId, inOrder.loanId),
    );

    // The correction is append-only: the late payment's first posting is reversed line by line and re-posted.
    const journal = await journalOf(backDated);
    const lateRef = `payment/${lateFirst.paymentId}`;
    const original = journal.filter((l) => l.transactionRef === lateRef);
    const reversal = journal.filter((l) => l.transactionRef === `${lateRef}/reversal/1`);
    expect(reversal.map((l) => l.reversesEntryId)).toEqual(original.map((l) => l.id));
    expect(reversal.map((l) => [l.accountCode, l.debit, l.credit])).toEqual(
      original.map((l) => [l.accountCode, l.credit, l.debit]),
    );
    expect(linesOf(journal, `${lateRef}/revision/2`)).toEqual([
      'EXTERNAL_CLEARING D 150.00',
      'FEE_INCOME C 2.00',
      'INTEREST_INCOME C 3.00',
      'LOAN_PORTFOLIO C 145.00',
    ]);
  });

  it('closes the loan when every installment is met, refuses payments after (409), and books an overpayment', async () => {
    const closed = await fundedLoan();
    for (const effectiveDate of ['2025-02-01', '2025-03-01', '2025-04-01']) {
      await h.activities.recordExternalPayment(paymentInput(closed, { effectiveDate }));
      await expectTrialBalanceZero();
    }
    expect((await loanRow(closed)).status).toBe('CLOSED_OBLIGATIONS_MET');
    expect((await installmentsOf(closed)).map((i) => i.obligationsMetOnDate)).toEqual([
      '2025-02-01',
      '2025-03-01',
      '2025-04-01',
    ]);
    expect(await accountBalances(h.db, tenantId, closed.loanId)).toMatchObject({ LOAN_PORTFOLIO: '0.00' });
    await expectDomainError(
      h.activities.recordExternalPayment(paymentInput(closed, { effectiveDate: '2025-04-02' })),
      'error.msg.loan.invalid.state.transition',
    );

    // 320.00 on 2025-02-01 covers that day's payoff (principal 300 + installment 1's interest 3 and fee 2 = 305;
    // no interest or fee of the later installments, domain/lending/allocation/payoff.ts payoff rule): the loan is paid off. The
    // 15.00 above the payoff is allocated before anything is waived: it pays the later installments' interest
    // (3 + 3) and fees (2 + 2) in advance, and only the last 5.00 is an overpayment.
    const overpaid = await fundedLoan();
    const big = await h.activities.recordExternalPayment(paymentInput(overpaid, { amount: '320.00' }));
    expect(big.allocation).toEqual({
      principal: '300.00',
      interest: '9.00',
      fee: '6.00',
      penalty: '0.00',
      overpayment: '5.00',
    });
    expect((await loanRow(overpaid)).status).toBe('OVERPAID');
    expect(await accountBalances(h.db, tenantId, overpaid.loanId)).toMatchObject({
      LOAN_PORTFOLIO: '0.00',
      OVERPAYMENT_LIABILITY: '-5.00',
    });
    await expectTrialBalanceZero();
  });

  it('is not blocked by a PAYMENT_HOLD (record-external), but needs an active loan and a date after disbursement', async () => {
    const loan = await fundedLoan();
    await h.activities.applyRestriction({
      tenantId,
      customerId: loan.customerId,
      restrictionType: 'PAYMENT_HOLD',
      reason: 'Dispute',
    });
    const posted = await h.activities.recordExternalPayment(paymentInput(loan));
    expect(posted.created).toBe(true);

    const before = await expectDomainError(
      h.activities.recordExternalPayment(paymentInput(loan, { effectiveDate: '2024-12-31' })),
      'validation.msg.validation.errors.exist',
    );
    expect(before.errors.map((e) => e.parameterName)).toEqual(['effectiveDate']);
    await expectDomainError(
      h.activities.recordExternalPayment(paymentInput(loan, { effectiveDate: '2025-06-03' })),
      'validation.msg.validation.errors.exist',
    );
    await expectDomainError(
      h.activities.recordExternalPayment(paymentInput(loan, { currency: 'EUR' })),
      'validation.msg.payment.currency.mismatch',
    );
    await expectDomainError(
      h.activities.recordExternalPayment(paymentInput(loan, { rationale: 'card 4111 1111 1111 1111' })),
      'validation.msg.validation.errors.exist',
    );
    const unfunded = await approvedLoan(h, tenantId);
    await expectDomainError(
      h.activities.recordExternalPayment(paymentInput(unfunded)),
      'error.msg.loan.invalid.state.transition',
    );
    await expectDomainError(
      h.activities.recordExternalPayment(paymentInput({ ...loan, loanId: 9_999_999_999 })),
      'error.msg.resource.not.found',
    );
    expect(await paymentsOf(loan)).toHaveLength(1);
  });

  it('concurrent duplicates of one externalRecordRef make one payment; concurrent distinct payments all post', async () => {
    const loan = await fundedLoan();
    const input = paymentInput(loan, { amount: '60.00' });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.activities.recordExternalPayment(input)),
    );
    expect(new Set(results.map((r) => r.paymentId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await paymentsOf(loan)).toHaveLength(1);
    const journal = await journalOf(loan);
    expect(
      journal.filter((l) => l.transactionRef.startsWith(`payment/${results[0]!.paymentId}`)),
    ).toHaveLength(3);

    const distinct = await Promise.all(
      ['2025-02-10', '2025-01-15', '2025-03-10'].map((effectiveDate) =>
        h.activities.recordExternalPayment(paymentInput(loan, { amount: '40.00', effectiveDate })),
      ),
    );
    expect(distinct.every((r) => r.created)).toBe(true);
    await expectTrialBalanceZero();
    const stored = await paymentsOf(loan);
    expect(stored).toHaveLength(4);
    // Whatever order they committed in, the allocation is the date-order one: Σ principal repaid = portfolio drop.
    const principal = stored.reduce(
      (sum, p) => sum + cents((p.allocation as { principal: string }).principal),
      0n,
    );
    expect((await accountBalances(h.db, tenantId, loan.loanId)).LOAN_PORTFOLIO).toBe(
      usd(30_000n - principal),
    );
    const outbox = await rows((tx) =>
      tx
        .select({ n: count() })
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.eventType, 'payment.posted'),
            eq(outboxEvents.subjectId, String(results[0]!.paymentId)),
          ),
        ),
    );
    expect(outbox[0]!.n).toBe(1);
  });
});
