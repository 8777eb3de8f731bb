/**
 * The boarding activities (docs/processes.md P3) on the real database: validation per kind and of cross
 * references (Shape A, nothing written), boarding in order through the route operations, the one-repost payment
 * history against one-by-one recording, idempotency (a retried chunk, a second batch of the same lines), one
 * bad loan not stopping its chunk, the events boarding writes marked `source` `BOARDING` with the batch, and the
 * one `boarding.batch.completed` of the record of the end.
 */
import { and, asc, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities';
import { parseLineBody } from '../../activities/boarding/line-schemas';
import type { BoardingChunk } from '../../activities/boarding/plan-boarding-chunks';
import * as schema from '../../db/schema';
import {
  boardingLines,
  boardingSourceRefs,
  customerHistory,
  customers,
  fundings,
  journalEntries,
  loanInstallments,
  loanProducts,
  loans,
  outboxEvents,
  payments,
  reconciliationItems,
  restrictions,
} from '../../db/schema';
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
import { tenantTrialBalance } from './ledger-fixtures';

let h: ActivityHarness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

/** Runs a batch as the workflow does, sequentially: validation kind by kind, then every running kind in chunks. */
async function runBatch(tenantId: string, batchId: number, chunkSize = 3, activities = h.activities) {
  for (const kind of boardingKinds) {
    let after = 0;
    for (;;) {
      const page = await activities.validateBoardingPage({
        tenantId,
        batchId,
        kind,
        afterLine: after,
        limit: 5,
      });
      if (page.lastLine !== null) after = page.lastLine;
      if (page.done) break;
    }
  }
  for (const kind of [
    'charge',
    'loanProduct',
    'customer',
    'restriction',
    'loan',
    'funding',
    'payment',
    'verification',
  ] as const) {
    let after = 0;
    for (;;) {
      const chunks = await activities.planBoardingChunks({
        tenantId,
        batchId,
        kind,
        afterLine: after,
        chunkSize,
        maxChunks: 2,
      });
      if (chunks.length === 0) break;
      for (const chunk of chunks) await activities.boardBoardingChunk({ tenantId, batchId, kind, ...chunk });
      after = chunks[chunks.length - 1]?.throughLine ?? after;
    }
  }
}

async function linesOf(tenantId: string, batchId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId)))
      .orderBy(asc(boardingLines.lineNo)),
  );
}

async function countRows(tenantId: string) {
  return withTenantTransaction(h.db, tenantId, async (tx) => ({
    customers: (await tx.select().from(customers).where(eq(customers.tenantId, tenantId))).length,
    loans: (await tx.select().from(loans).where(eq(loans.tenantId, tenantId))).length,
    fundings: (await tx.select().from(fundings).where(eq(fundings.tenantId, tenantId))).length,
    payments: (await tx.select().from(payments).where(eq(payments.tenantId, tenantId))).length,
    restrictions: (await tx.select().from(restrictions).where(eq(restrictions.tenantId, tenantId))).length,
    journal: (await tx.select().from(journalEntries).where(eq(journalEntries.tenantId, tenantId))).length,
  }));
}

describe('validation', () => {
  it('fails bad lines of every kind with a Shape A error naming body fields, and writes nothing', async () => {
    const tenantId = await newTenant(h, 'bval');
    const p = refPrefix('val');
    const [charge, product] = catalogLines(p) as [TestLine, TestLine];
    const lines: TestLine[] = [
      { ...charge, sourceRef: `${p}-badfee`, body: { ...charge.body, amount: 'ten' } },
      charge,
      { ...product, sourceRef: `${p}-badprod`, body: { ...product.body, chargeSourceRefs: [`${p}-nofee`] } },
      product,
      { ...customerLine(p, 1), body: { ...customerLine(p, 1).body, firstName: 7 } },
      customerLine(p, 2),
      {
        kind: 'restriction',
        sourceRef: `${p}-hold`,
        body: { customerSourceRef: `${p}-cust-9`, restrictionType: 'PAYMENT_HOLD', reason: 'x' },
      },
      {
        kind: 'restriction',
        sourceRef: `${p}-hold2`,
        body: { customerSourceRef: `${p}-cust-2`, restrictionType: 'NOPE', reason: 'x' },
      },
      ...loanLines(p, 1, 1, 2), // the customer of line 5 failed: the loan fails, and its funding and payments
      ...loanLines(p, 2, 2, 2),
      {
        kind: 'verification',
        sourceRef: `${p}-ver`,
        body: {
          customerSourceRef: `${p}-cust-2`,
          instrumentSourceRef: 'nope',
          verificationSource: 'PLAID_AUTH',
        },
      },
    ];
    // A bad payment of loan 2 fails alone.
    const badPayment = lines.find((l) => l.sourceRef === `${p}-loan-2-pay-2`);
    if (badPayment) badPayment.body = { ...badPayment.body, amount: '-5' };
    const batchId = await stageBatch(h.db, tenantId, lines);
    for (const kind of boardingKinds) {
      let after = 0;
      for (;;) {
        const page = await h.activities.validateBoardingPage({
          tenantId,
          batchId,
          kind,
          afterLine: after,
          limit: 2,
        });
        if (page.lastLine !== null) after = page.lastLine;
        if (page.done) break;
      }
    }
    const stored = await linesOf(tenantId, batchId);
    const byRef = new Map(stored.map((l) => [l.sourceRef, l]));
    const errorOf = (ref: string) => byRef.get(ref)?.error;
    expect(byRef.get(`${p}-badfee`)?.state).toBe('FAILED');
    expect(errorOf(`${p}-badfee`)?.userMessageGlobalisationCode).toBe(
      'validation.msg.validation.errors.exist',
    );
    expect(errorOf(`${p}-badfee`)?.httpStatusCode).toBe('400');
    expect(errorOf(`${p}-badfee`)?.errors[0]?.parameterName).toBe('body.amount');
    expect(errorOf(`${p}-badprod`)?.errors[0]?.parameterName).toBe('body.chargeSourceRefs[0]');
    expect(errorOf(`${p}-cust-1`)?.errors[0]?.parameterName).toBe('body.firstName');
    expect(errorOf(`${p}-hold`)?.errors[0]?.parameterName).toBe('body.customerSourceRef');
    expect(errorOf(`${p}-hold2`)?.errors[0]?.parameterName).toBe('body.restrictionType');
    expect(errorOf(`${p}-loan-1`)?.errors[0]?.parameterName).toBe('body.customerSourceRef');
    expect(errorOf(`${p}-loan-1`)?.developerMessage).toContain('failed validation');
    expect(errorOf(`${p}-loan-1-fund`)?.developerMessage).toMatch(/loanSourceRef .*failed validation/);
    expect(errorOf(`${p}-loan-1-pay-1`)?.errors[0]?.parameterName).toBe('body.loanSourceRef');
    expect(errorOf(`${p}-loan-2-pay-2`)?.errors[0]?.parameterName).toBe('body.amount');
    expect(byRef.get(`${p}-loan-2`)?.state).toBe('PENDING');
    expect(byRef.get(`${p}-loan-2-pay-1`)?.state).toBe('PENDING');
    expect(errorOf(`${p}-ver`)?.errors[0]?.parameterName).toBe('body.instrumentSourceRef');
    expect(byRef.get(`${p}-fee`)?.state).toBe('PENDING');
    expect(byRef.get(`${p}-prod`)?.state).toBe('PENDING');
    expect(await countRows(tenantId)).toEqual({
      customers: 0,
      loans: 0,
      fundings: 0,
      payments: 0,
      restrictions: 0,
      journal: 0,
    });
  });

  it("boards a product's NSF charge by the charge line's sourceRef; an unknown one fails naming nsfChargeSourceRef", async () => {
    const tenantId = await newTenant(h, 'bnsf');
    const p = refPrefix('nsf');
    const [, product] = catalogLines(p) as [TestLine, TestLine];
    const nsf: TestLine = {
      kind: 'charge',
      sourceRef: `${p}-nsf`,
      body: {
        name: 'Returned payment fee',
        currencyCode: 'USD',
        amount: '15.00',
        chargeAppliesTo: 1,
        chargeTimeType: 2,
        chargeCalculationType: 1,
        penalty: true,
      },
    };
    const withNsf = (sourceRef: string, nsfRef: string): TestLine => ({
      ...product,
      sourceRef,
      body: { ...product.body, chargeSourceRefs: [], nsfChargeSourceRef: nsfRef },
    });
    const batchId = await stageBatch(h.db, tenantId, [
      nsf,
      withNsf(`${p}-prod-nsf`, `${p}-nsf`),
      withNsf(`${p}-prod-missing`, `${p}-nowhere`),
    ]);
    await runBatch(tenantId, batchId);
    const byRef = new Map((await linesOf(tenantId, batchId)).map((l) => [l.sourceRef, l]));
    expect(byRef.get(`${p}-prod-missing`)?.state).toBe('FAILED');
    expect(byRef.get(`${p}-prod-missing`)?.error?.errors[0]?.parameterName).toBe('body.nsfChargeSourceRef');
    const boardedProduct = byRef.get(`${p}-prod-nsf`);
    expect(boardedProduct?.state).toBe('BOARDED');
    const [row] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select({ nsfChargeId: loanProducts.nsfChargeId })
        .from(loanProducts)
        .where(
          and(eq(loanProducts.tenantId, tenantId), eq(loanProducts.id, boardedProduct?.resourceId ?? 0)),
        ),
    );
    expect(row?.nsfChargeId).toBe(byRef.get(`${p}-nsf`)?.resourceId);
    // The route's field is not a line field: an id means nothing to a migration team.
    const parsed = parseLineBody('loanProduct', { ...product.body, nsfChargeId: 1 });
    expect(parsed.ok).toBe(false);
  });

  it("takes a product's delinquencyBucketId as the id of the tenant's bucket (buckets are not boarded)", async () => {
    const tenantId = await newTenant(h, 'bdlq');
    const foreignTenant = await newTenant(h, 'bdlqx');
    const p = refPrefix('dlq');
    const [, product] = catalogLines(p) as [TestLine, TestLine];
    const bucketOf = async (tenant: string) => {
      const { rangeId } = await h.activities.createDelinquencyRange({
        tenantId: tenant,
        classification: `${p} 1+`,
        minimumAgeDays: 1,
        maximumAgeDays: null,
      });
      return (
        await h.activities.createDelinquencyBucket({
          tenantId: tenant,
          name: `${p} bucket`,
          ranges: [rangeId],
        })
      ).bucketId;
    };
    const bucketId = await bucketOf(tenantId);
    const foreignBucketId = await bucketOf(foreignTenant);
    const withBucket = (sourceRef: string, delinquencyBucketId: number): TestLine => ({
      ...product,
      sourceRef,
      body: { ...product.body, chargeSourceRefs: [], delinquencyBucketId, graceOnArrearsAgeing: 2 },
    });
    const batchId = await stageBatch(h.db, tenantId, [
      withBucket(`${p}-prod-own`, bucketId),
      withBucket(`${p}-prod-foreign`, foreignBucketId),
    ]);
    await runBatch(tenantId, batchId);
    const byRef = new Map((await linesOf(tenantId, batchId)).map((l) => [l.sourceRef, l]));
    expect(byRef.get(`${p}-prod-foreign`)?.state).toBe('FAILED');
    expect(byRef.get(`${p}-prod-foreign`)?.error?.errors[0]?.parameterName).toBe('body.delinquencyBucketId');
    const own = byRef.get(`${p}-prod-own`);
    expect(own?.state).toBe('BOARDED');
    const [row] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select({ bucket: loanProducts.delinquencyBucketId, grace: loanProducts.graceOnArrearsAgeing })
        .from(loanProducts)
        .where(and(eq(loanProducts.tenantId, tenantId), eq(loanProducts.id, own?.resourceId ?? 0))),
    );
    expect(row).toEqual({ bucket: bucketId, grace: 2 });
  });

  it('fails a duplicate sourceRef of the same kind within the batch', async () => {
    const tenantId = await newTenant(h, 'bdup');
    const p = refPrefix('dup');
    const batchId = await stageBatch(h.db, tenantId, [customerLine(p, 1), customerLine(p, 1)]);
    await h.activities.validateBoardingPage({ tenantId, batchId, kind: 'customer', afterLine: 0 });
    const stored = await linesOf(tenantId, batchId);
    expect(stored.map((l) => l.state)).toEqual(['PENDING', 'FAILED']);
    expect(stored[1]?.error?.errors[0]?.parameterName).toBe('sourceRef');
  });
});

/** The tenant's outbox events in write order, optionally of one type. */
async function eventsOf(tenantId: string, eventType?: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(outboxEvents)
      .where(
        and(
          eq(outboxEvents.tenantId, tenantId),
          eventType === undefined ? undefined : eq(outboxEvents.eventType, eventType),
        ),
      )
      .orderBy(asc(outboxEvents.id)),
  );
}

describe('boarding', () => {
  it('boards a portfolio in order, restrictions before payments, the trial balance zero', async () => {
    const tenantId = await newTenant(h, 'brun');
    const p = refPrefix('run');
    const batchId = await stageBatch(h.db, tenantId, portfolioLines(p, 4, 5));
    await runBatch(tenantId, batchId);
    const stored = await linesOf(tenantId, batchId);
    expect(stored.filter((l) => l.state !== 'BOARDED').map((l) => [l.sourceRef, l.error])).toEqual([]);
    expect(await countRows(tenantId)).toMatchObject({
      customers: 4,
      loans: 4,
      fundings: 4,
      payments: 20,
      restrictions: 1,
    });
    for (const row of await tenantTrialBalance(h.db, tenantId)) expect(row.debit).toBe(row.credit);
    const order = await withTenantTransaction(h.db, tenantId, async (tx) => {
      const [hold] = await tx.select().from(restrictions).where(eq(restrictions.tenantId, tenantId));
      const paid = await tx.select().from(payments).where(eq(payments.tenantId, tenantId));
      return { hold, paid };
    });
    for (const payment of order.paid) {
      expect(order.hold?.createdAt.getTime()).toBeLessThanOrEqual(payment.createdAt.getTime());
    }
    const loan = stored.find((l) => l.sourceRef === `${p}-loan-1`);
    const [row] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(loans)
        .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan?.resourceId ?? 0))),
    );
    expect(row?.externalId).toBe(`${p}-loan-1`);
    expect(row?.status).toBe('ACTIVE');
  });

  it('marks every event boarding writes source BOARDING with its batch; a live operation writes none', async () => {
    const tenantId = await newTenant(h, 'bsrc');
    const p = refPrefix('src');
    const batchId = await stageBatch(h.db, tenantId, portfolioLines(p, 2, 3));
    await runBatch(tenantId, batchId);
    const boarded = await eventsOf(tenantId);
    // The history: one payment.posted per payment, one funding.posted per funding, and the rest.
    expect(boarded.filter((e) => e.eventType === 'payment.posted')).toHaveLength(6);
    expect(boarded.filter((e) => e.eventType === 'funding.posted')).toHaveLength(2);
    expect(boarded.map((e) => `${e.source} ${e.boardingBatchId}`)).toEqual(
      boarded.map(() => `BOARDING ${batchId}`),
    );
    // The same operation called as a route calls it: no source.
    const live = await h.activities.createCustomer({
      tenantId,
      requestKey: `${p}-live`,
      actor: 'agent-9',
      firstName: 'Live',
      lastName: 'Customer',
    });
    const after = (await eventsOf(tenantId)).filter((e) => !boarded.some((b) => b.eventId === e.eventId));
    expect(live.customerId).toBeGreaterThan(0);
    expect(after.map((e) => [e.eventType, e.source, e.boardingBatchId])).toEqual([
      ['customer.created', null, null],
    ]);
  });

  it('the record of the end writes one boarding.batch.completed (no source), a retry none more, progress none', async () => {
    const tenantId = await newTenant(h, 'bend');
    const lines = portfolioLines(refPrefix('end'), 1, 1);
    const batchId = await stageBatch(h.db, tenantId, lines);
    const progress = { tenantId, batchId, startedAtMs: Date.parse('2026-11-01T10:00:00Z'), counts: null };
    await h.activities.recordBoardingProgress({ ...progress, status: 'RUNNING', completedAtMs: null });
    expect(await eventsOf(tenantId, 'boarding.batch.completed')).toEqual([]);
    const end = { ...progress, status: 'CANCELLED', completedAtMs: Date.parse('2026-11-01T10:05:00Z') };
    const counts = await h.activities.recordBoardingProgress(end);
    await h.activities.recordBoardingProgress(end);
    const events = await eventsOf(tenantId, 'boarding.batch.completed');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      subjectType: 'boarding_batch',
      subjectId: String(batchId),
      source: null,
      boardingBatchId: null,
      occurredAt: new Date('2026-11-01T10:05:00Z'),
      data: {
        batchId,
        status: 'CANCELLED',
        records: lines.length,
        malformed: 0,
        counts,
        startedAt: '2026-11-01T10:00:00.000Z',
        completedAt: '2026-11-01T10:05:00.000Z',
      },
    });
    // Nothing was boarded: every line is still PENDING, counted in total only.
    expect(counts.payment).toEqual({ total: 1, boarded: 0, failed: 0 });
  });

  it('boards nothing twice: a chunk run again, and a second batch of the same lines', async () => {
    const tenantId = await newTenant(h, 'bidem');
    const p = refPrefix('idem');
    const lines = portfolioLines(p, 2, 3);
    const first = await stageBatch(h.db, tenantId, lines);
    await runBatch(tenantId, first);
    const before = await countRows(tenantId);
    // A crash after the operations committed but before the chunk wrote its outcomes and source refs: the lines
    // are PENDING again and no source ref is known, so every operation runs again and must dedupe by its own key.
    await withTenantTransaction(h.db, tenantId, async (tx) => {
      await tx.delete(boardingSourceRefs).where(eq(boardingSourceRefs.tenantId, tenantId));
      await tx
        .update(boardingLines)
        .set({ state: 'PENDING', resourceId: null })
        .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, first)));
    });
    await runBatch(tenantId, first);
    expect(await countRows(tenantId)).toEqual(before);
    const second = await stageBatch(h.db, tenantId, lines);
    await runBatch(tenantId, second);
    expect(await countRows(tenantId)).toEqual(before);
    const a = await linesOf(tenantId, first);
    const b = await linesOf(tenantId, second);
    expect(b.map((l) => l.state)).toEqual(a.map(() => 'BOARDED'));
    expect(b.map((l) => l.resourceId)).toEqual(a.map((l) => l.resourceId));
  });

  it('boards later history of a loan boarded by an earlier batch, with one repost', async () => {
    const tenantId = await newTenant(h, 'binc');
    const p = refPrefix('inc');
    const all = portfolioLines(p, 1, 4);
    const later = all.filter((l) => l.kind === 'payment' && /pay-[34]$/.test(l.sourceRef));
    await runBatch(
      tenantId,
      await stageBatch(
        h.db,
        tenantId,
        all.filter((l) => !later.includes(l)),
      ),
    );
    const orphan: TestLine = {
      kind: 'payment',
      sourceRef: `${p}-orphan`,
      body: { loanSourceRef: `${p}-nowhere`, amount: '1.00', currency: 'USD', effectiveDate: '2025-03-01' },
    };
    const second = await stageBatch(h.db, tenantId, [...later, orphan]);
    await runBatch(tenantId, second);
    const stored = await linesOf(tenantId, second);
    expect(stored.map((l) => l.state)).toEqual(['BOARDED', 'BOARDED', 'FAILED']);
    expect(stored[2]?.error?.errors[0]?.parameterName).toBe('body.loanSourceRef');
    expect(await countRows(tenantId)).toMatchObject({ loans: 1, payments: 4 });
    for (const row of await tenantTrialBalance(h.db, tenantId)) expect(row.debit).toBe(row.credit);
  });

  it('one bad loan fails with its fundings and payments and never stops its chunk', async () => {
    const tenantId = await newTenant(h, 'bbad');
    const p = refPrefix('bad');
    const bad = loanLines(p, 2, 1, 2);
    // Valid by shape, refused by the operation: principal above the product's maximum.
    (bad[0] as TestLine).body.principal = '50000';
    const lines = [
      ...catalogLines(p),
      customerLine(p, 1),
      ...loanLines(p, 1, 1, 2),
      ...bad,
      ...loanLines(p, 3, 1, 2),
    ];
    const batchId = await stageBatch(h.db, tenantId, lines);
    await runBatch(tenantId, batchId, 10);
    const byRef = new Map((await linesOf(tenantId, batchId)).map((l) => [l.sourceRef, l]));
    expect(byRef.get(`${p}-loan-2`)?.state).toBe('FAILED');
    expect(byRef.get(`${p}-loan-2`)?.error?.httpStatusCode).toBe('400');
    expect(byRef.get(`${p}-loan-2-pay-1`)?.state).toBe('FAILED');
    expect(byRef.get(`${p}-loan-2-fund`)?.state).toBe('FAILED');
    expect(byRef.get(`${p}-loan-1`)?.state).toBe('BOARDED');
    expect(byRef.get(`${p}-loan-3`)?.state).toBe('BOARDED');
    expect(byRef.get(`${p}-loan-3-pay-2`)?.state).toBe('BOARDED');
  });
});

describe('one transaction per customer and per loan, and the step-by-step path after a line error', () => {
  it('a customer whose instrument conflicts: the customer boards without it and the line names the item', async () => {
    const tenantId = await newTenant(h, 'bfall');
    const p = refPrefix('fall');
    const first = customerLine(p, 1);
    const second = customerLine(p, 2);
    // The second customer's token is the first one's: addPaymentInstrument refuses it (409), after the customer.
    (second.body.paymentInstruments as { providerTokenRef: string }[])[0]!.providerTokenRef = `tok-${p}-1`;
    const batchId = await stageBatch(h.db, tenantId, [...catalogLines(p), first, second]);
    await runBatch(tenantId, batchId, 10);
    const byRef = new Map((await linesOf(tenantId, batchId)).map((l) => [l.sourceRef, l]));
    expect(byRef.get(`${p}-cust-1`)?.state).toBe('BOARDED');
    const failed = byRef.get(`${p}-cust-2`);
    expect(failed?.state).toBe('FAILED');
    expect(failed?.error?.httpStatusCode).toBe('409');
    expect(failed?.error?.userMessageGlobalisationCode).toBe('error.msg.payment.instrument.conflict');
    // As one-by-one: the customer and its consent exist (the source ref points at it), the instrument does not.
    const [boardedRef] = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(boardingSourceRefs)
        .where(
          and(eq(boardingSourceRefs.tenantId, tenantId), eq(boardingSourceRefs.sourceRef, `${p}-cust-2`)),
        ),
    );
    expect(boardedRef?.resourceId).toEqual(expect.any(Number));
    const stored = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx.select({ id: customers.id }).from(customers).where(eq(customers.tenantId, tenantId)),
    );
    expect(stored.map((c) => c.id)).toContain(boardedRef?.resourceId);
  });

  it('a loan whose approval is refused: the loan stays SUBMITTED and the line names body.approval', async () => {
    const tenantId = await newTenant(h, 'bappr');
    const p = refPrefix('appr');
    const bad = loanLines(p, 2, 1, 1);
    // Valid by shape, refused by the approval: approved before the application was submitted.
    (bad[0] as TestLine).body.approval = { approvedOnDate: '2025-01-01', approvedLoanAmount: '1200' };
    const batchId = await stageBatch(h.db, tenantId, [
      ...catalogLines(p),
      customerLine(p, 1),
      ...loanLines(p, 1, 1, 1),
      ...bad,
    ]);
    await runBatch(tenantId, batchId, 10);
    const byRef = new Map((await linesOf(tenantId, batchId)).map((l) => [l.sourceRef, l]));
    expect(byRef.get(`${p}-loan-1`)?.state).toBe('BOARDED');
    const failed = byRef.get(`${p}-loan-2`);
    expect(failed?.state).toBe('FAILED');
    expect(failed?.error?.errors?.[0]?.parameterName).toMatch(/^body\.approval\./);
    expect(byRef.get(`${p}-loan-2-pay-1`)?.state).toBe('FAILED');
    const rows = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select({ status: loans.status })
        .from(loans)
        .where(eq(loans.tenantId, tenantId))
        .orderBy(asc(loans.id)),
    );
    expect(rows.map((r) => r.status)).toEqual(['ACTIVE', 'SUBMITTED']);
  });

  it('boardLoan: the loan, its approval and its history in one transaction; a refused approval stores nothing', async () => {
    const tenantId = await newTenant(h, 'bone');
    const p = refPrefix('one');
    const batchId = await stageBatch(h.db, tenantId, [...catalogLines(p), customerLine(p, 1)]);
    await runBatch(tenantId, batchId, 10);
    const idOf = new Map(
      (await linesOf(tenantId, batchId)).map((l) => [l.sourceRef, l.resourceId as number]),
    );
    const [loanLine, fundingLine, ...paymentLines] = loanLines(p, 1, 1, 2) as [
      TestLine,
      TestLine,
      ...TestLine[],
    ];
    // The body as the route's schema passes it on (activities/boarding/line-schemas.ts), as the boarding does.
    const parsed = parseLineBody('loan', loanLine.body);
    if (!parsed.ok) throw parsed.error;
    const { customerSourceRef: _c, productSourceRef: _p, charges, approval: _a, ...terms } = parsed.value;
    const application = {
      tenantId,
      ...terms,
      clientId: idOf.get(`${p}-cust-1`) as number,
      productId: idOf.get(`${p}-prod`) as number,
      charges: (charges ?? []).map((c) => ({ chargeId: idOf.get(c.chargeSourceRef) as number })),
    } as Parameters<typeof h.activities.boardLoan>[0]['loan'];
    const approval = {
      approvedOnDate: terms.submittedOnDate as string,
      approvedLoanAmount: terms.principal as string,
    };
    const statuses = () =>
      withTenantTransaction(h.db, tenantId, (tx) =>
        tx.select({ status: loans.status }).from(loans).where(eq(loans.tenantId, tenantId)),
      );

    // Approved before the application was submitted: refused, and the application is not stored either.
    await expect(
      h.activities.boardLoan({
        loan: application,
        approval: { ...approval, approvedOnDate: '2025-01-01' },
        history: null,
      }),
    ).rejects.toMatchObject({ code: 'validation.msg.validation.errors.exist' });
    expect(await statuses()).toEqual([]);

    const { loanSourceRef: _f, ...funding } = fundingLine.body;
    const boarded = await h.activities.boardLoan({
      loan: application,
      approval,
      history: {
        fundings: [{ ...funding, externalRecordRef: `${p}-fund` }],
        payments: paymentLines.map((line) => {
          const { loanSourceRef: _l, ...payment } = line.body;
          return { ...payment, externalRecordRef: line.sourceRef };
        }),
      } as Parameters<typeof h.activities.boardLoan>[0]['history'],
    });
    expect(boarded.approval?.status).toBe('APPROVED');
    expect(boarded.history?.fundingOutcomes.map((o) => o.ok)).toEqual([true]);
    expect(boarded.history?.outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(await statuses()).toEqual([{ status: 'ACTIVE' }]);
    const installments = await withTenantTransaction(h.db, tenantId, (tx) =>
      tx
        .select()
        .from(loanInstallments)
        .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, boarded.loan.loanId)))
        .orderBy(asc(loanInstallments.installmentNumber)),
    );
    // Twelve monthly installments from the disbursement date (the application's, kept by the approval).
    expect(installments.map((i) => i.installmentNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(installments[0]?.dueDate).toBe('2025-02-15');
  });

  it('boardCustomer: the customer and its items in one transaction; a refused item stores nothing', async () => {
    const tenantId = await newTenant(h, 'bcus');
    const p = refPrefix('cus');
    const item = { instrumentType: 'BANK_ACCOUNT' as const, providerTokenRef: `tok-${p}`, lastFour: '6789' };
    const first = await h.activities.boardCustomer({
      customer: { tenantId, firstName: 'Ada', lastName: 'First' },
      identifiers: [],
      consents: [],
      instruments: [item],
    });
    expect(first.instrumentIds).toEqual([expect.any(Number)]);
    const customerIds = () =>
      withTenantTransaction(h.db, tenantId, (tx) =>
        tx.select({ id: customers.id }).from(customers).where(eq(customers.tenantId, tenantId)),
      );
    // The same token for another customer: 409 from the instrument, and the customer is not stored either.
    await expect(
      h.activities.boardCustomer({
        customer: { tenantId, firstName: 'Bo', lastName: 'Second' },
        identifiers: [],
        consents: [],
        instruments: [item],
      }),
    ).rejects.toMatchObject({ code: 'error.msg.payment.instrument.conflict' });
    expect(await customerIds()).toEqual([{ id: first.customerId }]);
  });

  it('boardCustomer: one history entry per item, all at the one instant of the transaction, which is updated_at', async () => {
    const tenantId = await newTenant(h, 'bhis');
    const p = refPrefix('his');
    const boarded = await h.activities.boardCustomer({
      customer: { tenantId, firstName: 'Ida', lastName: 'Items', requestKey: `cus-${p}` },
      identifiers: [{ identifierType: 'SSN', value: '123-45-6789', issuingCountry: 'US' }],
      consents: [
        {
          consentType: 'SMS',
          granted: true,
          captureMethod: 'WEB',
          evidenceRef: `ev-${p}`,
          capturedAt: '2025-01-02T03:04:05Z',
          requestKey: `cus-${p}/consent/0`,
        },
      ],
      instruments: [{ instrumentType: 'BANK_ACCOUNT', providerTokenRef: `tok-${p}`, lastFour: '4321' }],
    });
    const read = () =>
      withTenantTransaction(h.db, tenantId, async (tx) => ({
        history: await tx
          .select({ action: customerHistory.action, occurredAt: customerHistory.occurredAt })
          .from(customerHistory)
          .where(eq(customerHistory.customerId, boarded.customerId))
          .orderBy(customerHistory.id),
        customer: (
          await tx
            .select({ updatedAt: customers.updatedAt })
            .from(customers)
            .where(eq(customers.id, boarded.customerId))
        )[0],
      }));
    const { history, customer } = await read();
    expect(history.map((row) => row.action)).toEqual([
      'CUSTOMER_CREATED',
      'IDENTIFIER_ADDED',
      'CONSENT_RECORDED',
      'INSTRUMENT_ADDED',
    ]);
    expect(new Set(history.map((row) => row.occurredAt.toISOString())).size).toBe(1);
    expect(customer?.updatedAt.toISOString()).toBe(history[0]?.occurredAt.toISOString());
    // A replay (the same request keys, identifier and token) writes no history entry and leaves updated_at alone.
    const again = await h.activities.boardCustomer({
      customer: { tenantId, firstName: 'Ida', lastName: 'Items', requestKey: `cus-${p}` },
      identifiers: [{ identifierType: 'SSN', value: '123-45-6789', issuingCountry: 'US' }],
      consents: [],
      instruments: [{ instrumentType: 'BANK_ACCOUNT', providerTokenRef: `tok-${p}`, lastFour: '4321' }],
    });
    expect(again).toEqual(boarded);
    expect(await read()).toEqual({ history, customer });
  });
});

describe('recordExternalPaymentHistory', () => {
  it('ends in the same loan state, allocations and journal as recording the payments one by one', async () => {
    const tenantId = await newTenant(h, 'bhist');
    const p = refPrefix('hist');
    // Two twin loans, boarded without payments.
    const lines = [
      ...catalogLines(p),
      customerLine(p, 1),
      ...loanLines(p, 1, 1, 0),
      ...loanLines(p, 2, 1, 0),
    ];
    const batchId = await stageBatch(h.db, tenantId, lines);
    await runBatch(tenantId, batchId);
    const stored = await linesOf(tenantId, batchId);
    const loanA = stored.find((l) => l.sourceRef === `${p}-loan-1`)?.resourceId as number;
    const loanB = stored.find((l) => l.sourceRef === `${p}-loan-2`)?.resourceId as number;
    const history = [
      ['2025-02-15', '108.62'],
      ['2025-03-20', '50.00'],
      ['2025-04-15', '200.00'],
      ['2025-05-01', '0.01'],
      ['2025-06-15', '108.62'],
    ] as const;
    for (const [i, [date, amount]] of history.entries()) {
      await h.activities.recordExternalPayment({
        tenantId,
        loanId: loanA,
        amount,
        currency: 'USD',
        effectiveDate: date,
        externalRecordRef: `${p}-a-${i}`,
        source: 'IMPORT',
      });
    }
    const result = await h.activities.recordExternalPaymentHistory({
      tenantId,
      loanId: loanB,
      payments: history.map(([date, amount], i) => ({
        amount,
        currency: 'USD',
        effectiveDate: date,
        externalRecordRef: `${p}-b-${i}`,
        source: 'IMPORT',
      })),
    });
    expect(result.outcomes.every((o) => o.ok)).toBe(true);
    const stateOf = (loanId: number) =>
      withTenantTransaction(h.db, tenantId, async (tx) => {
        const [loan] = await tx
          .select()
          .from(loans)
          .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
        const inst = await tx
          .select()
          .from(loanInstallments)
          .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loanId)))
          .orderBy(asc(loanInstallments.installmentNumber));
        const pays = await tx
          .select({
            effectiveDate: payments.effectiveDate,
            amount: payments.amount,
            allocation: payments.allocation,
          })
          .from(payments)
          .where(and(eq(payments.tenantId, tenantId), eq(payments.loanId, loanId)))
          .orderBy(asc(payments.effectiveDate));
        const journal = await tx
          .select({
            accountCode: journalEntries.accountCode,
            debit: journalEntries.debit,
            credit: journalEntries.credit,
            entryDate: journalEntries.entryDate,
          })
          .from(journalEntries)
          .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.loanId, loanId)));
        const sortKey = (j: (typeof journal)[number]) =>
          `${j.entryDate}|${j.accountCode}|${j.debit}|${j.credit}`;
        return {
          status: loan?.status,
          installments: inst.map(({ loanId: _l, ...rest }) => rest),
          // The allocation payload names its payment: the twins' payment ids differ.
          payments: pays.map((x) => ({
            ...x,
            allocation: JSON.stringify(x.allocation).replace(/"paymentId":\d+/g, ''),
          })),
          journal: journal.map(sortKey).sort(),
        };
      });
    const a = await stateOf(loanA);
    const b = await stateOf(loanB);
    expect(b.status).toBe(a.status);
    expect(b.installments).toEqual(a.installments);
    expect(b.payments).toEqual(a.payments);
    expect(b.journal).toEqual(a.journal);
    expect(a.journal.length).toBeGreaterThan(0);

    // Run again: every payment replays (created: false), nothing new.
    const again = await h.activities.recordExternalPaymentHistory({
      tenantId,
      loanId: loanB,
      payments: history.map(([date, amount], i) => ({
        amount,
        currency: 'USD',
        effectiveDate: date,
        externalRecordRef: `${p}-b-${i}`,
        source: 'IMPORT',
      })),
    });
    expect(again.outcomes.map((o) => o.ok && o.payment.created)).toEqual(history.map(() => false));
    expect(await stateOf(loanB)).toEqual(b);
  });
});

describe('the loans of a chunk boarded in one transaction', () => {
  /** Ids, times and the tenant's names left out of `row`, the source-ref prefix `p` cut out of its text. */
  const comparable = (row: object, p: string, tenantId: string): Record<string, unknown> => {
    const varying =
      /^(id|tenantId|clientId|customerId|productId|chargeId|loanId|paymentId|fundingId|consentId|instrumentId|restrictionId|identifierId|accountNo|customerRef|loanRef|contentDigest|eventId|\w*RangeId|\w*BucketId|rangeId|bucketId|\w*At)$/;
    const text = JSON.stringify(row, (key, value) => (varying.test(key) ? undefined : value));
    return JSON.parse(
      text
        .replaceAll(p, '')
        .replaceAll(tenantId, '')
        .replace(/boarding-batch-\d+/g, 'boarding-batch'),
    );
  };

  /** What a tenant's boarding stored, by source ref, without ids or times: lines, loans, installments, journal. */
  async function boardedState(tenantId: string, batchId: number, p: string) {
    const stored = await linesOf(tenantId, batchId);
    return withTenantTransaction(h.db, tenantId, async (tx) => {
      const loanRows = await tx.select().from(loans).where(eq(loans.tenantId, tenantId));
      const byLoanId = new Map(loanRows.map((l) => [l.id, l.externalId]));
      const inst = await tx
        .select()
        .from(loanInstallments)
        .where(eq(loanInstallments.tenantId, tenantId))
        .orderBy(asc(loanInstallments.loanId), asc(loanInstallments.installmentNumber));
      const journal = await tx
        .select({
          loanId: journalEntries.loanId,
          accountCode: journalEntries.accountCode,
          debit: journalEntries.debit,
          credit: journalEntries.credit,
          entryDate: journalEntries.entryDate,
        })
        .from(journalEntries)
        .where(eq(journalEntries.tenantId, tenantId))
        .orderBy(asc(journalEntries.id));
      const pays = await tx
        .select({ loanId: payments.loanId, amount: payments.amount, allocation: payments.allocation })
        .from(payments)
        .where(eq(payments.tenantId, tenantId))
        .orderBy(asc(payments.id));
      const customerRows = await tx
        .select()
        .from(customers)
        .where(eq(customers.tenantId, tenantId))
        .orderBy(asc(customers.externalId));
      const historyRows = await tx
        .select({
          customerId: customerHistory.customerId,
          action: customerHistory.action,
          detail: customerHistory.detail,
        })
        .from(customerHistory)
        .where(eq(customerHistory.tenantId, tenantId))
        .orderBy(asc(customerHistory.id));
      const events = await tx
        .select({ eventType: outboxEvents.eventType, data: outboxEvents.data, source: outboxEvents.source })
        .from(outboxEvents)
        .where(eq(outboxEvents.tenantId, tenantId))
        .orderBy(asc(outboxEvents.id));
      const fundingRows = await tx
        .select()
        .from(fundings)
        .where(eq(fundings.tenantId, tenantId))
        .orderBy(asc(fundings.id));
      const items = await tx
        .select({ targetType: reconciliationItems.targetType, status: reconciliationItems.status })
        .from(reconciliationItems)
        .where(eq(reconciliationItems.tenantId, tenantId));
      const ref = (loanId: number | null) => (byLoanId.get(loanId ?? 0) ?? '').replace(p, '');
      const eventCounts: Record<string, number> = {};
      for (const e of events) eventCounts[e.eventType] = (eventCounts[e.eventType] ?? 0) + 1;
      return {
        lines: stored.map((l) => ({
          line: l.lineNo,
          state: l.state,
          error:
            l.error === null
              ? null
              : JSON.parse(
                  JSON.stringify(l.error)
                    .replaceAll(p, '')
                    // ids differ between tenants
                    .replace(/(Restriction|Loan|loan|Payment|payment|Funding|funding) \d+/g, '$1 #'),
                ),
        })),
        loans: loanRows
          .map((l) => ({ ...comparable(l, p, tenantId), externalId: l.externalId?.replace(p, '') }))
          .sort((x, y) => String(x.externalId).localeCompare(String(y.externalId))),
        installments: inst.map((i) => ({ loan: ref(i.loanId), ...comparable(i, p, tenantId) })),
        journal: journal.map(({ loanId, ...rest }) => ({ loan: ref(loanId), ...rest })),
        payments: pays.map((pay) => ({ loan: ref(pay.loanId), ...comparable(pay, p, tenantId) })),
        customers: customerRows.map((c) => comparable(c, p, tenantId)),
        customerHistory: historyRows.map((r) =>
          comparable({ action: r.action, detail: r.detail }, p, tenantId),
        ),
        eventCounts,
        events: events.map((e) => comparable(e, p, tenantId)),
        fundings: fundingRows.map((f) => ({ loan: ref(f.loanId), ...comparable(f, p, tenantId) })),
        reconciliationItems: items,
      };
    });
  }

  it('stores the same rows, events and line outcomes as boarding one loan per transaction, a bad loan included', async () => {
    const portfolio = (p: string) => {
      const lines = portfolioLines(p, 5, 3);
      // Valid by shape, refused by the operation: principal above the product's maximum.
      const bad = lines.find((l) => l.sourceRef === `${p}-loan-3`) as TestLine;
      bad.body.principal = '50000';
      return lines;
    };
    const together = await newTenant(h, 'btog');
    const pt = refPrefix('tog');
    const batchTogether = await stageBatch(h.db, together, portfolio(pt));
    await runBatch(together, batchTogether, 25);
    const alone = await newTenant(h, 'balone');
    const pa = refPrefix('alo');
    const batchAlone = await stageBatch(h.db, alone, portfolio(pa));
    await runBatch(alone, batchAlone, 1);

    const a = await boardedState(together, batchTogether, pt);
    const b = await boardedState(alone, batchAlone, pa);
    // The refused loan stores nothing (its application fails), the four others board.
    expect(a.loans.length).toBe(4);
    expect(a.lines.filter((l) => l.state === 'FAILED').length).toBeGreaterThan(0);
    expect(a.lines).toEqual(b.lines);
    expect(a.loans).toEqual(b.loans);
    expect(a.installments).toEqual(b.installments);
    expect(a.journal).toEqual(b.journal);
    expect(a.payments).toEqual(b.payments);
    expect(a.customers.length).toBe(5);
    expect(a.customers).toEqual(b.customers);
    expect(a.customerHistory).toEqual(b.customerHistory);
    expect(a.eventCounts).toEqual(b.eventCounts);
    expect(await tenantTrialBalance(h.db, together)).toEqual(await tenantTrialBalance(h.db, alone));
  });

  it('writes a chunk of loans of mixed shapes with the same rows, events and outcomes as loan by loan', async () => {
    // A bucket of the tenant: the boarded loans overdue today change their tag as they board (an event written
    // directly, in the middle of the chunk's held-back ones).
    const bucketOf = async (tenant: string, p: string) => {
      const { rangeId } = await h.activities.createDelinquencyRange({
        tenantId: tenant,
        classification: `${p} 1+`,
        minimumAgeDays: 1,
        maximumAgeDays: null,
      });
      return (
        await h.activities.createDelinquencyBucket({
          tenantId: tenant,
          name: `${p} bucket`,
          ranges: [rangeId],
        })
      ).bucketId;
    };
    const portfolio = (p: string, bucketId: number): TestLine[] => {
      const lines: TestLine[] = [...catalogLines(p)];
      (lines[1] as TestLine).body.delinquencyBucketId = bucketId;
      lines.push({
        kind: 'loanProduct',
        sourceRef: `${p}-dp`,
        body: {
          ...(lines[1] as TestLine).body,
          name: 'Down payment loan',
          shortName: 'DP1',
          chargeSourceRefs: [],
          lmsConfig: { productClass: 'COMMERCIAL', aprEnabled: false },
          enableDownPayment: true,
          disbursedAmountPercentageForDownPayment: '25',
          enableAutoRepaymentForDownPayment: true,
        },
      });
      for (let n = 1; n <= 8; n++) {
        lines.push(customerLine(p, n));
        // In the middle of the customers' chunk, one whose externalId another customer has (409 at its insert): its
        // savepoint rolls back, dropping what it held back, and it fails alone.
        const clash = customerLine(p, 9);
        if (n === 4) lines.push({ ...clash, body: { ...clash.body, externalId: `${p}-cust-2` } });
      }
      // Borrower 4 may not be disbursed to: its loan boards APPROVED, its funding and payments fail alone.
      lines.push({
        kind: 'restriction',
        sourceRef: `${p}-hold-4`,
        body: {
          customerSourceRef: `${p}-cust-4`,
          restrictionType: 'DISBURSEMENT_HOLD',
          reason: 'Boarded hold',
        },
      });
      const loan = (n: number, payments: number, change?: (lines: TestLine[]) => void) => {
        const own = loanLines(p, n, n, payments);
        change?.(own);
        lines.push(...own);
      };
      loan(1, 4);
      // Two fundings (the second one later), the payments after both.
      loan(2, 3, (own) => {
        const first = own[1] as TestLine;
        first.body.amount = '700.00';
        own.splice(2, 0, {
          kind: 'funding',
          sourceRef: `${p}-loan-2-fund-b`,
          body: { ...first.body, amount: '500.00', fundingDate: '2025-01-20', recipientRef: `${p}-second` },
        });
      });
      // Refused by its application (principal above the product's maximum), in the middle of the chunk.
      loan(3, 2, (own) => {
        (own[0] as TestLine).body.principal = '50000';
      });
      loan(4, 2);
      // Approved for less than applied, funded for it, no payment.
      loan(5, 0, (own) => {
        (own[0] as TestLine).body.approval = { approvedOnDate: '2025-01-12', approvedLoanAmount: '1000' };
        (own[1] as TestLine).body.amount = '1000.00';
      });
      // Neither funding nor payment: it stays APPROVED.
      loan(6, 0, (own) => own.splice(1));
      // A down-payment product without charges: the funding records the down payment.
      loan(7, 2, (own) => {
        const body = (own[0] as TestLine).body;
        body.productSourceRef = `${p}-dp`;
        body.charges = [];
        body.transactionProcessingStrategyCode = 'advanced-payment-allocation-strategy';
      });
      // One payment in another currency fails alone; another takes loan 1's payment ref (a conflict).
      loan(8, 3, (own) => {
        (own[2] as TestLine).body.currency = 'EUR';
        (own[3] as TestLine).body.externalRecordRef = `${p}-loan-1-pay-1`;
      });
      // Verifications, in one transaction; the second one's verifiedAt is in the future (400 from the operation):
      // its savepoint rolls back and it fails alone.
      for (const n of [1, 2, 3]) {
        lines.push({
          kind: 'verification',
          sourceRef: `${p}-verify-${n}`,
          body: {
            customerSourceRef: `${p}-cust-${n}`,
            instrumentSourceRef: 'bank',
            verificationSource: 'PLAID_AUTH',
            ...(n === 2 ? { verifiedAt: '2999-01-01T00:00:00Z' } : {}),
          },
        });
      }
      return lines;
    };
    const reference = createActivities({ ...h.deps, boardingLoanChunks: false });
    const chunked = await newTenant(h, 'bmix');
    const pc = refPrefix('mixc');
    const batchChunked = await stageBatch(h.db, chunked, portfolio(pc, await bucketOf(chunked, pc)));
    await runBatch(chunked, batchChunked, 25);
    const alone = await newTenant(h, 'bmixr');
    const pr = refPrefix('mixr');
    const batchAlone = await stageBatch(h.db, alone, portfolio(pr, await bucketOf(alone, pr)));
    await runBatch(alone, batchAlone, 25, reference);

    const a = await boardedState(chunked, batchChunked, pc);
    const b = await boardedState(alone, batchAlone, pr);
    // The shapes did what they are for (so that the comparison below covers them).
    expect(a.loans.length).toBe(7);
    expect(a.fundings.length).toBe(6);
    expect(a.eventCounts['loan.approved']).toBe(7);
    expect(a.eventCounts['loan.delinquency.changed']).toBeGreaterThan(0);
    expect(
      a.events.some((e) => (e.data as { transactionType?: string }).transactionType === 'DOWN_PAYMENT'),
    ).toBe(true);
    expect(a.lines.filter((l) => l.state === 'FAILED').length).toBeGreaterThanOrEqual(3 + 3 + 2 + 1);
    expect(a.customers.length).toBe(8);
    expect(a.customerHistory.filter((h) => h.action === 'INSTRUMENT_VERIFIED').length).toBe(2);
    expect(a.eventCounts['customer.created']).toBe(8);
    expect(a.lines).toEqual(b.lines);
    expect(a.loans).toEqual(b.loans);
    expect(a.installments).toEqual(b.installments);
    expect(a.journal).toEqual(b.journal);
    expect(a.payments).toEqual(b.payments);
    expect(a.fundings).toEqual(b.fundings);
    expect(a.reconciliationItems).toEqual(b.reconciliationItems);
    expect(a.customers).toEqual(b.customers);
    expect(a.customerHistory).toEqual(b.customerHistory);
    expect(a.events).toEqual(b.events);
    expect(await tenantTrialBalance(h.db, chunked)).toEqual(await tenantTrialBalance(h.db, alone));
  });

  it('commits the customers and the loans of a chunk in one transaction each', async () => {
    const tenantId = await newTenant(h, 'btx');
    const p = refPrefix('tx');
    const lines = portfolioLines(p, 6, 2);
    const batchId = await stageBatch(h.db, tenantId, lines);
    // Everything but the loans first, as the workflow does.
    const begins = { count: 0 };
    const client = postgres(inject('databaseUrl'), {
      max: 2,
      onnotice: () => {},
      debug: (_connection, query) => {
        if (/^\s*begin/i.test(query)) begins.count += 1;
      },
    });
    try {
      const counted = createActivities({ ...h.deps, db: drizzle({ client, schema, casing: 'snake_case' }) });
      for (const kind of boardingKinds) {
        const page = await counted.validateBoardingPage({
          tenantId,
          batchId,
          kind,
          afterLine: 0,
          limit: 1000,
        });
        expect(page.done).toBe(true);
      }
      const boardAll = async (kind: 'charge' | 'loanProduct' | 'customer' | 'restriction') => {
        const chunks = await counted.planBoardingChunks({
          tenantId,
          batchId,
          kind,
          afterLine: 0,
          chunkSize: 50,
          maxChunks: 5,
        });
        expect(chunks.length).toBe(1);
        return counted.boardBoardingChunk({ tenantId, batchId, kind, ...(chunks[0] as BoardingChunk) });
      };
      await boardAll('charge');
      await boardAll('loanProduct');
      begins.count = 0;
      expect((await boardAll('customer')).customer).toEqual({ boarded: 6, failed: 0 });
      // Planning the chunk, reading the lines and the source refs, boarding the 6 customers, writing the outcomes.
      expect(begins.count).toBe(5);
      await boardAll('restriction');
      const [chunk] = await counted.planBoardingChunks({
        tenantId,
        batchId,
        kind: 'loan',
        afterLine: 0,
        chunkSize: 25,
        maxChunks: 1,
      });
      begins.count = 0;
      const delta = await counted.boardBoardingChunk({
        tenantId,
        batchId,
        kind: 'loan',
        ...(chunk as BoardingChunk),
      });
      expect(delta.loan).toEqual({ boarded: 6, failed: 0 });
      expect(delta.payment).toEqual({ boarded: 12, failed: 0 });
      // Reading the lines, the children and the source refs, boarding the 6 loans, writing the outcomes.
      expect(begins.count).toBe(5);
    } finally {
      await client.end();
    }
  });
});
