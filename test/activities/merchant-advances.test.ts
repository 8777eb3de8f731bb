/**
 * Merchant-advance operations on the real database (activities/lending/*merchant*.ts; docs/processes.md P6), each
 * write run twice: a create retried under its request key, a sales report sent again, a remittance replayed by its
 * externalRecordRef and a concurrent pair of remittances under one advance all leave one row, one posting and one
 * event; a return appends exactly one reversal; the journal of the advance balances after every step.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantRemittances, merchantSalesReports } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { parseDecimalToMinor } from '../../domain/money';
import {
  type ActivityHarness,
  createHarness,
  expectDomainError,
  newRequestKey,
  newTenant,
  outboxOf,
} from './helpers';

let h: ActivityHarness;
let tenant: string;
let counter = 0;
const ref = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'mca');
});
afterAll(async () => h?.close());

const context = (requestKey: string | null = newRequestKey()) => ({
  tenantId: tenant,
  requestKey,
  actor: 'agent-4',
});

async function newAdvance(): Promise<string> {
  const { customerId } = await h.activities.createCustomer({
    ...context(),
    firstName: 'Rosa',
    lastName: 'Bakery',
  });
  const advance = await h.activities.createMerchantAdvance({
    ...context(),
    customerId,
    advanceAmount: '1000.00',
    purchasedAmount: '1250.00',
    holdbackRate: '0.1',
    currency: 'USD',
    remittanceFrequency: 'DAILY',
  });
  return advance.advanceId;
}

async function journalOf(advanceId: string): Promise<{ refs: string[]; balance: string }> {
  return withTenantTransaction(h.db, tenant, async (tx) => {
    const rows = await tx.execute<{ transaction_ref: string }>(
      sql`select transaction_ref from journal_entries where starts_with(transaction_ref, ${`merchant-advance/${advanceId}`}) order by id`,
    );
    const [total] = await tx.execute<{ balance: string }>(
      sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries where starts_with(transaction_ref, ${`merchant-advance/${advanceId}`})`,
    );
    return { refs: rows.map((r) => r.transaction_ref), balance: total!.balance };
  });
}

describe('merchant-advance operations, each write run twice', () => {
  it('a create retried under its request key answers the same advance and posts once', async () => {
    const { customerId } = await h.activities.createCustomer({
      ...context(),
      firstName: 'Ana',
      lastName: 'Shop',
    });
    const requestKey = newRequestKey();
    const input = {
      ...context(requestKey),
      customerId,
      advanceAmount: '500.00',
      purchasedAmount: '600.00',
      holdbackRate: '0.15',
      currency: 'USD',
      remittanceFrequency: 'WEEKLY' as const,
    };
    const [first, second] = [
      await h.activities.createMerchantAdvance(input),
      await h.activities.createMerchantAdvance(input),
    ];
    expect(second).toEqual(first);
    const journal = await journalOf(first.advanceId);
    expect(journal.refs).toHaveLength(3);
    expect(parseDecimalToMinor(journal.balance, 6)).toBe(0n);
    expect((await outboxOf(h, tenant, first.advanceId)).map((e) => e.eventType)).toEqual([
      'merchant.advance.created',
    ]);
  });

  it('sales, remittances and returns run twice leave one row, one posting and one event each', async () => {
    const advanceId = await newAdvance();
    const report = {
      ...context(),
      advanceId,
      periodStart: '2025-05-05',
      periodEnd: '2025-05-05',
      amount: '800.05',
      sourceRef: ref('pos'),
    };
    const [r1, r2] = [
      await h.activities.reportMerchantSales(report),
      await h.activities.reportMerchantSales(report),
    ];
    expect(r2).toEqual(r1);
    expect(r1.calculatedRemittance).toBe('80.00');
    const reports = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(merchantSalesReports).where(eq(merchantSalesReports.sourceRef, report.sourceRef)),
    );
    expect(reports).toHaveLength(1);

    const remittance = {
      ...context(),
      advanceId,
      periodStart: '2025-05-05',
      periodEnd: '2025-05-05',
      amount: '80.00',
      externalRecordRef: ref('bank'),
      effectiveDate: '2025-05-06',
    };
    // concurrently, then once more
    const [a, b] = await Promise.all([
      h.activities.recordExternalMerchantRemittance(remittance),
      h.activities.recordExternalMerchantRemittance(remittance),
    ]);
    const c = await h.activities.recordExternalMerchantRemittance(remittance);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx
        .select()
        .from(merchantRemittances)
        .where(and(eq(merchantRemittances.externalRecordRef, remittance.externalRecordRef))),
    );
    expect(rows).toHaveLength(1);

    const returnInput = {
      ...context(),
      advanceId,
      remittanceId: a.remittanceId,
      returnCode: 'R01',
      reason: 'NSF',
    };
    expect((await h.activities.returnMerchantRemittance(returnInput)).status).toBe('RETURNED');
    await expectDomainError(
      h.activities.returnMerchantRemittance(returnInput),
      'error.msg.merchant.remittance.invalid.state.transition',
    );
    const journal = await journalOf(advanceId);
    expect(journal.refs.filter((r) => r.endsWith('/reversal'))).toHaveLength(2);
    expect(journal.refs.filter((r) => r.endsWith(`/remittance/${a.remittanceId}`))).toHaveLength(2);
    expect(parseDecimalToMinor(journal.balance, 6)).toBe(0n);
    expect((await outboxOf(h, tenant, a.remittanceId)).map((e) => e.eventType)).toEqual([
      'merchant.remittance.posted',
      'merchant.remittance.returned',
    ]);
    // a replay of the returned remittance's ref answers it as it stands
    expect((await h.activities.recordExternalMerchantRemittance(remittance)).status).toBe('RETURNED');
  });
});
