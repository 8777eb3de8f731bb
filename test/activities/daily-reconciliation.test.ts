/**
 * The daily reconciliation end to end on the real PostgreSQL and Temporal dev server of the global setup, with the
 * sandbox rail (docs/processes.md P1 "Reconciliation exceptions"): intents stored directly as the
 * payment-intent workflow leaves them, the rail's books written through the sandbox rail, then
 * `tenantReconciliationWorkflow` (started by an operator's port) and `dailyReconciliationWorkflow` (fanning out to
 * it) on a `lending` worker. Covers: a posted and settled intent (nothing), a posted intent the rail never settled
 * (POSTED_NOT_SETTLED), a return at the rail of an intent posted here (RETURN_NOT_REVERSED), a settlement without an
 * intent (UNMATCHED_SETTLEMENT), a matched return and a settlement in flight (nothing); a second run opens nothing
 * and moves `lastSeenAt`. Also: the operation's 400s, and the Temporal Schedule created idempotently.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxRail } from '../../activities/payments/sandbox-rail';
import { payments, reconciliationExceptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  dailyReconciliationScheduleId,
  tenantReconciliationWorkflowId,
} from '../../domain/payments/daily-reconciliation';
import {
  dailyReconciliationSchedule,
  ensureDailyReconciliationSchedule,
  startTenantReconciliation,
} from '../../workflows/payments/daily-reconciliation/client';
import type {
  DailyReconciliationResult,
  TenantReconciliationResult,
} from '../../workflows/payments/daily-reconciliation/types';
import { createTestContext, type TestContext, uniqueTenant } from '../support/context';
import { expectDomainError } from './helpers';
import { approvedLoan } from './ledger-fixtures';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ lendingWorker: true });
});
afterAll(async () => ctx?.close());

/** The day compared: a Wednesday, closed long before the real clock. */
const day = '2026-11-18';
const rail = () => createSandboxRail(ctx.db, { clock: () => ctx.now.value ?? new Date() });

/** Stores a payment intent as the workflow leaves it (rail ACH) and returns its id. */
async function storeIntent(
  tenantId: string,
  loanId: number,
  values: {
    status: 'SUBMITTED' | 'POSTED' | 'RETURNED';
    settledOn?: string;
    returnedOn?: string;
    returnCode?: string;
  },
): Promise<number> {
  const [row] = await withTenantTransaction(ctx.db, tenantId, (tx) =>
    tx
      .insert(payments)
      .values({
        tenantId,
        loanId,
        amount: '100.00',
        currencyCode: 'USD',
        effectiveDate: values.settledOn ?? day,
        status: values.status,
        source: 'test',
        rail: 'ACH',
        settledOn: values.settledOn ?? null,
        returnedOn: values.returnedOn ?? null,
        returnCode: values.returnCode ?? null,
      })
      .returning({ id: payments.id }),
  );
  return (row as { id: number }).id;
}

/** Submits payment `paymentId` on the sandbox rail's books and stores its providerRef on the intent (if any). */
async function submitAtRail(tenantId: string, paymentId: number): Promise<string> {
  const { providerRef } = await rail().submit({
    tenantId,
    paymentId,
    rail: 'ACH',
    amount: '100.00',
    currency: 'USD',
    instrument: { providerTokenRef: 'tok_bank_ok', instrumentType: 'BANK_ACCOUNT' },
    effectiveDate: day,
  });
  await withTenantTransaction(ctx.db, tenantId, (tx) =>
    tx.update(payments).set({ providerRef }).where(eq(payments.id, paymentId)),
  );
  return providerRef;
}

async function settleAtRail(tenantId: string, paymentId: number, settledOn: string) {
  const outcome = await rail().recordSandboxSettlement({ tenantId, paymentId, amount: '100.00', settledOn });
  expect(outcome.result).toBe('RECORDED');
}

async function returnAtRail(tenantId: string, paymentId: number, returnedOn: string) {
  const outcome = await rail().recordSandboxReturn({ tenantId, paymentId, returnCode: 'R01', returnedOn });
  expect(outcome.result).toBe('RECORDED');
}

function exceptionsOf(tenantId: string) {
  return withTenantTransaction(ctx.db, tenantId, (tx) =>
    tx
      .select()
      .from(reconciliationExceptions)
      .where(eq(reconciliationExceptions.tenantId, tenantId))
      .orderBy(reconciliationExceptions.id),
  );
}

describe('daily reconciliation of one tenant', () => {
  it('opens each exception type once, nothing for what matches or is in flight; a rerun only moves lastSeenAt', async () => {
    const tenantId = uniqueTenant('recon');
    await ctx.platform.ensureTenant({ tenantId });
    const loan = await approvedLoan(ctx, tenantId);

    // Posted and settled on the day: matched.
    const matched = await storeIntent(tenantId, loan.loanId, { status: 'POSTED', settledOn: day });
    await submitAtRail(tenantId, matched);
    await settleAtRail(tenantId, matched, day);
    // Posted here, still only submitted at the rail: POSTED_NOT_SETTLED.
    const notSettled = await storeIntent(tenantId, loan.loanId, { status: 'POSTED', settledOn: day });
    const notSettledRef = await submitAtRail(tenantId, notSettled);
    // Settled two days before, returned at the rail on the day, still POSTED here: RETURN_NOT_REVERSED.
    const notReversed = await storeIntent(tenantId, loan.loanId, {
      status: 'POSTED',
      settledOn: '2026-11-16',
    });
    const notReversedRef = await submitAtRail(tenantId, notReversed);
    await settleAtRail(tenantId, notReversed, '2026-11-16');
    await returnAtRail(tenantId, notReversed, day);
    // Returned at the rail and reversed here: matched.
    const reversed = await storeIntent(tenantId, loan.loanId, {
      status: 'RETURNED',
      settledOn: '2026-11-16',
      returnedOn: day,
      returnCode: 'R01',
    });
    await submitAtRail(tenantId, reversed);
    await settleAtRail(tenantId, reversed, '2026-11-16');
    await returnAtRail(tenantId, reversed, day);
    // Settled at the rail, still SUBMITTED here (the workflow has not applied it): in flight, not flagged.
    const inFlight = await storeIntent(tenantId, loan.loanId, { status: 'SUBMITTED' });
    await submitAtRail(tenantId, inFlight);
    await settleAtRail(tenantId, inFlight, day);
    // A transfer on the rail's books for a paymentId we never created: UNMATCHED_SETTLEMENT.
    const strangerId = inFlight + 1_000_000;
    const strangerRef = await submitAtRail(tenantId, strangerId);
    await settleAtRail(tenantId, strangerId, day);

    // The comparison alone writes nothing.
    const comparison = await ctx.activities.reconcileRailSettlements({ tenantId, from: day, to: day });
    expect(comparison.counts).toEqual({
      UNMATCHED_SETTLEMENT: 1,
      POSTED_NOT_SETTLED: 1,
      RETURN_NOT_REVERSED: 1,
    });
    expect(comparison.linesCompared).toBe(5);
    expect(await exceptionsOf(tenantId)).toEqual([]);

    // First run: the operator's port starts the tenant's workflow on the lending worker. The instants come from the
    // workflow's clock (any worker on the shared queue may run the activity), so they fall within the run.
    const firstStart = Date.now();
    const workflowId = await startTenantReconciliation(ctx.client, { tenantId, from: day, to: day });
    expect(workflowId).toBe(tenantReconciliationWorkflowId(tenantId, day, day));
    expect(workflowId).toBe(`daily-reconciliation/${tenantId}/${day}`);
    const first: TenantReconciliationResult = await ctx.client.workflow.getHandle(workflowId).result();
    expect(first).toMatchObject({
      tenantId,
      linesCompared: 5,
      opened: { UNMATCHED_SETTLEMENT: 1, POSTED_NOT_SETTLED: 1, RETURN_NOT_REVERSED: 1 },
      recurred: { UNMATCHED_SETTLEMENT: 0, POSTED_NOT_SETTLED: 0, RETURN_NOT_REVERSED: 0 },
    });
    const description = await ctx.client.workflow.getHandle(workflowId).describe();
    expect(
      description.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value]),
    ).toContainEqual(['TenantId', tenantId]);

    const opened = await exceptionsOf(tenantId);
    expect(
      opened.map((row) => [
        row.exceptionType,
        row.targetType,
        row.targetRef,
        row.detail.providerRef,
        row.status,
      ]),
    ).toEqual([
      ['UNMATCHED_SETTLEMENT', 'RAIL_SETTLEMENT', strangerRef, strangerRef, 'open'],
      ['POSTED_NOT_SETTLED', 'PAYMENT_INTENT', String(notSettled), notSettledRef, 'open'],
      ['RETURN_NOT_REVERSED', 'PAYMENT_INTENT', String(notReversed), notReversedRef, 'open'],
    ]);
    expect(opened[0]?.detail).toMatchObject({ reason: 'NO_MATCHING_INTENT', settledAmount: '100.00' });
    expect(opened[2]?.detail).toMatchObject({ returnCode: 'R01', returnedOn: day });
    const firstEnd = Date.now();
    const firstSeen = opened.map((row) => row.lastSeenAt.getTime());
    for (const [i, row] of opened.entries()) {
      expect(row.createdAt.getTime()).toBe(firstSeen[i]);
      expect(firstSeen[i]).toBeGreaterThanOrEqual(firstStart - 1_000);
      expect(firstSeen[i]).toBeLessThanOrEqual(firstEnd + 1_000);
    }

    // Second run, later, through the daily workflow's fan-out: nothing new, lastSeenAt moved forward.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second: DailyReconciliationResult = await ctx.client.workflow.execute(
      'dailyReconciliationWorkflow',
      {
        workflowId: `daily-reconciliation-test-${tenantId}`,
        taskQueue: 'lending',
        args: [{ date: day, tenantIds: [tenantId] }],
      },
    );
    expect(second).toEqual({
      date: day,
      tenantsReconciled: 1,
      opened: { UNMATCHED_SETTLEMENT: 0, POSTED_NOT_SETTLED: 0, RETURN_NOT_REVERSED: 0 },
      recurred: { UNMATCHED_SETTLEMENT: 1, POSTED_NOT_SETTLED: 1, RETURN_NOT_REVERSED: 1 },
    });
    const after = await exceptionsOf(tenantId);
    expect(after.map((row) => row.id)).toEqual(opened.map((row) => row.id));
    for (const row of after) {
      expect(row.status).toBe('open');
      const i = opened.findIndex((first) => first.id === row.id);
      expect(row.createdAt.getTime()).toBe(firstSeen[i]);
      expect(row.lastSeenAt.getTime()).toBeGreaterThan(firstSeen[i] ?? Number.POSITIVE_INFINITY);
    }
  });

  it('lists the tenants with payment intents, across tenants', async () => {
    const tenantId = uniqueTenant('recon');
    await ctx.platform.ensureTenant({ tenantId });
    const loan = await approvedLoan(ctx, tenantId);
    const before = await ctx.activities.listTenantsWithPaymentIntents();
    expect(before).not.toContain(tenantId);
    await storeIntent(tenantId, loan.loanId, { status: 'SUBMITTED' });
    const after = await ctx.activities.listTenantsWithPaymentIntents();
    expect(after).toContain(tenantId);
    expect([...after].sort()).toEqual(after);
  });

  it('refuses a range that is not closed or not a range (400), comparing nothing', async () => {
    const tenantId = uniqueTenant('recon');
    ctx.now.value = new Date('2026-11-19T03:00:00Z'); // still 2026-11-18 in New York
    const errors = [
      await expectDomainError(
        ctx.activities.reconcileRailSettlements({ tenantId, from: day, to: day }),
        'validation.msg.validation.errors.exist',
      ),
      await expectDomainError(
        ctx.activities.reconcileRailSettlements({ tenantId, from: day, to: '2026-11-17' }),
        'validation.msg.validation.errors.exist',
      ),
      await expectDomainError(
        ctx.activities.reconcileRailSettlements({ tenantId, from: '2026-02-30', to: '2026-03-01' }),
        'validation.msg.validation.errors.exist',
      ),
      await expectDomainError(
        ctx.activities.reconcileRailSettlements({ tenantId, from: '2026-09-01', to: '2026-11-01' }),
        'validation.msg.validation.errors.exist',
      ),
    ];
    ctx.now.value = null;
    expect(errors.map((err) => err.errors[0]?.parameterName)).toEqual(['to', 'to', 'from', 'to']);
  });
});

describe('the daily schedule', () => {
  it('is created once, then updated in place: one schedule, daily at 06:00 New York, overlap SKIP', async () => {
    const scheduleId = `${dailyReconciliationScheduleId}-test-${uniqueTenant('s')}`;
    try {
      expect(await ensureDailyReconciliationSchedule(ctx.client, scheduleId)).toBe('created');
      expect(await ensureDailyReconciliationSchedule(ctx.client, scheduleId)).toBe('updated');
      const results = await Promise.all([
        ensureDailyReconciliationSchedule(ctx.client, scheduleId),
        ensureDailyReconciliationSchedule(ctx.client, scheduleId),
      ]);
      expect(results).toEqual(['updated', 'updated']);
      const described = await ctx.client.schedule.getHandle(scheduleId).describe();
      expect(described.scheduleId).toBe(scheduleId);
      expect(described.policies.overlap).toBe('SKIP');
      expect(described.spec.timezone).toBe('America/New_York');
      expect(described.spec.calendars).toMatchObject([{ hour: [{ start: 6 }], minute: [{ start: 0 }] }]);
      expect(described.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'dailyReconciliationWorkflow',
        taskQueue: 'lending',
        args: [{}],
      });
      expect(described.info.nextActionTimes.length).toBeGreaterThan(0);
      for (const next of described.info.nextActionTimes) {
        expect(
          new Intl.DateTimeFormat('en-US', {
            timeZone: 'America/New_York',
            hour: '2-digit',
            minute: '2-digit',
            hourCycle: 'h23',
          }).format(next),
        ).toBe('06:00');
      }
      // Listing is eventually consistent: wait until the schedule shows, and count it.
      let listed = 0;
      for (let attempt = 0; attempt < 50 && listed === 0; attempt++) {
        listed = 0;
        for await (const summary of ctx.client.schedule.list())
          if (summary.scheduleId === scheduleId) listed++;
        if (listed === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(listed).toBe(1);
      expect(dailyReconciliationSchedule(scheduleId).scheduleId).toBe(scheduleId);
    } finally {
      await ctx.client.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => {});
    }
  });
});
