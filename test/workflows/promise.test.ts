/**
 * promiseWorkflow on the time-skipping test server (docs/conventions.md §11): one environment for the file, tests in
 * sequence (skipped time is global to the server), a unique queue and workflow id per test, mock activities typed
 * `Activities` whose spies record calls and server-side times. The deadline is the real one
 * (domain/servicing/promise.ts `computePromiseWindow`: the end of promisedDate + 3 days in the tenant's zone).
 * Paths: a payment signalled before the deadline → KEPT at once; a part paid → PARTIALLY_KEPT at the deadline;
 * nothing paid → BROKEN at the deadline; a payment whose signal was lost → KEPT at the deadline.
 */
import { activityInfo } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import type { PromiseView } from '../../db/queries/servicing/promises';
import { addDays } from '../../domain/calendar';
import { promiseWorkflowId } from '../../domain/ids';
import {
  computePromiseWindow,
  type PromiseOutcome,
  type PromiseWorkflowInput,
} from '../../domain/servicing/promise';
import { localDate } from '../../domain/time-zone';
import { asTemporalActivities } from '../../workers/activities';
import { getStateQuery, paymentPostedSignal } from '../../workflows/servicing/promise/messages';
import type { promiseWorkflow } from '../../workflows/servicing/promise/workflow';

const DAY = 86_400_000;
const timeZone = 'America/New_York';

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
});
afterAll(async () => {
  await env?.teardown();
});

/** Mock activities: every operation a failing spy; the reads answer `paid.value`, the resolution records its time. */
function mockActivities() {
  const paid = { value: '0.00' };
  const resolvedAtMs: number[] = [];
  const readAtMs: number[] = [];
  const unused = <K extends keyof Activities>(name: K) =>
    vi.fn<Activities[K]>(async () => {
      throw new Error(`${name} is not a step of the promise workflow`);
    });
  const everyOperation = Object.fromEntries(
    (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
  ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
  const activities = {
    ...everyOperation,
    readPromisePayments: vi.fn<Activities['readPromisePayments']>(async () => {
      readAtMs.push(activityInfo().scheduledTimestampMs);
      return { paidAmount: paid.value, status: 'PENDING' };
    }),
    resolvePromiseToPay: vi.fn<Activities['resolvePromiseToPay']>(async (input) => {
      resolvedAtMs.push(activityInfo().scheduledTimestampMs);
      const view: PromiseView = {
        promiseId: input.promiseId,
        resourceId: input.promiseId,
        caseId: 77,
        loanId: 9,
        amount: '100.00',
        currency: 'USD',
        promisedDate: '2026-01-01',
        channel: 'PHONE',
        status: input.outcome,
        paidAmount: input.paidAmount,
        deadlineAt: '2026-01-05T00:00:00-05:00',
        createdAt: new Date(0).toISOString(),
        resolvedAt: new Date(0).toISOString(),
        followUpTaskId: input.outcome === 'KEPT' ? null : 31,
      };
      return view;
    }),
  } satisfies Activities;
  return { activities, paid, resolvedAtMs, readAtMs };
}

/** A promise of 100.00 USD promised `daysAhead` days after the server's current date (New York). */
async function inputAt(promiseId: number, daysAhead = 5): Promise<PromiseWorkflowInput> {
  const nowMs = await env.currentTimeMs();
  const promisedDate = addDays(localDate(nowMs, timeZone), daysAhead);
  const window = computePromiseWindow({ createdAtMs: nowMs, promisedDate, timeZone });
  return {
    tenantId: 'wf-test',
    promiseId,
    caseId: 77,
    loanId: 9,
    amount: '100.00',
    currency: 'USD',
    promisedDate,
    deadlineAtMs: window.deadlineAtMs,
  };
}

function uniqueNames() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  return { taskQueue: `promise-test-${suffix}`, promiseId: 2000 + sequence };
}

async function run<T>(taskQueue: string, activities: Activities, fn: () => Promise<T>): Promise<T> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(activities),
  });
  return worker.runUntil(fn);
}

function start(taskQueue: string, input: PromiseWorkflowInput) {
  return env.client.workflow.start<typeof promiseWorkflow>('promiseWorkflow', {
    taskQueue,
    workflowId: `${promiseWorkflowId(input.tenantId, input.promiseId)}-${taskQueue}`,
    args: [input],
  });
}

/** Retries an assertion until the worker has caught up with the server (generous on 2 busy cores). */
function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 15_000, interval: 50 });
}

function resolvedWith(mocks: ReturnType<typeof mockActivities>): PromiseOutcome[] {
  return mocks.activities.resolvePromiseToPay.mock.calls.map(([call]) => call.outcome);
}

describe('promiseWorkflow', () => {
  it('deadline: the end of promisedDate + 3 days in the tenant zone (New York, winter: UTC−5)', () => {
    const window = computePromiseWindow({
      createdAtMs: Date.parse('2026-01-10T15:00:00Z'),
      promisedDate: '2026-01-20',
      timeZone,
    });
    expect(window).toEqual({
      windowStartDate: '2026-01-10',
      windowEndDate: '2026-01-23',
      deadlineAtMs: Date.parse('2026-01-24T05:00:00Z'),
      deadlineAt: '2026-01-24T00:00:00-05:00',
    });
  });

  it('KEPT promptly: a payment signalled before the deadline resolves it at once', async () => {
    const { taskQueue, promiseId } = uniqueNames();
    const mocks = mockActivities();
    const input = await inputAt(promiseId);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      // The read at start finds nothing yet.
      await eventually(() => expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(1));
      expect(await handle.query(getStateQuery)).toMatchObject({
        promiseId,
        status: 'PENDING',
        paidAmount: '0.00',
        deadlineAtMs: input.deadlineAtMs,
        hintsReceived: 0,
      });
      // One day in, a first part: the process reads but keeps watching.
      await env.sleep(DAY);
      mocks.paid.value = '60.00';
      await handle.signal(paymentPostedSignal, { paymentId: 41 });
      await eventually(() => expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(2));
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({ paidAmount: '60.00', hintsReceived: 1 }),
      );
      expect(mocks.activities.resolvePromiseToPay).not.toHaveBeenCalled();
      // The rest: KEPT at once, days before the deadline.
      mocks.paid.value = '100.00';
      const signalledAtMs = await env.currentTimeMs();
      await handle.signal(paymentPostedSignal, { paymentId: 42 });
      const result = await handle.result();
      expect(result).toEqual({ promiseId, status: 'KEPT', paidAmount: '100.00', atDeadline: false });
      expect(resolvedWith(mocks)).toEqual(['KEPT']);
      expect(mocks.activities.resolvePromiseToPay).toHaveBeenCalledWith({
        tenantId: 'wf-test',
        promiseId,
        outcome: 'KEPT',
        paidAmount: '100.00',
      });
      expect(mocks.resolvedAtMs[0]).toBeLessThan(signalledAtMs + 60_000);
      expect(mocks.resolvedAtMs[0]).toBeLessThan(input.deadlineAtMs - 3 * DAY);
    });
  });

  it('PARTIALLY_KEPT: a part paid by the deadline; resolved at the deadline, not before', async () => {
    const { taskQueue, promiseId } = uniqueNames();
    const mocks = mockActivities();
    const input = await inputAt(promiseId);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(1));
      mocks.paid.value = '40.00';
      await handle.signal(paymentPostedSignal, { paymentId: 43 });
      await eventually(() => expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(2));
      expect(mocks.activities.resolvePromiseToPay).not.toHaveBeenCalled();
      const result = await handle.result();
      expect(result).toEqual({ promiseId, status: 'PARTIALLY_KEPT', paidAmount: '40.00', atDeadline: true });
      expect(resolvedWith(mocks)).toEqual(['PARTIALLY_KEPT']);
      // The timer ran to the deadline: promisedDate + 3 days, end of day, in seconds of server time.
      expect(mocks.resolvedAtMs[0]).toBeGreaterThanOrEqual(input.deadlineAtMs);
      expect(mocks.resolvedAtMs[0]).toBeLessThan(input.deadlineAtMs + 60_000);
      // The last read happened at the deadline too.
      expect(mocks.readAtMs.at(-1)).toBeGreaterThanOrEqual(input.deadlineAtMs);
    });
  });

  it('BROKEN: nothing paid; one read at start, one at the deadline, resolved BROKEN then', async () => {
    const { taskQueue, promiseId } = uniqueNames();
    const mocks = mockActivities();
    const input = await inputAt(promiseId, 30);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      const result = await handle.result();
      expect(result).toEqual({ promiseId, status: 'BROKEN', paidAmount: '0.00', atDeadline: true });
      expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(2);
      expect(resolvedWith(mocks)).toEqual(['BROKEN']);
      expect(mocks.resolvedAtMs[0]).toBeGreaterThanOrEqual(input.deadlineAtMs);
      expect(mocks.resolvedAtMs[0]).toBeLessThan(input.deadlineAtMs + 60_000);
    });
  });

  it('a lost signal: the payment posted without a signal is still found at the deadline → KEPT', async () => {
    const { taskQueue, promiseId } = uniqueNames();
    const mocks = mockActivities();
    const input = await inputAt(promiseId);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(1));
      await env.sleep(2 * DAY);
      mocks.paid.value = '100.00';
      const result = await handle.result();
      expect(result).toEqual({ promiseId, status: 'KEPT', paidAmount: '100.00', atDeadline: true });
      expect(mocks.activities.readPromisePayments).toHaveBeenCalledTimes(2);
      expect(resolvedWith(mocks)).toEqual(['KEPT']);
      expect(mocks.resolvedAtMs[0]).toBeGreaterThanOrEqual(input.deadlineAtMs);
    });
  });

  it('a payment posted before the process ran is found by the read at start → KEPT at once', async () => {
    const { taskQueue, promiseId } = uniqueNames();
    const mocks = mockActivities();
    mocks.paid.value = '120.00';
    const input = await inputAt(promiseId);
    await run(taskQueue, mocks.activities, async () => {
      const startedAtMs = await env.currentTimeMs();
      const result = await (await start(taskQueue, input)).result();
      expect(result).toEqual({ promiseId, status: 'KEPT', paidAmount: '120.00', atDeadline: false });
      expect(mocks.resolvedAtMs[0]).toBeLessThan(startedAtMs + 60_000);
    });
  });
});
