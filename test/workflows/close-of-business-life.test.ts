/**
 * 150 days of two loans' lives, closed day by day by the close-of-business process on the time-skipping test
 * server with the real operations on the real database (docs/processes.md P7; docs/lending.md "Close of business:
 * the loan step"). Each day D from 2025-01-01 to 2025-05-30 the daily launcher runs as the tenant's schedule would
 * at 00:30 of D + 1 (UTC here) and closes D; payments value-dated D are recorded before D is closed.
 *
 * Both loans: 600.00 USD, 6 monthly installments of 100.00 principal, 6.00 flat interest and a 2.00 fee; a
 * product overdue charge of 10.00 (flat penalty, `chargeTimeType` 9); the tenant's penalty wait of 2 days; a bucket
 * EARLY 1–30 (opens a GENERAL collections case), LATE 31–60, SEVERE 61–90, LOSS 91+; charge-off at 120 days.
 * - Loan A (disbursed 2025-01-01, due 02-01 … 07-01) misses its first installment, is paid up on 2025-03-05
 *   (everything due then, penalties included), then pays installments 3 and 4 on their due dates: EARLY with a
 *   case, LATE, then NO_DELINQUENCY with the case closed CURED; a penalty on installments 1 and 2 only.
 * - Loan B (disbursed 2024-12-01, due 2025-01-01 … 06-01) never pays: EARLY, LATE, SEVERE, LOSS; a penalty on
 *   installments 1–4; charged off automatically as of 2025-05-01 (120 days after 01-01), after which no penalty;
 *   a payment of 50.00 on 2025-05-15 is posted as recovery (Dr EXTERNAL_CLEARING / Cr RECOVERY_INCOME).
 * The trial balance is zero after every day; running the last day again changes nothing.
 */
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Activities, createActivities, createPlatformOperations, type Deps } from '../../activities';
import { createDb } from '../../db/client';
import {
  cases,
  journalEntries,
  loanCharges,
  loanDelinquencyHistory,
  loanInstallments,
  loanProductCharges,
  loans,
  outboxEvents,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { asTemporalActivities } from '../../workers/activities';
import { workflowSpanSinks } from '../../workers/tracing';
import type { closeOfBusinessLauncherWorkflow } from '../../workflows/lending/close-of-business/workflow';
import { approvedLoan, type LoanFixture, tenantTrialBalance } from '../activities/ledger-fixtures';

let env: TestWorkflowEnvironment;
let dbHandle: ReturnType<typeof createDb>;
let deps: Deps;
let ops: Activities;

beforeAll(async () => {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // A runtime is already installed in this process.
  }
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: { TenantId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
  });
  dbHandle = createDb(inject('databaseUrl'), { maxConnections: 8 });
  deps = {
    db: dbHandle.db,
    clock: () => new Date(),
    secretPepper: 'close-of-business-life-pepper',
    dataEncryptionKey: 'd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef',
    environment: 'sandbox',
  };
  ops = createActivities(deps);
});
afterAll(async () => {
  await env?.teardown();
  await dbHandle?.close();
});

const tx = <T>(tenantId: string, run: Parameters<typeof withTenantTransaction<T>>[2]) =>
  withTenantTransaction(deps.db, tenantId, run);

/** An ACTIVE 600.00 loan disbursed on `disbursedOn`, with the bucket, charge-off and the overdue charge. */
async function lifeLoan(
  tenantId: string,
  disbursedOn: string,
  bucketId: number,
  overdueChargeId: number,
  ref: string,
): Promise<LoanFixture> {
  const loan = await approvedLoan({ db: deps.db, activities: ops }, tenantId, {
    principal: '600.00',
    numberOfRepayments: 6,
    expectedDisbursementDate: disbursedOn,
    approvedOnDate: addDays(disbursedOn, -10),
  });
  await ops.recordExternalFunding({
    tenantId,
    loanId: loan.loanId,
    amount: '600.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: `fund-${ref}`,
    reason: 'Disbursed by the originating bank',
    fundingDate: disbursedOn,
  });
  await tx(tenantId, async (t) => {
    // The product's delinquency settings as a loan created from it carries them (its terms), and the loan's
    // creation on its disbursement day (a charge-off is never dated before the loan was created here).
    await t
      .update(loans)
      .set({
        terms: sql`${loans.terms} || ${JSON.stringify({
          delinquency: {
            delinquencyBucketId: bucketId,
            graceOnArrearsAgeing: 0,
            enableInstallmentLevelDelinquency: false,
            chargeOffDaysPastDue: 120,
          },
        })}::jsonb`,
        createdAt: new Date(`${disbursedOn}T12:00:00Z`),
      })
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan.loanId)));
    await t
      .insert(loanProductCharges)
      .values({ tenantId, productId: loan.productId, chargeId: overdueChargeId });
  });
  return loan;
}

/** What the loan's installments due on or before `date` still owe (decimal string, 2 digits). */
async function owedThrough(tenantId: string, loanId: number, date: string): Promise<string> {
  const [row] = await tx(tenantId, (t) =>
    t
      .select({
        owed: sql<string>`coalesce(sum(${loanInstallments.principalDue} + ${loanInstallments.interestDue}
          + ${loanInstallments.feeChargesDue} + ${loanInstallments.penaltyChargesDue}
          - ${loanInstallments.principalPaid} - ${loanInstallments.interestPaid}
          - ${loanInstallments.feeChargesPaid} - ${loanInstallments.penaltyChargesPaid}
          - ${loanInstallments.interestWaived} - ${loanInstallments.feeChargesWaived}
          - ${loanInstallments.penaltyChargesWaived}), 0)::numeric(19,2)::text`,
      })
      .from(loanInstallments)
      .where(
        and(
          eq(loanInstallments.tenantId, tenantId),
          eq(loanInstallments.loanId, loanId),
          sql`${loanInstallments.dueDate} <= ${date}`,
        ),
      ),
  );
  return row?.owed ?? '0.00';
}

async function pay(tenantId: string, loanId: number, amount: string, effectiveDate: string) {
  await ops.recordExternalPayment({
    tenantId,
    loanId,
    amount,
    currency: 'USD',
    effectiveDate,
    externalRecordRef: `pay-${loanId}-${effectiveDate}`,
    source: 'IMPORT',
    rationale: 'Paid at the servicer',
  });
}

const historyOf = (tenantId: string, loanId: number) =>
  tx(tenantId, (t) =>
    t
      .select()
      .from(loanDelinquencyHistory)
      .where(and(eq(loanDelinquencyHistory.tenantId, tenantId), eq(loanDelinquencyHistory.loanId, loanId)))
      .orderBy(loanDelinquencyHistory.id),
  );

const penaltiesOf = (tenantId: string, loanId: number) =>
  tx(tenantId, (t) =>
    t
      .select({
        installmentNumber: loanCharges.installmentNumber,
        dueDate: loanCharges.dueDate,
        amount: sql<string>`${loanCharges.amount}::numeric(19,2)::text`,
      })
      .from(loanCharges)
      .where(
        and(
          eq(loanCharges.tenantId, tenantId),
          eq(loanCharges.loanId, loanId),
          eq(loanCharges.penalty, true),
        ),
      )
      .orderBy(loanCharges.installmentNumber),
  );

const eventCount = async (tenantId: string, loanId: number, eventType: string) =>
  (
    await tx(tenantId, (t) =>
      t
        .select({ n: sql<number>`count(*)::int` })
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.tenantId, tenantId),
            eq(outboxEvents.subjectId, String(loanId)),
            eq(outboxEvents.eventType, eventType),
          ),
        ),
    )
  )[0]?.n ?? 0;

async function expectBalanced(tenantId: string, day: string) {
  const rows = await tenantTrialBalance(deps.db, tenantId);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) expect(`${day} ${row.debit}`).toBe(`${day} ${row.credit}`);
}

describe('close of business over 150 days (time-skipping server)', () => {
  it('ages, penalises, opens and cures a collections case, charges off at 120 days and posts a later payment as recovery', async () => {
    const tenantId = `life-${Date.now().toString(36)}`;
    await createPlatformOperations(deps).ensureTenant({ tenantId });
    const range = (
      classification: string,
      minimumAgeDays: number,
      maximumAgeDays: number | null,
      code?: string,
    ) =>
      ops.createDelinquencyRange({
        tenantId,
        classification,
        minimumAgeDays,
        maximumAgeDays,
        ...(code ? { collectionsCaseTypeCode: code } : {}),
      });
    const ranges = [
      await range('EARLY', 1, 30, 'GENERAL'),
      await range('LATE', 31, 60),
      await range('SEVERE', 61, 90),
      await range('LOSS', 91, null),
    ];
    const { bucketId } = await ops.createDelinquencyBucket({
      tenantId,
      name: 'Consumer instalment',
      ranges: ranges.map((r) => r.rangeId),
    });
    const { chargeId } = await ops.createCharge({
      tenantId,
      name: 'Late fee',
      currencyCode: 'USD',
      amount: '10.00',
      chargeAppliesTo: 1,
      chargeTimeType: 9,
      chargeCalculationType: 1,
      penalty: true,
      active: true,
    });
    const a = await lifeLoan(tenantId, '2025-01-01', bucketId, chargeId, `${tenantId}-a`);
    const b = await lifeLoan(tenantId, '2024-12-01', bucketId, chargeId, `${tenantId}-b`);

    const worker = () =>
      Worker.create({
        connection: env.nativeConnection,
        taskQueue: 'lending',
        workflowBundle: { codePath: inject('workflowBundlePath') },
        activities: asTemporalActivities(ops),
        sinks: workflowSpanSinks(),
      });
    const launch = (day: string, n = 0) =>
      env.client.workflow.execute<typeof closeOfBusinessLauncherWorkflow>('closeOfBusinessLauncherWorkflow', {
        workflowId: `close-of-business-launch/${tenantId}/${day}/${n}`,
        taskQueue: 'lending',
        args: [{ tenantId, timeZone: 'UTC', atMs: Date.parse(`${addDays(day, 1)}T00:30:00Z`) }],
      });
    const lastDay = '2025-05-30';
    let days = 0;
    await (await worker()).runUntil(async () => {
      for (let day = '2025-01-01'; day <= lastDay; day = addDays(day, 1)) {
        // Loan A is paid up on 03-05, then pays installments 3 and 4 on their due dates; B pays 50.00 on 05-15.
        if (day === '2025-03-05' || day === '2025-04-01' || day === '2025-05-01') {
          await pay(tenantId, a.loanId, await owedThrough(tenantId, a.loanId, day), day);
        }
        if (day === '2025-05-15') await pay(tenantId, b.loanId, '50.00', day);
        const launched = await launch(day);
        expect(launched.businessDate).toBe(day);
        const result = await env.client.workflow.getHandle(launched.workflowId).result();
        expect(result).toMatchObject({ status: 'COMPLETED', loans: { failed: 0 } });
        await expectBalanced(tenantId, day);
        days += 1;
      }
    });
    expect(days).toBe(150);

    // Every loan closed through the last day.
    const rows = await tx(tenantId, (t) =>
      t.select().from(loans).where(eq(loans.tenantId, tenantId)).orderBy(loans.id),
    );
    expect(rows.map((r) => r.lastClosedBusinessDate)).toEqual([lastDay, lastDay]);

    // Loan A: a penalty on installments 1 and 2 only, once each, dated their due dates.
    expect(await penaltiesOf(tenantId, a.loanId)).toEqual([
      { installmentNumber: 1, dueDate: '2025-02-01', amount: '10.00' },
      { installmentNumber: 2, dueDate: '2025-03-01', amount: '10.00' },
    ]);
    expect(await eventCount(tenantId, a.loanId, 'loan.penalty.assessed')).toBe(2);
    // EARLY (02-01 closed: 1 day as of 02-02) with a case, LATE (03-03: 31 days as of 03-04), cured by the 03-05 payment.
    const historyA = await historyOf(tenantId, a.loanId);
    expect(historyA.map((r) => [r.businessDate, r.previousClassification, r.classification])).toEqual([
      ['2025-02-01', 'NO_DELINQUENCY', 'EARLY'],
      ['2025-03-03', 'EARLY', 'LATE'],
      ['2025-03-05', 'LATE', 'NO_DELINQUENCY'],
    ]);
    expect(await eventCount(tenantId, a.loanId, 'loan.delinquency.changed')).toBe(3);
    const caseId = historyA[0]?.collectionsCaseId;
    expect(caseId).toEqual(expect.any(Number));
    expect(historyA[2]?.collectionsCaseId).toBe(caseId);
    const [collectionsCase] = await tx(tenantId, (t) =>
      t
        .select()
        .from(cases)
        .where(and(eq(cases.tenantId, tenantId), eq(cases.id, caseId as number))),
    );
    expect(collectionsCase).toMatchObject({
      caseTypeCode: 'GENERAL',
      status: 'CLOSED',
      outcomeCode: 'CURED',
    });
    expect(rows[0]).toMatchObject({ chargedOff: false, delinquencyRangeId: null });

    // Loan B: a penalty on installments 1–4 (the 5th fell overdue after the charge-off), ranges to LOSS.
    expect((await penaltiesOf(tenantId, b.loanId)).map((p) => [p.installmentNumber, p.amount])).toEqual([
      [1, '10.00'],
      [2, '10.00'],
      [3, '10.00'],
      [4, '10.00'],
    ]);
    const historyB = await historyOf(tenantId, b.loanId);
    expect(historyB.map((r) => [r.businessDate, r.classification, r.delinquentDays])).toEqual([
      ['2025-01-01', 'EARLY', 1],
      ['2025-01-31', 'LATE', 31],
      ['2025-03-02', 'SEVERE', 61],
      ['2025-04-01', 'LOSS', 91],
    ]);
    expect(rows[1]).toMatchObject({ chargedOff: true, chargedOffOnDate: '2025-05-01' });
    expect(await eventCount(tenantId, b.loanId, 'loan.chargeoff.posted')).toBe(1);
    // The 50.00 paid after the charge-off: recovery income, not a repayment of the portfolio.
    const recovery = await tx(tenantId, (t) =>
      t
        .select({
          debit: sql<string>`sum(${journalEntries.debit})::numeric(19,2)::text`,
          credit: sql<string>`sum(${journalEntries.credit})::numeric(19,2)::text`,
        })
        .from(journalEntries)
        .where(
          and(
            eq(journalEntries.tenantId, tenantId),
            eq(journalEntries.loanId, b.loanId),
            eq(journalEntries.accountCode, 'RECOVERY_INCOME'),
          ),
        ),
    );
    expect(recovery).toEqual([{ debit: '0.00', credit: '50.00' }]);

    // The last day once more: the whole-tenant run is found, nothing changes.
    const counts = async () =>
      tx(tenantId, (t) =>
        t.execute(sql`select (select count(*) from outbox_events where tenant_id = ${tenantId})::int as events,
                             (select count(*) from loan_charges where tenant_id = ${tenantId})::int as charges,
                             (select count(*) from loan_delinquency_history where tenant_id = ${tenantId})::int as history,
                             (select count(*) from journal_entries where tenant_id = ${tenantId})::int as journal`),
      );
    const before = await counts();
    const again = await (await worker()).runUntil(launch(lastDay, 1));
    expect(again.started).toBe(false);
    expect(await counts()).toEqual(before);
  }, 600_000);
});
