/**
 * The sandbox payment rail (activities/payments/sandbox-rail.ts) on the real PostgreSQL of the global setup: submit
 * idempotent by (tenant, paymentId), the test tokens' declines, provider-side outcomes recorded idempotently
 * and seen in the settlement report, cancellation rules, and row-level security between tenants.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RailSubmitRequest } from '../../activities/payments/rail';
import { createSandboxRail, type SandboxRail } from '../../activities/payments/sandbox-rail';
import { sandboxRailTransfers } from '../../db/schema';
import { withPlatformTransaction, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
import { findSensitiveData } from '../../domain/sensitive-data';
import { type ActivityHarness, createHarness, expectDomainError, newTenantId } from './helpers';

let h: ActivityHarness;
let rail: SandboxRail;
let nextPaymentId = 1;

beforeAll(() => {
  h = createHarness();
  rail = createSandboxRail(h.db, { clock: () => h.now.value ?? new Date() });
});
afterAll(async () => h?.close());

function request(tenantId: string, overrides: Partial<RailSubmitRequest> = {}): RailSubmitRequest {
  return {
    tenantId,
    paymentId: nextPaymentId++,
    rail: 'ACH',
    amount: '100.00',
    currency: 'USD',
    instrument: { providerTokenRef: 'tok_bank_ok', instrumentType: 'BANK_ACCOUNT' },
    effectiveDate: '2026-11-23',
    ...overrides,
  };
}

/** Rows of (tenant, paymentId) seen by the owner role, RLS aside. */
async function rowsOf(tenantId: string, paymentId: number) {
  return withPlatformTransaction(h.db, (tx) =>
    tx
      .select()
      .from(sandboxRailTransfers)
      .where(and(eq(sandboxRailTransfers.tenantId, tenantId), eq(sandboxRailTransfers.paymentId, paymentId))),
  );
}

describe('submit', () => {
  it('is idempotent by (tenant, paymentId): the same providerRef and outcome, one row', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    const first = await rail.submit(input);
    const second = await rail.submit({ ...input, amount: '100' });
    expect(first).toEqual({ providerRef: second.providerRef, status: 'SUBMITTED' });
    expect(second).toEqual(first);
    expect(first.providerRef).toMatch(/^sbx_ach_[a-z]{20}$/);
    expect(findSensitiveData(first.providerRef)).toBeNull();
    const rows = await rowsOf(tenantId, input.paymentId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      status: 'SUBMITTED',
      amount: '100.000000',
      rail: 'ACH',
      effectiveDate: '2026-11-23',
    });
  });

  it('answers concurrent submits of one payment alike, with one row', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    const results = await Promise.all(Array.from({ length: 5 }, () => rail.submit(input)));
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(await rowsOf(tenantId, input.paymentId)).toHaveLength(1);
  });

  it('refuses the same paymentId with other content (422) and writes nothing', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    await rail.submit(input);
    await expectDomainError(rail.submit({ ...input, amount: '100.01' }), 'idempotency.key.payload.mismatch');
    await expectDomainError(rail.submit({ ...input, rail: 'WIRE' }), 'idempotency.key.payload.mismatch');
    const rows = await rowsOf(tenantId, input.paymentId);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.amount).toBe('100.000000');
  });

  it('gives another tenant its own transfer and reference for the same paymentId', async () => {
    const a = request(newTenantId('rail'));
    const b = { ...a, tenantId: newTenantId('rail') };
    const [ra, rb] = [await rail.submit(a), await rail.submit(b)];
    expect(ra.providerRef).not.toBe(rb.providerRef);
  });

  it('declines the test tokens deterministically, and again on a repeat', async () => {
    const tenantId = newTenantId('rail');
    const card = { providerTokenRef: 'tok_decline', instrumentType: 'DEBIT_CARD' };
    const declined = request(tenantId, { rail: 'DEBIT_CARD', instrument: card });
    const first = await rail.submit(declined);
    expect(first).toMatchObject({ status: 'DECLINED', declineReason: 'card_declined' });
    expect(first.providerRef).toMatch(/^sbx_debit_card_[a-z]{20}$/);
    expect(await rail.submit(declined)).toEqual(first);

    const insufficient = await rail.submit(
      request(tenantId, {
        rail: 'DEBIT_CARD',
        instrument: { providerTokenRef: 'tok_decline_insufficient_funds', instrumentType: 'DEBIT_CARD' },
      }),
    );
    expect(insufficient).toMatchObject({ status: 'DECLINED', declineReason: 'insufficient_funds' });

    for (const instantRail of ['RTP', 'FEDNOW'] as const) {
      const rejected = await rail.submit(
        request(tenantId, {
          rail: instantRail,
          instrument: { providerTokenRef: 'tok_rtp_reject', instrumentType: 'BANK_ACCOUNT' },
        }),
      );
      expect(rejected).toMatchObject({ status: 'DECLINED', declineReason: 'rejected_by_receiving_bank' });
    }

    // The card token means nothing on ACH; a card on ACH is refused as an instrument the rail cannot use.
    const ach = await rail.submit(
      request(tenantId, { instrument: { providerTokenRef: 'tok_decline', instrumentType: 'BANK_ACCOUNT' } }),
    );
    expect(ach.status).toBe('SUBMITTED');
    const cardOnAch = await rail.submit(request(tenantId, { instrument: card }));
    expect(cardOnAch).toMatchObject({
      status: 'DECLINED',
      declineReason: 'instrument_not_supported_by_rail',
    });
    const goodCard = await rail.submit(
      request(tenantId, {
        rail: 'DEBIT_CARD',
        instrument: { providerTokenRef: 'tok_visa', instrumentType: 'DEBIT_CARD' },
      }),
    );
    expect(goodCard.status).toBe('SUBMITTED');
  });

  it('refuses a malformed request with a 400 naming the field, writing nothing', async () => {
    const tenantId = newTenantId('rail');
    const cases: [Partial<RailSubmitRequest>, string][] = [
      [{ amount: '10.001' }, 'amount'],
      [{ amount: '0.00' }, 'amount'],
      [{ amount: '-5' }, 'amount'],
      [{ amount: '10000000000000.00' }, 'amount'],
      [{ currency: 'XXZ' }, 'currency'],
      [{ paymentId: 0 }, 'paymentId'],
      [{ rail: 'SEPA' as never }, 'rail'],
      [{ effectiveDate: '2026-02-30' }, 'effectiveDate'],
      [
        { instrument: { providerTokenRef: '', instrumentType: 'BANK_ACCOUNT' } },
        'instrument.providerTokenRef',
      ],
    ];
    for (const [overrides, field] of cases) {
      const input = request(tenantId, overrides);
      const err = await expectDomainError(rail.submit(input), 'validation.msg.validation.errors.exist');
      expect(err.errors[0]?.parameterName, field).toBe(field);
      if (Number.isSafeInteger(input.paymentId) && input.paymentId > 0) {
        expect(await rowsOf(tenantId, input.paymentId)).toHaveLength(0);
      }
    }
  });
});

describe('provider-side outcomes and the settlement report', () => {
  it('records a settlement once and reports it on its date', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    const { providerRef } = await rail.submit(input);
    const settle = { tenantId, paymentId: input.paymentId, amount: '100.00', settledOn: '2026-11-24' };
    const first = await rail.recordSandboxSettlement(settle);
    expect(first.result).toBe('RECORDED');
    expect(first.transfer).toMatchObject({
      status: 'SETTLED',
      settledAmount: '100.00',
      settledOn: '2026-11-24',
    });
    expect((await rail.recordSandboxSettlement({ ...settle, amount: '100' })).result).toBe(
      'ALREADY_RECORDED',
    );
    const other = await rail.recordSandboxSettlement({ ...settle, amount: '90.00' });
    expect(other.result).toBe('REFUSED');
    expect(other.transfer.settledAmount).toBe('100.00');

    expect(await rail.settlementReport({ tenantId, from: '2026-11-24', to: '2026-11-24' })).toEqual([
      {
        providerRef,
        paymentId: input.paymentId,
        rail: 'ACH',
        status: 'SETTLED',
        amount: '100.00',
        currency: 'USD',
        settledOn: '2026-11-24',
        reportedOn: '2026-11-24',
      },
    ]);
    expect(await rail.settlementReport({ tenantId, from: '2026-11-25', to: '2026-11-30' })).toEqual([]);
    expect(
      await rail.settlementReport({ tenantId, rail: 'WIRE', from: '2026-11-01', to: '2026-11-30' }),
    ).toEqual([]);
  });

  it('reports a settlement of another amount than submitted (a mismatch to reconcile)', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId, { rail: 'WIRE', amount: '250.00' });
    await rail.submit(input);
    await rail.recordSandboxSettlement({
      tenantId,
      paymentId: input.paymentId,
      amount: '249.5',
      settledOn: '2026-11-23',
    });
    const [entry] = await rail.settlementReport({ tenantId, from: '2026-11-23', to: '2026-11-23' });
    expect(entry).toMatchObject({ status: 'SETTLED', amount: '249.50', rail: 'WIRE' });
    expect((await rail.getSandboxTransfer({ tenantId, paymentId: input.paymentId }))?.amount).toBe('250.00');
  });

  it('records a return of a settled transfer once; the report has both lines on their dates', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    const { providerRef } = await rail.submit(input);
    const ret = { tenantId, paymentId: input.paymentId, returnCode: 'R01', returnedOn: '2026-11-25' };
    const early = await rail.recordSandboxReturn(ret);
    expect(early).toMatchObject({ result: 'REFUSED', transfer: { status: 'SUBMITTED' } });

    await rail.recordSandboxSettlement({
      tenantId,
      paymentId: input.paymentId,
      amount: '100.00',
      settledOn: '2026-11-24',
    });
    expect((await rail.recordSandboxReturn({ ...ret, returnCode: 'R99' })).result).toBe('REFUSED');
    expect((await rail.recordSandboxReturn({ ...ret, returnCode: 'A' })).result).toBe('REFUSED');
    expect((await rail.recordSandboxReturn({ ...ret, returnedOn: '2026-11-23' })).result).toBe('REFUSED');
    const recorded = await rail.recordSandboxReturn(ret);
    expect(recorded).toMatchObject({
      result: 'RECORDED',
      transfer: { status: 'RETURNED', returnCode: 'R01' },
    });
    expect((await rail.recordSandboxReturn(ret)).result).toBe('ALREADY_RECORDED');
    expect((await rail.recordSandboxReturn({ ...ret, returnCode: 'R02' })).result).toBe('REFUSED');
    expect(
      (
        await rail.recordSandboxSettlement({
          tenantId,
          paymentId: input.paymentId,
          amount: '100.00',
          settledOn: '2026-11-24',
        })
      ).result,
    ).toBe('ALREADY_RECORDED');

    const report = await rail.settlementReport({ tenantId, from: '2026-11-01', to: '2026-11-30' });
    expect(report.map((e) => [e.status, e.reportedOn, e.amount])).toEqual([
      ['SETTLED', '2026-11-24', '100.00'],
      ['RETURNED', '2026-11-25', '100.00'],
    ]);
    expect(report[1]).toEqual({
      providerRef,
      paymentId: input.paymentId,
      rail: 'ACH',
      status: 'RETURNED',
      amount: '100.00',
      currency: 'USD',
      settledOn: '2026-11-24',
      returnCode: 'R01',
      returnedOn: '2026-11-25',
      reportedOn: '2026-11-25',
    });
    expect(
      (await rail.settlementReport({ tenantId, from: '2026-11-25', to: '2026-11-25' })).map((e) => e.status),
    ).toEqual(['RETURNED']);
  });

  it('relays a late return (the workflow decides whether it is accepted)', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    await rail.submit(input);
    await rail.recordSandboxSettlement({
      tenantId,
      paymentId: input.paymentId,
      amount: '100.00',
      settledOn: '2026-11-24',
    });
    const late = await rail.recordSandboxReturn({
      tenantId,
      paymentId: input.paymentId,
      returnCode: 'R10',
      returnedOn: '2027-01-24',
    });
    expect(late.result).toBe('RECORDED');
  });

  it('refuses returns on a rail without returns', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId, { rail: 'RTP' });
    await rail.submit(input);
    await rail.recordSandboxSettlement({
      tenantId,
      paymentId: input.paymentId,
      amount: '100.00',
      settledOn: '2026-11-23',
    });
    const refused = await rail.recordSandboxReturn({
      tenantId,
      paymentId: input.paymentId,
      returnCode: 'R01',
      returnedOn: '2026-11-23',
    });
    expect(refused).toMatchObject({ result: 'REFUSED', transfer: { status: 'SETTLED' } });
  });

  it('records a failure before settlement once and reports it', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    const { providerRef } = await rail.submit(input);
    const fail = { tenantId, paymentId: input.paymentId, reason: 'account_closed', failedOn: '2026-11-24' };
    expect((await rail.recordSandboxFailure(fail)).result).toBe('RECORDED');
    expect((await rail.recordSandboxFailure(fail)).result).toBe('ALREADY_RECORDED');
    expect((await rail.recordSandboxFailure({ ...fail, reason: 'other' })).result).toBe('REFUSED');
    const settle = await rail.recordSandboxSettlement({
      tenantId,
      paymentId: input.paymentId,
      amount: '100.00',
      settledOn: '2026-11-24',
    });
    expect(settle).toMatchObject({ result: 'REFUSED', transfer: { status: 'FAILED' } });
    expect(await rail.settlementReport({ tenantId, from: '2026-11-24', to: '2026-11-24' })).toEqual([
      {
        providerRef,
        paymentId: input.paymentId,
        rail: 'ACH',
        status: 'FAILED',
        amount: '100.00',
        currency: 'USD',
        settledOn: null,
        failureReason: 'account_closed',
        failedOn: '2026-11-24',
        reportedOn: '2026-11-24',
      },
    ]);
  });

  it('refuses a failure reason carrying an account number, and outcomes of an unknown payment (404)', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    await rail.submit(input);
    await expectDomainError(
      rail.recordSandboxFailure({
        tenantId,
        paymentId: input.paymentId,
        reason: 'account 123456789012 closed',
      }),
      'validation.msg.validation.errors.exist',
    );
    await expectDomainError(
      rail.recordSandboxSettlement({ tenantId, paymentId: 999_999, amount: '1.00', settledOn: '2026-11-24' }),
      'error.msg.resource.not.found',
    );
    await expectDomainError(
      rail.recordSandboxSettlement({
        tenantId,
        paymentId: input.paymentId,
        amount: '1.001',
        settledOn: '2026-11-24',
      }),
      'validation.msg.validation.errors.exist',
    );
    expect((await rail.getSandboxTransfer({ tenantId, paymentId: input.paymentId }))?.status).toBe(
      'SUBMITTED',
    );
  });

  it('refuses a report with to before from', async () => {
    const err = await expectDomainError(
      rail.settlementReport({ tenantId: newTenantId('rail'), from: '2026-11-24', to: '2026-11-23' }),
      'validation.msg.validation.errors.exist',
    );
    expect(err).toBeInstanceOf(DomainError);
  });
});

describe('cancel', () => {
  it('cancels an ACH transfer before its settlement date, idempotently; a cancelled one never settles', async () => {
    const tenantId = newTenantId('rail');
    h.now.value = new Date('2026-11-23T15:00:00Z'); // Monday, 10:00 in New York
    try {
      const input = request(tenantId);
      const { providerRef } = await rail.submit(input);
      const cancel = { tenantId, paymentId: input.paymentId, providerRef };
      expect(await rail.cancel(cancel)).toEqual({ cancelled: true });
      expect(await rail.cancel(cancel)).toEqual({ cancelled: true });
      const settle = await rail.recordSandboxSettlement({
        tenantId,
        paymentId: input.paymentId,
        amount: '100.00',
        settledOn: '2026-11-24',
      });
      expect(settle).toMatchObject({ result: 'REFUSED', transfer: { status: 'CANCELLED' } });
      // A repeated submit still answers what submit answered.
      expect(await rail.submit(input)).toEqual({ providerRef, status: 'SUBMITTED' });
    } finally {
      h.now.value = null;
    }
  });

  it('cannot cancel once the settlement date has come, nor an instant, wire or check transfer, nor a settled one', async () => {
    const tenantId = newTenantId('rail');
    h.now.value = new Date('2026-11-23T15:00:00Z');
    try {
      const ach = request(tenantId);
      const achRef = (await rail.submit(ach)).providerRef;
      const others = await Promise.all(
        (['RTP', 'FEDNOW', 'WIRE', 'CHECK'] as const).map(async (r) => {
          const input = request(tenantId, { rail: r });
          return { input, providerRef: (await rail.submit(input)).providerRef };
        }),
      );
      for (const { input, providerRef } of others) {
        expect(await rail.cancel({ tenantId, paymentId: input.paymentId, providerRef }), input.rail).toEqual({
          cancelled: false,
        });
      }
      const settled = request(tenantId);
      const settledRef = (await rail.submit(settled)).providerRef;
      await rail.recordSandboxSettlement({
        tenantId,
        paymentId: settled.paymentId,
        amount: '100.00',
        settledOn: '2026-11-23',
      });
      expect(await rail.cancel({ tenantId, paymentId: settled.paymentId, providerRef: settledRef })).toEqual({
        cancelled: false,
      });

      h.now.value = new Date('2026-11-24T15:00:00Z'); // the ACH settlement date
      expect(await rail.cancel({ tenantId, paymentId: ach.paymentId, providerRef: achRef })).toEqual({
        cancelled: false,
      });
      expect((await rail.getSandboxTransfer({ tenantId, paymentId: ach.paymentId }))?.status).toBe(
        'SUBMITTED',
      );
    } finally {
      h.now.value = null;
    }
  });

  it('answers 404 for an unknown transfer or a providerRef of another payment', async () => {
    const tenantId = newTenantId('rail');
    const input = request(tenantId);
    const { providerRef } = await rail.submit(input);
    await expectDomainError(
      rail.cancel({ tenantId, paymentId: 999_999, providerRef }),
      'error.msg.resource.not.found',
    );
    await expectDomainError(
      rail.cancel({ tenantId, paymentId: input.paymentId, providerRef: 'sbx_ach_other' }),
      'error.msg.resource.not.found',
    );
  });
});

describe('row-level security', () => {
  it("another tenant sees none of a tenant's transfers, by report, by read or by outcome", async () => {
    const tenantA = newTenantId('rail-a');
    const tenantB = newTenantId('rail-b');
    const input = request(tenantA);
    await rail.submit(input);
    await rail.recordSandboxSettlement({
      tenantId: tenantA,
      paymentId: input.paymentId,
      amount: '100.00',
      settledOn: '2026-11-24',
    });
    expect(
      await rail.settlementReport({ tenantId: tenantA, from: '2026-11-24', to: '2026-11-24' }),
    ).toHaveLength(1);
    expect(await rail.settlementReport({ tenantId: tenantB, from: '2000-01-01', to: '2100-12-31' })).toEqual(
      [],
    );
    expect(await rail.getSandboxTransfer({ tenantId: tenantB, paymentId: input.paymentId })).toBeNull();
    await expectDomainError(
      rail.recordSandboxFailure({ tenantId: tenantB, paymentId: input.paymentId, reason: 'x' }),
      'error.msg.resource.not.found',
    );
    expect((await rowsOf(tenantA, input.paymentId))[0]?.status).toBe('SETTLED');
    // A query without any tenant filter, in tenant B's transaction, still sees only tenant B's rows.
    const owners = await withTenantTransaction(h.db, tenantB, (tx) =>
      tx.select({ tenantId: sandboxRailTransfers.tenantId }).from(sandboxRailTransfers),
    );
    expect(owners.filter((o) => o.tenantId !== tenantB)).toEqual([]);
    const ownersA = await withTenantTransaction(h.db, tenantA, (tx) =>
      tx.select({ tenantId: sandboxRailTransfers.tenantId }).from(sandboxRailTransfers),
    );
    expect(ownersA.map((o) => o.tenantId)).toEqual([tenantA]);
  });
});
