/**
 * Charges on an active loan through the public API (Fineract `LoanChargesApiResource`): `POST
 * /v1/loans/{loanId}/charges`, the list and the one-charge read, `?command=waive`; the charge in the loan's
 * schedule and transactions (`GET /v1/loans/{loanId}?associations=all`) and summary; the events; the errors.
 *
 * The loan replays Fineract's "adding charge on a active loan / partial repayment after maturity date is creating
 * an N+1 installment - LP1 product" (test/vectors/fineract-loan-charges.json): 1,000 EUR over one 30-day period at
 * 0 %, 800 paid on its due date, a 20 EUR fee due the day after → an additional installment; its schedule and
 * transactions are compared to the published table, then the fee is waived. The journal's trial balance is zero
 * after each write.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import {
  activeLp1Loan,
  approvedLp1Loan,
  createLp1Charge,
  loanTrialBalance,
  recordLp1Payment,
  uniqueRef,
} from './lp1-loan';

let ctx: TestContext;
let cred: Credential;
let other: Credential;

const scenarioName =
  'Verify that adding charge on a active loan / partial repayment after maturity date is creating an N+1 installment - LP1 product';
const scenario = (
  JSON.parse(readFileSync(new URL('../vectors/fineract-loan-charges.json', import.meta.url), 'utf8')) as {
    scenarios: { scenario: string; expected: { installments: Record<string, unknown>[] } }[];
  }
).scenarios.find((s) => s.scenario === scenarioName)!;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('lchg'), { scopes: ['lending:read', 'lending:write'] });
  other = await credentialFor(ctx, uniqueTenant('lchgx'), { scopes: ['lending:read', 'lending:write'] });
});
afterAll(async () => ctx?.close());

const ref = uniqueRef;

const charge = (overrides: Record<string, unknown> = {}) => createLp1Charge(ctx, cred, overrides);

const approvedLoan = () => approvedLp1Loan(ctx, cred, '2023-10-01');

const activeLoan = () => activeLp1Loan(ctx, cred, '2023-10-01');

const pay = (loanId: number, effectiveDate: string, amount: string) =>
  recordLp1Payment(ctx, cred, loanId, effectiveDate, amount);

const trialBalanceOf = (loanId: number) => loanTrialBalance(ctx, cred, loanId);

async function eventsOf(loanId: number): Promise<{ event_type: string; data: Record<string, unknown> }[]> {
  const rows = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
    tx.execute<{ event_type: string; data: Record<string, unknown> }>(
      sql`select event_type, data from outbox_events where subject_id = ${String(loanId)} and event_type like 'loan.charge.%' order by id`,
    ),
  );
  return [...rows];
}

/** Adds a 20.00 fee due 2023-11-01, the day after the LP1 loan's maturity, to `loanId`; answers the 201. */
async function addFeeAfterMaturity(loanId: number) {
  const added = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, {
    chargeId: await charge(),
    amount: '20',
    dueDate: '2023-11-01',
  });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return added;
}

describe('a charge on an active loan (Fineract LoanCharge.feature, LP1 N+1 scenario)', () => {
  it('lands on an additional installment, shows in the schedule, is listed, waived, and shown as waived', async () => {
    const loanId = await activeLoan();
    await pay(loanId, '2023-10-31', '800.00');
    const chargeId = await charge();
    const added = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, {
      chargeId,
      amount: 20,
      dueDate: '01 November 2023',
      dateFormat: 'dd MMMM yyyy',
      locale: 'en',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toEqual({ resourceId: expect.any(Number), loanId });
    const loanChargeId = added.body.resourceId as number;
    expect(await trialBalanceOf(loanId)).toBe(0n);

    const loan = await call(
      ctx,
      cred,
      'GET',
      `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`,
    );
    expect(loan.status).toBe(200);
    const periods = loan.body.repaymentSchedule.periods.slice(1) as Record<string, string | null>[];
    expect(
      periods.map((p) => ({
        installmentNumber: p.period,
        dueDate: p.dueDate,
        principalDue: p.principalDue,
        feeChargesDue: p.feeChargesDue,
        penaltyChargesDue: p.penaltyChargesDue,
        totalPaid: p.totalPaidForPeriod,
        totalOutstanding: p.totalOutstandingForPeriod,
        obligationsMetOnDate: p.obligationsMetOnDate,
      })),
    ).toEqual(scenario.expected.installments);
    expect(
      (loan.body.transactions as Record<string, string>[]).map((t) => [
        t.date,
        t.amount,
        t.principalPortion,
        t.feeChargesPortion,
        t.outstandingLoanBalance,
      ]),
    ).toEqual([
      ['2023-10-01', '1000.00', '0.00', '0.00', '1000.00'],
      ['2023-10-31', '800.00', '800.00', '0.00', '200.00'],
    ]);

    const owed = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary`);
    expect(owed.body.balances).toMatchObject({ feeOutstanding: '20.00', totalOutstanding: '220.00' });

    const one = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/charges/${loanChargeId}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: loanChargeId,
      loanId,
      chargeId,
      name: 'Snooze fee',
      chargeTimeType: { id: 2, code: 'chargeTimeType.specifiedDueDate', value: 'Specified due date' },
      dueDate: '2023-11-01',
      amount: '20.00',
      amountPaid: '0.00',
      amountWaived: '0.00',
      amountOutstanding: '20.00',
      penalty: false,
      paid: false,
      waived: false,
      currency: 'EUR',
      externalId: null,
    });
    const list = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/charges`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([one.body]);

    const waived = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges/${loanChargeId}?command=waive`);
    expect(waived.status, JSON.stringify(waived.body)).toBe(200);
    expect(waived.body).toEqual({ resourceId: loanChargeId, loanId, changes: { amountWaived: '20.00' } });
    expect(await trialBalanceOf(loanId)).toBe(0n);

    const after = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
    const additional = after.body.repaymentSchedule.periods[2];
    expect(additional).toMatchObject({
      feeChargesDue: '20.00',
      feeChargesWaived: '20.00',
      feeChargesOutstanding: '0.00',
      totalOutstandingForPeriod: '0.00',
    });
    const waiver = (after.body.transactions as Record<string, unknown>[]).at(-1);
    expect(waiver).toMatchObject({
      type: { id: 9, code: 'loanTransactionType.waiveCharges', value: 'Waive loan charges' },
      amount: '20.00',
      feeChargesPortion: '20.00',
      principalPortion: '0.00',
      outstandingLoanBalance: '200.00',
    });
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/charges/${loanChargeId}`);
    expect(read.body).toMatchObject({ amountWaived: '20.00', amountOutstanding: '0.00', waived: true });
    const summary = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary`);
    expect(summary.status).toBe(200);
    expect(summary.body.balances).toMatchObject({
      principalOutstanding: '200.00',
      feeOutstanding: '0.00',
      totalOutstanding: '200.00',
    });

    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges/${loanChargeId}?command=waive`),
      409,
      'error.msg.loan.charge.already.waived',
    );
    const events = await eventsOf(loanId);
    expect(events.map((e) => e.event_type)).toEqual(['loan.charge.added', 'loan.charge.waived']);
    expect(events[0]!.data).toMatchObject({
      loanChargeId,
      chargeId,
      amount: '20.00',
      currency: 'EUR',
      installmentNumber: 2,
    });
    expect(events[1]!.data).toMatchObject({ loanChargeId, amountWaived: '20.00', currency: 'EUR' });
  });

  it('a waiver is dated its transactionDate, or the charge due date when earlier (Fineract waiveLoanCharge)', async () => {
    const loanId = await activeLoan();
    const chargeId = await charge();
    const add = async (dueDate: string) => {
      const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, { chargeId, dueDate });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.resourceId as number;
    };
    const early = await add('2023-10-20');
    const late = await add('2023-11-15');
    const waive = (loanChargeId: number, body?: unknown) =>
      call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges/${loanChargeId}?command=waive`, body);
    // refused, nothing changed: a date after today, before the disbursement, unreadable, an unknown field
    expectShapeA(
      await waive(early, { transactionDate: '2999-01-01' }),
      400,
      'validation.msg.validation.errors.exist',
      ['transactionDate'],
    );
    expectShapeA(
      await waive(early, { transactionDate: '2023-09-30' }),
      400,
      'validation.msg.validation.errors.exist',
      ['transactionDate'],
    );
    expectShapeA(
      await waive(early, { transactionDate: '30th of May' }),
      400,
      'validation.msg.validation.errors.exist',
      ['transactionDate'],
    );
    expectShapeA(
      await waive(early, { transactionDate: '2023-10-25', note: 'x' }),
      400,
      'validation.msg.validation.errors.exist',
    );
    const before = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/charges/${early}`);
    expect(before.body).toMatchObject({ waived: false, amountWaived: '0.00' });

    expect((await waive(early, { transactionDate: '2023-10-25' })).status).toBe(200);
    expect(
      (await waive(late, { transactionDate: '05 November 2023', dateFormat: 'dd MMMM yyyy', locale: 'en' }))
        .status,
    ).toBe(200);
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=transactions`);
    const waivers = (
      loan.body.transactions as { type: { id: number }; date: string; amount: string }[]
    ).filter((t) => t.type.id === 9);
    expect(waivers.map((t) => t.date).sort()).toEqual(['2023-10-20', '2023-11-05']);
    const events = (await eventsOf(loanId)).filter((e) => e.event_type === 'loan.charge.waived');
    expect(events.map((e) => e.data.waivedOnDate)).toEqual(['2023-10-20', '2023-11-05']);
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });

  it('a closed loan takes a charge after maturity on an N+1 installment and reopens (LoanCharge.feature, LP1)', async () => {
    const loanId = await activeLoan();
    await pay(loanId, '2023-10-31', '1000.00');
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loanId}`)).body.status.code).toBe(
      'loanStatusType.closed.obligations.met',
    );
    await addFeeAfterMaturity(loanId);
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
    expect(loan.body.status.code).toBe('loanStatusType.active');
    const periods = loan.body.repaymentSchedule.periods as Record<string, unknown>[];
    expect(periods).toHaveLength(3);
    expect(periods[1]).toMatchObject({
      period: 1,
      dueDate: '2023-10-31',
      obligationsMetOnDate: '2023-10-31',
      totalDueForPeriod: '1000.00',
      totalPaidForPeriod: '1000.00',
      totalOutstandingForPeriod: '0.00',
    });
    expect(periods[2]).toMatchObject({
      period: 2,
      daysInPeriod: 1,
      dueDate: '2023-11-01',
      obligationsMetOnDate: null,
      principalDue: '0.00',
      feeChargesDue: '20.00',
      totalDueForPeriod: '20.00',
      totalPaidForPeriod: '0.00',
      totalOutstandingForPeriod: '20.00',
    });
    expect(loan.body.repaymentSchedule).toMatchObject({
      totalRepaymentExpected: '1020.00',
      totalOutstanding: '20.00',
    });
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });

  it('an overpaid loan pays a charge added to it from its overpayment', async () => {
    const loanId = await activeLoan();
    await pay(loanId, '2023-10-31', '1030.00');
    const before = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary`);
    expect(before.body.balances.overpayment).toBe('30.00');
    const added = await addFeeAfterMaturity(loanId);
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
    expect(loan.body.status.code).toBe('loanStatusType.overpaid');
    const periods = loan.body.repaymentSchedule.periods as Record<string, unknown>[];
    expect(periods[2]).toMatchObject({
      feeChargesDue: '20.00',
      totalPaidForPeriod: '20.00',
      totalOutstandingForPeriod: '0.00',
    });
    const repayment = (loan.body.transactions as Record<string, unknown>[]).find(
      (t) => (t.type as { id: number }).id === 2,
    );
    expect(repayment).toMatchObject({
      amount: '1030.00',
      principalPortion: '1000.00',
      feeChargesPortion: '20.00',
    });
    const after = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary`);
    expect(after.body.balances).toMatchObject({ overpayment: '10.00', totalOutstanding: '0.00' });
    const read = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/charges/${added.body.resourceId}`);
    expect(read.body).toMatchObject({ amountPaid: '20.00', amountOutstanding: '0.00', paid: true });
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });

  it('a back-dated charge takes money from later payments (re-posted in date order); a paid charge cannot be waived', async () => {
    const loanId = await activeLoan();
    await pay(loanId, '2023-10-20', '500.00');
    const chargeId = await charge({ name: 'NSF fee', amount: '10', penalty: true });
    const added = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, {
      chargeId,
      dueDate: '2023-10-05',
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=all`);
    // mifos-standard-strategy: penalties first, so the 20 October payment now pays the 10.00 penalty
    expect(loan.body.transactions[1]).toMatchObject({
      penaltyChargesPortion: '10.00',
      principalPortion: '490.00',
    });
    expect(loan.body.repaymentSchedule.periods[1]).toMatchObject({
      penaltyChargesDue: '10.00',
      penaltyChargesPaid: '10.00',
    });
    expect(await trialBalanceOf(loanId)).toBe(0n);
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges/${added.body.resourceId}?command=waive`),
      409,
      'error.msg.loan.charge.already.paid',
    );
  });

  it('is idempotent: the same Idempotency-Key answers the first charge, the operation replays its request key', async () => {
    const loanId = await activeLoan();
    const chargeId = await charge();
    const body = { chargeId, dueDate: '2023-10-15' };
    const key = { 'idempotency-key': `lchg-${ref('k')}` };
    const first = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, body, key);
    const second = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, body, key);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(second.body).toEqual(first.body);
    const input = {
      tenantId: cred.tenant,
      requestKey: `direct/${ref('k')}`,
      loanId,
      chargeId,
      dueDate: '2023-10-16',
    };
    const added = await ctx.activities.addLoanCharge(input);
    const replayed = await ctx.activities.addLoanCharge(input);
    expect(added.created).toBe(true);
    expect(replayed).toEqual({ ...added, created: false });
    expect((await call(ctx, cred, 'GET', `/v1/loans/${loanId}/charges`)).body).toHaveLength(2);
  });

  it('a later funding regenerates the schedule on the funded principal and keeps the added charges', async () => {
    const loanId = await approvedLoan();
    const fund = async (amount: string) => {
      const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
        amount,
        currency: 'EUR',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
        recipientRef: 'borrower-primary',
        externalRecordRef: ref('fund'),
        reason: 'Disbursed by the originating bank',
        fundingDate: '2023-10-01',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    };
    await fund('600.00');
    const chargeId = await charge();
    for (const dueDate of ['2023-10-10', '2023-11-05']) {
      const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, { chargeId, dueDate });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    await fund('400.00');
    const loan = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule`);
    expect(
      (loan.body.repaymentSchedule.periods.slice(1) as Record<string, unknown>[]).map((p) => [
        p.period,
        p.dueDate,
        p.principalDue,
        p.feeChargesDue,
      ]),
    ).toEqual([
      [1, '2023-10-31', '1000.00', '20.00'],
      [2, '2023-11-05', '0.00', '20.00'],
    ]);
    expect(await trialBalanceOf(loanId)).toBe(0n);
  });

  it('refuses what Fineract refuses, naming the field; another tenant sees 404', async () => {
    const loanId = await activeLoan();
    const path = `/v1/loans/${loanId}/charges`;
    const fee = await charge();
    const refuse = async (body: Record<string, unknown>, field: string, code: string) => {
      const res = expectShapeA(
        await call(ctx, cred, 'POST', path, body),
        400,
        'validation.msg.validation.errors.exist',
        [field],
      );
      expect(res.errors[0]).toMatchObject({ userMessageGlobalisationCode: code });
    };
    await refuse(
      { chargeId: await charge({ active: false }), dueDate: '2023-10-10' },
      'chargeId',
      'error.msg.charge.is.not.active',
    );
    await refuse(
      { chargeId: await charge({ currencyCode: 'USD' }), dueDate: '2023-10-10' },
      'chargeId',
      'validation.msg.loancharge.currency.mismatch',
    );
    await refuse(
      { chargeId: await charge({ chargeTimeType: 1 }), dueDate: '2023-10-10' },
      'chargeId',
      'validation.msg.loancharge.chargeTimeType.not.allowed',
    );
    await refuse(
      { chargeId: fee, dueDate: '2023-09-30' },
      'dueDate',
      'error.msg.loanCharge.cannot.be.added.as.specified.due.date.outside.range',
    );
    await refuse(
      { chargeId: fee, dueDate: 'next week' },
      'dueDate',
      'validation.msg.validation.errors.exist',
    );
    await refuse(
      { chargeId: fee, dueDate: '2023-10-10', amount: '1.234' },
      'amount',
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, { chargeId: fee, dueDate: '2023-10-10', color: 'red' }),
      400,
      'validation.msg.validation.errors.exist',
      ['color'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, { chargeId: 99_999_999, dueDate: '2023-10-10' }),
      404,
      'error.msg.resource.not.found',
      ['chargeId'],
    );

    const notActive = await approvedLoan();
    const res = expectShapeA(
      await call(ctx, cred, 'POST', `/v1/loans/${notActive}/charges`, {
        chargeId: fee,
        dueDate: '2023-10-10',
      }),
      400,
      'validation.msg.validation.errors.exist',
      ['loanId'],
    );
    expect(res.errors[0]).toMatchObject({
      userMessageGlobalisationCode: 'error.msg.loanCharge.cannot.be.added.as.loan.is.not.active',
    });

    expectShapeA(
      await call(ctx, other, 'POST', path, { chargeId: fee, dueDate: '2023-10-10' }),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(await call(ctx, other, 'GET', path), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, cred, 'GET', `${path}/99999999`), 404, 'error.msg.resource.not.found');
    expectShapeA(
      await call(ctx, cred, 'POST', `${path}/1?command=pay`),
      400,
      'validation.msg.validation.errors.exist',
      ['command'],
    );
    const events = await eventsOf(loanId);
    expect(events).toEqual([]);
  });
});
