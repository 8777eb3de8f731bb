/**
 * autopayWorkflow on the time-skipping test server (docs/conventions.md §11; docs/processes.md P1 Autopay): one
 * server per test (the intents' processes it starts as children must not share a clock with the next test), a
 * unique queue and workflow id per test, mock activities typed `Activities`. The plan
 * mock is a model of the stored state (installments due strictly after the enrolment date and after the cursor,
 * the loan's ACTIVE enrolment), the collect mock records the server time it ran at. Paths: enrolment mid-schedule
 * collects only later installments, each at 00:00 UTC of due − daysBeforeDue; a PAYMENT_HOLD skips one installment
 * and the next is collected; cancel (signal) ends it; continue-as-new carries the cursor; a CREATED collection
 * starts the intent's process as a child and marks its start intent started.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterEach, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import { addDays } from '../../domain/calendar';
import { paymentIntentWorkflowId } from '../../domain/ids';
import type { AutopayCollection, AutopayPlan, AutopayWorkflowInput } from '../../domain/payments/autopay';
import { asTemporalActivities } from '../../workers/activities';
import { enrolmentChangedSignal, getStateQuery } from '../../workflows/payments/autopay/messages';
import type { autopayWorkflow } from '../../workflows/payments/autopay/workflow';
import { getStateQuery as paymentStateQuery } from '../../workflows/payments/payment-intent/messages';

const DAY = 86_400_000;

let env: TestWorkflowEnvironment;
let sequence = 0;

beforeAll(() => {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // A runtime is already installed in this process.
  }
});
/**
 * One time-skipping server per test: the intents' processes a test leaves behind (children on `lending`) would
 * otherwise share the server's clock and queue with the next test.
 */
beforeEach(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
  });
  // The intents' processes are started as children with the TenantId and LoanId search attributes.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: { TenantId: 2, CustomerRef: 2, CaseId: 3, LoanId: 2 },
  });
});
afterEach(async () => {
  await env?.teardown();
});

async function todayOnServer(): Promise<string> {
  return new Date(await env.currentTimeMs()).toISOString().slice(0, 10);
}

interface Model {
  /** Installments of the loan: number and ISO due date. */
  installments: { installmentNumber: number; dueDate: string }[];
  enrolmentId: number | null;
  enrolledOn: string;
  daysBeforeDue: number;
  /** Installment numbers a PAYMENT_HOLD is in force for when collected. */
  heldFor: Set<number>;
}

/** Mock activities over `model`: every other operation a failing spy. */
function mockActivities(model: Model, tenantId: string) {
  const unused = <K extends keyof Activities>(name: K) =>
    vi.fn<Activities[K]>(async () => {
      throw new Error(`${name} is not a step of the autopay workflow`);
    });
  const everyOperation = Object.fromEntries(
    (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
  ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
  /** Each collection: installment, outcome and the server's instant (ms) when it ran. */
  const collected: { installmentNumber: number; outcome: string; atMs: number }[] = [];
  const plans: AutopayWorkflowInput[] = [];
  /** Ids of the intents' processes the collections asked to start (terminated when the test ends). */
  const childIds: string[] = [];
  let paymentId = 700;
  const activities = {
    ...everyOperation,
    planAutopayCycle: vi.fn<Activities['planAutopayCycle']>(async (input): Promise<AutopayPlan> => {
      plans.push(input);
      if (model.enrolmentId === null) return { kind: 'END', reason: 'NO_ACTIVE_ENROLMENT' };
      const after = input.enrolmentId === model.enrolmentId ? input.lastInstallmentNumber : 0;
      const next = model.installments.find(
        (i) => i.installmentNumber > after && i.dueDate > model.enrolledOn,
      );
      if (!next) return { kind: 'END', reason: 'NOTHING_LEFT' };
      return {
        kind: 'COLLECT',
        enrolmentId: model.enrolmentId,
        installmentNumber: next.installmentNumber,
        dueDate: next.dueDate,
        collectOn: addDays(next.dueDate, -model.daysBeforeDue),
      };
    }),
    collectAutopayInstallment: vi.fn<Activities['collectAutopayInstallment']>(
      async (input): Promise<AutopayCollection> => {
        const atMs = await env.currentTimeMs();
        const outcome: AutopayCollection =
          model.enrolmentId !== input.enrolmentId
            ? { outcome: 'ENROLMENT_INACTIVE' }
            : model.heldFor.has(input.installmentNumber)
              ? { outcome: 'SKIPPED', reasonCode: 'error.msg.loan.payment.hold.active', taskId: 42 }
              : {
                  outcome: 'CREATED',
                  paymentId: ++paymentId,
                  workflow: {
                    workflowId: paymentIntentWorkflowId(tenantId, paymentId),
                    input: {
                      tenantId,
                      paymentId,
                      loanId: 9,
                      loanRef: '000000009',
                      rail: 'ACH',
                      amount: '105.00',
                      currency: 'USD',
                      effectiveDate: new Date(atMs).toISOString().slice(0, 10),
                      sandboxTimeline: false,
                    },
                  },
                };
        collected.push({ installmentNumber: input.installmentNumber, outcome: outcome.outcome, atMs });
        if (outcome.outcome === 'CREATED') childIds.push(outcome.workflow.workflowId);
        return outcome;
      },
    ),
    markStartIntentStarted: vi.fn<Activities['markStartIntentStarted']>(async () => {}),
    // The intents' processes (children on `lending`) submit at once and then wait for the rail without a timer.
    submitPaymentToRail: vi.fn<Activities['submitPaymentToRail']>(async () => ({
      providerRef: 'sbx_ach_test',
      status: 'SUBMITTED',
    })),
    markPaymentSubmitted: vi.fn(async () => ({
      status: 'SUBMITTED',
    })) as unknown as Activities['markPaymentSubmitted'],
  } satisfies Activities;

  return { activities, collected, plans, childIds };
}

function uniqueNames() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  return { taskQueue: `autopay-test-${suffix}`, tenantId: `wf-autopay-${suffix}`, loanId: 9 };
}

/**
 * The test's worker, plus one on the `lending` queue where the intents' processes (children) run: the test server
 * skips time only while no workflow task waits for a worker. A child's intent is value-dated far ahead, so it only
 * sleeps (its activities are never called).
 */
async function createWorker(taskQueue: string, activities: Activities, childIds: string[] = []) {
  const create = (queue: string) =>
    Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: asTemporalActivities(activities),
      // No sticky queues: the test server never times out a stopped worker's sticky queue, so a later task of a
      // workflow this worker cached would wait for ever (and hold time skipping) once the test has ended.
      maxCachedWorkflows: 0,
    });
  const [own, lending] = await Promise.all([create(taskQueue), create('lending')]);
  return {
    /**
     * Runs `fn` with both workers, then waits until every child it started has been submitted and waits for the
     * rail without a timer: a child's pending task or timer would move or hold the server's clock in later tests.
     */
    runUntil: <T>(fn: () => Promise<T>): Promise<T> =>
      lending.runUntil(
        own.runUntil(async () => {
          const result = await fn();
          for (const workflowId of childIds) {
            await vi.waitFor(
              async () => {
                const child = env.client.workflow.getHandle(workflowId);
                expect((await child.query(paymentStateQuery)).status).toBe('SUBMITTED');
                expect((await child.describe()).raw.pendingWorkflowTask ?? null).toBeNull();
              },
              { timeout: 15_000, interval: 50 },
            );
          }
          return result;
        }),
      ),
  };
}

async function start(taskQueue: string, input: AutopayWorkflowInput) {
  return env.client.workflow.start<typeof autopayWorkflow>('autopayWorkflow', {
    taskQueue,
    workflowId: `autopay/${input.tenantId}/${input.loanId}`,
    args: [input],
  });
}

/**
 * Advances the server's clock by `days` (the test server skips time only while unlocked; an explicit sleep does
 * not depend on `result()` unlocking it), then awaits the process's result across its continue-as-new runs.
 */
async function finish(handle: Awaited<ReturnType<typeof start>>, days: number) {
  await env.sleep(days * DAY);
  return handle.result();
}

const startOfDayMs = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`);

describe('autopayWorkflow', () => {
  it('enrolled mid-schedule: collects only installments due after enrolment, one each at due − daysBeforeDue', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [
        { installmentNumber: 1, dueDate: addDays(today, -30) },
        { installmentNumber: 2, dueDate: today },
        { installmentNumber: 3, dueDate: addDays(today, 10) },
        { installmentNumber: 4, dueDate: addDays(today, 40) },
        { installmentNumber: 5, dueDate: addDays(today, 70) },
      ],
      enrolmentId: 5,
      enrolledOn: today,
      daysBeforeDue: 3,
      heldFor: new Set(),
    };
    const { activities, collected, plans, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    const result = await worker.runUntil(async () => {
      const handle = await start(taskQueue, {
        tenantId,
        loanId,
        loanRef: '000000009',
        enrolmentId: 5,
        lastInstallmentNumber: 0,
      });
      return finish(handle, 80);
    });
    expect(result).toMatchObject({ endedBecause: 'NOTHING_LEFT', enrolmentId: 5 });
    expect(collected.map((c) => c.installmentNumber)).toEqual([3, 4, 5]);
    for (const c of collected) {
      const due = model.installments.find((i) => i.installmentNumber === c.installmentNumber)!.dueDate;
      const collectOnMs = startOfDayMs(addDays(due, -3));
      expect(c.atMs).toBeGreaterThanOrEqual(collectOnMs);
      expect(c.atMs).toBeLessThan(collectOnMs + DAY);
    }
    // Each cycle's plan starts from the cursor the previous one left (in the same run or through continue-as-new).
    expect(plans.map((p) => p.lastInstallmentNumber)).toEqual([0, 3, 4, 5]);
    // Each CREATED collection started the intent's process as a child and marked its start intent started.
    expect(activities.markStartIntentStarted).toHaveBeenCalledTimes(3);
    const child = env.client.workflow.getHandle(paymentIntentWorkflowId(tenantId, 701));
    const description = await child.describe();
    expect(description.type).toBe('paymentIntentWorkflow');
    expect(description.taskQueue).toBe('lending');
    expect(description.parentExecution?.workflowId).toBe(`autopay/${tenantId}/${loanId}`);
  });

  it('a PAYMENT_HOLD skips one installment (effect + task by the collection) and the next is collected', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [
        { installmentNumber: 1, dueDate: addDays(today, 5) },
        { installmentNumber: 2, dueDate: addDays(today, 35) },
      ],
      enrolmentId: 8,
      enrolledOn: today,
      daysBeforeDue: 0,
      heldFor: new Set([1]),
    };
    const { activities, collected, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    const result = await worker.runUntil(async () =>
      finish(
        await start(taskQueue, {
          tenantId,
          loanId,
          loanRef: '000000009',
          enrolmentId: 8,
          lastInstallmentNumber: 0,
        }),
        40,
      ),
    );
    expect(collected.map((c) => [c.installmentNumber, c.outcome])).toEqual([
      [1, 'SKIPPED'],
      [2, 'CREATED'],
    ]);
    expect(activities.markStartIntentStarted).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({ endedBecause: 'NOTHING_LEFT' });
  });

  it('cancel (enrolment no longer ACTIVE, signal enrolmentChanged) ends it during the wait, collecting nothing', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [{ installmentNumber: 1, dueDate: addDays(today, 20) }],
      enrolmentId: 3,
      enrolledOn: today,
      daysBeforeDue: 2,
      heldFor: new Set(),
    };
    const { activities, collected, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    const result = await worker.runUntil(async () => {
      const handle = await start(taskQueue, {
        tenantId,
        loanId,
        loanRef: '000000009',
        enrolmentId: 3,
        lastInstallmentNumber: 0,
      });
      await vi.waitFor(
        async () => expect((await handle.query(getStateQuery)).collectOn).toBe(addDays(today, 18)),
        { timeout: 15_000, interval: 50 },
      );
      model.enrolmentId = null;
      await handle.signal(enrolmentChangedSignal);
      return handle.result();
    });
    expect(result).toMatchObject({ endedBecause: 'NO_ACTIVE_ENROLMENT' });
    expect(collected).toEqual([]);
  });

  it('continues as new from a cursor: a run started after installment 2 collects 3 only', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [
        { installmentNumber: 1, dueDate: addDays(today, 1) },
        { installmentNumber: 2, dueDate: addDays(today, 2) },
        { installmentNumber: 3, dueDate: addDays(today, 3) },
      ],
      enrolmentId: 11,
      enrolledOn: today,
      daysBeforeDue: 1,
      heldFor: new Set(),
    };
    const { activities, collected, plans, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    await worker.runUntil(async () =>
      finish(
        await start(taskQueue, {
          tenantId,
          loanId,
          loanRef: '000000009',
          enrolmentId: 11,
          lastInstallmentNumber: 2,
        }),
        5,
      ),
    );
    expect(collected.map((c) => c.installmentNumber)).toEqual([3]);
    expect(plans.map((p) => [p.enrolmentId, p.lastInstallmentNumber])).toEqual([
      [11, 2],
      [11, 3],
    ]);
  });

  it('a run whose enrolment was replaced (cancel, then a new enrolment) serves the new one from its start', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [
        { installmentNumber: 1, dueDate: addDays(today, 1) },
        { installmentNumber: 2, dueDate: addDays(today, 2) },
        { installmentNumber: 3, dueDate: addDays(today, 3) },
      ],
      enrolmentId: 12,
      enrolledOn: today,
      daysBeforeDue: 1,
      heldFor: new Set(),
    };
    const { activities, collected, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    // The input names enrolment 11 with its cursor at 3; the loan's ACTIVE enrolment is 12: its cursor starts at 0.
    const result = await worker.runUntil(async () =>
      finish(
        await start(taskQueue, {
          tenantId,
          loanId,
          loanRef: '000000009',
          enrolmentId: 11,
          lastInstallmentNumber: 3,
        }),
        5,
      ),
    );
    expect(result).toMatchObject({ enrolmentId: 12, endedBecause: 'NOTHING_LEFT' });
    expect(collected.map((c) => c.installmentNumber)).toEqual([1, 2, 3]);
  });

  it('patch autopay-local-steps: plan, collection and the start intent’s mark run as local activities, no activity task', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [{ installmentNumber: 1, dueDate: addDays(today, 10) }],
      enrolmentId: 5,
      enrolledOn: today,
      daysBeforeDue: 3,
      heldFor: new Set(),
    };
    const { activities, collected, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    const handle = await worker.runUntil(async () => {
      const h = await start(taskQueue, {
        tenantId,
        loanId,
        loanRef: '000000009',
        enrolmentId: 5,
        lastInstallmentNumber: 0,
      });
      await finish(h, 20);
      return h;
    });
    expect(collected.map((c) => c.outcome)).toEqual(['CREATED']);
    // The collecting run: the patch's marker, one local-activity marker per step, the child, no activity task.
    const { events } = await env.client.workflow
      .getHandle(handle.workflowId, handle.firstExecutionRunId)
      .fetchHistory();
    const scheduled = (events ?? []).filter((event) => event.activityTaskScheduledEventAttributes);
    const markers = (events ?? []).flatMap((event) =>
      event.markerRecordedEventAttributes ? [event.markerRecordedEventAttributes.markerName] : [],
    );
    expect(scheduled).toEqual([]);
    // Plan, collect, mark; then (patch autopay-cycles-in-run) the next plan in the same run, which ends it.
    expect(markers).toEqual([
      'core_patch',
      'core_local_activity',
      'core_local_activity',
      'core_local_activity',
      'core_patch',
      'core_local_activity',
    ]);
    expect(activities.markStartIntentStarted).toHaveBeenCalledTimes(1);
  });

  it('patch autopay-cycles-in-run: the next cycles run in the same execution, its plan in the task that marked the start', async () => {
    const { taskQueue, tenantId, loanId } = uniqueNames();
    const today = await todayOnServer();
    const model: Model = {
      installments: [
        { installmentNumber: 1, dueDate: addDays(today, 10) },
        { installmentNumber: 2, dueDate: addDays(today, 40) },
      ],
      enrolmentId: 5,
      enrolledOn: today,
      daysBeforeDue: 3,
      heldFor: new Set(),
    };
    const { activities, collected, plans, childIds } = mockActivities(model, tenantId);
    const worker = await createWorker(taskQueue, activities, childIds);
    const handle = await worker.runUntil(async () => {
      const h = await start(taskQueue, {
        tenantId,
        loanId,
        loanRef: '000000009',
        enrolmentId: 5,
        lastInstallmentNumber: 0,
      });
      expect(await finish(h, 50)).toMatchObject({ endedBecause: 'NOTHING_LEFT' });
      return h;
    });
    expect(collected.map((c) => c.installmentNumber)).toEqual([1, 2]);
    expect(plans.map((p) => p.lastInstallmentNumber)).toEqual([0, 1, 2]);
    // One execution served both installments: the run that ended is the first one, no continue-as-new.
    const description = await handle.describe();
    expect(description.runId).toBe(handle.firstExecutionRunId);
    const { events } = await handle.fetchHistory();
    expect((events ?? []).some((event) => event.workflowExecutionContinuedAsNewEventAttributes)).toBe(false);
    // Each collection day: the timer's task (collect, start the child) and the child-started task (mark, next plan,
    // next timer or the end); nothing in between.
    const kinds = (events ?? []).flatMap((event) =>
      event.timerFiredEventAttributes
        ? ['timer']
        : event.childWorkflowExecutionStartedEventAttributes
          ? ['child']
          : event.workflowTaskCompletedEventAttributes
            ? ['task']
            : [],
    );
    expect(kinds).toEqual(['task', 'timer', 'task', 'child', 'task', 'timer', 'task', 'child', 'task']);
  });
});
