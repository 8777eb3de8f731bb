/**
 * Close of business on the time-skipping test server with the real operations on the real database
 * (docs/processes.md P7 "The run"; workflows/lending/close-of-business/workflow.ts): a whole-tenant run over several
 * chunks that continues as new, a loan whose step fails reported in the run's errors while the others close, the
 * progress query, the same day run again changing nothing, a worker shut down mid-run and another finishing it with
 * every loan closed exactly once, and the daily launcher opening the run of the day that ended. A database trigger
 * on the test tenant's loans (created here, dropped after) makes one loan's step fail, slows the steps where a test
 * needs a run in progress, and logs each committed closing, so "exactly once" is counted, not assumed.
 */
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities, createPlatformOperations, type Deps } from '../../activities';
import { createDb } from '../../db/client';
import { cobRunErrors, cobRuns, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { closeOfBusinessStartSpec } from '../../domain/lending/cob-runs';
import { instantOfLocal } from '../../domain/time-zone';
import { asTemporalActivities } from '../../workers/activities';
import { progressQuery } from '../../workflows/lending/close-of-business/messages';
import type { CobTuning } from '../../workflows/lending/close-of-business/types';
import type {
  closeOfBusinessLauncherWorkflow,
  closeOfBusinessWorkflow,
} from '../../workflows/lending/close-of-business/workflow';
import { approvedLoan } from '../activities/ledger-fixtures';

let env: TestWorkflowEnvironment;
let dbHandle: ReturnType<typeof createDb>;
let deps: Deps;
let sequence = 0;
const triggers: string[] = [];

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
  dbHandle = createDb(inject('databaseUrl'), { maxConnections: 12 });
  deps = {
    db: dbHandle.db,
    clock: () => new Date(),
    secretPepper: 'close-of-business-pepper',
    dataEncryptionKey: 'c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf',
    environment: 'sandbox',
  };
  await deps.db.execute(sql.raw('create schema if not exists cob_test'));
  await deps.db.execute(sql.raw('grant usage on schema cob_test to lending_app'));
  await deps.db.execute(
    sql.raw(`create table if not exists cob_test.closings (tenant_id text not null, loan_id bigint not null,
      business_date date not null)`),
  );
  await deps.db.execute(sql.raw('grant select, insert on cob_test.closings to lending_app'));
});
afterAll(async () => {
  for (const name of triggers) {
    await deps.db.execute(sql.raw(`drop trigger if exists ${name} on loans`));
    await deps.db.execute(sql.raw(`drop function if exists ${name}()`));
  }
  await env?.teardown();
  await dbHandle?.close();
});

const activities = () => createActivities(deps);

/**
 * A tenant with `count` active loans disbursed on 2025-01-02, and a trigger on its loans' closings: the loan at
 * `failIndex` (if any) fails its step, each closing sleeps `sleepMs`, and each committed closing is logged.
 */
async function tenantWithLoans(count: number, options: { failIndex?: number; sleepMs?: number } = {}) {
  const ops = activities();
  const tenantId = `cob-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
  await createPlatformOperations(deps).ensureTenant({ tenantId });
  const loanIds: number[] = [];
  for (let i = 0; i < count; i++) {
    const loan = await approvedLoan({ db: deps.db, activities: ops }, tenantId, {
      expectedDisbursementDate: '2025-01-02',
    });
    await ops.recordExternalFunding({
      tenantId,
      loanId: loan.loanId,
      amount: '300.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: `fund-${tenantId}-${i}`,
      reason: 'Disbursed by the originating bank',
      fundingDate: '2025-01-02',
    });
    loanIds.push(loan.loanId);
  }
  const name = `cob_test_${tenantId.replace(/-/g, '_')}`;
  const failing = options.failIndex === undefined ? null : (loanIds[options.failIndex] as number);
  await deps.db.execute(
    sql.raw(`create function ${name}() returns trigger language plpgsql security definer as $$
      begin
        if new.id = ${failing ?? -1} then raise exception 'simulated step failure of loan %', new.id; end if;
        perform pg_sleep(${(options.sleepMs ?? 0) / 1000});
        insert into cob_test.closings values (new.tenant_id, new.id, new.last_closed_business_date);
        return new;
      end $$`),
  );
  await deps.db.execute(
    sql.raw(`create trigger ${name} before update of last_closed_business_date on loans for each row
      when (new.tenant_id = '${tenantId}' and new.last_closed_business_date is distinct from old.last_closed_business_date)
      execute function ${name}()`),
  );
  triggers.push(name);
  return { tenantId, loanIds, failing };
}

/** Committed closings of the tenant's loans for `day`: loan id → how many times. */
async function closings(tenantId: string, day: string): Promise<Map<number, number>> {
  const rows = (await deps.db.execute(
    sql`select loan_id::int as "loanId", count(*)::int as n from cob_test.closings
        where tenant_id = ${tenantId} and business_date = ${day} group by loan_id`,
  )) as unknown as { loanId: number; n: number }[];
  return new Map(rows.map((r) => [r.loanId, r.n]));
}

async function lastClosed(tenantId: string, loanIds: number[]) {
  const rows = await withTenantTransaction(deps.db, tenantId, (tx) =>
    tx
      .select({ id: loans.id, day: loans.lastClosedBusinessDate })
      .from(loans)
      .where(and(eq(loans.tenantId, tenantId), inArray(loans.id, loanIds))),
  );
  return new Map(rows.map((r) => [r.id, r.day]));
}

async function storedRun(tenantId: string, runId: string) {
  const [row] = await withTenantTransaction(deps.db, tenantId, (tx) =>
    tx
      .select()
      .from(cobRuns)
      .where(and(eq(cobRuns.tenantId, tenantId), eq(cobRuns.runId, runId))),
  );
  return row;
}

/**
 * A `lending` worker with the real operations. `uncached`: no sticky cache, so a workflow's next task goes to any
 * worker at once (not first to the sticky queue of a worker that was shut down).
 */
function worker(options: { uncached?: boolean } = {}) {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'lending',
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(activities()),
    ...(options.uncached ? { maxCachedWorkflows: 0 } : {}),
  });
}

/** Opens the run (as the route does) and starts its workflow with `tuning`. */
async function startRun(
  tenantId: string,
  businessDate: string,
  tuning: Partial<CobTuning>,
  loanIds?: number[],
) {
  const opened = await activities().openCobRun({ tenantId, businessDate, loanIds: loanIds ?? null });
  const spec = closeOfBusinessStartSpec(opened.workflow.input);
  const handle = await env.client.workflow.start<typeof closeOfBusinessWorkflow>('closeOfBusinessWorkflow', {
    workflowId: spec.workflowId,
    taskQueue: 'lending',
    args: [{ ...spec.input, tuning }],
  });
  return { opened, handle };
}

describe('closeOfBusinessWorkflow', () => {
  it('closes every loan over several chunks and a continue-as-new; a failing loan is reported, the others close', async () => {
    const { tenantId, loanIds, failing } = await tenantWithLoans(9, { failIndex: 4 });
    const day = '2025-02-10';
    const w = await worker();
    await w.runUntil(async () => {
      const { opened, handle } = await startRun(tenantId, day, {
        chunkSize: 2,
        chunksInParallel: 2,
        chunksPerRun: 2,
        loanConcurrency: 2,
      });
      const result = await handle.result();
      expect(result).toEqual({
        runId: opened.run.runId,
        businessDate: day,
        status: 'COMPLETED_WITH_ERRORS',
        loans: { total: 9, processed: 8, failed: 1 },
      });
      // 5 chunks of at most 2 loans, 2 per run: the run continued as new twice.
      const described = await env.client.workflow.getHandle(handle.workflowId).describe();
      expect(described.runId).not.toBe(handle.firstExecutionRunId);
      expect(await env.client.workflow.getHandle(handle.workflowId).query(progressQuery)).toEqual(
        result.loans,
      );
      const run = await storedRun(tenantId, opened.run.runId);
      expect(run).toMatchObject({
        status: 'COMPLETED_WITH_ERRORS',
        loansTotal: 9,
        loansProcessed: 8,
        loansFailed: 1,
      });
      expect(run?.completedAt).toBeInstanceOf(Date);
    });
    const errors = await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.select().from(cobRunErrors).where(eq(cobRunErrors.tenantId, tenantId)),
    );
    expect(errors.map((e) => e.loanId)).toEqual([failing]);
    // The step's message, without the failed query's parameters (activities/lending/close-cob-chunk.ts).
    expect(errors[0]?.error.length).toBeGreaterThan(0);
    expect(errors[0]?.error).not.toContain('params:');
    expect(errors[0]?.error).not.toContain(tenantId);
    const days = await lastClosed(tenantId, loanIds);
    for (const id of loanIds) expect(days.get(id)).toBe(id === failing ? null : day);
    const closed = await closings(tenantId, day);
    expect([...closed.keys()].sort((a, b) => a - b)).toEqual(loanIds.filter((id) => id !== failing));
    expect([...closed.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  it('the same day run again changes nothing: the whole-tenant run is found, a run of the loans skips them all', async () => {
    const { tenantId, loanIds } = await tenantWithLoans(3);
    const day = '2025-02-11';
    const w = await worker();
    await w.runUntil(async () => {
      const first = await startRun(tenantId, day, { chunkSize: 2 });
      expect((await first.handle.result()).loans).toEqual({ total: 3, processed: 3, failed: 0 });
      const again = await activities().openCobRun({ tenantId, businessDate: day });
      expect(again.created).toBe(false);
      expect(again.run.runId).toBe(first.opened.run.runId);
      expect(again.run.status).toBe('COMPLETED');
      // A run that ended keeps its counts, even if its first step ran again.
      await activities().countCobRunLoans({
        tenantId,
        runId: again.run.runId,
        businessDate: day,
        loanIds: [1],
      });
      expect((await storedRun(tenantId, again.run.runId))?.loansTotal).toBe(3);
      const named = await startRun(tenantId, day, { chunkSize: 2 }, loanIds);
      expect(named.opened.run.runId).not.toBe(first.opened.run.runId);
      expect(await named.handle.result()).toMatchObject({
        status: 'COMPLETED',
        loans: { total: 3, processed: 3, failed: 0 },
      });
    });
    const closed = await closings(tenantId, day);
    expect(closed.size).toBe(3);
    expect([...closed.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);

  it('a worker shut down mid-run and another finishing it close every loan exactly once; progress is queryable', async () => {
    const { tenantId, loanIds } = await tenantWithLoans(6, { sleepMs: 250 });
    const day = '2025-02-12';
    const tuning = {
      chunkSize: 2,
      chunksInParallel: 1,
      chunksPerRun: 10,
      loanConcurrency: 1,
      chunkHeartbeatTimeoutMs: 2_000,
    };
    const first = await worker({ uncached: true });
    const running = first.run();
    let seen = { total: 0, processed: 0, failed: 0 };
    let started: Awaited<ReturnType<typeof startRun>>;
    try {
      started = await startRun(tenantId, day, tuning);
      for (let i = 0; i < 200 && seen.processed < 2; i++) {
        seen = await started.handle.query(progressQuery).catch(() => seen);
        if (seen.processed < 2) await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      // The first worker stops mid-run (its chunk in flight may finish or be retried by the next worker).
      first.shutdown();
      await running;
    }
    const { opened, handle } = started;
    expect(seen.total).toBe(6);
    expect(seen.processed).toBeGreaterThanOrEqual(2);
    expect(seen.processed).toBeLessThan(6);
    const second = await worker({ uncached: true });
    const result = await second.runUntil(handle.result());
    expect(result).toEqual({
      runId: opened.run.runId,
      businessDate: day,
      status: 'COMPLETED',
      loans: { total: 6, processed: 6, failed: 0 },
    });
    const closed = await closings(tenantId, day);
    expect([...closed.keys()].sort((a, b) => a - b)).toEqual(loanIds);
    expect([...closed.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});

describe('closeOfBusinessLauncherWorkflow', () => {
  it('at 00:30 tenant time opens and starts the run of the day that ended; launched again it finds it', async () => {
    const { tenantId, loanIds } = await tenantWithLoans(2);
    const timeZone = 'Pacific/Auckland';
    const atMs = instantOfLocal('2025-02-14', { hour: 0, minute: 30, second: 0 }, timeZone);
    const w = await worker();
    await w.runUntil(async () => {
      const launch = (n: number) =>
        env.client.workflow.execute<typeof closeOfBusinessLauncherWorkflow>(
          'closeOfBusinessLauncherWorkflow',
          {
            workflowId: `close-of-business-launch/${tenantId}-${n}`,
            taskQueue: 'lending',
            args: [{ tenantId, timeZone, atMs }],
          },
        );
      const launched = await launch(1);
      expect(launched).toMatchObject({
        tenantId,
        businessDate: '2025-02-13',
        workflowId: `close-of-business/${tenantId}/2025-02-13`,
        started: true,
      });
      const result = await env.client.workflow
        .getHandle<typeof closeOfBusinessWorkflow>(launched.workflowId)
        .result();
      expect(result).toMatchObject({
        runId: launched.runId,
        status: 'COMPLETED',
        loans: { total: 2, processed: 2 },
      });
      const again = await launch(2);
      expect(again).toMatchObject({ runId: launched.runId, businessDate: '2025-02-13', started: false });
    });
    const days = await lastClosed(tenantId, loanIds);
    expect([...days.values()]).toEqual(['2025-02-13', '2025-02-13']);
  }, 120_000);
});
