/**
 * dailyReconciliationWorkflow and tenantReconciliationWorkflow on the time-skipping test server (docs/conventions.md §11;  * §3) with mock activities typed `Activities`: the day compared defaults to the day before the run's date in New
 * York; one child per tenant (id `daily-reconciliation/<tenant>/<date>`, `TenantId`, a summary) opening each
 * finding; a rerun counts recurrences, not new exceptions; a failing tenant does not stop the others and fails the
 * run naming it. One server for the file; a `lending` worker per test (children run on `lending`).
 */
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import type { ReconcileRailSettlementsInput } from '../../activities/payments/reconcile-rail-settlements';
import { DomainError } from '../../domain/errors';
import {
  countFindingsByType,
  type ReconciliationFinding,
  reconciliationDateOf,
} from '../../domain/payments/daily-reconciliation';
import { asTemporalActivities } from '../../workers/activities';
import type {
  dailyReconciliationWorkflow,
  tenantReconciliationWorkflow,
} from '../../workflows/payments/daily-reconciliation/workflow';

let env: TestWorkflowEnvironment;
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
  // The children carry `TenantId`: the test server knows only the search attributes registered on it.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: { TenantId: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
  });
});
afterAll(async () => {
  await env?.teardown();
});

/** Letters-only names unique to one test. */
function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}-${Date.now().toString(36)}-${sequence.toString(36)}`;
}

const finding = (
  exceptionType: ReconciliationFinding['exceptionType'],
  targetRef: string,
): ReconciliationFinding => ({
  exceptionType,
  targetType: exceptionType === 'UNMATCHED_SETTLEMENT' ? 'RAIL_SETTLEMENT' : 'PAYMENT_INTENT',
  targetRef,
  detail: { providerRef: `sbx_ach_${targetRef}`, reason: 'TEST' },
});

/**
 * Mock activities: every operation a failing spy; the reconciliation's answering from `findingsOf` (a tenant
 * missing from it fails with a DomainError, non-retryable), and `openReconciliationException` keeping one open
 * exception per (tenant, type, target) like the real one.
 */
function mockActivities(tenants: string[], findingsOf: Record<string, ReconciliationFinding[]>) {
  const unused = <K extends keyof Activities>(name: K) =>
    vi.fn<Activities[K]>(async () => {
      throw new Error(`${name} is not a step of the daily reconciliation`);
    });
  const everyOperation = Object.fromEntries(
    (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
  ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
  const open = new Map<string, number>();
  let nextId = 1;
  const activities = {
    ...everyOperation,
    listTenantsWithPaymentIntents: vi.fn<Activities['listTenantsWithPaymentIntents']>(async () => tenants),
    reconcileRailSettlements: vi.fn<Activities['reconcileRailSettlements']>(
      async (input: ReconcileRailSettlementsInput) => {
        const findings = findingsOf[input.tenantId];
        if (!findings) throw new DomainError('validation.msg.validation.errors.exist', 'no report');
        return {
          ...input,
          linesCompared: findings.length + 2,
          intentsCompared: findings.length + 1,
          findings,
          counts: countFindingsByType(findings),
        };
      },
    ),
    openReconciliationException: vi.fn<Activities['openReconciliationException']>(async (input) => {
      const key = `${input.tenantId}/${input.exceptionType}/${input.targetType}/${input.targetRef}`;
      const existing = open.get(key);
      const exceptionId = existing ?? nextId++;
      open.set(key, exceptionId);
      return {
        exception: {
          exceptionId,
          exceptionType: input.exceptionType,
          targetType: input.targetType,
          targetRef: input.targetRef,
          status: 'open',
          detail: input.detail,
          createdAt: new Date(0).toISOString(),
          lastSeenAt: new Date(0).toISOString(),
        },
        created: existing === undefined,
      } as Awaited<ReturnType<Activities['openReconciliationException']>>;
    }),
  } satisfies Activities;
  return activities;
}

function lendingWorker(activities: Activities): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'lending',
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(activities),
  });
}

const zero = { UNMATCHED_SETTLEMENT: 0, POSTED_NOT_SETTLED: 0, RETURN_NOT_REVERSED: 0 };

describe('dailyReconciliationWorkflow', () => {
  it('compares yesterday (New York) for every tenant with intents, one child per tenant; a rerun only recurs', async () => {
    const [a, b] = [unique('tena'), unique('tenb')];
    const activities = mockActivities([a, b], {
      [a]: [finding('UNMATCHED_SETTLEMENT', 'sbx_ach_x'), finding('POSTED_NOT_SETTLED', '7')],
      [b]: [finding('RETURN_NOT_REVERSED', '9')],
    });
    const worker = await lendingWorker(activities);
    await worker.runUntil(async () => {
      const startedAt = await env.currentTimeMs();
      const handle = await env.client.workflow.start<typeof dailyReconciliationWorkflow>(
        'dailyReconciliationWorkflow',
        { taskQueue: 'lending', workflowId: unique('daily-reconciliation'), args: [{}] },
      );
      const first = await handle.result();
      const date = reconciliationDateOf(startedAt);
      expect(first).toEqual({
        date,
        tenantsReconciled: 2,
        opened: { UNMATCHED_SETTLEMENT: 1, POSTED_NOT_SETTLED: 1, RETURN_NOT_REVERSED: 1 },
        recurred: zero,
      });
      expect(activities.reconcileRailSettlements.mock.calls.map(([input]) => input)).toEqual(
        expect.arrayContaining([
          { tenantId: a, from: date, to: date },
          { tenantId: b, from: date, to: date },
        ]),
      );
      expect(activities.openReconciliationException).toHaveBeenCalledWith({
        tenantId: b,
        ...finding('RETURN_NOT_REVERSED', '9'),
        observedAtMs: expect.any(Number),
      });
      const child = env.client.workflow.getHandle(`daily-reconciliation/${a}/${date}`);
      const described = await child.describe();
      expect(described.type).toBe('tenantReconciliationWorkflow');
      expect(described.taskQueue).toBe('lending');
      expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toContainEqual([
        'TenantId',
        a,
      ]);
      expect(await described.staticSummary()).toBe(`Reconciliation of ${a}'s rail settlements for ${date}`);

      const second = await env.client.workflow.execute<typeof dailyReconciliationWorkflow>(
        'dailyReconciliationWorkflow',
        { taskQueue: 'lending', workflowId: unique('daily-reconciliation'), args: [{ date }] },
      );
      expect(second).toEqual({
        date,
        tenantsReconciled: 2,
        opened: zero,
        recurred: { UNMATCHED_SETTLEMENT: 1, POSTED_NOT_SETTLED: 1, RETURN_NOT_REVERSED: 1 },
      });
      expect(activities.listTenantsWithPaymentIntents).toHaveBeenCalledTimes(2);
    });
  });

  it('reconciles the other tenants when one fails, then fails naming it', async () => {
    const [a, broken, c] = [unique('tena'), unique('broken'), unique('tenc')];
    const activities = mockActivities([], { [a]: [finding('POSTED_NOT_SETTLED', '1')], [c]: [] });
    const worker = await lendingWorker(activities);
    await worker.runUntil(async () => {
      const run = env.client.workflow.execute<typeof dailyReconciliationWorkflow>(
        'dailyReconciliationWorkflow',
        {
          taskQueue: 'lending',
          workflowId: unique('daily-reconciliation'),
          args: [{ date: '2026-11-18', tenantIds: [a, broken, c] }],
        },
      );
      const err = await run.then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowFailedError);
      const cause = (err as WorkflowFailedError).cause as { type?: string; message: string };
      expect(cause.type).toBe('TenantReconciliationFailed');
      expect(cause.message).toContain(broken);
      expect(cause.message).not.toContain(a);
      expect(activities.reconcileRailSettlements).toHaveBeenCalledTimes(3);
      expect(activities.openReconciliationException).toHaveBeenCalledTimes(1);
      expect(activities.listTenantsWithPaymentIntents).not.toHaveBeenCalled();
    });
  });
});

describe('tenantReconciliationWorkflow', () => {
  it('opens every finding of the comparison for its tenant and answers the counts and exception ids', async () => {
    const tenantId = unique('tena');
    const findings = [
      finding('UNMATCHED_SETTLEMENT', 'sbx_ach_y'),
      finding('POSTED_NOT_SETTLED', '3'),
      finding('POSTED_NOT_SETTLED', '4'),
    ];
    const activities = mockActivities([], { [tenantId]: findings });
    const worker = await lendingWorker(activities);
    await worker.runUntil(async () => {
      const before = await env.currentTimeMs();
      const result = await env.client.workflow.execute<typeof tenantReconciliationWorkflow>(
        'tenantReconciliationWorkflow',
        {
          taskQueue: 'lending',
          workflowId: `daily-reconciliation/${tenantId}/2026-11-16..2026-11-18`,
          args: [{ tenantId, from: '2026-11-16', to: '2026-11-18' }],
        },
      );
      expect(result).toEqual({
        tenantId,
        from: '2026-11-16',
        to: '2026-11-18',
        linesCompared: 5,
        intentsCompared: 4,
        opened: { UNMATCHED_SETTLEMENT: 1, POSTED_NOT_SETTLED: 2, RETURN_NOT_REVERSED: 0 },
        recurred: zero,
        exceptionIds: [1, 2, 3],
      });
      const after = await env.currentTimeMs();
      const calls = activities.openReconciliationException.mock.calls.map(([input]) => input);
      expect(calls).toEqual(findings.map((f) => ({ tenantId, ...f, observedAtMs: expect.any(Number) })));
      // The instant is the workflow's (the time-skipping server's clock), within the run.
      for (const call of calls) {
        expect(call.observedAtMs).toBeGreaterThanOrEqual(before);
        expect(call.observedAtMs).toBeLessThanOrEqual(after);
      }
    });
  });
});
