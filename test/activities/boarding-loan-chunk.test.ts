/**
 * The loans of a boarding chunk written with the chunk's shared reads and write buffers (activities/lending/loan-chunk.ts;
 * portfolio boarding speed target, docs/processes.md P3): how many statements a chunk sends to PostgreSQL (counted
 * with postgres.js' `debug` hook), and a loan refused in the middle of a chunk after its first rows were buffered
 * leaving no event and no history entry behind.
 */

import { and, asc, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities';
import type { BoardingChunk } from '../../activities/boarding/plan-boarding-chunks';
import * as schema from '../../db/schema';
import { boardingLines, customerHistory, loans, outboxEvents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { boardingKinds } from '../../domain/boarding/batch';
import {
  catalogLines,
  customerLine,
  loanLines,
  portfolioLines,
  refPrefix,
  stageBatch,
  type TestLine,
} from '../support/boarding';
import { type ActivityHarness, createHarness, newTenant } from './helpers';

let h: ActivityHarness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

it('boards a chunk of 20 loans in a bounded number of statements', async () => {
  const loans = 20;
  const tenantId = await newTenant(h, 'bstm');
  const p = refPrefix('stm');
  const batchId = await stageBatch(h.db, tenantId, portfolioLines(p, loans, 6));
  const counted = { on: false, total: 0, byText: new Map<string, number>() };
  const client = postgres(inject('databaseUrl'), {
    max: 2,
    onnotice: () => {},
    debug: (_connection, query) => {
      if (!counted.on) return;
      counted.total += 1;
      const key = query.replace(/\s+/g, ' ');
      counted.byText.set(key, (counted.byText.get(key) ?? 0) + 1);
    },
  });
  try {
    const activities = createActivities({ ...h.deps, db: drizzle({ client, schema, casing: 'snake_case' }) });
    for (const kind of boardingKinds) {
      const page = await activities.validateBoardingPage({
        tenantId,
        batchId,
        kind,
        afterLine: 0,
        limit: 1000,
      });
      expect(page.done).toBe(true);
    }
    const boardAll = async (kind: (typeof boardingKinds)[number]) => {
      const chunks = await activities.planBoardingChunks({
        tenantId,
        batchId,
        kind,
        afterLine: 0,
        chunkSize: 100,
        maxChunks: 5,
      });
      const deltas = [];
      for (const chunk of chunks)
        deltas.push(
          await activities.boardBoardingChunk({ tenantId, batchId, kind, ...(chunk as BoardingChunk) }),
        );
      return deltas;
    };
    for (const kind of ['charge', 'loanProduct', 'customer', 'restriction'] as const) await boardAll(kind);
    counted.on = true;
    const [delta] = await boardAll('loan');
    counted.on = false;
    expect(delta?.loan).toEqual({ boarded: loans, failed: 0 });
    const perLoan = counted.total / loans;
    if (process.env.BOARDING_STATEMENTS_VERBOSE) {
      const top = [...counted.byText.entries()].sort((a, b) => b[1] - a[1]);
      console.log(`statements for ${loans} loans: ${counted.total} (${perLoan.toFixed(1)} per loan)`);
      for (const [text, n] of top) console.log(`${String(n).padStart(5)}  ${text.slice(0, 110)}`);
    }
    // One statement per loan and table at most, no per-loan read of what the chunk shares (the product, its charges,
    // the tenant's calendar and chart of accounts, disbursement holds, stored refs, loan ids), no read-back of the loan just
    // inserted, no single-row history, reconciliation or outbox insert, no read-back of the money rows the loan just
    // got (the repost is handed them) nor of its delinquency context, and the approvals' and reposts' writes
    // (loan columns, installment states, allocations, journal, loan status) made once for the chunk: 48 per loan
    // before, then 16.
    expect(perLoan).toBeLessThanOrEqual(8);
    const perLoanOf = (pattern: RegExp) =>
      [...counted.byText.entries()].filter(([text]) => pattern.test(text)).reduce((n, [, c]) => n + c, 0);
    expect(perLoanOf(/from "loan_products"/)).toBe(1);
    expect(perLoanOf(/from "tenants"/)).toBe(1);
    expect(perLoanOf(/insert into "gl_accounts"/)).toBe(1);
    expect(perLoanOf(/customer_history/)).toBe(1);
    expect(perLoanOf(/insert into "outbox_events"/)).toBe(1);
    expect(perLoanOf(/^select .* from "loan_installments"/)).toBe(0);
    expect(perLoanOf(/^select "id", "funding_date", "amount" from "fundings"/)).toBe(0);
    expect(perLoanOf(/^select "id", "effective_date", "amount", "allocation" from "payments"/)).toBe(0);
    expect(perLoanOf(/delinquency_range_id::text as delinquency_range_id/)).toBe(0);
    expect(perLoanOf(/insert into "journal_entries"/)).toBe(1);
    expect(perLoanOf(/update loan_installments as li/)).toBe(1);
    expect(perLoanOf(/update payments as p/)).toBe(1);
    // The approvals' columns, then the statuses after the reposts.
    expect(perLoanOf(/update loans as l /)).toBe(2);
    expect(perLoanOf(/^update "loans" set "status" = \$1, "approved_principal"/)).toBe(0);
    expect(perLoanOf(/^update "loans" set "status" = \$1, "disbursed_on_date"/)).toBe(0);
  } finally {
    await client.end();
  }
});

/** Validates every kind, then boards every kind in chunks of `chunkSize`, in the workflow's order. */
async function runBatch(tenantId: string, batchId: number, chunkSize: number) {
  for (const kind of boardingKinds) {
    const page = await h.activities.validateBoardingPage({
      tenantId,
      batchId,
      kind,
      afterLine: 0,
      limit: 1000,
    });
    expect(page.done).toBe(true);
  }
  for (const kind of [
    'charge',
    'loanProduct',
    'customer',
    'restriction',
    'loan',
    'funding',
    'payment',
  ] as const) {
    const chunks = await h.activities.planBoardingChunks({
      tenantId,
      batchId,
      kind,
      afterLine: 0,
      chunkSize,
      maxChunks: 50,
    });
    for (const chunk of chunks) await h.activities.boardBoardingChunk({ tenantId, batchId, kind, ...chunk });
  }
}

it('a loan refused in the middle of a chunk after its application was buffered leaves no event or history behind', async () => {
  const tenantId = await newTenant(h, 'bmid');
  const p = refPrefix('mid');
  const bad = loanLines(p, 2, 2, 2);
  // Valid by shape; its application is stored (history and event buffered), then its approval is refused.
  (bad[0] as TestLine).body.approval = { approvedOnDate: '2025-01-01', approvedLoanAmount: '1200' };
  const batchId = await stageBatch(h.db, tenantId, [
    ...catalogLines(p),
    customerLine(p, 1),
    customerLine(p, 2),
    customerLine(p, 3),
    ...loanLines(p, 1, 1, 2),
    ...bad,
    ...loanLines(p, 3, 3, 2),
  ]);
  await runBatch(tenantId, batchId, 25);
  const state = await withTenantTransaction(h.db, tenantId, async (tx) => ({
    lines: await tx
      .select({ sourceRef: boardingLines.sourceRef, state: boardingLines.state })
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId)))
      .orderBy(asc(boardingLines.lineNo)),
    loans: await tx
      .select({ id: loans.id, externalId: loans.externalId, status: loans.status })
      .from(loans)
      .where(eq(loans.tenantId, tenantId))
      .orderBy(asc(loans.id)),
    events: await tx
      .select({ eventType: outboxEvents.eventType, subjectId: outboxEvents.subjectId })
      .from(outboxEvents)
      .where(eq(outboxEvents.tenantId, tenantId)),
    history: await tx
      .select({ action: customerHistory.action, detail: customerHistory.detail })
      .from(customerHistory)
      .where(eq(customerHistory.tenantId, tenantId)),
  }));
  const stateOf = new Map(state.lines.map((l) => [l.sourceRef, l.state]));
  // Reported alone: the bad loan and its children fail, the loans around it board with theirs.
  expect(stateOf.get(`${p}-loan-2`)).toBe('FAILED');
  for (const ref of [`${p}-loan-1`, `${p}-loan-1-fund`, `${p}-loan-3`, `${p}-loan-3-fund`])
    expect(stateOf.get(ref)).toBe('BOARDED');
  // The step-by-step path stored the refused loan SUBMITTED; the chunk's rolled-back attempt left nothing.
  expect(state.loans.map((l) => l.status)).toEqual(['ACTIVE', 'SUBMITTED', 'ACTIVE']);
  const loanIds = new Set(state.loans.map((l) => String(l.id)));
  const loanEvents = state.events.filter((e) => e.eventType.startsWith('loan.'));
  expect(loanEvents.every((e) => loanIds.has(e.subjectId))).toBe(true);
  expect(loanEvents.filter((e) => e.eventType === 'loan.submitted').length).toBe(3);
  expect(loanEvents.filter((e) => e.eventType === 'loan.approved').length).toBe(2);
  const submitted = state.history.filter((r) => r.action === 'LOAN_SUBMITTED');
  expect(submitted.length).toBe(3);
  expect(submitted.every((r) => loanIds.has(String((r.detail as { loanId: number }).loanId)))).toBe(true);
});
