/**
 * Merchant advances through the app on the real database (api/routes/lending/merchant-advances.ts; docs/processes.md
 * P6): create and its 400s naming fields, reported sales (period rules, replay, conflicts), remittances recorded as
 * external (replay by externalRecordRef, conflicts, partial remittances, above outstanding), a returned remittance
 * (reversal, posted falls, unmatched), the reconciliation's exact shape with matched and unmatched periods and
 * HALF_EVEN rounding, Idempotency-Key replays, cross-tenant 404, 403 without permission, events, and the journal
 * (read through `GET /v1/journalentries?advanceId=`) balancing to zero.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { parseDecimalToMinor } from '../../domain/money';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { expectShapeA, type Json, newKey } from './helpers';

const lending = { scopes: ['lending:read', 'lending:write'] };

let ctx: TestContext;
let cred: Credential;
let other: Credential;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('mca'), lending);
  other = await credentialFor(ctx, uniqueTenant('mca-other'), lending);
});
afterAll(async () => ctx?.close());

let counter = 0;
const ref = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

async function newCustomer(c: Credential = cred): Promise<number> {
  const res = await call(ctx, c, 'POST', '/v1/customers', { firstName: 'Mara', lastName: 'Merchant' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.customerId as number;
}

const advanceBody = (customerId: number, overrides: Record<string, unknown> = {}) => ({
  customerId,
  advanceAmount: '10000.00',
  purchasedAmount: '12500.00',
  holdbackRate: '0.1',
  currency: 'USD',
  remittanceFrequency: 'DAILY',
  ...overrides,
});

async function newAdvance(overrides: Record<string, unknown> = {}, c: Credential = cred): Promise<Json> {
  const res = await call(
    ctx,
    c,
    'POST',
    '/v1/merchant-advances',
    advanceBody(await newCustomer(c), overrides),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const sales = (advanceId: string, day: string, amount: string, sourceRef = ref('pos')) =>
  call(ctx, cred, 'POST', `/v1/merchant-advances/${advanceId}/reported-sales`, {
    periodStart: day,
    periodEnd: day,
    amount,
    sourceRef,
  });

const remit = (advanceId: string, day: string, amount: string, externalRecordRef = ref('rem')) =>
  call(ctx, cred, 'POST', `/v1/merchant-advances/${advanceId}/remittances/record-external`, {
    periodStart: day,
    periodEnd: day,
    amount,
    externalRecordRef,
    effectiveDate: day,
  });

/** A record-external remittance body for 2025-03-04 (1.00, a fresh externalRecordRef) with `overrides`. */
const remittanceBody = (overrides: Record<string, unknown>) => ({
  periodStart: '2025-03-04',
  periodEnd: '2025-03-04',
  amount: '1.00',
  externalRecordRef: ref('rem'),
  effectiveDate: '2025-03-04',
  ...overrides,
});

async function reconciliation(advanceId: string): Promise<Json> {
  const res = await call(ctx, cred, 'GET', `/v1/merchant-advances/${advanceId}/reconciliation`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Σ debit − Σ credit of the advance's journal lines (as listed by `GET /v1/journalentries?advanceId=`), minor units. */
async function journalOf(advanceId: string): Promise<{ lines: Json[]; balanceMinor: bigint }> {
  const res = await call(ctx, cred, 'GET', `/v1/journalentries?advanceId=${advanceId}&limit=200`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  let balance = 0n;
  for (const line of res.body.pageItems) {
    balance += parseDecimalToMinor(line.debit, 2) - parseDecimalToMinor(line.credit, 2);
  }
  return { lines: res.body.pageItems, balanceMinor: balance };
}

async function tenantTrialBalance(tenant: string): Promise<bigint> {
  const [row] = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx.execute<{ balance: string }>(
      sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries`,
    ),
  );
  return parseDecimalToMinor(row!.balance, 6);
}

async function eventsOf(tenant: string, subjectId: string): Promise<string[]> {
  const rows = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx.execute<{ event_type: string }>(
      sql`select event_type from outbox_events where subject_id = ${subjectId} order by id`,
    ),
  );
  return rows.map((r) => r.event_type);
}

describe('POST /v1/merchant-advances and GET /v1/merchant-advances/{advanceId}', () => {
  it('creates an advance → 201 with an opaque id; posts it balanced; replays by Idempotency-Key; reads it', async () => {
    const customerId = await newCustomer();
    const key = newKey();
    const body = advanceBody(customerId);
    const first = await call(ctx, cred, 'POST', '/v1/merchant-advances', body, { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({
      advanceId: expect.stringMatching(/^mca_[a-p]{32}$/),
      customerId,
      advanceAmount: '10000.00',
      purchasedAmount: '12500.00',
      holdbackRate: '0.1000',
      currency: 'USD',
      remittanceFrequency: 'DAILY',
      status: 'ACTIVE',
      remittedAmount: '0.00',
      outstandingAmount: '12500.00',
      fundedOnDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      createdAt: expect.any(String),
    });
    const replay = await call(ctx, cred, 'POST', '/v1/merchant-advances', body, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(replay.body).toEqual(first.body);

    const read = await call(ctx, cred, 'GET', `/v1/merchant-advances/${first.body.advanceId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(first.body);

    const journal = await journalOf(first.body.advanceId);
    expect(journal.balanceMinor).toBe(0n);
    expect(journal.lines.map((l: Json) => [l.transactionRef, l.accountCode, l.debit, l.credit])).toEqual([
      [`merchant-advance/${first.body.advanceId}`, 'MERCHANT_ADVANCE_RECEIVABLE', '12500.00', '0.00'],
      [`merchant-advance/${first.body.advanceId}`, 'EXTERNAL_CLEARING', '0.00', '10000.00'],
      [`merchant-advance/${first.body.advanceId}`, 'MERCHANT_DEFERRED_REVENUE', '0.00', '2500.00'],
    ]);
    expect(await eventsOf(cred.tenant, first.body.advanceId)).toEqual(['merchant.advance.created']);
  });

  it('refuses bad bodies with 400 naming the field, and changes nothing', async () => {
    const customerId = await newCustomer();
    const cases: [Record<string, unknown>, string[]][] = [
      [{ advanceAmount: 10000 }, ['advanceAmount']],
      [{ advanceAmount: '10000.001' }, ['advanceAmount']],
      [{ purchasedAmount: '9999.99' }, ['purchasedAmount']],
      [{ purchasedAmount: '-1' }, ['purchasedAmount']],
      [{ advanceAmount: '-5', purchasedAmount: '1e5' }, ['advanceAmount', 'purchasedAmount']],
      [{ holdbackRate: '0' }, ['holdbackRate']],
      [{ holdbackRate: '1.01' }, ['holdbackRate']],
      [{ holdbackRate: '0.12345' }, ['holdbackRate']],
      [{ holdbackRate: 0.1 }, ['holdbackRate']],
      [{ currency: 'XXQ' }, ['currency']],
      [{ remittanceFrequency: 'MONTHLY' }, ['remittanceFrequency']],
      [{ customerId: 'one' }, ['customerId']],
      [{ surprise: true }, ['surprise']],
    ];
    for (const [overrides, fields] of cases) {
      const res = await call(ctx, cred, 'POST', '/v1/merchant-advances', advanceBody(customerId, overrides));
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', fields);
    }
    // JPY has no minor unit
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        '/v1/merchant-advances',
        advanceBody(customerId, { currency: 'JPY', advanceAmount: '100.5', purchasedAmount: '120' }),
      ),
      400,
      'validation.msg.validation.errors.exist',
      ['advanceAmount'],
    );
    const [row] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx.execute<{ n: number }>(
        sql`select count(*)::int as n from merchant_advances where customer_id = ${customerId}`,
      ),
    );
    expect(row!.n).toBe(0);
    // holdbackRate 1 and purchased = advance are accepted
    const edge = await call(
      ctx,
      cred,
      'POST',
      '/v1/merchant-advances',
      advanceBody(customerId, {
        holdbackRate: '1',
        purchasedAmount: '10000.00',
        remittanceFrequency: 'WEEKLY',
      }),
    );
    expect(edge.status, JSON.stringify(edge.body)).toBe(201);
    expect(edge.body.holdbackRate).toBe('1.0000');
    expect((await journalOf(edge.body.advanceId)).lines).toHaveLength(2);
  });

  it("answers 404 for another tenant's customer and advance, and 403 without the permission", async () => {
    const foreignCustomer = await newCustomer(other);
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/merchant-advances', advanceBody(foreignCustomer)),
      404,
      'error.msg.resource.not.found',
      ['customerId'],
    );
    const advance = await newAdvance({}, other);
    const base = `/v1/merchant-advances/${advance.advanceId}`;
    expectShapeA(await call(ctx, cred, 'GET', base), 404, 'error.msg.resource.not.found');
    expectShapeA(await call(ctx, cred, 'GET', `${base}/reconciliation`), 404, 'error.msg.resource.not.found');
    expectShapeA(await sales(advance.advanceId, '2025-03-03', '100.00'), 404, 'error.msg.resource.not.found');
    expectShapeA(await remit(advance.advanceId, '2025-03-03', '10.00'), 404, 'error.msg.resource.not.found');
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/journalentries?advanceId=${advance.advanceId}`),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/merchant-advances/mca_unknown/reconciliation'),
      404,
      'error.msg.resource.not.found',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', '/v1/merchant-advances/bad%20id/reconciliation'),
      400,
      'validation.msg.validation.errors.exist',
    );

    const readOnly = await credentialFor(ctx, cred.tenant, {
      scopes: ['lending:read', 'lending:write'],
      permissions: ['READ_MERCHANTADVANCE', 'CREATE_CUSTOMER'],
    });
    const mine = await newAdvance();
    expect(
      (await call(ctx, readOnly, 'GET', `/v1/merchant-advances/${mine.advanceId}/reconciliation`)).status,
    ).toBe(200);
    expectShapeA(
      await call(ctx, readOnly, 'POST', '/v1/merchant-advances', advanceBody(await newCustomer())),
      403,
      'error.msg.not.authorized',
    );
    expectShapeA(
      await call(ctx, readOnly, 'POST', `/v1/merchant-advances/${mine.advanceId}/reported-sales`, {
        periodStart: '2025-03-03',
        periodEnd: '2025-03-03',
        amount: '1.00',
        sourceRef: ref('pos'),
      }),
      403,
      'error.msg.not.authorized',
    );
    const noRead = await credentialFor(ctx, cred.tenant, {
      scopes: ['lending:read'],
      permissions: ['READ_CUSTOMER'],
    });
    expectShapeA(
      await call(ctx, noRead, 'GET', `/v1/merchant-advances/${mine.advanceId}/reconciliation`),
      403,
      'error.msg.not.authorized',
    );
  });
});

describe('POST /v1/merchant-advances/{advanceId}/reported-sales', () => {
  it('reports a period → 201 with the HALF_EVEN calculation; a replay answers the first; other content → 409', async () => {
    const advance = await newAdvance();
    const sourceRef = ref('pos');
    const first = await sales(advance.advanceId, '2025-03-03', '1000.05', sourceRef);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toEqual({
      advanceId: advance.advanceId,
      periodStart: '2025-03-03',
      periodEnd: '2025-03-03',
      amount: '1000.05',
      currency: 'USD',
      sourceRef,
      calculatedRemittance: '100.00',
      reportedAt: expect.any(String),
    });
    const again = await sales(advance.advanceId, '2025-03-03', '1000.05', sourceRef);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expectShapeA(
      await sales(advance.advanceId, '2025-03-03', '1000.06', sourceRef),
      409,
      'error.msg.merchant.sales.period.conflict',
    );
    expectShapeA(
      await sales(advance.advanceId, '2025-03-03', '1000.05', ref('pos')),
      409,
      'error.msg.merchant.sales.period.conflict',
    );
    expectShapeA(
      await sales(advance.advanceId, '2025-03-04', '5.00', sourceRef),
      409,
      'error.msg.merchant.sales.period.conflict',
    );
    expect((await sales(advance.advanceId, '2025-03-04', '1000.15')).body.calculatedRemittance).toBe(
      '100.02',
    );
    expect((await sales(advance.advanceId, '2025-03-05', '0')).body).toMatchObject({
      amount: '0.00',
      calculatedRemittance: '0.00',
    });
    const key = newKey();
    const path = `/v1/merchant-advances/${advance.advanceId}/reported-sales`;
    const body = {
      periodStart: '2025-03-06',
      periodEnd: '2025-03-06',
      amount: '10.00',
      sourceRef: ref('pos'),
    };
    const keyed = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': key });
    expect(keyed.status).toBe(201);
    const keyedReplay = await call(ctx, cred, 'POST', path, body, { 'idempotency-key': key });
    expect(keyedReplay.headers.get('x-served-from-cache')).toBe('true');
    expect(keyedReplay.body).toEqual(keyed.body);
    expect(await eventsOf(cred.tenant, advance.advanceId)).toEqual([
      'merchant.advance.created',
      'merchant.sales.reported',
      'merchant.sales.reported',
      'merchant.sales.reported',
      'merchant.sales.reported',
    ]);
  });

  it('enforces the period rules of the frequency, and refuses bad amounts', async () => {
    const daily = await newAdvance();
    const path = `/v1/merchant-advances/${daily.advanceId}/reported-sales`;
    const bad: [Record<string, unknown>, string][] = [
      [{ periodStart: '2025-03-03', periodEnd: '2025-03-04' }, 'periodEnd'],
      [{ periodStart: '2025-03-03', periodEnd: '2025-03-02' }, 'periodEnd'],
      [{ periodStart: '2025-02-30', periodEnd: '2025-03-02' }, 'periodStart'],
      [{ periodStart: '2199-03-03', periodEnd: '2199-03-03' }, 'periodStart'],
      [{ amount: '10.001' }, 'amount'],
      [{ amount: '-5.00' }, 'amount'],
      [{ amount: 5 }, 'amount'],
      [{ sourceRef: '' }, 'sourceRef'],
    ];
    for (const [overrides, field] of bad) {
      const res = await call(ctx, cred, 'POST', path, {
        periodStart: '2025-03-03',
        periodEnd: '2025-03-03',
        amount: '10.00',
        sourceRef: ref('pos'),
        ...overrides,
      });
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [field]);
    }
    const weekly = await newAdvance({ remittanceFrequency: 'WEEKLY' });
    const weeklyPath = `/v1/merchant-advances/${weekly.advanceId}/reported-sales`;
    const week = (periodStart: string, periodEnd: string) =>
      call(ctx, cred, 'POST', weeklyPath, {
        periodStart,
        periodEnd,
        amount: '7000.00',
        sourceRef: ref('wk'),
      });
    expectShapeA(await week('2025-03-03', '2025-03-03'), 400, 'validation.msg.validation.errors.exist', [
      'periodEnd',
    ]);
    expect((await week('2025-03-03', '2025-03-09')).status).toBe(201);
    expectShapeA(await week('2025-03-06', '2025-03-12'), 409, 'error.msg.merchant.period.overlap');
    expect((await week('2025-03-10', '2025-03-16')).status).toBe(201);
    // a remittance for a period cutting across a reported one is refused too
    const cross = await call(
      ctx,
      cred,
      'POST',
      `/v1/merchant-advances/${weekly.advanceId}/remittances/record-external`,
      {
        periodStart: '2025-03-05',
        periodEnd: '2025-03-11',
        amount: '700.00',
        externalRecordRef: ref('rem'),
        effectiveDate: '2025-03-12',
      },
    );
    expectShapeA(cross, 409, 'error.msg.merchant.period.overlap');
  });
});

describe('remittances and the reconciliation', () => {
  it('reconciles matched, short, partial and returned periods with exact shapes, and keeps the ledger balanced', async () => {
    const advance = await newAdvance();
    const id = advance.advanceId;
    // day 1: 1000.05 × 0.1 = 100.005 → 100.00 (HALF_EVEN), remitted 100.00 → matched
    expect((await sales(id, '2025-03-03', '1000.05')).status).toBe(201);
    const day1 = await remit(id, '2025-03-03', '100.00');
    expect(day1.status, JSON.stringify(day1.body)).toBe(201);
    expect(day1.body).toEqual({
      remittanceId: expect.stringMatching(/^mrem_[a-p]{32}$/),
      advanceId: id,
      periodStart: '2025-03-03',
      periodEnd: '2025-03-03',
      amount: '100.00',
      currency: 'USD',
      effectiveDate: '2025-03-03',
      status: 'POSTED',
      returnCode: null,
      returnReason: null,
      returnedAt: null,
      createdAt: expect.any(String),
    });
    // day 2: 1000.15 × 0.1 = 100.015 → 100.02, remitted in two parts 60.00 + 40.02 → matched
    expect((await sales(id, '2025-03-04', '1000.15')).status).toBe(201);
    expect((await remit(id, '2025-03-04', '60.00')).status).toBe(201);
    expect((await remit(id, '2025-03-04', '40.02')).status).toBe(201);

    const matched = await reconciliation(id);
    expect(matched).toEqual({
      advanceId: id,
      status: 'matched',
      periods: [
        {
          periodStart: '2025-03-03',
          periodEnd: '2025-03-03',
          reportedSales: '1000.05',
          calculatedRemittance: '100.00',
          settledRemittance: '100.00',
          postedRemittance: '100.00',
          difference: '0.00',
        },
        {
          periodStart: '2025-03-04',
          periodEnd: '2025-03-04',
          reportedSales: '1000.15',
          calculatedRemittance: '100.02',
          settledRemittance: '100.02',
          postedRemittance: '100.02',
          difference: '0.00',
        },
      ],
    });

    // day 3 (reported out of order, listed by start): short by 5.00
    expect((await sales(id, '2025-03-02', '500.00')).status).toBe(201);
    expect((await remit(id, '2025-03-02', '45.00')).status).toBe(201);
    // externalRecordRef replay and conflict
    const refOnce = ref('rem');
    const onceFirst = await remit(id, '2025-03-05', '20.00', refOnce);
    expect(onceFirst.status).toBe(201);
    const onceAgain = await remit(id, '2025-03-05', '20.00', refOnce);
    expect(onceAgain.status).toBe(201);
    expect(onceAgain.body).toEqual(onceFirst.body);
    expectShapeA(
      await remit(id, '2025-03-05', '21.00', refOnce),
      409,
      'error.msg.external.record.ref.conflict',
    );

    const short = await reconciliation(id);
    expect(short.status).toBe('unmatched');
    expect(
      short.periods.map((p: Json) => [
        p.periodStart,
        p.calculatedRemittance,
        p.postedRemittance,
        p.difference,
      ]),
    ).toEqual([
      ['2025-03-02', '50.00', '45.00', '5.00'],
      ['2025-03-03', '100.00', '100.00', '0.00'],
      ['2025-03-04', '100.02', '100.02', '0.00'],
      // a remittance without reported sales: nothing calculated, overpaid
      ['2025-03-05', '0.00', '20.00', '-20.00'],
    ]);

    // return day 1's remittance: posted and settled fall, the reversal links to the posting
    const returnPath = `/v1/merchant-advances/${id}/remittances/${day1.body.remittanceId}/return`;
    const key = newKey();
    const returned = await call(
      ctx,
      cred,
      'POST',
      returnPath,
      { returnCode: 'R01', reason: 'Insufficient funds' },
      {
        'idempotency-key': key,
      },
    );
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    expect(returned.body).toMatchObject({
      remittanceId: day1.body.remittanceId,
      status: 'RETURNED',
      returnCode: 'R01',
      returnReason: 'Insufficient funds',
      returnedAt: expect.any(String),
    });
    const replayed = await call(
      ctx,
      cred,
      'POST',
      returnPath,
      { returnCode: 'R01', reason: 'Insufficient funds' },
      {
        'idempotency-key': key,
      },
    );
    expect(replayed.headers.get('x-served-from-cache')).toBe('true');
    expect(replayed.body).toEqual(returned.body);
    expectShapeA(
      await call(ctx, cred, 'POST', returnPath, { returnCode: 'R01', reason: 'Again' }),
      409,
      'error.msg.merchant.remittance.invalid.state.transition',
    );
    expectShapeA(
      await call(ctx, cred, 'POST', `/v1/merchant-advances/${id}/remittances/mrem_unknown/return`, {
        returnCode: 'R01',
        reason: 'x',
      }),
      404,
      'error.msg.resource.not.found',
    );
    const afterReturn = await reconciliation(id);
    expect(afterReturn.status).toBe('unmatched');
    expect(afterReturn.periods[1]).toEqual({
      periodStart: '2025-03-03',
      periodEnd: '2025-03-03',
      reportedSales: '1000.05',
      calculatedRemittance: '100.00',
      settledRemittance: '0.00',
      postedRemittance: '0.00',
      difference: '100.00',
    });
    expect(await eventsOf(cred.tenant, day1.body.remittanceId)).toEqual([
      'merchant.remittance.posted',
      'merchant.remittance.returned',
    ]);

    // outstanding: 12500.00 − (60.00 + 40.02 + 45.00 + 20.00) = 12334.98
    const read = await call(ctx, cred, 'GET', `/v1/merchant-advances/${id}`);
    expect(read.body).toMatchObject({
      remittedAmount: '165.02',
      outstandingAmount: '12334.98',
      status: 'ACTIVE',
    });

    const journal = await journalOf(id);
    expect(journal.balanceMinor).toBe(0n);
    const reversal = journal.lines.filter((l: Json) => l.transactionRef.endsWith('/reversal'));
    const posting = journal.lines.filter(
      (l: Json) => l.transactionRef === `merchant-advance/${id}/remittance/${day1.body.remittanceId}`,
    );
    expect(reversal.map((l: Json) => [l.accountCode, l.debit, l.credit])).toEqual([
      ['EXTERNAL_CLEARING', '0.00', '100.00'],
      ['MERCHANT_ADVANCE_RECEIVABLE', '100.00', '0.00'],
    ]);
    expect(reversal.map((l: Json) => l.reversesEntryId)).toEqual(posting.map((l: Json) => l.id));
    // receivable = purchased − remitted
    const receivable = journal.lines
      .filter((l: Json) => l.accountCode === 'MERCHANT_ADVANCE_RECEIVABLE')
      .reduce(
        (sum: bigint, l: Json) => sum + parseDecimalToMinor(l.debit, 2) - parseDecimalToMinor(l.credit, 2),
        0n,
      );
    expect(receivable).toBe(1_233_498n);
    expect(await tenantTrialBalance(cred.tenant)).toBe(0n);
  });

  it('refuses remittances above the outstanding amount, in the future, or with bad fields', async () => {
    const advance = await newAdvance({ advanceAmount: '100.00', purchasedAmount: '120.00' });
    const id = advance.advanceId;
    expectShapeA(
      await remit(id, '2025-03-03', '120.01'),
      409,
      'error.msg.merchant.remittance.exceeds.outstanding',
      ['amount'],
    );
    expect((await remit(id, '2025-03-03', '120.00')).status).toBe(201);
    expect((await call(ctx, cred, 'GET', `/v1/merchant-advances/${id}`)).body).toMatchObject({
      status: 'PAID_OFF',
      outstandingAmount: '0.00',
    });
    expectShapeA(
      await remit(id, '2025-03-04', '0.01'),
      409,
      'error.msg.merchant.remittance.exceeds.outstanding',
    );
    const path = `/v1/merchant-advances/${id}/remittances/record-external`;
    const body = remittanceBody;
    expectShapeA(
      await call(ctx, cred, 'POST', path, body({ effectiveDate: '2199-01-01' })),
      400,
      'validation.msg.validation.errors.exist',
      ['effectiveDate'],
    );
    expectShapeA(
      await call(ctx, cred, 'POST', path, body({ amount: '0' })),
      400,
      'validation.msg.validation.errors.exist',
      ['amount'],
    );
    const idLike = await call(ctx, cred, 'POST', path, body({ externalRecordRef: '123456789012' }));
    const err = expectShapeA(idLike, 400, 'validation.msg.validation.errors.exist', ['externalRecordRef']);
    expect(err.errors[0]!.value).toBeNull();
    expectShapeA(
      await call(ctx, cred, 'POST', path, body({ periodEnd: '2025-03-05' })),
      400,
      'validation.msg.validation.errors.exist',
      ['periodEnd'],
    );
    expect(await tenantTrialBalance(cred.tenant)).toBe(0n);
  });
});

describe('record-external remittance currency', () => {
  it("accepts `currency` as every other record-external body does: the advance's currency is posted; another → 400 naming currency, nothing stored", async () => {
    const advance = await newAdvance();
    const id = advance.advanceId as string;
    const path = `/v1/merchant-advances/${id}/remittances/record-external`;
    const body = remittanceBody;
    const other = advance.currency === 'EUR' ? 'USD' : 'EUR';
    const linesBefore = (await journalOf(id)).lines.length;
    const refused = expectShapeA(
      await call(ctx, cred, 'POST', path, body({ currency: other })),
      400,
      'validation.msg.payment.currency.mismatch',
      ['currency'],
    );
    expect(refused.errors[0]?.developerMessage).toContain(advance.currency as string);
    expect((await journalOf(id)).lines.length).toBe(linesBefore);
    const posted = await call(ctx, cred, 'POST', path, body({ currency: advance.currency }));
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body).toMatchObject({ amount: '1.00', currency: advance.currency, status: 'POSTED' });
    expectShapeA(
      await call(ctx, cred, 'POST', path, body({ currency: 'usd' })),
      400,
      'validation.msg.validation.errors.exist',
      ['currency'],
    );
  });
});
