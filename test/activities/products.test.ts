/**
 * Operations of the product catalogue and documents (activities/lending/*): each write run twice under one
 * request key leaves one row (docs/conventions.md §11), amounts are stored exactly, the configuration-status rules of
 * domain/lending/products.ts hold on stored products, and attached charges are checked inside the tenant.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateLoanProductInput } from '../../activities/lending/create-loan-product';
import { charges, documentHistory, documents, loanProductCharges, loanProducts } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { defaultPaymentAllocation } from '../../domain/lending/products';
import { type ActivityHarness, createHarness, expectDomainError, newRequestKey, newTenant } from './helpers';

let h: ActivityHarness;
let tenantId: string;

beforeAll(async () => {
  h = createHarness();
  tenantId = await newTenant(h, 'prod');
});
afterAll(async () => h?.close());

const flatFee = (overrides: Partial<Parameters<ActivityHarness['activities']['createCharge']>[0]> = {}) => ({
  tenantId,
  name: 'Origination fee',
  currencyCode: 'USD',
  amount: '25.50',
  chargeAppliesTo: 1,
  chargeTimeType: 1,
  chargeCalculationType: 1,
  penalty: false,
  active: true,
  ...overrides,
});

function product(overrides: Partial<CreateLoanProductInput> = {}): CreateLoanProductInput {
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
    interestRatePerPeriod: '12.5',
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
    transactionProcessingStrategyCode: 'mifos-standard-strategy',
    paymentAllocation: null,
    charges: [],
    lmsConfig: {
      productClass: 'COVERED_CONSUMER',
      aprEnabled: true,
      aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
      aprTolerancePolicy: 'REGULAR',
      statementEnabled: true,
      statementLeadDays: 21,
    },
    ...overrides,
  };
}

function rowsOf<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTenantTransaction(h.db, tenantId, fn);
}

describe('createCharge', () => {
  it('defines a charge once per request key and stores the amount exactly', async () => {
    const requestKey = newRequestKey();
    const first = await h.activities.createCharge({ ...flatFee(), requestKey });
    const second = await h.activities.createCharge({ ...flatFee(), requestKey });
    expect(second.chargeId).toBe(first.chargeId);
    const rows = await rowsOf((tx) => tx.select().from(charges).where(eq(charges.requestKey, requestKey)));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: first.chargeId,
      tenantId,
      name: 'Origination fee',
      currencyCode: 'USD',
      amount: '25.500000',
      chargeAppliesTo: 1,
      chargeTimeType: 1,
      chargeCalculationType: 1,
      penalty: false,
      active: true,
    });
  });

  it('creates a second charge for a second request key', async () => {
    const a = await h.activities.createCharge({ ...flatFee(), requestKey: newRequestKey() });
    const b = await h.activities.createCharge({ ...flatFee(), requestKey: newRequestKey() });
    expect(b.chargeId).not.toBe(a.chargeId);
  });

  it('keeps a percentage with six fraction digits exactly', async () => {
    const { chargeId } = await h.activities.createCharge(
      flatFee({ amount: '1.234567', chargeTimeType: 8, chargeCalculationType: 2 }),
    );
    const [row] = await rowsOf((tx) => tx.select().from(charges).where(eq(charges.id, chargeId)));
    expect(row?.amount).toBe('1.234567');
  });

  it('accepts a percentage of interest at disbursement, as Fineract does', async () => {
    const { chargeId } = await h.activities.createCharge(flatFee({ amount: '2', chargeCalculationType: 4 }));
    expect(chargeId).toBeGreaterThan(0);
  });

  it('rejects what Fineract rejects, naming each field, and writes nothing', async () => {
    const requestKey = newRequestKey();
    const err = await expectDomainError(
      h.activities.createCharge({
        ...flatFee({ penalty: true, currencyCode: 'JPY', amount: '100.5', chargeCalculationType: 5 }),
        requestKey,
      }),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => e.parameterName).sort()).toEqual(['chargeCalculationType', 'penalty']);
    const jpy = await expectDomainError(
      h.activities.createCharge(flatFee({ currencyCode: 'JPY', amount: '100.5' })),
      'validation.msg.validation.errors.exist',
    );
    expect(jpy.errors.map((e) => e.parameterName)).toEqual(['amount']);
    const zero = await expectDomainError(
      h.activities.createCharge(flatFee({ amount: '0.00' })),
      'validation.msg.validation.errors.exist',
    );
    expect(zero.errors[0]?.developerMessage).toMatch(/greater than zero/);
    const percent = await expectDomainError(
      h.activities.createCharge(flatFee({ amount: '1.1234567', chargeCalculationType: 2 })),
      'validation.msg.validation.errors.exist',
    );
    expect(percent.errors.map((e) => e.parameterName)).toEqual(['amount']);
    const currency = await expectDomainError(
      h.activities.createCharge(flatFee({ currencyCode: 'ABC' })),
      'validation.msg.validation.errors.exist',
    );
    expect(currency.errors.map((e) => e.parameterName)).toEqual(['currencyCode']);
    const rows = await rowsOf((tx) => tx.select().from(charges).where(eq(charges.requestKey, requestKey)));
    expect(rows).toHaveLength(0);
  });
});

describe('createLoanProduct', () => {
  it('creates the product and its charge links once per request key', async () => {
    const fee = await h.activities.createCharge(flatFee());
    const requestKey = newRequestKey();
    const input = product({ charges: [{ id: fee.chargeId }], requestKey });
    const first = await h.activities.createLoanProduct(input);
    const second = await h.activities.createLoanProduct(input);
    expect(second).toEqual(first);
    expect(first.configurationStatus).toBe('CONFIGURED');
    const rows = await rowsOf((tx) =>
      tx.select().from(loanProducts).where(eq(loanProducts.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      principal: '5000.000000',
      minPrincipal: '1000.000000',
      maxPrincipal: '20000.000000',
      interestRatePerPeriod: '12.50000000',
      configurationStatus: 'CONFIGURED',
      status: 'loanProduct.active',
      paymentAllocation: null,
      lmsConfig: {
        productClass: 'COVERED_CONSUMER',
        aprEnabled: true,
        aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
        aprTolerancePolicy: 'REGULAR',
        statementEnabled: true,
        statementLeadDays: 21,
      },
    });
    const links = await rowsOf((tx) =>
      tx.select().from(loanProductCharges).where(eq(loanProductCharges.productId, first.productId)),
    );
    expect(links).toEqual([{ tenantId, productId: first.productId, chargeId: fee.chargeId }]);
  });

  it('leaves one product when two calls with one request key run at once', async () => {
    const fee = await h.activities.createCharge(flatFee());
    const requestKey = newRequestKey();
    const input = product({ charges: [{ id: fee.chargeId }], requestKey });
    const [a, b] = await Promise.all([
      h.activities.createLoanProduct(input),
      h.activities.createLoanProduct(input),
    ]);
    expect(b.productId).toBe(a.productId);
    const rows = await rowsOf((tx) =>
      tx.select().from(loanProducts).where(eq(loanProducts.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    const links = await rowsOf((tx) =>
      tx.select().from(loanProductCharges).where(eq(loanProductCharges.productId, a.productId)),
    );
    expect(links).toHaveLength(1);
  });

  it('stores docs/design.md §5 default allocation order for an advanced-strategy product without rules', async () => {
    const { productId } = await h.activities.createLoanProduct(
      product({ transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy' }),
    );
    const [row] = await rowsOf((tx) => tx.select().from(loanProducts).where(eq(loanProducts.id, productId)));
    const order = (row?.paymentAllocation as typeof defaultPaymentAllocation | undefined)?.[0]
      ?.paymentAllocationOrder;
    expect(order?.map((o) => o.paymentAllocationRule)).toEqual([
      'PAST_DUE_INTEREST',
      'PAST_DUE_PRINCIPAL',
      'PAST_DUE_FEE',
      'PAST_DUE_PENALTY',
      'DUE_INTEREST',
      'DUE_PRINCIPAL',
      'DUE_FEE',
      'DUE_PENALTY',
      'IN_ADVANCE_INTEREST',
      'IN_ADVANCE_PRINCIPAL',
      'IN_ADVANCE_FEE',
      'IN_ADVANCE_PENALTY',
    ]);
    expect(row?.paymentAllocation).toEqual(defaultPaymentAllocation);
  });

  describe('configurationStatus', () => {
    const statusOf = async (overrides: Partial<CreateLoanProductInput>) =>
      (await h.activities.createLoanProduct(product(overrides))).configurationStatus;
    const consumer = product().lmsConfig;

    it('is CONFIGURED for a covered consumer product with APR settings and a fitting lead time', async () => {
      expect(await statusOf({})).toBe('CONFIGURED');
      expect(await statusOf({ lmsConfig: { ...consumer, statementLeadDays: null } })).toBe('CONFIGURED');
    });

    it('names missing APR settings of a covered consumer product', async () => {
      expect(await statusOf({ lmsConfig: { ...consumer, aprEnabled: false } })).toBe('MISSING_APR_SETTINGS');
      expect(await statusOf({ lmsConfig: { ...consumer, aprTolerancePolicy: null } })).toBe(
        'MISSING_APR_SETTINGS',
      );
      expect(await statusOf({ lmsConfig: { ...consumer, aprRounding: null } })).toBe('MISSING_APR_SETTINGS');
    });

    it('does not require the APR of a commercial product, but needs its settings when enabled', async () => {
      expect(await statusOf({ lmsConfig: { productClass: 'COMMERCIAL' } })).toBe('CONFIGURED');
      expect(await statusOf({ lmsConfig: { productClass: 'COMMERCIAL', aprEnabled: true } })).toBe(
        'MISSING_APR_SETTINGS',
      );
    });

    it('names a missing product class', async () => {
      expect(await statusOf({ lmsConfig: null })).toBe('MISSING_PRODUCT_CLASS');
      expect(await statusOf({ lmsConfig: { ...consumer, productClass: null } })).toBe(
        'MISSING_PRODUCT_CLASS',
      );
    });

    it('names missing statement settings when the default lead time is not shorter than the period', async () => {
      const weekly = { repaymentFrequencyType: 1, repaymentEvery: 2 };
      expect(await statusOf({ ...weekly, lmsConfig: { ...consumer, statementLeadDays: null } })).toBe(
        'MISSING_STATEMENT_SETTINGS',
      );
      expect(
        await statusOf({
          ...weekly,
          lmsConfig: { ...consumer, statementEnabled: false, statementLeadDays: null },
        }),
      ).toBe('CONFIGURED');
    });

    it('rejects an explicit lead time that is not shorter than the repayment period', async () => {
      const err = await expectDomainError(
        h.activities.createLoanProduct(product({ lmsConfig: { ...consumer, statementLeadDays: 28 } })),
        'validation.msg.validation.errors.exist',
      );
      expect(err.errors.map((e) => e.parameterName)).toEqual(['lmsConfig.statementLeadDays']);
      expect(await statusOf({ lmsConfig: { ...consumer, statementLeadDays: 27 } })).toBe('CONFIGURED');
    });
  });

  it('checks attached charges inside the tenant: unknown, other tenant, inactive, other currency, twice', async () => {
    const otherTenant = await newTenant(h, 'prod-other');
    const foreign = await h.activities.createCharge({ ...flatFee(), tenantId: otherTenant });
    const inactive = await h.activities.createCharge(flatFee({ active: false }));
    const euro = await h.activities.createCharge(flatFee({ currencyCode: 'EUR' }));
    const good = await h.activities.createCharge(flatFee());
    const requestKey = newRequestKey();
    const err = await expectDomainError(
      h.activities.createLoanProduct(
        product({
          requestKey,
          charges: [
            { id: 987_654_321 },
            { id: foreign.chargeId },
            { id: inactive.chargeId },
            { id: euro.chargeId },
            { id: good.chargeId },
            { id: good.chargeId },
          ],
        }),
      ),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => [e.parameterName, e.userMessageGlobalisationCode])).toEqual([
      ['charges[0].id', 'validation.msg.loanproduct.charges.not.found'],
      ['charges[1].id', 'validation.msg.loanproduct.charges.not.found'],
      ['charges[2].id', 'validation.msg.loanproduct.charges.inactive'],
      ['charges[3].id', 'validation.msg.loanproduct.charges.currency.mismatch'],
      ['charges[5].id', 'validation.msg.loanproduct.charges.duplicate'],
    ]);
    const rows = await rowsOf((tx) =>
      tx.select().from(loanProducts).where(eq(loanProducts.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(0);
  });

  it('rejects bounds out of order and digits that are not the currency minor unit', async () => {
    const err = await expectDomainError(
      h.activities.createLoanProduct(
        product({
          digitsAfterDecimal: 3,
          minPrincipal: '30000',
          minNumberOfRepayments: 13,
          graceOnInterestPayment: 12,
        }),
      ),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors.map((e) => e.parameterName)).toEqual([
      'digitsAfterDecimal',
      'maxPrincipal',
      'numberOfRepayments',
      'graceOnInterestPayment',
    ]);
  });
});

describe('documents', () => {
  it('records a document and its DOCUMENT_CREATED item once per request key', async () => {
    const requestKey = newRequestKey();
    const input = {
      tenantId,
      title: 'Loan agreement',
      documentType: 'LOAN_AGREEMENT',
      storageRef: 's3://bucket/agreement.pdf',
      actor: 'clerk-1',
      correlationId: 'req-1',
      requestKey,
    };
    const first = await h.activities.createDocument(input);
    const second = await h.activities.createDocument({ ...input, correlationId: 'req-2' });
    expect(second).toEqual(first);
    const docs = await rowsOf((tx) =>
      tx.select().from(documents).where(eq(documents.requestKey, requestKey)),
    );
    expect(docs).toHaveLength(1);
    const history = await rowsOf((tx) =>
      tx.select().from(documentHistory).where(eq(documentHistory.documentId, first.documentId)),
    );
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      action: 'DOCUMENT_CREATED',
      actorUsername: 'clerk-1',
      correlationId: 'req-1',
    });
  });

  it('rejects a loan or customer that is not the tenant’s', async () => {
    const loan = await expectDomainError(
      h.activities.createDocument({ tenantId, title: 'x', documentType: 'LETTER', loanId: 424242 }),
      'validation.msg.validation.errors.exist',
    );
    expect(loan.errors.map((e) => e.parameterName)).toEqual(['loanId']);
    const customer = await expectDomainError(
      h.activities.createDocument({ tenantId, title: 'x', documentType: 'LETTER', customerId: 424242 }),
      'validation.msg.validation.errors.exist',
    );
    expect(customer.errors.map((e) => e.parameterName)).toEqual(['customerId']);
  });

  it('changes a title once per request key, and not at all when it is unchanged', async () => {
    const { documentId } = await h.activities.createDocument({
      tenantId,
      title: 'Old',
      documentType: 'LETTER',
    });
    const requestKey = newRequestKey();
    const change = { tenantId, documentId, title: 'New', reason: 'Typo', actor: 'agent-2', requestKey };
    expect(await h.activities.changeDocumentTitle(change)).toEqual({ documentId, title: 'New' });
    // A later change, then a retry of the first: the retry must not re-apply "New".
    await h.activities.changeDocumentTitle({ ...change, title: 'Newer', requestKey: newRequestKey() });
    expect(await h.activities.changeDocumentTitle(change)).toEqual({ documentId, title: 'New' });
    await h.activities.changeDocumentTitle({ ...change, title: 'Newer', requestKey: newRequestKey() });
    const history = await rowsOf((tx) =>
      tx
        .select()
        .from(documentHistory)
        .where(and(eq(documentHistory.documentId, documentId)))
        .orderBy(documentHistory.id),
    );
    expect(history.map((r) => [r.action, r.detail.before ?? null, r.detail.after ?? null])).toEqual([
      ['DOCUMENT_CREATED', null, null],
      ['TITLE_CHANGED', 'Old', 'New'],
      ['TITLE_CHANGED', 'New', 'Newer'],
    ]);
    expect(history[1]).toMatchObject({ actorUsername: 'agent-2', detail: { reason: 'Typo' } });
    const [doc] = await rowsOf((tx) => tx.select().from(documents).where(eq(documents.id, documentId)));
    expect(doc?.title).toBe('Newer');
  });

  it('answers 404 for another tenant’s document', async () => {
    const { documentId } = await h.activities.createDocument({
      tenantId,
      title: 'Mine',
      documentType: 'LETTER',
    });
    const other = await newTenant(h, 'doc-other');
    await expectDomainError(
      h.activities.changeDocumentTitle({ tenantId: other, documentId, title: 'Theirs', reason: 'x' }),
      'error.msg.resource.not.found',
    );
  });
});
