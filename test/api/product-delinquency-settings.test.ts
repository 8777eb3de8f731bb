/**
 * A loan product's delinquency settings through the public API (Apache Fineract's loan product fields
 * `delinquencyBucketId`, `graceOnArrearsAgeing`, `enableInstallmentLevelDelinquency`, and our
 * `chargeOffDaysPastDue`; docs/lending.md "Delinquency configuration"): accepted by `POST /v1/loanproducts`, shown by
 * the product reads with their defaults, refused with Shape A when out of range or naming another tenant's bucket
 * (nothing stored), and copied into a loan's stored terms when the loan is created.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA } from './helpers';
import { personalLoanBody, personalLoanProductBody } from './lending-bodies';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
const scopes = ['lending:read', 'lending:write'];
let n = 0;
const shortName = () => {
  n += 1;
  return `D${n}`;
};

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('pdlq'), { scopes });
  other = await credentialFor(ctx, uniqueTenant('pdlqx'), { scopes });
});
afterAll(async () => ctx?.close());

async function bucket(c: Credential = cred): Promise<number> {
  const range = await call(ctx, c, 'POST', '/v1/delinquency/ranges', {
    classification: `R-${Math.random().toString(36).slice(2, 8)}`,
    minimumAgeDays: 1,
    maximumAgeDays: null,
  });
  const res = await call(ctx, c, 'POST', '/v1/delinquency/buckets', {
    name: `B-${Math.random().toString(36).slice(2, 8)}`,
    ranges: [range.body.resourceId],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.resourceId as number;
}

async function productCount(): Promise<number> {
  return (await call(ctx, cred, 'GET', '/v1/loanproducts')).body.length;
}

describe('POST /v1/loanproducts with delinquency settings', () => {
  it('stores the settings and shows them in the product reads', async () => {
    const bucketId = await bucket();
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      personalLoanProductBody({
        shortName: shortName(),
        delinquencyBucketId: bucketId,
        graceOnArrearsAgeing: 3,
        enableInstallmentLevelDelinquency: true,
        chargeOffDaysPastDue: 120,
      }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await call(ctx, cred, 'GET', `/v1/loanproducts/${res.body.productId}`);
    expect(read.body).toMatchObject({
      delinquencyBucketId: bucketId,
      graceOnArrearsAgeing: 3,
      enableInstallmentLevelDelinquency: true,
      chargeOffDaysPastDue: 120,
    });
    const list = await call(ctx, cred, 'GET', '/v1/loanproducts');
    expect(list.body.find((p: { id: number }) => p.id === res.body.productId)).toEqual(read.body);
  });

  it('defaults to no bucket, no grace, no installment-level delinquency, never an automatic charge-off', async () => {
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      personalLoanProductBody({ shortName: shortName() }),
    );
    expect(res.status).toBe(201);
    const read = await call(ctx, cred, 'GET', `/v1/loanproducts/${res.body.productId}`);
    expect(read.body).toMatchObject({
      delinquencyBucketId: null,
      graceOnArrearsAgeing: 0,
      enableInstallmentLevelDelinquency: false,
      chargeOffDaysPastDue: null,
    });
    const nulls = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      personalLoanProductBody({
        shortName: shortName(),
        delinquencyBucketId: null,
        chargeOffDaysPastDue: null,
      }),
    );
    expect(nulls.status).toBe(201);
  });

  it.each([
    ['a negative grace', { graceOnArrearsAgeing: -1 }, 'graceOnArrearsAgeing'],
    ['a fractional grace', { graceOnArrearsAgeing: 1.5 }, 'graceOnArrearsAgeing'],
    ['a charge-off at 0 days', { chargeOffDaysPastDue: 0 }, 'chargeOffDaysPastDue'],
    ['a charge-off as a string', { chargeOffDaysPastDue: '120' }, 'chargeOffDaysPastDue'],
    [
      'a non-boolean installment-level flag',
      { enableInstallmentLevelDelinquency: 'yes' },
      'enableInstallmentLevelDelinquency',
    ],
    ['a bucket id that is not a positive integer', { delinquencyBucketId: 0 }, 'delinquencyBucketId'],
  ])('refuses %s with 400 naming the field and stores nothing', async (_what, fields, parameterName) => {
    const before = await productCount();
    const res = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      personalLoanProductBody({ shortName: shortName(), ...fields }),
    );
    const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    expect(body.errors.map((e) => e.parameterName)).toContain(parameterName);
    expect(await productCount()).toBe(before);
  });

  it('refuses another tenant’s or an unknown bucket with 400 naming delinquencyBucketId', async () => {
    const foreign = await bucket(other);
    const before = await productCount();
    for (const delinquencyBucketId of [foreign, 987_654_321]) {
      const res = await call(
        ctx,
        cred,
        'POST',
        '/v1/loanproducts',
        personalLoanProductBody({ shortName: shortName(), delinquencyBucketId }),
      );
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['delinquencyBucketId']);
      expect(res.body.errors[0].userMessageGlobalisationCode).toBe(
        'validation.msg.loanproduct.delinquencyBucketId.not.found',
      );
    }
    expect(await productCount()).toBe(before);
  });
});

describe('a loan created on the product', () => {
  it('copies the delinquency settings into its stored terms', async () => {
    const bucketId = await bucket();
    const product = await call(
      ctx,
      cred,
      'POST',
      '/v1/loanproducts',
      personalLoanProductBody({
        shortName: shortName(),
        delinquencyBucketId: bucketId,
        graceOnArrearsAgeing: 5,
        chargeOffDaysPastDue: 90,
      }),
    );
    const customer = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    const loan = await call(
      ctx,
      cred,
      'POST',
      '/v1/loans',
      personalLoanBody({ clientId: customer.body.customerId, productId: product.body.productId }),
    );
    expect(loan.status, JSON.stringify(loan.body)).toBe(201);
    const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ terms: loans.terms, lastClosedBusinessDate: loans.lastClosedBusinessDate })
        .from(loans)
        .where(and(eq(loans.tenantId, cred.tenant), eq(loans.id, loan.body.loanId))),
    );
    expect(row?.terms.delinquency).toEqual({
      delinquencyBucketId: bucketId,
      graceOnArrearsAgeing: 5,
      enableInstallmentLevelDelinquency: false,
      chargeOffDaysPastDue: 90,
    });
    expect(row?.lastClosedBusinessDate).toBeNull();
  });
});
