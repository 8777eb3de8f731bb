/**
 * Overdue-installment charge definitions (Apache Fineract `ChargeTimeType.OVERDUE_INSTALLMENT`, 9; docs/lending.md
 * "Delinquency configuration"): `POST /v1/charges` takes them as penalties, flat or a percent of the overdue
 * principal (2) or principal + interest (3); a product attaches them; they never enter a loan's schedule at creation
 * (close of business assesses them later), so the loan's schedule and terms equal those of the same loan on a
 * product without them. Refusals are Shape A 400s naming the field and store nothing.
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
let n = 0;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('ovd'), { scopes: ['lending:read', 'lending:write'] });
});
afterAll(async () => ctx?.close());

const overdueBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Late fee',
  currencyCode: 'USD',
  amount: '15',
  chargeAppliesTo: 1,
  chargeTimeType: 9,
  chargeCalculationType: 1,
  penalty: true,
  ...overrides,
});

async function chargeCount(): Promise<number> {
  return (await call(ctx, cred, 'GET', '/v1/charges')).body.length;
}

async function defineCharge(body: Record<string, unknown>): Promise<number> {
  const res = await call(ctx, cred, 'POST', '/v1/charges', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.chargeId as number;
}

describe('POST /v1/charges with chargeTimeType 9 (overdue installment)', () => {
  it.each([
    [1, '15', '15.00'],
    [2, '1.5', '1.5'],
    [3, '2', '2'],
  ])(
    'defines a penalty of calculation type %i, read back as defined',
    async (chargeCalculationType, amount, shown) => {
      const id = await defineCharge(overdueBody({ chargeCalculationType, amount }));
      const read = await call(ctx, cred, 'GET', `/v1/charges/${id}`);
      expect(read.body).toMatchObject({
        chargeTimeType: 9,
        chargeCalculationType,
        penalty: true,
        amount: shown,
      });
    },
  );

  it.each([
    ['a fee (not a penalty)', { penalty: false }, 'penalty', 'error.msg.charge.must.be.penalty'],
    ['an absent penalty flag', { penalty: undefined }, 'penalty', 'error.msg.charge.must.be.penalty'],
    [
      'a percent of interest (4)',
      { chargeCalculationType: 4, amount: '1' },
      'chargeCalculationType',
      'validation.msg.charge.chargeCalculationType.not.allowed.for.overdue.installment',
    ],
  ])(
    'refuses %s with 400 naming the field and stores nothing',
    async (_what, fields, parameterName, code) => {
      const before = await chargeCount();
      const res = await call(ctx, cred, 'POST', '/v1/charges', overdueBody(fields));
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [parameterName]);
      expect(res.body.errors[0].userMessageGlobalisationCode).toBe(code);
      expect(await chargeCount()).toBe(before);
    },
  );

  it('still refuses other unsupported time types (12 tranche disbursement)', async () => {
    const before = await chargeCount();
    const res = await call(ctx, cred, 'POST', '/v1/charges', overdueBody({ chargeTimeType: 12 }));
    expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['chargeTimeType']);
    expect(await chargeCount()).toBe(before);
  });
});

describe('a product with overdue charges', () => {
  it('shows them among its charges and leaves them out of a loan’s schedule and terms', async () => {
    const flat = await defineCharge(overdueBody());
    const percent = await defineCharge(overdueBody({ chargeCalculationType: 3, amount: '2' }));
    const productOf = async (charges: { id: number }[]) => {
      n += 1;
      const res = await call(
        ctx,
        cred,
        'POST',
        '/v1/loanproducts',
        personalLoanProductBody({ shortName: `O${n}`, charges }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.productId as number;
    };
    const withOverdue = await productOf([{ id: flat }, { id: percent }]);
    const without = await productOf([]);
    const product = await call(ctx, cred, 'GET', `/v1/loanproducts/${withOverdue}`);
    expect(
      product.body.charges.map((c: { id: number; chargeTimeType: number }) => [c.id, c.chargeTimeType]),
    ).toEqual([
      [flat, 9],
      [percent, 9],
    ]);
    const customer = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Ada', lastName: 'King' });
    const loanOn = async (productId: number) => {
      const res = await call(
        ctx,
        cred,
        'POST',
        '/v1/loans',
        personalLoanBody({ clientId: customer.body.customerId, productId }),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const read = await call(ctx, cred, 'GET', `/v1/loans/${res.body.loanId}?associations=all`);
      const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
        tx
          .select({ terms: loans.terms })
          .from(loans)
          .where(and(eq(loans.tenantId, cred.tenant), eq(loans.id, res.body.loanId))),
      );
      return { schedule: read.body.repaymentSchedule, charges: row?.terms.charges };
    };
    const a = await loanOn(withOverdue);
    const b = await loanOn(without);
    expect(a.charges).toEqual([]);
    expect(a.schedule).toEqual(b.schedule);
    expect(a.schedule.totalPenaltyChargesCharged ?? '0.00').toMatch(/^0(\.0+)?$/);
  });
});
