/**
 * scripts/pay-in-4-demo-flow.ts over real HTTP against the app served on a free local port, with a worker on the
 * `lending` queue (the payment intents' processes): a pay-in-4 purchase whose funding records the 25 % down
 * payment, three ACH payments settled by the sandbox of which one is returned R01 and adds the product's NSF fee,
 * and a snooze fee added to the last installment and waived. The figures are checked against the loan as the API
 * reads it, and the journal balances.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { runPayIn4DemoFlow } from '../../scripts/pay-in-4-demo-flow';
import { call, createTestContext, credentialFor, type TestContext, uniqueTenant } from '../support/context';

let ctx: TestContext;
let server: ReturnType<typeof serve>;
let baseUrl: string;

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: ctx.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await ctx?.close();
});

describe('runPayIn4DemoFlow', () => {
  it('records the down payment at checkout, charges the NSF fee of a returned payment once, and waives a snooze fee', async () => {
    const tenant = uniqueTenant('payin4-demo');
    const cred = await credentialFor(ctx, tenant, { scopes: ['lending:read', 'lending:write'] });
    const result = await runPayIn4DemoFlow(baseUrl, cred);

    expect(result.downPayment.amount).toBe('100.00');
    expect(result.downPayment.externalId).toMatch(/^checkout-[a-z]{8}:down-payment$/);
    expect(result.status).toBe('loanStatusType.active');

    // The returned payment added the product's NSF penalty, once, dated the return day.
    expect(result.returned.nsfFee).toMatchObject({ amount: '15.00', currency: 'USD' });
    const penalties = result.charges.filter((c) => c.penalty === true);
    expect(penalties).toHaveLength(1);
    expect(penalties[0]).toMatchObject({ id: result.returned.nsfFee?.loanChargeId, amount: '15.00' });
    const returnedEvents = await withTenantTransaction(ctx.db, tenant, (tx) =>
      tx.execute<{ data: { nsfFee: unknown } }>(
        sql`select data from outbox_events where event_type = 'payment.returned'
            and subject_id = ${String(result.returned.paymentId)}`,
      ),
    );
    expect(returnedEvents.map((e) => e.data.nsfFee)).toEqual([
      { loanChargeId: result.returned.nsfFee?.loanChargeId, amount: '15.00', currency: 'USD' },
    ]);

    // The snooze fee: 5.00 added to the last installment, then waived in full.
    expect(result.snoozeFee).toMatchObject({
      amount: '5.00',
      amountWaived: '5.00',
      amountOutstanding: '0.00',
    });

    // The schedule: the down payment on the checkout day, three installments two weeks apart; 400.00 of
    // principal of which the down payment and two ACH payments paid 300.00; the NSF fee still owed.
    const installments = result.periods.filter((p) => typeof p.period === 'number');
    expect(installments).toHaveLength(4);
    expect(installments[0]).toMatchObject({ period: 1, downPaymentPeriod: true, principalDue: '100.00' });
    const minor = (amount: string) => BigInt(amount.replace('.', ''));
    const sum = (field: string) => installments.reduce((total, p) => total + minor(p[field] as string), 0n);
    expect(sum('principalDue')).toBe(40_000n);
    expect(sum('totalPaidForPeriod')).toBe(30_000n);
    expect(sum('penaltyChargesDue')).toBe(1_500n);
    expect(sum('feeChargesDue')).toBe(500n);
    expect(sum('totalOutstandingForPeriod')).toBe(10_000n + 1_500n);

    const summary = await call(ctx, cred, 'GET', `/v1/loans/${result.loanId}/summary`);
    expect(summary.status).toBe(200);
    expect(summary.body.balances.totalOutstanding).toBe('115.00');

    const [balance] = await withTenantTransaction(ctx.db, tenant, (tx) =>
      tx.execute<{ debit: string; credit: string }>(
        sql`select coalesce(sum(debit), 0)::text as debit, coalesce(sum(credit), 0)::text as credit
            from journal_entries where loan_id = ${result.loanId}`,
      ),
    );
    expect(balance?.debit).not.toBe('0');
    expect(balance?.debit).toBe(balance?.credit);
  }, 120_000);
});
