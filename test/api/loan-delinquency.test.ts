/**
 * A loan's delinquency through the app on the real database (docs/lending.md "Delinquency"): the `delinquent`
 * object and the stored fields of `GET /v1/loans/{loanId}` (as of today in the tenant's time zone) and of the loan
 * summary (as of `asOfDate`), and `GET /v1/loans/{loanId}/delinquency-history`. Loans come from
 * test/activities/ledger-fixtures.ts (300.00 USD funded 2025-01-01; installments of 100.00 principal, 3.00
 * interest and a 2.00 fee due 2025-02-01, 2025-03-01, 2025-04-01); the tenant has no time zone of its own, so its
 * days are America/Los_Angeles's (domain/deadlines.ts). Figures computed by hand in the comments.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loanDelinquencyHistory, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { approvedLoan, type LoanFixture } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';

const lending = { scopes: ['lending:read', 'lending:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('delinq'), lending);
  other = await credentialFor(ctx, uniqueTenant('delinq-other'), lending);
});
afterEach(() => {
  if (ctx) ctx.now.value = null;
});
afterAll(async () => ctx?.close());

const ref = (prefix: string) => `${prefix}-${randomBytes(9).toString('base64url')}`;

async function fundedLoan(): Promise<LoanFixture> {
  const loan = await approvedLoan(ctx, cred.tenant);
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/fundings/record-external`, {
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: ref('fund'),
    reason: 'Disbursed by the originating bank',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return loan;
}

async function pay(loan: LoanFixture, effectiveDate: string, amount = '105.00') {
  const res = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/payments/record-external`, {
    amount,
    currency: 'USD',
    effectiveDate,
    externalRecordRef: ref('pay'),
    source: 'IMPORT',
    rationale: 'Boarded history',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

const zeroDelinquent = {
  pastDueDays: 0,
  delinquentDays: 0,
  delinquentDate: null,
  delinquentAmount: '0.00',
  delinquentPrincipal: '0.00',
  delinquentInterest: '0.00',
  delinquentFee: '0.00',
  delinquentPenalty: '0.00',
  installmentLevelDelinquency: [],
  delinquencyPausePeriods: [],
};

const storedFields = {
  delinquencyRange: null,
  lastClosedBusinessDate: null,
  chargedOff: false,
  chargedOffOnDate: null,
};

describe('GET /v1/loans/{loanId}: delinquent as of today in the tenant time zone', () => {
  it('an overdue installment: days from its due date, its outstanding by component, next due, last payment', async () => {
    const loan = await fundedLoan();
    await pay(loan, '2025-02-01'); // installment 1 paid on its due date
    ctx.now.value = new Date('2025-03-10T20:00:00Z'); // 2025-03-10 in Los Angeles
    const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Installment 2 (due 2025-03-01: 100.00 + 3.00 + 2.00) is 9 days past due; no grace, no pause.
    expect(res.body).toMatchObject({
      ...storedFields,
      delinquent: {
        pastDueDays: 9,
        delinquentDays: 9,
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
    });
  });

  it("counts days in the tenant's time zone: 05:00 UTC on 2 March is still 1 March in Los Angeles", async () => {
    const loan = await fundedLoan();
    await pay(loan, '2025-02-01');
    ctx.now.value = new Date('2025-03-02T05:00:00Z'); // 2025-03-01 21:00 in Los Angeles: installment 2 due today
    const due = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    expect(due.body.delinquent).toMatchObject({ ...zeroDelinquent, nextPaymentDueDate: '2025-03-01' });
    ctx.now.value = new Date('2025-03-02T09:00:00Z'); // 2025-03-02 01:00 in Los Angeles: 1 day past due
    const late = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    expect(late.body.delinquent).toMatchObject({
      pastDueDays: 1,
      delinquentDays: 1,
      delinquentAmount: '105.00',
    });
  });

  it('a payment value-dated after today does not count yet', async () => {
    const loan = await fundedLoan();
    await pay(loan, '2025-02-20');
    ctx.now.value = new Date('2025-02-10T20:00:00Z');
    const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    // On 2025-02-10 installment 1 (due 2025-02-01) is 9 days past due; the payment of 2025-02-20 is not made yet.
    expect(res.body.delinquent).toMatchObject({
      pastDueDays: 9,
      delinquentAmount: '105.00',
      lastPaymentDate: null,
      lastPaymentAmount: '0.00',
    });
  });

  it('a closed loan has no delinquency; a loan not yet disbursed shows the empty figures', async () => {
    const loan = await fundedLoan();
    await pay(loan, '2025-02-01');
    await pay(loan, '2025-03-01');
    await pay(loan, '2025-04-01');
    ctx.now.value = new Date('2025-06-01T20:00:00Z');
    const closed = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    expect(closed.body.status.code).toBe('loanStatusType.closed.obligations.met');
    expect(closed.body).toMatchObject({
      ...storedFields,
      delinquent: {
        ...zeroDelinquent,
        nextPaymentDueDate: null,
        lastPaymentDate: '2025-04-01',
        lastPaymentAmount: '105.00',
      },
    });

    const approved = await approvedLoan(ctx, cred.tenant);
    const notActive = await call(ctx, cred, 'GET', `/v1/loans/${approved.loanId}`);
    expect(notActive.status).toBe(200);
    expect(notActive.body).toMatchObject({
      ...storedFields,
      delinquent: {
        ...zeroDelinquent,
        nextPaymentDueDate: null,
        lastPaymentDate: null,
        lastPaymentAmount: '0.00',
      },
    });
  });
});

describe('GET /v1/loans/{loanId}/summary: delinquent as of asOfDate', () => {
  it('follows asOfDate: before and after a payment, on and after due dates', async () => {
    const loan = await fundedLoan();
    await pay(loan, '2025-02-01');
    const at = async (asOfDate: string) => {
      const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=${asOfDate}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject(storedFields);
      return res.body.delinquent;
    };
    // 2025-01-31 (before the payment, a replay): nothing due yet, no payment yet.
    expect(await at('2025-01-31')).toEqual({
      ...zeroDelinquent,
      nextPaymentDueDate: '2025-02-01',
      lastPaymentDate: null,
      lastPaymentAmount: '0.00',
    });
    // 2025-02-15: installment 1 paid, installment 2 not due: paid up.
    expect(await at('2025-02-15')).toEqual({
      ...zeroDelinquent,
      nextPaymentDueDate: '2025-03-01',
      lastPaymentDate: '2025-02-01',
      lastPaymentAmount: '105.00',
    });
    // 2025-03-01: installment 2 is due today, not overdue.
    expect((await at('2025-03-01')).pastDueDays).toBe(0);
    // 2025-04-15: installments 2 and 3 overdue, the oldest since 2025-03-01 (31 + 14 days).
    expect(await at('2025-04-15')).toEqual({
      pastDueDays: 45,
      delinquentDays: 45,
      delinquentDate: '2025-03-01',
      delinquentAmount: '210.00',
      delinquentPrincipal: '200.00',
      delinquentInterest: '6.00',
      delinquentFee: '4.00',
      delinquentPenalty: '0.00',
      nextPaymentDueDate: '2025-03-01',
      lastPaymentDate: '2025-02-01',
      lastPaymentAmount: '105.00',
      installmentLevelDelinquency: [],
      delinquencyPausePeriods: [],
    });
  });

  it('a closed loan: no delinquency once closed; on an earlier date, the delinquency it had then', async () => {
    const loan = await fundedLoan();
    await pay(loan, '2025-02-01');
    await pay(loan, '2025-03-15'); // installment 2 paid 14 days late
    await pay(loan, '2025-04-01');
    const res = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-05-01`);
    expect(res.body.status.code).toBe('loanStatusType.closed.obligations.met');
    expect(res.body.delinquent).toEqual({
      ...zeroDelinquent,
      nextPaymentDueDate: null,
      lastPaymentDate: '2025-04-01',
      lastPaymentAmount: '105.00',
    });
    // On 2025-03-10 the loan was active and installment 2 (due 2025-03-01) 9 days past due.
    const then = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-03-10`);
    expect(then.body.delinquent).toMatchObject({
      pastDueDays: 9,
      delinquentDays: 9,
      delinquentAmount: '105.00',
      lastPaymentDate: '2025-02-01',
    });
  });
});

describe('GET /v1/loans/{loanId}/delinquency-history', () => {
  it('is empty before any run; pages newest first with an opaque cursor bound to the loan', async () => {
    const loan = await fundedLoan();
    const path = `/v1/loans/${loan.loanId}/delinquency-history`;
    const empty = await call(ctx, cred, 'GET', path);
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
    expect(empty.body).toEqual({ items: [], nextCursor: null });

    // The close of business will write these rows; here they are inserted as it would.
    await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.insert(loanDelinquencyHistory).values(
        [
          ['2025-03-01', 'RANGE_1', 'NO_DELINQUENCY', 1, '105'],
          ['2025-03-04', 'RANGE_3', 'RANGE_1', 4, '105'],
          ['2025-04-01', 'RANGE_30', 'RANGE_3', 31, '210'],
        ].map(([businessDate, classification, previousClassification, days, amount]) => ({
          tenantId: cred.tenant,
          loanId: loan.loanId,
          businessDate: businessDate as string,
          classification: classification as string,
          previousClassification: previousClassification as string,
          delinquentDays: days as number,
          delinquentAmount: amount as string,
        })),
      ),
    );
    const first = await call(ctx, cred, 'GET', `${path}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([
      {
        businessDate: '2025-04-01',
        classification: 'RANGE_30',
        previousClassification: 'RANGE_3',
        delinquentDays: 31,
        delinquentAmount: '210.00',
        collectionsCaseId: null,
        collectionsSuppressedBy: null,
      },
      expect.objectContaining({ businessDate: '2025-03-04', classification: 'RANGE_3' }),
    ]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(
      ctx,
      cred,
      'GET',
      `${path}?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    expect(second.body.items.map((i: { businessDate: string }) => i.businessDate)).toEqual(['2025-03-01']);
    expect(second.body.nextCursor).toBeNull();

    // The cursor is bound to this loan.
    const another = await fundedLoan();
    expectShapeA(
      await call(
        ctx,
        cred,
        'GET',
        `/v1/loans/${another.loanId}/delinquency-history?cursor=${encodeURIComponent(first.body.nextCursor)}`,
      ),
      400,
      'validation.msg.cursor.query.mismatch',
      ['cursor'],
    );
  });

  it('refuses a bad limit or cursor (400 naming it); another tenant → 404; needs READ_LOAN', async () => {
    const loan = await fundedLoan();
    const path = `/v1/loans/${loan.loanId}/delinquency-history`;
    expectShapeA(
      await call(ctx, cred, 'GET', `${path}?limit=0`),
      400,
      'validation.msg.validation.errors.exist',
      ['limit'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `${path}?cursor=abc`),
      400,
      'validation.msg.validation.errors.exist',
      ['cursor'],
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `${path}?sort=x`),
      400,
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(await call(ctx, other, 'GET', path), 404, 'error.msg.resource.not.found');
    const writer = await credentialFor(ctx, cred.tenant, { scopes: ['lending:write'] });
    expect((await call(ctx, writer, 'GET', path)).status).toBe(403);
  });
});

/** A bucket of two ranges, 1–30 and 31–60 days, with the ranges' ids. */
async function twoRangeBucket() {
  const range = async (minimumAgeDays: number, maximumAgeDays: number) => {
    const res = await call(ctx, cred, 'POST', '/v1/delinquency/ranges', {
      classification: ref(`R${minimumAgeDays}`),
      minimumAgeDays,
      maximumAgeDays,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.resourceId as number, minimumAgeDays, maximumAgeDays };
  };
  const early = await range(1, 30);
  const late = await range(31, 60);
  const bucket = await call(ctx, cred, 'POST', '/v1/delinquency/buckets', {
    name: ref('B'),
    ranges: [late.id, early.id],
  });
  expect(bucket.status, JSON.stringify(bucket.body)).toBe(201);
  const ranges = (await call(ctx, cred, 'GET', `/v1/delinquency/buckets/${bucket.body.resourceId}`)).body
    .ranges;
  const classificationOf = (id: number) => ranges.find((r: { id: number }) => r.id === id).classification;
  return {
    bucketId: bucket.body.resourceId as number,
    early: { ...early, classification: classificationOf(early.id) },
    late: { ...late, classification: classificationOf(late.id) },
  };
}

/**
 * Stores the product's delinquency settings in the loan's terms, as loan creation copies them
 * (test/api/product-delinquency-settings.test.ts covers the copy); the fixture's loans have none.
 */
async function withSettings(
  loan: LoanFixture,
  delinquency: {
    delinquencyBucketId: number | null;
    graceOnArrearsAgeing: number;
    enableInstallmentLevelDelinquency: boolean;
  },
) {
  await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx
      .update(loans)
      .set({
        terms: sql`${loans.terms} || ${JSON.stringify({ delinquency: { ...delinquency, chargeOffDaysPastDue: null } })}::jsonb`,
      })
      .where(and(eq(loans.tenantId, cred.tenant), eq(loans.id, loan.loanId))),
  );
}

describe("the product's delinquency settings and the loan's pauses", () => {
  // Nothing paid: on 2025-03-20 installment 1 (due 2025-02-01) is 47 days past due (27 + 20), installment 2 (due
  // 2025-03-01) 19 days; each owes 105.00.
  it('grace 3: delinquentDays = pastDueDays − 3; installment-level delinquency by the bucket when enabled', async () => {
    const { bucketId } = await twoRangeBucket();
    const loan = await fundedLoan();
    await withSettings(loan, {
      delinquencyBucketId: bucketId,
      graceOnArrearsAgeing: 3,
      enableInstallmentLevelDelinquency: true,
    });
    const expected = {
      pastDueDays: 47,
      delinquentDays: 44, // 47 − 3
      delinquentDate: '2025-02-04', // 2025-02-01 + 3
      delinquentAmount: '210.00',
      delinquentPrincipal: '200.00',
      delinquentInterest: '6.00',
      delinquentFee: '4.00',
      delinquentPenalty: '0.00',
      nextPaymentDueDate: '2025-02-01',
      lastPaymentDate: null,
      lastPaymentAmount: '0.00',
      // Installment-level delinquency is a stored tag like the classification: none before the loan's first close
      // of business (Fineract's LoanDelinquency.feature "… resume on end/start date of continous pause periods …"
      // shows null there). The groups the step stores are replayed in test/api/delinquency-pause-scenarios.test.ts.
      installmentLevelDelinquency: [],
      delinquencyPausePeriods: [],
    };
    ctx.now.value = new Date('2025-03-20T20:00:00Z');
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.delinquent).toEqual(expected);
    const summary = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-03-20`);
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    expect(summary.body.delinquent).toEqual(expected);
  });

  it('a pause reduces delinquentDays by its days; installment level off shows none', async () => {
    const { bucketId } = await twoRangeBucket();
    const loan = await fundedLoan();
    await withSettings(loan, {
      delinquencyBucketId: bucketId,
      graceOnArrearsAgeing: 3,
      enableInstallmentLevelDelinquency: false,
    });
    const pause = await call(ctx, cred, 'POST', `/v1/loans/${loan.loanId}/delinquency-actions`, {
      action: 'pause',
      startDate: '2025-03-05',
      endDate: '2025-03-10',
    });
    expect(pause.status, JSON.stringify(pause.body)).toBe(201);
    ctx.now.value = new Date('2025-03-20T20:00:00Z');
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}`);
    expect(read.body.delinquent).toMatchObject({
      pastDueDays: 47,
      delinquentDays: 39, // 47 − 3 grace − 5 paused days (2025-03-05 to 2025-03-10)
      installmentLevelDelinquency: [],
      delinquencyPausePeriods: [
        { active: false, pausePeriodStart: '2025-03-05', pausePeriodEnd: '2025-03-10' },
      ],
    });
    // On 2025-03-07 the pause is active and 2 of its days have passed: 34 − 3 − 2.
    const during = await call(ctx, cred, 'GET', `/v1/loans/${loan.loanId}/summary?asOfDate=2025-03-07`);
    expect(during.body.delinquent).toMatchObject({
      pastDueDays: 34,
      delinquentDays: 29,
      delinquencyPausePeriods: [
        { active: true, pausePeriodStart: '2025-03-05', pausePeriodEnd: '2025-03-10' },
      ],
    });
  });
});
