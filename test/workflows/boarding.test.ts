/**
 * boardingWorkflow (docs/processes.md P3; workflows/boarding/boarding-batch/workflow.ts):
 * - on the time-skipping test server with the REAL activities against the real database: a small portfolio boarded
 *   with tiny tuning so the process continues as new several times (cursor carried across runs), the batch row and
 *   the progress query at the end; pause (started paused with signal-with-start) → PAUSED on the row and in the
 *   query, then resume → COMPLETED; cancel while paused → CANCELLED with nothing boarded; each end writes exactly
 *   one `boarding.batch.completed` (final status, counts), the boarded history's events marked with the batch;
 * - a full run through the `boarding` queue worker on the real dev server (test/support/context.ts, started through
 *   the client port like the upload does): COMPLETED, every line BOARDED, the trial balance zero; prints loans/s.
 */
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities, createPlatformOperations, type Deps } from '../../activities';
import { createDb } from '../../db/client';
import { boardingBatches, boardingLines, outboxEvents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingWorkflowInput } from '../../domain/boarding/batch';
import { boardingWorkflowId } from '../../domain/ids';
import { asTemporalActivities } from '../../workers/activities';
import { createBoardingClient } from '../../workflows/boarding/boarding-batch/client';
import {
  cancelSignal,
  getProgressQuery,
  pauseSignal,
  resumeSignal,
} from '../../workflows/boarding/boarding-batch/messages';
import type { boardingWorkflow } from '../../workflows/boarding/boarding-batch/workflow';
import { tenantTrialBalance } from '../activities/ledger-fixtures';
import { portfolioLines, refPrefix, stageBatch } from '../support/boarding';
import { createTestContext } from '../support/context';

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
    secretPepper: 'boarding-workflow-pepper',
    dataEncryptionKey: 'd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef',
    environment: 'sandbox',
  };
});
afterAll(async () => {
  await env?.teardown();
  await dbHandle?.close();
});

async function stagedPortfolio(loans: number, payments: number) {
  const tenantId = `bwf-${Date.now().toString(36)}-${(sequence++).toString(36)}`;
  await createPlatformOperations(deps).ensureTenant({ tenantId });
  const lines = portfolioLines(refPrefix('wf'), loans, payments);
  const batchId = await stageBatch(deps.db, tenantId, lines);
  return { tenantId, batchId, records: lines.length };
}

async function run<T>(fn: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `boarding-test-${sequence++}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(createActivities(deps)),
  });
  return worker.runUntil(fn(taskQueue));
}

async function batchRow(tenantId: string, batchId: number) {
  const [row] = await withTenantTransaction(deps.db, tenantId, (tx) =>
    tx
      .select()
      .from(boardingBatches)
      .where(and(eq(boardingBatches.tenantId, tenantId), eq(boardingBatches.id, batchId))),
  );
  return row;
}

async function outboxOf(tenantId: string) {
  return withTenantTransaction(deps.db, tenantId, (tx) =>
    tx.select().from(outboxEvents).where(eq(outboxEvents.tenantId, tenantId)).orderBy(asc(outboxEvents.id)),
  );
}

/** The batch's `boarding.batch.completed` events (one expected). */
async function completedEvents(tenantId: string, batchId: number) {
  return (await outboxOf(tenantId)).filter(
    (e) => e.eventType === 'boarding.batch.completed' && e.subjectId === String(batchId),
  );
}

async function lineStates(tenantId: string, batchId: number) {
  const rows = await withTenantTransaction(deps.db, tenantId, (tx) =>
    tx
      .select({ state: boardingLines.state })
      .from(boardingLines)
      .where(and(eq(boardingLines.tenantId, tenantId), eq(boardingLines.batchId, batchId))),
  );
  const states: Record<string, number> = {};
  for (const r of rows) states[r.state] = (states[r.state] ?? 0) + 1;
  return states;
}

const inputOf = (
  s: { tenantId: string; batchId: number; records: number },
  tuning = {},
): BoardingWorkflowInput => ({
  tenantId: s.tenantId,
  batchId: s.batchId,
  fileName: 'test.ndjson',
  records: s.records,
  cursor: null,
  tuning,
});

describe('boardingWorkflow (time-skipping server, real activities)', () => {
  it('boards a portfolio across several continue-as-new runs and ends COMPLETED', async () => {
    const staged = await stagedPortfolio(6, 3);
    await run(async (taskQueue) => {
      const handle = await env.client.workflow.start<typeof boardingWorkflow>('boardingWorkflow', {
        taskQueue,
        workflowId: `${boardingWorkflowId(staged.tenantId, staged.batchId)}-${taskQueue}`,
        args: [
          inputOf(staged, {
            linesPerPage: 2,
            loansPerChunk: 2,
            linesPerChunk: 2,
            parallelChunks: 2,
            activitiesPerRun: 5,
            chunksPerProgressRecord: 2,
          }),
        ],
      });
      const firstRunId = handle.firstExecutionRunId;
      const result = await handle.result();
      expect(result.status).toBe('COMPLETED');
      expect(result.counts.loan).toEqual({ total: 6, boarded: 6, failed: 0 });
      expect(result.counts.payment).toEqual({ total: 18, boarded: 18, failed: 0 });
      expect(result.counts.customer).toEqual({ total: 6, boarded: 6, failed: 0 });
      const described = await handle.describe();
      expect(described.runId).not.toBe(firstRunId); // it continued as new
      const progress = await handle.query(getProgressQuery);
      expect(progress).toMatchObject({ status: 'COMPLETED', etaSeconds: null });
      expect(progress.completedAtMs).not.toBeNull();
    });
    expect(await lineStates(staged.tenantId, staged.batchId)).toEqual({ BOARDED: staged.records });
    const row = await batchRow(staged.tenantId, staged.batchId);
    expect(row?.status).toBe('COMPLETED');
    expect(row?.completedAt).not.toBeNull();
    expect(row?.counts?.funding).toEqual({ total: 6, boarded: 6, failed: 0 });
    for (const t of await tenantTrialBalance(deps.db, staged.tenantId)) expect(t.debit).toBe(t.credit);
    // Exactly one end event across the runs, with the final counts; every event of the history marked BOARDING.
    const ends = await completedEvents(staged.tenantId, staged.batchId);
    expect(ends.map((e) => e.data)).toEqual([
      expect.objectContaining({ batchId: staged.batchId, status: 'COMPLETED', counts: row?.counts }),
    ]);
    const history = await outboxOf(staged.tenantId);
    expect(history.filter((e) => e.eventType === 'payment.posted')).toHaveLength(18);
    expect(
      history.filter(
        (e) => e.eventType !== 'boarding.batch.completed' && e.boardingBatchId !== staged.batchId,
      ),
    ).toEqual([]);
  });

  it('pauses (PAUSED on the row and in the query), resumes, and completes', async () => {
    const staged = await stagedPortfolio(2, 2);
    await run(async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart<typeof boardingWorkflow, []>(
        'boardingWorkflow',
        {
          taskQueue,
          workflowId: `${boardingWorkflowId(staged.tenantId, staged.batchId)}-${taskQueue}`,
          args: [inputOf(staged)],
          signal: pauseSignal,
          signalArgs: [],
        },
      );
      for (let i = 0; i < 100; i++) {
        if ((await handle.query(getProgressQuery)).status === 'PAUSED') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await handle.query(getProgressQuery)).status).toBe('PAUSED');
      for (
        let i = 0;
        i < 100 && (await batchRow(staged.tenantId, staged.batchId))?.status !== 'PAUSED';
        i++
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await batchRow(staged.tenantId, staged.batchId))?.status).toBe('PAUSED');
      expect(await lineStates(staged.tenantId, staged.batchId)).toEqual({ PENDING: staged.records });
      await handle.signal(resumeSignal);
      expect((await handle.result()).status).toBe('COMPLETED');
    });
    expect(await lineStates(staged.tenantId, staged.batchId)).toEqual({ BOARDED: staged.records });
  });

  it('pausing mid-run lets the chunk in flight finish and starts no other; resume boards the rest', async () => {
    const staged = await stagedPortfolio(12, 1);
    await run(async (taskQueue) => {
      const handle = await env.client.workflow.start<typeof boardingWorkflow>('boardingWorkflow', {
        taskQueue,
        workflowId: `${boardingWorkflowId(staged.tenantId, staged.batchId)}-${taskQueue}`,
        args: [inputOf(staged, { loansPerChunk: 1, parallelChunks: 1 })],
      });
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      for (let i = 0; i < 400 && (await handle.query(getProgressQuery)).counts.loan.boarded < 2; i++) {
        await sleep(25);
      }
      await handle.signal(pauseSignal);
      for (let i = 0; i < 400 && (await handle.query(getProgressQuery)).status !== 'PAUSED'; i++)
        await sleep(25);
      const paused = await handle.query(getProgressQuery);
      expect(paused.status).toBe('PAUSED');
      expect(paused.counts.loan.boarded).toBeGreaterThanOrEqual(2);
      expect(paused.counts.loan.boarded).toBeLessThan(12);
      await sleep(500);
      const still = await handle.query(getProgressQuery);
      expect(still.counts.loan.boarded).toBe(paused.counts.loan.boarded);
      const states = await lineStates(staged.tenantId, staged.batchId);
      expect(states.PENDING).toBeGreaterThan(0);
      await handle.signal(resumeSignal);
      expect((await handle.result()).status).toBe('COMPLETED');
    });
    expect(await lineStates(staged.tenantId, staged.batchId)).toEqual({ BOARDED: staged.records });
  });

  it('cancels: CANCELLED, what was not boarded stays PENDING', async () => {
    const staged = await stagedPortfolio(2, 2);
    await run(async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart<typeof boardingWorkflow, []>(
        'boardingWorkflow',
        {
          taskQueue,
          workflowId: `${boardingWorkflowId(staged.tenantId, staged.batchId)}-${taskQueue}`,
          args: [inputOf(staged)],
          signal: pauseSignal,
          signalArgs: [],
        },
      );
      await handle.signal(cancelSignal);
      const result = await handle.result();
      expect(result.status).toBe('CANCELLED');
    });
    expect(await lineStates(staged.tenantId, staged.batchId)).toEqual({ PENDING: staged.records });
    const row = await batchRow(staged.tenantId, staged.batchId);
    expect(row?.status).toBe('CANCELLED');
    expect(row?.completedAt).not.toBeNull();
    // A cancelled batch ends with the same one event, status CANCELLED.
    expect((await completedEvents(staged.tenantId, staged.batchId)).map((e) => e.data)).toEqual([
      expect.objectContaining({ batchId: staged.batchId, status: 'CANCELLED', counts: row?.counts }),
    ]);
  });

  it('ends COMPLETED_WITH_ERRORS when a line failed; a malformed line (no kind) is not counted', async () => {
    const staged = await stagedPortfolio(1, 1);
    const lines = portfolioLines(refPrefix('wfe'), 1, 2);
    const payment = lines.find((l) => l.kind === 'payment');
    if (payment) payment.body = { ...payment.body, amount: '-1' };
    const bad = await stageBatch(deps.db, staged.tenantId, ['{"kind":"loan"', ...lines]);
    await run(async (taskQueue) => {
      const result = await env.client.workflow.execute<typeof boardingWorkflow>('boardingWorkflow', {
        taskQueue,
        workflowId: `${boardingWorkflowId(staged.tenantId, bad)}-${taskQueue}`,
        args: [inputOf({ ...staged, batchId: bad, records: lines.length + 1 })],
      });
      expect(result.status).toBe('COMPLETED_WITH_ERRORS');
      expect(result.counts.payment).toEqual({ total: 2, boarded: 1, failed: 1 });
      expect(result.counts.loan).toEqual({ total: 1, boarded: 1, failed: 0 });
    });
    expect((await batchRow(staged.tenantId, bad))?.status).toBe('COMPLETED_WITH_ERRORS');
    expect((await completedEvents(staged.tenantId, bad)).map((e) => e.data)).toEqual([
      expect.objectContaining({ batchId: bad, status: 'COMPLETED_WITH_ERRORS', records: lines.length + 1 }),
    ]);
  });
});

describe('boarding through the boarding queue worker (dev server)', () => {
  it('boards a small portfolio to COMPLETED with the trial balance zero', async () => {
    const ctx = await createTestContext({ boardingWorker: true, maxConnections: 12 });
    try {
      const tenantId = `bfull-${Date.now().toString(36)}`;
      await ctx.platform.ensureTenant({ tenantId });
      const loans = Number(process.env.BOARDING_TEST_LOANS ?? 40);
      const lines = portfolioLines(refPrefix('full'), loans, 10);
      const batchId = await stageBatch(ctx.db, tenantId, lines);
      const started = Date.now();
      const boarding = createBoardingClient(ctx.client);
      await boarding.start({
        tenantId,
        batchId,
        fileName: 'full.ndjson',
        records: lines.length,
        cursor: null,
      });
      const handle = ctx.client.workflow.getHandle<typeof boardingWorkflow>(
        boardingWorkflowId(tenantId, batchId),
      );
      const result = await handle.result();
      const seconds = (Date.now() - started) / 1000;
      console.info(
        `boarding: ${loans} loans, ${lines.length} lines in ${seconds.toFixed(1)} s (${(loans / seconds).toFixed(1)} loans/s)`,
      );
      expect(result.status).toBe('COMPLETED');
      expect(result.counts.payment).toEqual({ total: loans * 10, boarded: loans * 10, failed: 0 });
      const progress = await boarding.progress({ tenantId, batchId });
      expect(progress?.status).toBe('COMPLETED');
      for (const t of await tenantTrialBalance(ctx.db, tenantId)) expect(t.debit).toBe(t.credit);
    } finally {
      await ctx.close();
    }
  }, 120_000);
});
