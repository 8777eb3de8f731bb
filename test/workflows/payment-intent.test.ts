/**
 * paymentIntentWorkflow on the time-skipping test server (docs/conventions.md §11): one environment for the file,
 * tests in sequence (skipped time is global to the server), a unique queue and workflow id per test, mock
 * activities typed `Activities` whose spies record the calls. The rail rules are the real ones
 * (domain/payments/rails.ts). Paths: ACH settled then R01 inside 2 business days; R10 at day 59 (reversed) and
 * day 61 (too late: RETURN_NOT_REVERSED exception, nothing reversed); a declined card; RTP settling itself on
 * the sandbox timeline; ACH settling itself on the next business day; cancel before submission; a settlement
 * of another amount → SETTLED_NOT_POSTED → resolved POST_AS_SETTLED; a worker restart mid-flow; the local steps
 * (patch `payment-intent-local-steps`) leave the rail call as the only activity task.
 */
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import type { PaymentIntentView } from '../../db/queries/payments/payments';
import { addDays } from '../../domain/calendar';
import { DomainError } from '../../domain/errors';
import { promiseWorkflowId } from '../../domain/ids';
import type { PaymentIntentWorkflowInput, PaymentStatus } from '../../domain/payments/payment-intent';
import { expectedSettlementOf } from '../../domain/payments/rails';
import type { PromiseWorkflowInput } from '../../domain/servicing/promise';
import { asTemporalActivities } from '../../workers/activities';
import {
  cancelPaymentUpdate,
  getStateQuery,
  railEventUpdate,
  resolveSettlementUpdate,
} from '../../workflows/payments/payment-intent/messages';
import type { paymentIntentWorkflow } from '../../workflows/payments/payment-intent/workflow';
import { getStateQuery as promiseStateQuery } from '../../workflows/servicing/promise/messages';
import type { promiseWorkflow } from '../../workflows/servicing/promise/workflow';

const DAY = 86_400_000;

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

/** Mock activities: every operation a failing spy, the workflow's steps answering like the real ones. */
function mockActivities(
  options: {
    submitStatus?: 'SUBMITTED' | 'DECLINED';
    loanAccepts?: () => boolean;
    /** What `findPendingPromisesOfLoan` answers (default none). */
    pendingPromiseIds?: number[];
  } = {},
) {
  let status: PaymentStatus = 'CREATED';
  let amount = '100.00';
  let returnCode: string | null = null;
  const view = (): PaymentIntentView => ({
    paymentId: 1,
    resourceId: 1,
    loanId: 9,
    loanRef: '000000009',
    instrumentId: 3,
    amount,
    currency: 'USD',
    rail: 'ACH',
    effectiveDate: '2026-01-01',
    source: 'test',
    status,
    providerRef: 'sbx_ach_test',
    returnCode,
    createdAt: new Date(0).toISOString(),
  });
  const unused = <K extends keyof Activities>(name: K) =>
    vi.fn<Activities[K]>(async () => {
      throw new Error(`${name} is not a step of the payment-intent workflow`);
    });
  const everyOperation = Object.fromEntries(
    (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
  ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
  let exceptionId = 500;
  const activities = {
    ...everyOperation,
    submitPaymentToRail: vi.fn<Activities['submitPaymentToRail']>(async () =>
      options.submitStatus === 'DECLINED'
        ? { providerRef: 'sbx_card_test', status: 'DECLINED', declineReason: 'card_declined' }
        : { providerRef: 'sbx_ach_test', status: 'SUBMITTED' },
    ),
    recordSandboxRailEvent: vi.fn<Activities['recordSandboxRailEvent']>(async () => {}),
    markPaymentSubmitted: vi.fn<Activities['markPaymentSubmitted']>(async () => {
      status = 'SUBMITTED';
      return view();
    }),
    failPaymentIntent: vi.fn<Activities['failPaymentIntent']>(async () => {
      status = 'FAILED';
      return view();
    }),
    cancelPaymentIntent: vi.fn<Activities['cancelPaymentIntent']>(async () => {
      status = 'CANCELLED';
      return view();
    }),
    postSettledPayment: vi.fn<Activities['postSettledPayment']>(async (input) => {
      if (options.loanAccepts && !options.loanAccepts()) {
        throw new DomainError('error.msg.loan.invalid.state.transition', 'Loan 9 is CLOSED_OBLIGATIONS_MET.');
      }
      status = 'POSTED';
      amount = input.amount;
      return view();
    }),
    returnPayment: vi.fn<Activities['returnPayment']>(async (input) => {
      status = 'RETURNED';
      returnCode = input.returnCode;
      return view();
    }),
    openReconciliationException: vi.fn<Activities['openReconciliationException']>(async (input) => ({
      exception: {
        exceptionId: ++exceptionId,
        exceptionType: input.exceptionType,
        targetType: input.targetType,
        targetRef: input.targetRef,
        status: 'open',
        detail: input.detail,
        createdAt: new Date(0).toISOString(),
        lastSeenAt: new Date(0).toISOString(),
      },
      created: true,
    })) as unknown as Activities['openReconciliationException'],
    resolveReconciliationException: vi.fn(
      async () => ({}),
    ) as unknown as Activities['resolveReconciliationException'],
    findPendingPromisesOfLoan: vi.fn<Activities['findPendingPromisesOfLoan']>(async () => ({
      promiseIds: options.pendingPromiseIds ?? [],
    })),
    findOpenHardshipOffersOfLoan: vi.fn<Activities['findOpenHardshipOffersOfLoan']>(async () => ({
      offerIds: [],
    })),
    // A promise process on the same queue (the signalling test): nothing paid, nothing resolved before its deadline.
    readPromisePayments: vi.fn<Activities['readPromisePayments']>(async () => ({
      paidAmount: '0.00',
      status: 'PENDING',
    })),
  } satisfies Activities;
  return { activities };
}

function uniqueNames() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  return { taskQueue: `payment-test-${suffix}`, workflowId: `payment-intent/wf-test/${suffix}` };
}

async function todayOnServer(): Promise<string> {
  return new Date(await env.currentTimeMs()).toISOString().slice(0, 10);
}

async function inputFor(
  rail: PaymentIntentWorkflowInput['rail'],
  overrides: Partial<PaymentIntentWorkflowInput> = {},
): Promise<PaymentIntentWorkflowInput> {
  return {
    tenantId: 'wf-test',
    paymentId: 1,
    loanId: 9,
    loanRef: '000000009',
    rail,
    amount: '100.00',
    currency: 'USD',
    effectiveDate: await todayOnServer(),
    sandboxTimeline: false,
    ...overrides,
  };
}

async function createWorker(
  taskQueue: string,
  activities: Activities,
  options: { maxCachedWorkflows?: number } = {},
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(activities),
    ...options,
  });
}

function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 15_000, interval: 50 });
}

async function start(taskQueue: string, workflowId: string, input: PaymentIntentWorkflowInput) {
  return env.client.workflow.start<typeof paymentIntentWorkflow>('paymentIntentWorkflow', {
    taskQueue,
    workflowId,
    args: [input],
  });
}

type Handle = Awaited<ReturnType<typeof start>>;

/** Waits until the process reports SUBMITTED, then settles it through the update (today on the server). */
async function submittedThenSettled(handle: Handle, amount = '100.00') {
  await eventually(async () => expect((await handle.query(getStateQuery)).status).toBe('SUBMITTED'));
  return handle.executeUpdate(railEventUpdate, {
    args: [{ type: 'SETTLED', amount, settledOn: await todayOnServer() }],
  });
}

describe('paymentIntentWorkflow', () => {
  it('ACH: submitted, settled (POSTED), then R01 two business days later: RETURNED', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      const settledOn = await todayOnServer();
      const posted = await submittedThenSettled(handle);
      expect(posted).toMatchObject({ status: 'POSTED', providerRef: 'sbx_ach_test', settledOn });
      expect(posted.returnWindowEndsOn).toBe(addDays(settledOn, 60));
      expect(activities.postSettledPayment).toHaveBeenCalledWith({
        tenantId: 'wf-test',
        paymentId: 1,
        amount: '100.00',
        settledOn,
      });
      await env.sleep(2 * DAY);
      const returnedOn = await todayOnServer();
      const returned = await handle.executeUpdate(railEventUpdate, {
        args: [{ type: 'RETURNED', returnCode: 'R01', returnedOn: addDays(settledOn, 1) }],
      });
      expect(returned).toMatchObject({ status: 'RETURNED', returnCode: 'R01' });
      expect(activities.returnPayment).toHaveBeenCalledWith({
        tenantId: 'wf-test',
        paymentId: 1,
        returnCode: 'R01',
        returnedOn: addDays(settledOn, 1),
      });
      expect(await handle.result()).toMatchObject({ status: 'RETURNED' });
      expect(returnedOn >= settledOn).toBe(true);
    });
  });

  it('ACH: R01 after its 2 business days is not reversed but opens RETURN_NOT_REVERSED', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      const { settledOn } = await submittedThenSettled(handle);
      const late = addDays(settledOn!, 10);
      const state = await handle.executeUpdate(railEventUpdate, {
        args: [{ type: 'RETURNED', returnCode: 'R01', returnedOn: late }],
      });
      expect(state.status).toBe('POSTED');
      expect(activities.returnPayment).not.toHaveBeenCalled();
      expect(activities.openReconciliationException).toHaveBeenCalledWith(
        expect.objectContaining({ exceptionType: 'RETURN_NOT_REVERSED', targetRef: '1' }),
      );
      expect(await handle.result()).toMatchObject({ status: 'POSTED', returnCode: 'R01' });
    });
  });

  it('ACH: R10 at day 59 is reversed; R10 at day 61 opens an exception and reverses nothing', async () => {
    for (const day of [59, 61]) {
      const { taskQueue, workflowId } = uniqueNames();
      const { activities } = mockActivities();
      const worker = await createWorker(taskQueue, activities);
      await worker.runUntil(async () => {
        const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
        const { settledOn } = await submittedThenSettled(handle);
        await env.sleep(day * DAY);
        const state = await handle.executeUpdate(railEventUpdate, {
          args: [{ type: 'RETURNED', returnCode: 'R10', returnedOn: addDays(settledOn!, day) }],
        });
        if (day === 59) {
          expect(state.status).toBe('RETURNED');
          expect(activities.returnPayment).toHaveBeenCalledTimes(1);
          expect(activities.openReconciliationException).not.toHaveBeenCalled();
        } else {
          expect(state.status).toBe('POSTED');
          expect(activities.returnPayment).not.toHaveBeenCalled();
          expect(activities.openReconciliationException).toHaveBeenCalledWith(
            expect.objectContaining({
              exceptionType: 'RETURN_NOT_REVERSED',
              detail: expect.objectContaining({ returnCode: 'R10', reason: 'RETURN_AFTER_WINDOW' }),
            }),
          );
        }
        await handle.result();
      });
    }
  });

  it('a card declined at submission: FAILED, the reason kept, no posting', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities({ submitStatus: 'DECLINED' });
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('DEBIT_CARD'));
      expect(await handle.result()).toMatchObject({ status: 'FAILED' });
      expect(activities.failPaymentIntent).toHaveBeenCalledWith({
        tenantId: 'wf-test',
        paymentId: 1,
        reason: 'card_declined',
      });
      expect(activities.markPaymentSubmitted).not.toHaveBeenCalled();
      expect(activities.postSettledPayment).not.toHaveBeenCalled();
    });
  });

  it('RTP on the sandbox timeline settles itself within seconds and ends (no returns on RTP)', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('RTP', { sandboxTimeline: true }));
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'POSTED', returnWindowEndsOn: null });
      expect(activities.recordSandboxRailEvent).toHaveBeenCalledWith(
        expect.objectContaining({ event: expect.objectContaining({ type: 'SETTLED', amount: '100.00' }) }),
      );
    });
  });

  it('ACH on the sandbox timeline settles itself on the expected settlement date', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const submittedOn = await todayOnServer();
      const handle = await start(taskQueue, workflowId, await inputFor('ACH', { sandboxTimeline: true }));
      await eventually(async () => expect((await handle.query(getStateQuery)).status).toBe('SUBMITTED'));
      await env.sleep(6 * DAY);
      const state = await eventually(async () => {
        const s = await handle.query(getStateQuery);
        expect(s.status).toBe('POSTED');
        return s;
      });
      expect(state.settledOn).toBe(expectedSettlementOf('ACH', submittedOn));
      await env.sleep(70 * DAY);
      expect(await handle.result()).toMatchObject({ status: 'POSTED' });
    });
  });

  it('cancel before submission: CANCELLED; after submission: 409', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const effectiveDate = addDays(await todayOnServer(), 20);
      const handle = await start(taskQueue, workflowId, await inputFor('WIRE', { effectiveDate }));
      const cancelled = await handle.executeUpdate(cancelPaymentUpdate, {
        args: [{ reason: 'Borrower asked' }],
      });
      expect(cancelled.status).toBe('CANCELLED');
      expect(await handle.result()).toMatchObject({ status: 'CANCELLED' });
      expect(activities.submitPaymentToRail).not.toHaveBeenCalled();

      const other = uniqueNames();
      const handle2 = await start(taskQueue, other.workflowId, await inputFor('ACH'));
      await eventually(async () => expect((await handle2.query(getStateQuery)).status).toBe('SUBMITTED'));
      const refused = await handle2
        .executeUpdate(cancelPaymentUpdate, { args: [{ reason: 'too late' }] })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((refused as WorkflowUpdateFailedError).cause as { type?: string }).type).toBe(
        'error.msg.payment.invalid.state.transition',
      );
      await handle2.terminate('test over');
    });
  });

  it('a settlement of another amount opens SETTLED_NOT_POSTED; POST_AS_SETTLED posts the settled amount', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      const waiting = await submittedThenSettled(handle, '99.50');
      expect(waiting.status).toBe('SUBMITTED');
      expect(waiting.openExceptionId).not.toBeNull();
      expect(activities.postSettledPayment).not.toHaveBeenCalled();
      expect(activities.openReconciliationException).toHaveBeenCalledWith(
        expect.objectContaining({
          exceptionType: 'SETTLED_NOT_POSTED',
          targetType: 'PAYMENT_INTENT',
          detail: expect.objectContaining({
            settledAmount: '99.50',
            intentAmount: '100.00',
            reason: 'SETTLED_AMOUNT_DIFFERS',
          }),
        }),
      );
      // A resolution of another exception is refused.
      const wrong = await handle
        .executeUpdate(resolveSettlementUpdate, {
          args: [{ exceptionId: 1, resolution: 'POST_AS_SETTLED', reason: 'x', actor: 'ops' }],
        })
        .catch((err: unknown) => err);
      expect(wrong).toBeInstanceOf(WorkflowUpdateFailedError);
      const resolved = await handle.executeUpdate(resolveSettlementUpdate, {
        args: [
          {
            exceptionId: waiting.openExceptionId!,
            resolution: 'POST_AS_SETTLED',
            reason: 'Bank confirmed',
            actor: 'ops',
          },
        ],
      });
      expect(resolved).toMatchObject({ status: 'POSTED', openExceptionId: null });
      expect(activities.postSettledPayment).toHaveBeenCalledWith(
        expect.objectContaining({ amount: '99.50' }),
      );
      expect(activities.resolveReconciliationException).toHaveBeenCalledWith(
        expect.objectContaining({ exceptionId: waiting.openExceptionId, resolution: 'POST_AS_SETTLED' }),
      );
      await handle.terminate('test over');
    });
  });

  it('a settlement the loan no longer accepts opens SETTLED_NOT_POSTED; DISMISS ends it FAILED without posting', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities({ loanAccepts: () => false });
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      const waiting = await submittedThenSettled(handle);
      expect(waiting.openExceptionId).not.toBeNull();
      expect(activities.openReconciliationException).toHaveBeenCalledWith(
        expect.objectContaining({
          detail: expect.objectContaining({ reason: 'LOAN_NOT_ACCEPTING_PAYMENTS' }),
        }),
      );
      const dismissed = await handle.executeUpdate(resolveSettlementUpdate, {
        args: [
          {
            exceptionId: waiting.openExceptionId!,
            resolution: 'DISMISS',
            reason: 'Loan closed',
            actor: 'ops',
          },
        ],
      });
      expect(dismissed).toMatchObject({ status: 'FAILED', openExceptionId: null });
      expect(await handle.result()).toMatchObject({ status: 'FAILED' });
      expect(activities.failPaymentIntent).toHaveBeenCalledWith(
        expect.objectContaining({ reason: 'Settlement dismissed (reconciliation)' }),
      );
    });
  });

  it('a settlement reported as soon as the submission is due is queued and applied after it: POSTED', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      const posted = await handle.executeUpdate(railEventUpdate, {
        args: [{ type: 'SETTLED', amount: '100.00', settledOn: await todayOnServer() }],
      });
      expect(posted).toMatchObject({ status: 'POSTED', providerRef: 'sbx_ach_test' });
      expect(activities.markPaymentSubmitted).toHaveBeenCalledTimes(1);
      await handle.terminate('test over');
    });
    // Not before a future submission date: a WIRE value-dated in 20 days is not due yet.
    const other = uniqueNames();
    const worker2 = await createWorker(other.taskQueue, mockActivities().activities);
    await worker2.runUntil(async () => {
      const effectiveDate = addDays(await todayOnServer(), 20);
      const handle = await start(
        other.taskQueue,
        other.workflowId,
        await inputFor('WIRE', { effectiveDate }),
      );
      const refused = await handle
        .executeUpdate(railEventUpdate, {
          args: [{ type: 'SETTLED', amount: '100.00', settledOn: effectiveDate }],
        })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      await handle.terminate('test over');
    });
  });

  it('survives a worker restart mid-flow: a new worker applies the settlement and the return', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    // Worker 1 keeps no workflow cache, so the server queues the next task on the shared queue rather than on
    // worker 1's sticky queue (the test server never times a sticky queue out).
    const first = await createWorker(taskQueue, activities, { maxCachedWorkflows: 0 });
    const handle = await first.runUntil(async () => {
      const h = await start(taskQueue, workflowId, await inputFor('ACH'));
      await eventually(async () => expect((await h.query(getStateQuery)).status).toBe('SUBMITTED'));
      return h;
    });
    const second = await createWorker(taskQueue, activities);
    await second.runUntil(async () => {
      const { settledOn } = await handle.executeUpdate(railEventUpdate, {
        args: [{ type: 'SETTLED', amount: '100.00', settledOn: await todayOnServer() }],
      });
      const state = await handle.executeUpdate(railEventUpdate, {
        args: [{ type: 'RETURNED', returnCode: 'R02', returnedOn: settledOn! }],
      });
      expect(state.status).toBe('RETURNED');
      expect(await handle.result()).toMatchObject({ status: 'RETURNED', returnCode: 'R02' });
    });
    expect(activities.submitPaymentToRail).toHaveBeenCalledTimes(1);
  });

  it('after posting, signals paymentPosted to the loan’s pending promise processes; a missing one is skipped', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const running = 7100 + (Date.now() % 1000);
    const missing = running + 1;
    const { activities } = mockActivities({ pendingPromiseIds: [running, missing] });
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const promiseInput: PromiseWorkflowInput = {
        tenantId: 'wf-test',
        promiseId: running,
        caseId: 77,
        loanId: 9,
        amount: '100.00',
        currency: 'USD',
        promisedDate: addDays(await todayOnServer(), 30),
        deadlineAtMs: (await env.currentTimeMs()) + 40 * DAY,
      };
      const promise = await env.client.workflow.start<typeof promiseWorkflow>('promiseWorkflow', {
        taskQueue,
        workflowId: promiseWorkflowId('wf-test', running),
        args: [promiseInput],
      });
      await eventually(() => expect(activities.readPromisePayments).toHaveBeenCalledTimes(1));
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      expect(await submittedThenSettled(handle)).toMatchObject({ status: 'POSTED' });
      await eventually(() =>
        expect(activities.findPendingPromisesOfLoan).toHaveBeenCalledWith({ tenantId: 'wf-test', loanId: 9 }),
      );
      // The promise process woke up and re-read the loan's payments.
      await eventually(async () =>
        expect(await promise.query(promiseStateQuery)).toMatchObject({ hintsReceived: 1, status: 'PENDING' }),
      );
      await eventually(() => expect(activities.readPromisePayments).toHaveBeenCalledTimes(2));
      // The payment process carries on to its return window as before.
      expect((await handle.query(getStateQuery)).status).toBe('POSTED');
      await handle.terminate('test over');
      await promise.terminate('test over');
    });
  });

  it('patch payment-intent-local-steps: marking submitted, posting and the look-ups run as local activities, no activity task but the rail call', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('ACH'));
      expect(await submittedThenSettled(handle)).toMatchObject({ status: 'POSTED' });
      await eventually(() => expect(activities.findPendingPromisesOfLoan).toHaveBeenCalledTimes(1));
      await eventually(() => expect(activities.findOpenHardshipOffersOfLoan).toHaveBeenCalledTimes(1));
      const { events } = await handle.fetchHistory();
      const scheduled = (events ?? []).flatMap((event) =>
        event.activityTaskScheduledEventAttributes
          ? [event.activityTaskScheduledEventAttributes.activityType?.name]
          : [],
      );
      const markers = (events ?? []).flatMap((event) =>
        event.markerRecordedEventAttributes ? [event.markerRecordedEventAttributes.markerName] : [],
      );
      // Only the rail call is an activity task; the patch's marker and one local-activity marker per step (mark,
      // post, and the two look-ups).
      expect(scheduled).toEqual(['submitPaymentToRail']);
      expect(markers.filter((name) => name === 'core_patch')).toHaveLength(1);
      expect(markers.filter((name) => name === 'core_local_activity')).toHaveLength(4);
      expect(activities.markPaymentSubmitted).toHaveBeenCalledTimes(1);
      expect(activities.postSettledPayment).toHaveBeenCalledTimes(1);
      expect((await handle.query(getStateQuery)).status).toBe('POSTED');
      await handle.terminate('test over');
    });
  });

  it('patch payment-intent-sandbox-settlement-local: a self-settling sandbox intent records its settlement as a local activity, the rail call is the only activity task', async () => {
    const { taskQueue, workflowId } = uniqueNames();
    const { activities } = mockActivities();
    const worker = await createWorker(taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await start(taskQueue, workflowId, await inputFor('RTP', { sandboxTimeline: true }));
      expect(await handle.result()).toMatchObject({ status: 'POSTED' });
      const { events } = await handle.fetchHistory();
      const scheduled = (events ?? []).flatMap((event) =>
        event.activityTaskScheduledEventAttributes
          ? [event.activityTaskScheduledEventAttributes.activityType?.name]
          : [],
      );
      const patches = (events ?? []).flatMap((event) =>
        event.markerRecordedEventAttributes?.markerName === 'core_patch'
          ? [JSON.stringify(event.markerRecordedEventAttributes.details ?? {})]
          : [],
      );
      const workflowTasks = (events ?? []).filter((event) => event.workflowTaskCompletedEventAttributes);
      expect(scheduled).toEqual(['submitPaymentToRail']);
      expect(patches).toHaveLength(2);
      expect(activities.recordSandboxRailEvent).toHaveBeenCalledTimes(1);
      expect(activities.postSettledPayment).toHaveBeenCalledTimes(1);
      // Started → rail call; submitted → settlement timer; timer fired → record, post, look-ups, completed.
      expect(workflowTasks).toHaveLength(3);
    });
  });
});
