/**
 * scripts/delinquency-demo-flow.ts over real HTTP against the app served on a free local port, with a worker on
 * the `lending` queue (the close-of-business run is a workflow; docs/processes.md P7): a product with a delinquency
 * bucket (a range that opens an ARREARS collections case), an overdue penalty and charge-off at 120 days; loan A two
 * installments behind, loan B never paid; yesterday closed by `POST /v1/cob/runs`. Checked against the loan as the
 * API reads it and the outbox: A's penalties (10.00 each, once per overdue installment), its range (31-90 days) and
 * history row with the case it opened, the events of the run; the payment that cures A (figures, tag, a history
 * row and the case closed CURED at once);
 * B charged off by the run and its later payment posted to RECOVERY_INCOME; the journal balanced.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { parseDecimalToMinor } from '../../domain/money';
import { collectionsCaseType, runDelinquencyDemoFlow } from '../../scripts/delinquency-demo-flow';
import { createTestContext, credentialFor, type TestContext, uniqueTenant } from '../support/context';

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

describe('runDelinquencyDemoFlow', () => {
  it('closes yesterday: penalties, the collections range and case, charge-off at 120 days; a cure and a recovery', async () => {
    const tenant = uniqueTenant('dlq-demo');
    const cred = await credentialFor(ctx, tenant, {
      scopes: ['lending:read', 'lending:write', 'servicing:read', 'servicing:write'],
    });
    const result = await runDelinquencyDemoFlow(baseUrl, cred);

    expect(result.run, 'POST /v1/cob/runs exists').not.toBeNull();
    expect(result.run).toMatchObject({ businessDate: result.businessDate, status: 'COMPLETED' });

    const a = result.behindLoan;
    // Two installments overdue by more than the penalty wait period: one 10.00 penalty each.
    expect(a.penalties.length).toBe(2);
    for (const penalty of a.penalties) expect(penalty).toMatchObject({ amount: '10.00', penalty: true });
    // Dated each overdue installment's due date (Fineract's default): the oldest is the delinquent date (no grace).
    const dueDates = a.penalties.map((p) => p.dueDate as string).sort();
    expect(new Set(dueDates).size).toBe(2);
    expect(dueDates[0]).toBe(a.delinquentAfterRun.delinquentDate);
    const collections = result.product.ranges[1]!;
    expect(collections.collectionsCaseTypeCode).toBe(collectionsCaseType);
    expect(a.rangeAfterRun).toMatchObject({ id: collections.id, classification: collections.classification });
    expect(a.delinquentAfterRun.delinquentDays).toBeGreaterThanOrEqual(31);
    expect(a.delinquentAfterRun.delinquentDays).toBeLessThanOrEqual(90);
    expect(a.history).toHaveLength(1);
    expect(a.history[0]).toMatchObject({
      businessDate: result.businessDate,
      classification: collections.classification,
    });
    expect(a.history[0]!.collectionsCaseId).toBeTruthy();
    expect(a.collectionsCase).toMatchObject({
      caseId: a.history[0]!.collectionsCaseId,
      caseTypeCode: collectionsCaseType,
      status: 'OPEN',
    });

    // The cure: everything overdue paid today. The loan has had a close, so the payment sets its tag at once
    // (docs/lending.md "The tag between two runs"): no range, a TRANSACTION history row dated the loan's business
    // date (yesterday + 1) naming the case, and the case closed CURED, all before any later run. A run limited to
    // the loan for the same day then counts it processed and leaves it alone.
    expect(a.delinquentAfterCure).toMatchObject({
      pastDueDays: 0,
      delinquentDays: 0,
      delinquentAmount: '0.00',
    });
    expect(a.rangeAfterCure).toBeNull();
    expect(a.historyAfterCure).toHaveLength(2);
    expect(a.historyAfterCure[0]).toMatchObject({
      businessDate: addDays(result.businessDate, 1),
      previousClassification: collections.classification,
      classification: 'NO_DELINQUENCY',
      delinquentDays: 0,
      collectionsCaseId: a.collectionsCase!.caseId,
    });
    expect(a.historyAfterCure[1]).toEqual(a.history[0]);
    expect(a.collectionsCaseAfterCure).toMatchObject({
      caseId: a.collectionsCase!.caseId,
      status: 'CLOSED',
      outcomeCode: 'CURED',
    });
    expect(a.laterRun).toMatchObject({ status: 'COMPLETED', loans: { total: 1, processed: 1, failed: 0 } });

    // Loan B: charged off by the run; its payment is a recovery.
    const b = result.chargedOffLoan;
    expect(b.chargedOffBy).toBe('run');
    expect(b.chargedOffOnDate).not.toBeNull();
    expect(b.recoveryLines.map((l) => [l.accountCode, l.debit, l.credit]).sort()).toEqual([
      ['EXTERNAL_CLEARING', '150.00', '0.00'],
      ['RECOVERY_INCOME', '0.00', '150.00'],
    ]);

    const events = await withTenantTransaction(ctx.db, tenant, (tx) =>
      tx.execute<{ event_type: string; loan_id: string }>(
        sql`select event_type, data->>'loanId' as loan_id from outbox_events
            where event_type in ('loan.penalty.assessed', 'loan.delinquency.changed', 'loan.chargeoff.posted')`,
      ),
    );
    const count = (type: string, loanId: number) =>
      events.filter((e) => e.event_type === type && e.loan_id === String(loanId)).length;
    expect(count('loan.penalty.assessed', a.loanId)).toBe(2);
    expect(count('loan.delinquency.changed', a.loanId)).toBe(2);
    expect(count('loan.chargeoff.posted', b.loanId)).toBe(1);

    const [balance] = await withTenantTransaction(ctx.db, tenant, (tx) =>
      tx.execute<{ balance: string }>(
        sql`select coalesce(sum(debit) - sum(credit), 0)::text as balance from journal_entries`,
      ),
    );
    expect(parseDecimalToMinor(balance!.balance, 6)).toBe(0n);
  });
});
