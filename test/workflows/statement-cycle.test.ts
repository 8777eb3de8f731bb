/**
 * The statement cycle on the time-skipping test server with the real operations on the real database (* docs/processes.md P6 "Statements"; workflows/lending/statement-cycle/workflow.ts): a run per day for five weeks
 * (2025-02-05 – 2025-03-15: a month end and the US DST start of 9 March in the tenant's America/Los_Angeles),
 * each at 12:00 UTC like the schedule, gives each loan its statement exactly once, on due date − lead days; a loan
 * paid off mid-cycle gets no further statement; a rerun of a day adds nothing. Loans come from
 * test/activities/ledger-fixtures.ts (300.00 USD, three monthly installments from the disbursement date).
 */
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, createPlatformOperations, type Deps } from '../../activities';
import { createDb } from '../../db/client';
import { statements } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { addDays, epochDayOf, parseIsoDate } from '../../domain/calendar';
import { DomainError } from '../../domain/errors';
import { asTemporalActivities } from '../../workers/activities';
import {
  type dailyStatementCycleWorkflow,
  listedMax,
  pageSize,
  pagesPerRun,
  type tenantStatementCycleWorkflow,
} from '../../workflows/lending/statement-cycle/workflow';
import { approvedLoan } from '../activities/ledger-fixtures';

let env: TestWorkflowEnvironment;
let dbHandle: ReturnType<typeof createDb>;
let deps: Deps;
let sequence = 0;

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
    secretPepper: 'statement-cycle-pepper',
    dataEncryptionKey: 'c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf',
    environment: 'sandbox',
  };
});
afterAll(async () => {
  await env?.teardown();
  await dbHandle?.close();
});

const ref = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(sequence++).toString(36)}`;

/** 12:00 UTC of an ISO date: the schedule's time. */
const noonUtc = (date: string) => {
  const { year, month, day } = parseIsoDate(date);
  return Date.UTC(year, month - 1, day, 12);
};

describe('dailyStatementCycleWorkflow over five weeks', () => {
  it('issues each statement once on due date − lead days, across a month end and a DST change; none after a payoff', async () => {
    const activities = createActivities(deps);
    const tenantId = `stc-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
    await createPlatformOperations(deps).ensureTenant({ tenantId });
    const config = (leadDays: number) => ({
      productClass: 'COMMERCIAL',
      aprEnabled: false,
      statementEnabled: true,
      statementLeadDays: leadDays,
    });
    const boarded = async (disbursedOn: string, leadDays: number) => {
      const loan = await approvedLoan({ db: deps.db, activities }, tenantId, {
        expectedDisbursementDate: disbursedOn,
        lmsConfig: config(leadDays),
      });
      await activities.recordExternalFunding({
        tenantId,
        loanId: loan.loanId,
        amount: '300.00',
        currency: 'USD',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
        recipientRef: 'borrower-primary',
        externalRecordRef: ref('fund'),
        reason: 'Disbursed by the originating bank',
        fundingDate: disbursedOn,
      });
      return { ...loan, leadDays };
    };
    // Due dates (monthly from the disbursement): a: 02-28 (month end), 03-28; b: 03-03, 04-03 (statement 03-13,
    // after DST); c: 03-02, 04-02, paid off 02-20; d: 02-14, 03-14 with 14 lead days (statement on 02-28).
    const a = await boarded('2025-01-28', 21);
    const b = await boarded('2025-02-03', 21);
    const c = await boarded('2025-02-02', 21);
    const d = await boarded('2025-01-14', 14);
    const loans = [a, b, c, d];
    const dueDatesOf = (loan: (typeof loans)[number]) => loan.schedule.periods.slice(1).map((p) => p.dueDate);
    expect(dueDatesOf(a).slice(0, 2)).toEqual(['2025-02-28', '2025-03-28']);
    expect(dueDatesOf(b).slice(0, 2)).toEqual(['2025-03-03', '2025-04-03']);
    expect(dueDatesOf(d).slice(0, 2)).toEqual(['2025-02-14', '2025-03-14']);

    const first = '2025-02-05';
    const last = '2025-03-15';
    const payoffDay = '2025-02-20';
    /** Expected: statement date → `loanId/dueDate` issued that day. */
    const expected = new Map<string, string[]>();
    for (const loan of loans) {
      for (const dueDate of dueDatesOf(loan)) {
        const on = addDays(dueDate, -loan.leadDays);
        if (on < first || on > last) continue;
        if (loan === c && on > payoffDay) continue;
        expected.set(on, [...(expected.get(on) ?? []), `${loan.loanId}/${dueDate}`].sort());
      }
    }
    expect(expected.get('2025-02-07')).toEqual([`${a.loanId}/2025-02-28`]);
    expect(expected.get('2025-02-28')).toEqual([`${d.loanId}/2025-03-14`]);
    expect(expected.get('2025-03-13')).toEqual([`${b.loanId}/2025-04-03`]);

    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'lending',
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: asTemporalActivities(activities),
    });
    const issued = new Map<string, string[]>();
    const runDay = async (day: string) => {
      const result = await env.client.workflow.execute<typeof dailyStatementCycleWorkflow>(
        'dailyStatementCycleWorkflow',
        {
          workflowId: `daily-statement-cycle-test-${tenantId}-${day}-${sequence++}`,
          taskQueue: 'lending',
          args: [{ atMs: noonUtc(day), tenantIds: [tenantId] }],
        },
      );
      expect(result.tenants).toHaveLength(1);
      // 12:00 UTC is 04:00 PST / 05:00 PDT: the tenant's local date is the UTC date on both sides of 9 March.
      expect(result.tenants[0]?.asOf).toBe(day);
      const child = await env.client.workflow.getHandle(`statement-cycle/${tenantId}/${day}`).result();
      return child as { generated: { loanId: number; dueDate: string }[]; existing: unknown[] };
    };
    await worker.runUntil(async () => {
      const days = epochDayOf(last) - epochDayOf(first) + 1;
      for (let i = 0; i < days; i++) {
        const day = addDays(first, i);
        if (day === payoffDay) {
          const candidates = await activities.listStatementCandidates({ tenantId, asOf: '2025-03-12' });
          expect(candidates.map((q) => q.loanId)).toContain(c.loanId);
          // Pay the loan off (the payoff at 02-20 is below 320.00: the payment closes the loan).
          await activities.recordExternalPayment({
            tenantId,
            loanId: c.loanId,
            amount: '320.00',
            currency: 'USD',
            effectiveDate: payoffDay,
            externalRecordRef: ref('payoff'),
            source: 'IMPORT',
          });
        }
        const child = await runDay(day);
        const got = child.generated.map((s) => `${s.loanId}/${s.dueDate}`).sort();
        if (got.length > 0) issued.set(day, got);
        expect(child.existing).toEqual([]);
      }
      // A rerun of a day with statements adds nothing.
      const again = await env.client.workflow.execute<typeof dailyStatementCycleWorkflow>(
        'dailyStatementCycleWorkflow',
        {
          workflowId: `daily-statement-cycle-test-${tenantId}-rerun`,
          taskQueue: 'lending',
          args: [{ atMs: noonUtc('2025-03-13'), tenantIds: [tenantId] }],
        },
      );
      expect(again.tenants[0]).toMatchObject({ generated: 0, existing: 1, skipped: 0 });
    });
    expect(Object.fromEntries(issued)).toEqual(Object.fromEntries(expected));

    const rows = await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx
        .select()
        .from(statements)
        .where(and(eq(statements.tenantId, tenantId))),
    );
    const perLoan = (loanId: number) =>
      rows
        .filter((r) => r.loanId === loanId)
        .map((r) => [r.statementDate, r.dueDate])
        .sort();
    expect(perLoan(a.loanId)).toEqual([
      ['2025-02-07', '2025-02-28'],
      ['2025-03-07', '2025-03-28'],
    ]);
    expect(perLoan(b.loanId)).toEqual([
      ['2025-02-10', '2025-03-03'],
      ['2025-03-13', '2025-04-03'],
    ]);
    expect(perLoan(c.loanId)).toEqual([['2025-02-09', '2025-03-02']]);
    expect(perLoan(d.loanId)).toEqual([['2025-02-28', '2025-03-14']]);
    // The second statement of a starts the day after the first ended.
    const aRows = rows.filter((r) => r.loanId === a.loanId).sort((x, y) => (x.dueDate < y.dueDate ? -1 : 1));
    expect(aRows.map((r) => [r.periodStart, r.periodEnd])).toEqual([
      ['2025-01-28', '2025-02-07'],
      ['2025-02-08', '2025-03-07'],
    ]);
  }, 180_000);
});

describe('tenantStatementCycleWorkflow with many loans (mock operations)', () => {
  it('pages the candidates, continues as new after its pages, skips what the operation refuses', async () => {
    const tenantId = `stm-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
    const loanCount = pageSize * pagesPerRun * 2 + 7;
    const refused = new Set([5, pageSize * pagesPerRun + 3]);
    const unused = <K extends keyof Activities>(name: K) =>
      vi.fn<Activities[K]>(async () => {
        throw new Error(`${name} is not a step of the statement cycle`);
      });
    const everyOperation = Object.fromEntries(
      (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
    ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
    const activities = {
      ...everyOperation,
      listStatementCandidates: vi.fn<Activities['listStatementCandidates']>(async (input) => {
        const after = input.afterLoanId ?? 0;
        const limit = input.limit ?? 100;
        const ids = Array.from({ length: loanCount }, (_, i) => i + 1).filter((id) => id > after);
        return ids.slice(0, limit).map((loanId) => ({ loanId, dueDate: '2025-04-01' }));
      }),
      generateStatement: vi.fn<Activities['generateStatement']>(async (input) => {
        if (refused.has(input.loanId))
          throw new DomainError('error.msg.loan.invalid.state.transition', `loan ${input.loanId} closed`);
        return {
          statement: { statementId: input.loanId + 1000 } as Awaited<
            ReturnType<Activities['generateStatement']>
          >['statement'],
          created: true,
        };
      }),
    } satisfies Activities;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'lending',
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: asTemporalActivities(activities),
    });
    const workflowId = `statement-cycle/${tenantId}/2025-03-11`;
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof tenantStatementCycleWorkflow>(
        'tenantStatementCycleWorkflow',
        { workflowId, taskQueue: 'lending', args: [{ tenantId, asOf: '2025-03-11' }] },
      );
      const final = await handle.result();
      const firstRun = await env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId).describe();
      expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
      return final;
    });
    expect(result.counts).toEqual({
      generated: loanCount - refused.size,
      existing: 0,
      skipped: refused.size,
    });
    expect(result.generated).toHaveLength(listedMax);
    expect(new Set(result.generated.map((g) => g.loanId)).size).toBe(listedMax);
    expect(result.skipped.map((s) => s.loanId).sort((x, y) => x - y)).toEqual(
      [...refused].sort((x, y) => x - y),
    );
    expect(result.afterLoanId).toBe(loanCount);
    expect(activities.generateStatement).toHaveBeenCalledTimes(loanCount);
  }, 120_000);
});
