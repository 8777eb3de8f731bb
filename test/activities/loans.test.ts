/**
 * Loan operations (activities/lending/*) on the real database: each write run twice leaves one loan and one set of
 * installments (docs/conventions.md §11); approval freezes the Regulation Z disclosure (docs/design.md §5 APR) and is refused a second
 * time; an approval whose disclosure cannot be produced leaves the loan SUBMITTED and writes nothing; parties are
 * deduplicated by their natural key; `lockLoanForMoney` reads what the money operations need, inside the tenant.
 */
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateLoanInput } from '../../activities/lending/create-loan';
import type { CreateLoanProductInput } from '../../activities/lending/create-loan-product';
import { getLoan, lockLoanForMoney } from '../../db/queries/lending/loans';
import {
  customerHistory,
  loanInstallments,
  loanParties,
  loanProducts,
  loans,
  outboxEvents,
} from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, expectDomainError, newRequestKey, newTenant } from './helpers';

let h: ActivityHarness;
let tenantId: string;
let otherTenantId: string;
let borrowerId: number;
let secondCustomerId: number;
let productId: number;

const consumerConfig = {
  productClass: 'COVERED_CONSUMER',
  aprEnabled: true,
  aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
  aprTolerancePolicy: 'REGULAR',
  statementEnabled: true,
  statementLeadDays: 21,
};

function productInput(overrides: Partial<CreateLoanProductInput> = {}): CreateLoanProductInput {
  return {
    tenantId,
    name: 'Personal loan',
    shortName: 'PL1',
    currencyCode: 'USD',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    installmentAmountInMultiplesOf: null,
    principal: '5000.00',
    minPrincipal: '1000',
    maxPrincipal: '20000',
    numberOfRepayments: 12,
    minNumberOfRepayments: 6,
    maxNumberOfRepayments: 36,
    interestRatePerPeriod: '12',
    minInterestRatePerPeriod: null,
    maxInterestRatePerPeriod: null,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRateFrequencyType: 3,
    interestType: 0,
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
    lmsConfig: consumerConfig,
    ...overrides,
  };
}

function loanInput(overrides: Partial<CreateLoanInput> = {}): CreateLoanInput {
  return {
    tenantId,
    clientId: borrowerId,
    productId,
    loanType: 'individual',
    principal: '5000',
    loanTermFrequency: 12,
    loanTermFrequencyType: 2,
    numberOfRepayments: 12,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: '12',
    interestType: 0,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    expectedDisbursementDate: '2025-03-15',
    submittedOnDate: '2025-03-10',
    ...overrides,
  };
}

const approval = (loanId: number, overrides: Record<string, unknown> = {}) => ({
  tenantId,
  loanId,
  approvedOnDate: '2025-03-12',
  approvedLoanAmount: '5000',
  ...overrides,
});

function rowsOf<T>(fn: (tx: Tx) => Promise<T>, tenant = tenantId): Promise<T> {
  return withTenantTransaction(h.db, tenant, fn);
}

async function countOf(table: typeof loans | typeof loanInstallments | typeof loanParties, loanId: number) {
  const column = 'loanId' in table ? table.loanId : (table as typeof loans).id;
  const [row] = await rowsOf((tx) =>
    tx
      .select({ n: count() })
      .from(table)
      .where(and(eq(table.tenantId, tenantId), eq(column, loanId))),
  );
  return row?.n ?? 0;
}

function eventsOf(eventType: string, subjectId: number) {
  return rowsOf((tx) =>
    tx
      .select()
      .from(outboxEvents)
      .where(
        and(
          eq(outboxEvents.tenantId, tenantId),
          eq(outboxEvents.eventType, eventType),
          eq(outboxEvents.subjectId, String(subjectId)),
        ),
      ),
  );
}

function historyOf(customerId: number, action: string) {
  return rowsOf((tx) =>
    tx
      .select()
      .from(customerHistory)
      .where(and(eq(customerHistory.customerId, customerId), eq(customerHistory.action, action))),
  );
}

beforeAll(async () => {
  h = createHarness();
  tenantId = await newTenant(h, 'loan');
  otherTenantId = await newTenant(h, 'loan-other');
  borrowerId = (await h.activities.createCustomer({ tenantId, firstName: 'Ada', lastName: 'Borrower' }))
    .customerId;
  secondCustomerId = (await h.activities.createCustomer({ tenantId, firstName: 'Cy', lastName: 'Cosigner' }))
    .customerId;
  productId = (await h.activities.createLoanProduct(productInput())).productId;
});
afterAll(async () => h?.close());

describe('createLoan', () => {
  it('stores the loan SUBMITTED with its installments, history and outbox, once per request key', async () => {
    const requestKey = newRequestKey();
    const input = loanInput({ requestKey, externalId: `ext-${requestKey.slice(-6)}` });
    const first = await h.activities.createLoan(input);
    const second = await h.activities.createLoan(input);
    expect(second).toEqual(first);
    expect(first).toEqual({
      loanId: expect.any(Number),
      accountNo: String(first.loanId).padStart(9, '0'),
      clientId: borrowerId,
      status: 'SUBMITTED',
    });
    expect(await countOf(loans, first.loanId)).toBe(1);
    expect(await countOf(loanInstallments, first.loanId)).toBe(12);
    const [loan] = await rowsOf((tx) => tx.select().from(loans).where(eq(loans.id, first.loanId)));
    expect(loan).toMatchObject({
      status: 'SUBMITTED',
      principal: '5000.000000',
      approvedPrincipal: null,
      currencyCode: 'USD',
      productId,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      submittedOnDate: '2025-03-10',
      expectedDisbursementDate: '2025-03-15',
      aprDisclosure: null,
    });
    expect(loan?.terms).toMatchObject({
      version: 1,
      numberOfRepayments: 12,
      disbursementFeeChargesDue: '0.00',
    });
    const submitted = await historyOf(borrowerId, 'LOAN_SUBMITTED');
    expect(submitted.filter((r) => r.detail.loanId === first.loanId)).toHaveLength(1);
    const events = await eventsOf('loan.submitted', first.loanId);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({
      loanId: first.loanId,
      loanRef: first.accountNo,
      status: 'SUBMITTED',
    });
  });

  it('lets one of two concurrent creations with one request key store the loan', async () => {
    const requestKey = newRequestKey();
    const [a, b] = await Promise.all([
      h.activities.createLoan(loanInput({ requestKey })),
      h.activities.createLoan(loanInput({ requestKey })),
    ]);
    expect(a.loanId).toBe(b.loanId);
    const [row] = await rowsOf((tx) =>
      tx
        .select({ n: count() })
        .from(loans)
        .where(and(eq(loans.tenantId, tenantId), eq(loans.requestKey, requestKey))),
    );
    expect(row?.n).toBe(1);
    expect(await countOf(loanInstallments, a.loanId)).toBe(12);
  });

  it('refuses another loan’s externalId (409) and an externalId that looks like an account number (400)', async () => {
    await h.activities.createLoan(loanInput({ externalId: 'dup-ext-1' }));
    await expectDomainError(
      h.activities.createLoan(loanInput({ externalId: 'dup-ext-1' })),
      'error.msg.loan.external.id.conflict',
    );
    const err = await expectDomainError(
      h.activities.createLoan(loanInput({ externalId: '4111 1111 1111 1111' })),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors).toEqual([expect.objectContaining({ parameterName: 'externalId', value: null })]);
  });

  it('refuses a client or product that is not the tenant’s, naming the field', async () => {
    const foreign = await h.activities.createCustomer({
      tenantId: otherTenantId,
      firstName: 'X',
      lastName: 'Y',
    });
    const err = await expectDomainError(
      h.activities.createLoan(loanInput({ clientId: foreign.customerId, productId: 987_654 })),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => e.parameterName)).toEqual(['clientId', 'productId']);
  });

  it('previews without writing anything', async () => {
    const [before] = await rowsOf((tx) => tx.select({ n: count() }).from(loans));
    const preview = await h.activities.calculateLoanSchedule(loanInput());
    expect(preview.periods).toHaveLength(13);
    expect(preview.aprDisclosure?.annualPercentageRate).toBe('12.00');
    const [after] = await rowsOf((tx) => tx.select({ n: count() }).from(loans));
    expect(after?.n).toBe(before?.n);
  });
});

describe('approveLoan', () => {
  it('freezes the disclosure and the approved principal; a second approval is a 409', async () => {
    const { loanId } = await h.activities.createLoan(loanInput());
    h.now.value = new Date('2025-03-12T15:30:00.000Z');
    try {
      const result = await h.activities.approveLoan({ ...approval(loanId), actor: 'officer-7', note: 'ok' });
      expect(result).toMatchObject({
        loanId,
        status: 'APPROVED',
        approvedOnDate: '2025-03-12',
        approvedPrincipal: '5000.00',
        expectedDisbursementDate: '2025-03-15',
      });
      expect(result.aprDisclosure).toMatchObject({
        annualPercentageRate: '12.00',
        amountFinanced: '5000.00',
        finalizedAt: '2025-03-12T15:30:00.000Z',
      });
      await expectDomainError(
        h.activities.approveLoan(approval(loanId)),
        'error.msg.loan.invalid.state.transition',
      );
      const [loan] = await rowsOf((tx) => tx.select().from(loans).where(eq(loans.id, loanId)));
      expect(loan).toMatchObject({
        status: 'APPROVED',
        approvedPrincipal: '5000.000000',
        approvedOnDate: '2025-03-12',
        approvedBy: 'officer-7',
      });
      expect(loan?.aprDisclosure).toEqual(result.aprDisclosure);
      expect(await eventsOf('loan.approved', loanId)).toHaveLength(1);
      const approved = await historyOf(borrowerId, 'LOAN_APPROVED');
      expect(approved.filter((r) => r.detail.loanId === loanId).map((r) => r.detail.note)).toEqual(['ok']);
    } finally {
      h.now.value = null;
    }
  });

  it('keeps the frozen disclosure when the product changes afterwards', async () => {
    const ownProduct = (await h.activities.createLoanProduct(productInput({ name: 'Mutable' }))).productId;
    const { loanId } = await h.activities.createLoan(loanInput({ productId: ownProduct }));
    const approved = await h.activities.approveLoan(approval(loanId));
    await rowsOf((tx) =>
      tx
        .update(loanProducts)
        .set({
          interestRatePerPeriod: '29',
          lmsConfig: { ...consumerConfig, aprTolerancePolicy: 'IRREGULAR' },
          configurationStatus: 'MISSING_APR_SETTINGS',
        })
        .where(eq(loanProducts.id, ownProduct)),
    );
    const read = await getLoan(
      h.db,
      tenantId,
      loanId,
      { repaymentSchedule: false, transactions: false },
      new Date(),
    );
    expect(read?.aprDisclosure).toEqual(approved.aprDisclosure);
    expect(read?.terms.interestRatePerPeriod).toBe(12);
  });

  it('approves less than the principal and generates the schedule again with it', async () => {
    const { loanId } = await h.activities.createLoan(loanInput());
    const result = await h.activities.approveLoan(approval(loanId, { approvedLoanAmount: '4000.00' }));
    expect(result.approvedPrincipal).toBe('4000.00');
    expect(result.aprDisclosure?.amountFinanced).toBe('4000.00');
    const installments = await rowsOf((tx) =>
      tx.select().from(loanInstallments).where(eq(loanInstallments.loanId, loanId)),
    );
    expect(installments).toHaveLength(12);
    const principal = installments.reduce((sum, i) => sum + Math.round(Number(i.principalDue) * 100), 0);
    expect(principal).toBe(400_000);
    const locked = await rowsOf((tx) => lockLoanForMoney(tx, tenantId, loanId));
    expect(locked).toMatchObject({ principal: '5000.00', approvedPrincipal: '4000.00', status: 'APPROVED' });
  });

  it('fails with 409 and leaves the loan SUBMITTED when the product is not CONFIGURED', async () => {
    const unconfigured = (
      await h.activities.createLoanProduct(productInput({ lmsConfig: { productClass: 'COVERED_CONSUMER' } }))
    ).productId;
    const { loanId } = await h.activities.createLoan(loanInput({ productId: unconfigured }));
    const before = await rowsOf((tx) =>
      tx.select().from(loanInstallments).where(eq(loanInstallments.loanId, loanId)),
    );
    const err = await expectDomainError(
      h.activities.approveLoan(approval(loanId, { approvedLoanAmount: '3000' })),
      'error.msg.loan.apr.disclosure.unavailable',
    );
    expect(err.message).toContain('PRODUCT_NOT_CONFIGURED');
    const [loan] = await rowsOf((tx) => tx.select().from(loans).where(eq(loans.id, loanId)));
    expect(loan).toMatchObject({ status: 'SUBMITTED', approvedPrincipal: null, aprDisclosure: null });
    const after = await rowsOf((tx) =>
      tx.select().from(loanInstallments).where(eq(loanInstallments.loanId, loanId)),
    );
    expect(after).toEqual(before);
    expect(await eventsOf('loan.approved', loanId)).toHaveLength(0);
  });

  it('fails with 409 when the prepaid finance charges swallow the principal', async () => {
    const fee = await h.activities.createCharge({
      tenantId,
      name: 'Whole-loan fee',
      currencyCode: 'USD',
      amount: '5000',
      chargeAppliesTo: 1,
      chargeTimeType: 1,
      chargeCalculationType: 1,
      penalty: false,
      active: true,
    });
    const { loanId } = await h.activities.createLoan(loanInput({ charges: [{ chargeId: fee.chargeId }] }));
    const err = await expectDomainError(
      h.activities.approveLoan(approval(loanId)),
      'error.msg.loan.apr.disclosure.unavailable',
    );
    expect(err.message).toContain('AMOUNT_FINANCED_NOT_POSITIVE');
    const [loan] = await rowsOf((tx) => tx.select().from(loans).where(eq(loans.id, loanId)));
    expect(loan?.status).toBe('SUBMITTED');
  });

  it('approves a loan of a product without APR, without a disclosure', async () => {
    const commercial = (
      await h.activities.createLoanProduct(productInput({ lmsConfig: { productClass: 'COMMERCIAL' } }))
    ).productId;
    const { loanId } = await h.activities.createLoan(loanInput({ productId: commercial }));
    const result = await h.activities.approveLoan(approval(loanId));
    expect(result.aprDisclosure).toBeNull();
    const preview = await h.activities.calculateLoanSchedule(loanInput({ productId: commercial }));
    expect(preview).not.toHaveProperty('aprDisclosure');
  });

  it('answers 404 for another tenant’s loan', async () => {
    const { loanId } = await h.activities.createLoan(loanInput());
    await expectDomainError(
      h.activities.approveLoan({ ...approval(loanId), tenantId: otherTenantId }),
      'error.msg.resource.not.found',
    );
  });
});

describe('lockLoanForMoney', () => {
  it('returns what money operations need and 404 outside the tenant', async () => {
    const { loanId, accountNo } = await h.activities.createLoan(loanInput());
    const locked = await rowsOf((tx) => lockLoanForMoney(tx, tenantId, loanId));
    expect(locked).toEqual({
      id: loanId,
      accountNo,
      clientId: borrowerId,
      productId,
      status: 'SUBMITTED',
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      principal: '5000.00',
      approvedPrincipal: null,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      paymentAllocation: [expect.objectContaining({ transactionType: 'DEFAULT' })],
      expectedDisbursementDate: '2025-03-15',
      approvedOnDate: null,
      disbursedOnDate: null,
      disbursementChargesDue: '0.00',
      lastClosedBusinessDate: null,
    });
    await expectDomainError(
      rowsOf((tx) => lockLoanForMoney(tx, otherTenantId, loanId), otherTenantId),
      'error.msg.resource.not.found',
    );
  });
});

describe('addLoanParty', () => {
  it('adds a party once per customer and role, and refuses the borrower and strangers', async () => {
    const { loanId } = await h.activities.createLoan(loanInput());
    const first = await h.activities.addLoanParty({
      tenantId,
      loanId,
      customerId: secondCustomerId,
      role: 'CO_BORROWER',
    });
    const again = await h.activities.addLoanParty({
      tenantId,
      loanId,
      customerId: secondCustomerId,
      role: 'CO_BORROWER',
    });
    expect(first.created).toBe(true);
    expect(again).toEqual({ partyId: first.partyId, created: false });
    const guarantor = await h.activities.addLoanParty({
      tenantId,
      loanId,
      customerId: secondCustomerId,
      role: 'GUARANTOR',
    });
    expect(guarantor.partyId).not.toBe(first.partyId);
    expect(await countOf(loanParties, loanId)).toBe(2);
    expect(await eventsOf('loan.party.added', loanId)).toHaveLength(2);

    const borrower = await expectDomainError(
      h.activities.addLoanParty({ tenantId, loanId, customerId: borrowerId, role: 'AUTHORIZED_PARTY' }),
      'validation.msg.validation.errors.exist',
    );
    expect(borrower.errors.map((e) => e.parameterName)).toEqual(['customerId']);
    const stranger = await expectDomainError(
      h.activities.addLoanParty({ tenantId, loanId, customerId: 987_654_321, role: 'AUTHORIZED_PARTY' }),
      'validation.msg.validation.errors.exist',
    );
    expect(stranger.errors.map((e) => e.parameterName)).toEqual(['customerId']);
    await expectDomainError(
      h.activities.addLoanParty({
        tenantId,
        loanId: 987_654_321,
        customerId: secondCustomerId,
        role: 'GUARANTOR',
      }),
      'error.msg.resource.not.found',
    );
  });
});
