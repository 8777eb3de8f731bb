/**
 * A loan's money through the app on the real database (api/routes/lending/loan-fundings.ts, api/routes/payments/loan-payments.ts, api/routes/lending/journal-entries.ts):
 * every route's success shape, Shape A codes, cross-tenant 404, permissions, bad inputs (too many decimals for
 * the currency, currency mismatch, identifier-looking externalRecordRef or rationale, payment before
 * disbursement), Idempotency-Key and externalRecordRef replays, and summary figures computed by hand for a small
 * loan. Loans come from test/activities/ledger-fixtures.ts (300.00 USD, installments of 100.00 principal, 3.00
 * flat interest and a 2.00 fee due 2025-02-01, 2025-03-01, 2025-04-01).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';
import { approvedLoan, type LoanFixture } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA, newKey } from './helpers';

const lending = { scopes: ['lending:read', 'lending:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('money'), lending);
  other = await credentialFor(ctx, uniqueTenant('money-other'), lending);
});
afterAll(async () => ctx?.close());

const ref = (prefix: string) => `${prefix}-${randomBytes(9).toString('base64url')}`;

const fundingBody = (overrides: Record<string, unknown> = {}) => ({
  amount: '300.00',
  currency: 'USD',
  fundingType: 'DISBURSEMENT',
  recipientType: 'BORROWER',
  recipientRef: 'borrower-primary',
  externalRecordRef: ref('fund'),
  reason: 'Disbursed by the originating bank',
  ...overrides,
});

const paymentBody = (overrides: Record<string, unknown> = {}) => ({
  amount: '105.00',
  currency: 'USD',
  effectiveDate: '2025-02-01',
  externalRecordRef: ref('pay'),
  source: 'IMPORT',
  rationale: 'Boarded history',
  ...overrides,
});

const newLoan = (options: Parameters<typeof approvedLoan>[2] = {}) => approvedLoan(ctx, cred.tenant, options);

async function fundedLoan(options: Parameters<typeof approvedLoan>[2] = {}): Promise<LoanFixture> {
  const loan = await newLoan(options);
  const res = await call(
    ctx,
    cred,
    'POST',
    `/v1/loans/${loan.loanId}/fundings/record-external`,
    fundingBody(),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return loan;
}

describe('POST /v1/loans/{loanId}/fundings/record-external', () => {
  it('records the disbursement → 201; replays by Idempotency-Key and by externalRecordRef; other content → 409', async () => {
    const loan = await newLoan();
    const path = `/v1/loans/${loan.loanId}/fundings/record-external`;
    const body = fundingBody();
    const key = newKey();
    const first = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({
      resourceId: expect.any(Number),
      fundingId: first.body.resourceId,
      loanId: loan.loanId,
      status: 'RECORDED_EXTERNAL',
      amount: '300.00',
      currency: 'USD',
      fundingDate: '2025-01-01',
    });

    const replay = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(replay.body).toEqual(first.body);

    const sameRef = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': newKey() });
    expect(sameRef.status).toBe(201);
    expect(sameRef.headers.get('x-served-from-cache')).toBeNull();
    expect(sameRef.body).toEqual(first.body);

    expectShapeA(
      await call(ctx, cred, 'POST', path, { ...body, reason: 'Something else' }),
      409,
      'error.msg.external.record.ref.conflict',
    );
  });

  it('refuses over-funding, a DISBURSEMENT_HOLD, another currency, too many decimals and identifier-looking text', async () => {
    const loan = await newLoan();
    const path = `/v1/loans/${loan.loanId}/fundings/record-external`;
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ amount: '300.01' })),
      409,
      'error.msg.loan.funding.exceeds.approved.principal',
    );
    const mismatch = expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ currency: 'EUR' })),
      400,
      'validation.msg.payment.currency.mismatch',
      ['currency'],
    );
    expect(mismatch.errors[0]!.value).toBe('EUR');
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ amount: '300.001' })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ amount: 300 })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ amount: '0.00' })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ fundingType: 'REFUND' })),
      400,
      'validation.msg.validation.errors.exist',
      ['fundingType'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ fundingDate: '2025-02-30' })),
      400,
      'validation.msg.validation.errors.exist',
      ['fundingDate'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ accountNumber: '12345678' })),
      400,
      'validation.msg.validation.errors.exist',
      ['accountNumber'],
    );
    const ssn = '078-05-1120';
    const leaked = expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ externalRecordRef: `boarding ${ssn}` })),
      400,
      'validation.msg.validation.errors.exist',
      ['externalRecordRef'],
    );
    expect(leaked.errors[0]!.value).toBeNull();
    expect(JSON.stringify(leaked)).not.toContain(ssn);
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ reason: 'to acct 000123456789' })),
      400,
      'validation.msg.validation.errors.exist',
      ['reason'],
    );

    const hold = await call(ctx, cred, 'POST', `/v1/customers/${loan.customerId}/restrictions`, {
      restrictionType: 'DISBURSEMENT_HOLD',
      reason: 'Fraud review',
    });
    expect(hold.status, JSON.stringify(hold.body)).toBe(201);
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody()),
      409,
      'error.msg.loan.disbursement.hold.active',
    );
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/fundings`);
    expect(list.body).toEqual({ items: [] });
  });

  it('uses the currency minor unit: a JPY loan takes no decimals', async () => {
    const loan = await newLoan({ currency: 'JPY', principal: '30000', installmentFee: null });
    const path = `/v1/loans/${loan.loanId}/fundings/record-external`;
    expectShapeA(
      await call(ctx, cred, 'POST', path, fundingBody({ currency: 'JPY', amount: '30000.5' })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    const ok = await call(ctx, cred, 'POST', path, fundingBody({ currency: 'JPY', amount: '30000' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.amount).toBe('30000');
  });

  it('refuses a submitted loan (409) and answers 404 for another tenant or no loan', async () => {
    const submitted = await newLoan({ status: 'SUBMITTED' });
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${submitted.loanId}/fundings/record-external`, fundingBody()),
      409,
      'error.msg.loan.invalid.state.transition',
    );
    const loan = await newLoan();
    expectShapeA(
      await call(ctx, other, 'POST', `/v1/loans/${loan.loanId}/fundings/record-external`, fundingBody()),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/loans/999999999/fundings/record-external', fundingBody()),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/loans/abc/fundings/record-external', fundingBody()),
      400,
      'validation.msg.validation.errors.exist',
      ['loanId'],
    );
  });
});

describe('GET /v1/loans/{loanId}/fundings', () => {
  it('lists tranches newest first with limit and offset; bad paging → 400; another tenant → 404', async () => {
    const loan = await newLoan();
    const path = `/v1/loans/${loan.loanId}/fundings/record-external`;
    for (const [amount, fundingDate] of [
      ['100.00', '2025-01-01'],
      ['150.00', '2025-01-20'],
      ['50.00', '2025-01-10'],
    ]) {
      expect((await call(ctx, cred, 'POST', path, fundingBody({ amount, fundingDate }))).status).toBe(201);
    }
    const all = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/fundings`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((f: { fundingDate: string }) => f.fundingDate)).toEqual([
      '2025-01-20',
      '2025-01-10',
      '2025-01-01',
    ]);
    expect(all.body.items[0]).toEqual({
      fundingId: expect.any(Number),
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      status: 'RECORDED_EXTERNAL',
      amount: '150.00',
      currency: 'USD',
      fundingDate: '2025-01-20',
      externalRecordRef: expect.any(String),
      reason: 'Disbursed by the originating bank',
      createdAt: expect.stringMatching(/Z$/),
    });
    const page = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/fundings?limit=1&offset=1`);
    expect(page.body.items.map((f: { amount: string }) => f.amount)).toEqual(['50.00']);
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/fundings?limit=0`),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/fundings?limit=201`),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/fundings?status=x`),
      400,
      'validation.msg.validation.errors.exist',
      ['status'],
    );
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/loans/${loan.loanId}/fundings`),
      404,
      'error.msg.resource.not.found',
    );
  });
});

describe('POST /v1/loans/{loanId}/payments/record-external', () => {
  it('posts and allocates → 201; replays; other content → 409; the list shows it', async () => {
    const loan = await fundedLoan();
    const path = `/v1/loans/${loan.loanId}/payments/record-external`;
    const body = paymentBody();
    const key = newKey();
    const first = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({
      resourceId: expect.any(Number),
      paymentId: first.body.resourceId,
      loanId: loan.loanId,
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
    });
    const cached = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': key });
    expect(cached.headers.get('x-served-from-cache')).toBe('true');
    expect(cached.body).toEqual(first.body);
    const sameRef = await call(ctx, cred, 'POST', path, body);
    expect(sameRef.status).toBe(201);
    expect(sameRef.body).toEqual(first.body);
    expectShapeA(
      await call(ctx, cred, 'POST', path, { ...body, amount: '104.00' }),
      409,
      'error.msg.external.record.ref.conflict',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, { ...body, amount: '1.00' }, { 'idempotency-key': key }),
      422,
      'idempotency.key.payload.mismatch',
    );
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments`);
    expect(list.body.items).toHaveLength(1);
  });

  it('refuses bad input: decimals, currency, identifiers, dates before disbursement or unfunded loans', async () => {
    const loan = await fundedLoan();
    const path = `/v1/loans/${loan.loanId}/payments/record-external`;
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ amount: '10.123' })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ amount: '-5.00' })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ currency: 'usd' })),
      400,
      'validation.msg.validation.errors.exist',
      ['currency'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ currency: 'ZZZ' })),
      400,
      'validation.msg.validation.errors.exist',
      ['currency'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ currency: 'GBP' })),
      400,
      'validation.msg.payment.currency.mismatch',
      ['currency'],
    );
    const card = '4111 1111 1111 1111';
    const leaked = expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ rationale: `paid by card ${card}` })),
      400,
      'validation.msg.validation.errors.exist',
      ['rationale'],
    );
    expect(leaked.errors[0]!.value).toBeNull();
    expect(JSON.stringify(leaked)).not.toContain(card);
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ externalRecordRef: 'GB82WEST12345698765432' })),
      400,
      'validation.msg.validation.errors.exist',
      ['externalRecordRef'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ effectiveDate: '2024-12-31' })),
      400,
      'validation.msg.validation.errors.exist',
      ['effectiveDate'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ effectiveDate: '2999-01-01' })),
      400,
      'validation.msg.validation.errors.exist',
      ['effectiveDate'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, paymentBody({ source: '' })),
      400,
      'validation.msg.validation.errors.exist',
      ['source'],
    );
    const unfunded = await newLoan();
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${unfunded.loanId}/payments/record-external`, paymentBody()),
      409,
      'error.msg.loan.invalid.state.transition',
    );
    expectShapeA(await call(ctx, other, 'POST', path, paymentBody()), 404, 'error.msg.resource.not.found');
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments`);
    expect(list.body).toEqual({ items: [] });
  });

  it('needs RECORD_LMS_PAYMENT and lending:write (403)', async () => {
    const loan = await fundedLoan();
    const reader = await credentialFor(ctx, cred.tenant, { ...lending, permissions: ['READ_LMS_PAYMENT'] });
    expectShapeA(
      await call(ctx, reader, 'POST', `/v1/loans/${loan.loanId}/payments/record-external`, paymentBody()),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, reader, 'GET', `/v1/loans/${loan.loanId}/payments`)).status).toBe(200);
    expectShapeA(
      await call(ctx, reader, 'GET', `/v1/loans/${loan.loanId}/summary`),
      403,
      'error.msg.not.authorized',
    );
    expectShapeA(
      await call(ctx, reader, 'GET', `/v1/journalentries?loanId=${loan.loanId}`),
      403,
      'error.msg.not.authorized',
    );
  });
});

describe('GET /v1/loans/{loanId}/payments', () => {
  it('lists newest first with the spec fields plus allocation, filtered by status, paged', async () => {
    const loan = await fundedLoan();
    const path = `/v1/loans/${loan.loanId}/payments/record-external`;
    for (const effectiveDate of ['2025-02-01', '2025-03-01', '2025-01-15']) {
      expect(
        (await call(ctx, cred, 'POST', path, paymentBody({ amount: '50.00', effectiveDate }))).status,
      ).toBe(201);
    }
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments?status=POSTED`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: { effectiveDate: string }) => p.effectiveDate)).toEqual([
      '2025-03-01',
      '2025-02-01',
      '2025-01-15',
    ]);
    for (const item of list.body.items) {
      expect(Object.keys(item).sort()).toEqual(
        [
          'allocation',
          'amount',
          'currency',
          'effectiveDate',
          'instrumentId',
          'loanRef',
          'paymentId',
          'providerRef',
          'rail',
          'returnCode',
          'source',
          'status',
        ].sort(),
      );
      expect(item).toMatchObject({
        loanRef: loan.accountNo,
        status: 'POSTED',
        amount: '50.00',
        currency: 'USD',
      });
    }
    // Date order: 50.00 on 01-15 in advance to installment 1 (interest 3.00, principal 47.00).
    expect(list.body.items[2].allocation).toEqual({
      principal: '47.00',
      interest: '3.00',
      fee: '0.00',
      penalty: '0.00',
      overpayment: '0.00',
    });
    const page = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments?limit=2&offset=2`);
    expect(page.body.items.map((p: { effectiveDate: string }) => p.effectiveDate)).toEqual(['2025-01-15']);
    const returned = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments?status=RETURNED`);
    expect(returned.body).toEqual({ items: [] });
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments?status=DONE`),
      400,
      'validation.msg.validation.errors.exist',
      ['status'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/payments?cursor=x`),
      400,
      'validation.msg.validation.errors.exist',
      ['cursor'],
    );
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/loans/${loan.loanId}/payments`),
      404,
      'error.msg.resource.not.found',
    );
  });
});

describe('GET /v1/journalentries', () => {
  it("counts and pages one loan's balanced lines; another tenant's loan → 404", async () => {
    const loan = await fundedLoan();
    await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loan.loanId}/payments/record-external`,
      paymentBody({ effectiveDate: '2025-03-05', amount: '150.00' }),
    );
    // Back-dated: re-allocates the 150.00 (reversal of its 4 lines + a revision of 4 lines).
    await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loan.loanId}/payments/record-external`,
      paymentBody({ effectiveDate: '2025-01-20', amount: '50.00' }),
    );
    const all = await call(ctx, cred, 'GET', `/v1/journalentries?loanId=${loan.loanId}&limit=200`);
    expect(all.status).toBe(200);
    expect(all.body.totalFilteredRecords).toBe(2 + 4 + 3 + 4 + 4);
    expect(all.body.pageItems).toHaveLength(all.body.totalFilteredRecords);
    expect(Object.keys(all.body.pageItems[0]).sort()).toEqual(
      [
        'accountCode',
        'createdAt',
        'credit',
        'currency',
        'debit',
        'entryDate',
        'id',
        'reversesEntryId',
        'transactionRef',
      ].sort(),
    );
    const cents = (field: 'debit' | 'credit') =>
      all.body.pageItems.reduce(
        (sum: bigint, line: Record<string, string>) => sum + BigInt(line[field]!.replace('.', '')),
        0n,
      );
    expect(cents('debit')).toBe(cents('credit'));
    const reversals = all.body.pageItems.filter((l: { transactionRef: string }) =>
      l.transactionRef.includes('/reversal/'),
    );
    expect(reversals).toHaveLength(4);
    for (const line of reversals) expect(line.reversesEntryId).toEqual(expect.any(Number));
    expect(all.body.pageItems[0]).toMatchObject({
      accountCode: 'LOAN_PORTFOLIO',
      debit: '300.00',
      credit: '0.00',
      entryDate: '2025-01-01',
      currency: 'USD',
    });

    const page = await call(ctx, cred, 'GET', `/v1/journalentries?loanId=${loan.loanId}&offset=2&limit=3`);
    expect(page.body.totalFilteredRecords).toBe(all.body.totalFilteredRecords);
    expect(page.body.pageItems.map((l: { id: number }) => l.id)).toEqual(
      all.body.pageItems.slice(2, 5).map((l: { id: number }) => l.id),
    );
    const tenantWide = await call(ctx, cred, 'GET', '/v1/journalentries?limit=1');
    expect(tenantWide.body.totalFilteredRecords).toBeGreaterThanOrEqual(all.body.totalFilteredRecords);
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/journalentries?loanId=${loan.loanId}`),
      404,
      'error.msg.resource.not.found',
    );
    expect((await call(ctx, other, 'GET', '/v1/journalentries')).body).toEqual({
      totalFilteredRecords: 0,
      pageItems: [],
    });
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/journalentries?accountCode=X'),
      400,
      'validation.msg.validation.errors.exist',
      ['accountCode'],
    );
  });
});

describe('GET /v1/loans/{loanId}/summary', () => {
  it('gives hand-computed balances, overdue, payoff, the APR disclosure and active restrictions', async () => {
    const loan = await fundedLoan();
    const paid = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loan.loanId}/payments/record-external`,
      paymentBody(),
    );
    expect(paid.status).toBe(201);
    const hold = await call(ctx, cred, 'POST', `/v1/customers/${loan.customerId}/restrictions`, {
      restrictionType: 'PAYMENT_HOLD',
      reason: 'Dispute under review',
    });
    expect(hold.status).toBe(201);

    const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-03-11`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Installment 1 paid on 2025-02-01; installment 2 (due 2025-03-01) unpaid, 10 days past due; installment 3's
    // period (2025-03-01 … 2025-04-01) holds 2025-03-11.
    expect(res.body).toEqual({
      loanId: loan.loanId,
      loanRef: loan.accountNo,
      status: { id: 300, code: 'loanStatusType.active', value: 'Active' },
      currency: 'USD',
      asOfDate: '2025-03-11',
      balances: {
        principalOutstanding: '200.00',
        interestOutstanding: '6.00',
        feeOutstanding: '4.00',
        penaltyOutstanding: '0.00',
        totalOutstanding: '210.00',
        overpayment: '0.00',
      },
      overdue: {
        principal: '100.00',
        interest: '3.00',
        fee: '2.00',
        penalty: '0.00',
        total: '105.00',
        oldestOverdueDueDate: '2025-03-01',
        daysPastDue: 10,
      },
      // Payoff: principal 200 + installment 2's interest 3 and fee 2 + installment 3's interest accrued for 10 of
      // its 31 days (3.00 × 10 / 31 = 0.97); no fee of installment 3.
      payoff: {
        asOfDate: '2025-03-11',
        principal: '200.00',
        interest: '3.97',
        fee: '2.00',
        penalty: '0.00',
        total: '205.97',
        currentInstallmentNumber: 3,
        currentPeriodInterest: '0.97',
      },
      paymentsInFlight: { count: 0, amount: '0.00' },
      aprDisclosure: { annualPercentageRate: '21.47', finalizedAt: '2024-12-20' },
      activeRestrictions: [
        {
          restrictionId: hold.body.restrictionId,
          restrictionType: 'PAYMENT_HOLD',
          loanId: null,
          reason: 'Dispute under review',
          effectiveAt: expect.stringMatching(/Z$/),
          expiresAt: null,
        },
      ],
      // Installment 2's 105.00 is 10 days past due (docs/lending.md "Delinquency"); no close of business yet.
      delinquent: {
        pastDueDays: 10,
        delinquentDays: 10,
        delinquentDate: '2025-03-01',
        delinquentAmount: '105.00',
        delinquentPrincipal: '100.00',
        delinquentInterest: '3.00',
        delinquentFee: '2.00',
        delinquentPenalty: '0.00',
        nextPaymentDueDate: '2025-03-01',
        lastPaymentDate: '2025-02-01',
        lastPaymentAmount: '105.00',
        installmentLevelDelinquency: [],
        delinquencyPausePeriods: [],
      },
      delinquencyRange: null,
      lastClosedBusinessDate: null,
      chargedOff: false,
      chargedOffOnDate: null,
    });

    // Before the funding nothing is owed; on a due date the installment due that day is not yet overdue.
    const before = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2024-12-31`);
    expect(before.body.balances.totalOutstanding).toBe('0.00');
    expect(before.body.overdue).toMatchObject({ total: '0.00', daysPastDue: 0, oldestOverdueDueDate: null });
    const dueDay = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-03-01`);
    expect(dueDay.body.overdue.total).toBe('0.00');
    expect(dueDay.body.payoff).toMatchObject({ total: '205.00', currentInstallmentNumber: null });
  });

  it('defaults asOfDate to today (UTC); bad dates → 400; another tenant → 404', async () => {
    const loan = await fundedLoan();
    const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary`);
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.asOfDate).toBe(today);
    const days = Math.round(
      (Date.parse(`${today}T00:00:00Z`) - Date.parse('2025-02-01T00:00:00Z')) / 86_400_000,
    );
    expect(res.body.overdue).toMatchObject({
      total: '315.00',
      oldestOverdueDueDate: '2025-02-01',
      daysPastDue: days,
    });
    expect(res.body.payoff.total).toBe('315.00');
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-13-01`),
      400,
      'validation.msg.validation.errors.exist',
      ['asOfDate'],
    );
    expectShapeA(
      await call(ctx, other, 'GET', `/v1/loans/${loan.loanId}/summary`),
      404,
      'error.msg.resource.not.found',
    );
    const unfunded = await newLoan({ status: 'SUBMITTED' });
    const submitted = await call(
      ctx,
      cred,
      'GET',
      `/v1/loans/${unfunded.loanId}/summary?asOfDate=2025-03-11`,
    );
    expect(submitted.body).toMatchObject({
      status: { code: 'loanStatusType.submitted.and.pending.approval' },
      balances: { totalOutstanding: '0.00' },
      aprDisclosure: null,
      activeRestrictions: [],
    });
  });
});

describe('through the loans API (POST /v1/loans, approve)', () => {
  it('funds an approved loan, posts a payment, and the loan read and summary agree', async () => {
    const customer = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    const product = await call(ctx, cred, 'POST', '/v1/loanproducts', {
      name: 'Three-month loan',
      shortName: 'TM3',
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      principal: '1200',
      numberOfRepayments: 3,
      interestRatePerPeriod: 12,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRateFrequencyType: 3,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      daysInYearType: 1,
      daysInMonthType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      lmsConfig: {
        productClass: 'COVERED_CONSUMER',
        aprEnabled: true,
        aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
        aprTolerancePolicy: 'REGULAR',
        statementEnabled: true,
        statementLeadDays: 21,
      },
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const created = await call(ctx, cred, 'POST', '/v1/loans', {
      clientId: customer.body.customerId,
      productId: product.body.productId,
      loanType: 'individual',
      principal: 1200,
      loanTermFrequency: 3,
      loanTermFrequencyType: 2,
      numberOfRepayments: 3,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: 12,
      interestType: 0,
      interestCalculationPeriodType: 1,
      amortizationType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      expectedDisbursementDate: '2025-03-15',
      submittedOnDate: '2025-03-10',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const loanId = created.body.loanId as number;
    const fund = () =>
      call(
        ctx,
        cred,
        'POST',
        `/v1/loans/${loanId}/fundings/record-external`,
        fundingBody({ amount: '1200.00' }),
      );
    expectShapeA(await fund(), 409, 'error.msg.loan.invalid.state.transition');
    const approved = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, {
      approvedOnDate: '2025-03-12',
      approvedLoanAmount: '1200',
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);

    const funded = await fund();
    expect(funded.status, JSON.stringify(funded.body)).toBe(201);
    expect(funded.body.fundingDate).toBe('2025-03-15');
    const before = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
    const first = before.body.repaymentSchedule.periods[1];
    const paid = await call(
      ctx,
      cred,
      'POST',
      `/v1/loans/${loanId}/payments/record-external`,
      paymentBody({ amount: first.totalDueForPeriod, effectiveDate: first.dueDate }),
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.allocation).toMatchObject({
      principal: first.principalDue,
      interest: first.interestDue,
    });

    const read = await call(
      ctx,
      cred,
      'GET',
      `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`,
    );
    expect(read.status).toBe(200);
    expect(read.body.status.code).toBe('loanStatusType.active');
    expect(read.body.repaymentSchedule.periods[1]).toMatchObject({
      complete: true,
      obligationsMetOnDate: first.dueDate,
    });
    const summary = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${first.dueDate}`);
    expect(summary.status).toBe(200);
    expect(summary.body.aprDisclosure).toEqual(read.body.aprDisclosure);
    expect(summary.body.loanRef).toBe(read.body.accountNo);
    expect(summary.body.balances.principalOutstanding).toBe(
      formatMinor(120_000n - parseDecimalToMinor(first.principalDue, 2), 2),
    );
  });
});

describe('GET /v1/loans/{loanId}?associations=repaymentSchedule,transactions — Fineract reconciliation fields', () => {
  it('splits what each installment received into paid in advance and paid late, and runs the outstanding principal', async () => {
    // Hand-computed on the fixture loan (300.00 USD; each installment 100.00 principal + 3.00 interest + 2.00 fee,
    // due 2025-02-01, 2025-03-01, 2025-04-01; the default order: past due, due, in advance, each interest,
    // principal, fee, penalty; a payment in advance goes to the next installment). Fineract's rule
    // (LoanRepaymentScheduleInstallment.trackAdvanceAndLateTotalsForRepaymentPeriod): what a payment pays of an
    // installment is "in advance" when paid before its due date, "late" when paid after it, neither on it.
    //   P1 105.00 on 2025-02-01 (on time)  → installment 1: 3 + 100 + 2 on its due date: advance 0, late 0.
    //   P2  50.00 on 2025-02-15 (early)    → installment 2: interest 3, principal 47: advance 50.00.
    //   P3  60.00 on 2025-03-10 (late)     → installment 2 (past due): principal 53, fee 2 = 55.00 late;
    //                                        installment 3 (due 04-01): interest 3, principal 2 = 5.00 in advance.
    // Outstanding principal after each transaction (Fineract outstandingLoanBalance): disbursement 300.00;
    // P1 300 − 100 = 200.00; P2 200 − 47 = 153.00; P3 153 − 55 = 98.00.
    const loan = await fundedLoan();
    const path = `/v1/loans/${loan.loanId}/payments/record-external`;
    for (const [amount, effectiveDate] of [
      ['105.00', '2025-02-01'],
      ['50.00', '2025-02-15'],
      ['60.00', '2025-03-10'],
    ] as const) {
      const res = await call(ctx, cred, 'POST', path, paymentBody({ amount, effectiveDate }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const res = await call(
      ctx,
      cred,
      'GET',
      `/v1/loans/${loan.loanId}?associations=repaymentSchedule,transactions`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const periods = res.body.repaymentSchedule.periods;
    expect(periods[0]).not.toHaveProperty('totalPaidInAdvanceForPeriod');
    expect(
      periods.slice(1).map((p: Record<string, string>) => ({
        period: p.period,
        totalPaidForPeriod: p.totalPaidForPeriod,
        totalPaidInAdvanceForPeriod: p.totalPaidInAdvanceForPeriod,
        totalPaidLateForPeriod: p.totalPaidLateForPeriod,
      })),
    ).toEqual([
      {
        period: 1,
        totalPaidForPeriod: '105.00',
        totalPaidInAdvanceForPeriod: '0.00',
        totalPaidLateForPeriod: '0.00',
      },
      {
        period: 2,
        totalPaidForPeriod: '105.00',
        totalPaidInAdvanceForPeriod: '50.00',
        totalPaidLateForPeriod: '55.00',
      },
      {
        period: 3,
        totalPaidForPeriod: '5.00',
        totalPaidInAdvanceForPeriod: '5.00',
        totalPaidLateForPeriod: '0.00',
      },
    ]);
    expect(
      res.body.transactions.map((t: Record<string, unknown>) => [
        (t.type as { value: string }).value,
        t.date,
        t.amount,
        t.principalPortion,
        t.interestPortion,
        t.feeChargesPortion,
        t.penaltyChargesPortion,
        t.outstandingLoanBalance,
      ]),
    ).toEqual([
      // Fineract reports a disbursement with zero portions and the disbursed principal as the balance.
      ['Disbursement', '2025-01-01', '300.00', '0.00', '0.00', '0.00', '0.00', '300.00'],
      ['Repayment', '2025-02-01', '105.00', '100.00', '3.00', '2.00', '0.00', '200.00'],
      ['Repayment', '2025-02-15', '50.00', '47.00', '3.00', '0.00', '0.00', '153.00'],
      ['Repayment', '2025-03-10', '60.00', '55.00', '3.00', '2.00', '0.00', '98.00'],
    ]);
  });
});
