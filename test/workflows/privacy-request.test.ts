/**
 * privacyRequestWorkflow on the time-skipping test server (docs/conventions.md §11): one environment for the
 * file, tests in sequence (skipped time is global to the server), a unique queue and workflow id
 * per test, mock activities typed `Activities` whose spies record calls and server-side times.
 * Deadlines are crossed with `env.sleep`.
 */
import { activityInfo } from '@temporalio/activity';
import { WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import { DomainError, fieldError } from '../../domain/errors';
import type {
  FulfilPrivacyRequestArgs,
  PrivacyRequestWorkflowInput,
} from '../../domain/servicing/privacy-request';
import { asTemporalActivities } from '../../workers/activities';
import { fulfilRequestUpdate, getProgressQuery } from '../../workflows/servicing/privacy-request/messages';
import type { privacyRequestWorkflow } from '../../workflows/servicing/privacy-request/workflow';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

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

/** Mock activities: every operation is a spy; the workflow's four steps answer like the real ones. */
function mockActivities() {
  const calledAtMs: Record<string, number[]> = {};
  const record = (name: string) => {
    // Server time at which the activity was scheduled: skipped time, not wall-clock time.
    const times = calledAtMs[name] ?? [];
    times.push(activityInfo().scheduledTimestampMs);
    calledAtMs[name] = times;
  };
  const unused = <K extends keyof Activities>(name: K) =>
    vi.fn<Activities[K]>(async () => {
      throw new Error(`${name} is not a step of the privacy-request workflow`);
    });
  // Every operation the worker could run, each a spy that fails: a call outside the workflow's
  // four steps fails the test at once instead of retrying an unregistered activity.
  const everyOperation = Object.fromEntries(
    (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
  ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
  const activities = {
    ...everyOperation,
    markPrivacyWorkflowStarted: vi.fn<Activities['markPrivacyWorkflowStarted']>(async () => {
      record('markPrivacyWorkflowStarted');
    }),
    raisePrivacyReminder: vi.fn<Activities['raisePrivacyReminder']>(async () => {
      record('raisePrivacyReminder');
      return { raised: true };
    }),
    markPrivacyRequestOverdue: vi.fn<Activities['markPrivacyRequestOverdue']>(async () => {
      record('markPrivacyRequestOverdue');
      return { status: 'OVERDUE' };
    }),
    fulfilPrivacyRequest: vi.fn<Activities['fulfilPrivacyRequest']>(async (input) => {
      record('fulfilPrivacyRequest');
      return { requestId: input.requestId, status: input.outcome };
    }),
  } satisfies Activities;
  return { activities, calledAtMs };
}

type Mocks = ReturnType<typeof mockActivities>;

function uniqueNames() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  return {
    taskQueue: `privacy-test-${suffix}`,
    workflowId: `privacy-request/wf-test/${suffix}`,
    requestId: 1000 + sequence,
  };
}

/** Input due 45 days after the server's current time, reminder 10 days before that. */
async function inputAt(requestId: number): Promise<PrivacyRequestWorkflowInput> {
  const now = await env.currentTimeMs();
  const dueAtMs = now + 45 * DAY;
  return {
    tenantId: 'wf-test',
    requestId,
    caseId: 77,
    customerRef: 'cus_wf',
    regime: 'CCPA_CPRA',
    statutoryDueAt: new Date(dueAtMs).toISOString(),
    dueAtMs,
    reminderAtMs: dueAtMs - 10 * DAY,
  };
}

async function createWorker(
  taskQueue: string,
  activities: Activities,
  options: Pick<WorkerOptions, 'maxCachedWorkflows'> = {},
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities,
    ...options,
  });
}

/** True once the workflow has started a timer (it is waiting for its next deadline). */
async function waitsOnTimer(handle: {
  fetchHistory(): Promise<{ events?: { timerStartedEventAttributes?: unknown }[] | null }>;
}) {
  const history = await handle.fetchHistory();
  return (history.events ?? []).some((e) => e.timerStartedEventAttributes != null);
}

/** Runs `worker` until `fn` settles, then shuts it down. */
async function withWorker<T>(worker: Worker, fn: () => Promise<T>): Promise<T> {
  return worker.runUntil(fn);
}

function fulfilArgs(outcome: FulfilPrivacyRequestArgs['outcome'] = 'FULFILLED'): FulfilPrivacyRequestArgs {
  return {
    outcome,
    outcomeReason: 'Deleted from all systems',
    evidenceIds: [5, 6],
    actor: 'agent-1',
    correlationId: 'req-1',
  };
}

/** Retries an assertion until the worker has caught up with the server (generous on 2 busy cores). */
function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 15_000, interval: 50 });
}

/** Lets the worker finish anything the server has already handed out (real time). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

async function startWorkflow(taskQueue: string, workflowId: string, input: PrivacyRequestWorkflowInput) {
  return env.client.workflow.start<typeof privacyRequestWorkflow>('privacyRequestWorkflow', {
    taskQueue,
    workflowId,
    args: [input],
  });
}

function stepsCalled(mocks: Mocks) {
  const a = mocks.activities;
  return {
    started: a.markPrivacyWorkflowStarted.mock.calls.length,
    reminder: a.raisePrivacyReminder.mock.calls.length,
    overdue: a.markPrivacyRequestOverdue.mock.calls.length,
    fulfil: a.fulfilPrivacyRequest.mock.calls.length,
  };
}

describe('privacyRequestWorkflow', () => {
  it('(a) fulfilment before the deadline: FULFILLED, no reminder, no overdue', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    const input = await inputAt(requestId);
    const worker = await createWorker(taskQueue, mocks.activities);
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      await eventually(() => expect(mocks.activities.markPrivacyWorkflowStarted).toHaveBeenCalledTimes(1));
      expect(mocks.activities.markPrivacyWorkflowStarted).toHaveBeenCalledWith({
        tenantId: 'wf-test',
        requestId,
      });

      // 20 days in: still well before the reminder (day 35).
      await env.sleep(20 * DAY);
      expect(await handle.query(getProgressQuery)).toEqual({
        requestId,
        status: 'RECEIVED',
        statutoryDueAt: input.statutoryDueAt,
        reminderRaised: false,
      });
      const updated = await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] });
      expect(updated).toEqual({ requestId, status: 'FULFILLED' });
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: false });
    });
    expect(mocks.activities.fulfilPrivacyRequest).toHaveBeenCalledTimes(1);
    expect(mocks.activities.fulfilPrivacyRequest).toHaveBeenCalledWith({
      tenantId: 'wf-test',
      requestId,
      ...fulfilArgs(),
    });
    expect(stepsCalled(mocks)).toEqual({ started: 1, reminder: 0, overdue: 0, fulfil: 1 });
  });

  it('(a2) fulfilment between the reminder and the due time: reminder raised, never overdue', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    const input = await inputAt(requestId);
    const worker = await createWorker(taskQueue, mocks.activities);
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      await eventually(() => expect(mocks.activities.markPrivacyWorkflowStarted).toHaveBeenCalledTimes(1));
      await env.sleep(40 * DAY);
      await eventually(() => expect(mocks.activities.raisePrivacyReminder).toHaveBeenCalledTimes(1));
      await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs('DENIED_EXEMPT')] });
      expect(await handle.result()).toEqual({ requestId, status: 'DENIED_EXEMPT', wasOverdue: false });
    });
    expect(stepsCalled(mocks)).toEqual({ started: 1, reminder: 1, overdue: 0, fulfil: 1 });
  });

  it('(b) without fulfilment: reminder 10 days before due, OVERDUE at day 45, a late fulfilment ends it with wasOverdue', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    const start = await env.currentTimeMs();
    const input = await inputAt(requestId);
    const worker = await createWorker(taskQueue, mocks.activities);
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      await eventually(() => expect(mocks.activities.markPrivacyWorkflowStarted).toHaveBeenCalledTimes(1));

      // Just before the reminder (day 35 − 1 h): nothing yet.
      await env.sleep(input.reminderAtMs - HOUR - start);
      await settle();
      expect(mocks.activities.raisePrivacyReminder).not.toHaveBeenCalled();
      expect((await handle.query(getProgressQuery)).reminderRaised).toBe(false);

      // Just after it: the reminder, scheduled at the reminder time.
      await env.sleep(2 * HOUR);
      await eventually(() => expect(mocks.activities.raisePrivacyReminder).toHaveBeenCalledTimes(1));
      expect(mocks.activities.raisePrivacyReminder).toHaveBeenCalledWith({ tenantId: 'wf-test', requestId });
      const [reminderAt] = mocks.calledAtMs.raisePrivacyReminder ?? [];
      expect(reminderAt).toBeGreaterThanOrEqual(input.reminderAtMs);
      expect(reminderAt).toBeLessThan(input.reminderAtMs + 2 * HOUR);
      await eventually(async () => expect((await handle.query(getProgressQuery)).reminderRaised).toBe(true));
      expect((await handle.query(getProgressQuery)).status).toBe('RECEIVED');

      // Just before the due time (day 45 − 1 h): not overdue.
      await env.sleep(input.dueAtMs - HOUR - (await env.currentTimeMs()));
      await settle();
      expect(mocks.activities.markPrivacyRequestOverdue).not.toHaveBeenCalled();
      expect((await handle.query(getProgressQuery)).status).toBe('RECEIVED');

      // Just after it: OVERDUE.
      await env.sleep(2 * HOUR);
      await eventually(() => expect(mocks.activities.markPrivacyRequestOverdue).toHaveBeenCalledTimes(1));
      const [overdueAt] = mocks.calledAtMs.markPrivacyRequestOverdue ?? [];
      expect(overdueAt).toBeGreaterThanOrEqual(input.dueAtMs);
      expect(overdueAt).toBeLessThan(input.dueAtMs + 2 * HOUR);
      await eventually(async () =>
        expect(await handle.query(getProgressQuery)).toEqual({
          requestId,
          status: 'OVERDUE',
          statutoryDueAt: input.statutoryDueAt,
          reminderRaised: true,
        }),
      );

      // The workflow keeps waiting for an outcome, however long it takes.
      await env.sleep(30 * DAY);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] })).toEqual({
        requestId,
        status: 'FULFILLED',
      });
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: true });
    });
    expect(stepsCalled(mocks)).toEqual({ started: 1, reminder: 1, overdue: 1, fulfil: 1 });
  });

  it('(c) a worker restart loses nothing: the reminder and later steps run on the second worker', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const first = mockActivities();
    const second = mockActivities();
    const input = await inputAt(requestId);

    // Worker 1 keeps no workflow cache, so the server queues the next task on the shared queue
    // rather than on worker 1's sticky queue (the test server never times a sticky queue out).
    const worker1 = await createWorker(taskQueue, first.activities, { maxCachedWorkflows: 0 });
    const handle = await withWorker(worker1, async () => {
      const h = await startWorkflow(taskQueue, workflowId, input);
      await eventually(() => expect(first.activities.markPrivacyWorkflowStarted).toHaveBeenCalledTimes(1));
      // The first step is done once the workflow waits on its reminder timer.
      await eventually(async () => expect(await waitsOnTimer(h)).toBe(true));
      return h;
    });
    expect(worker1.getState()).toBe('STOPPED');

    // No worker: time passes the reminder (day 35), and nothing can run. The test server stops
    // skipping while the reminder's workflow task waits for a worker, so go only 2 s past it.
    await env.sleep(input.reminderAtMs + 2000 - (await env.currentTimeMs()));
    await settle();
    expect(await env.currentTimeMs()).toBeGreaterThan(input.reminderAtMs);
    expect(stepsCalled(first)).toEqual({ started: 1, reminder: 0, overdue: 0, fulfil: 0 });

    const worker2 = await createWorker(taskQueue, second.activities);
    await withWorker(worker2, async () => {
      await eventually(() => expect(second.activities.raisePrivacyReminder).toHaveBeenCalledTimes(1));
      await eventually(async () => expect((await handle.query(getProgressQuery)).reminderRaised).toBe(true));
      await env.sleep(input.dueAtMs + HOUR - (await env.currentTimeMs()));
      await eventually(() => expect(second.activities.markPrivacyRequestOverdue).toHaveBeenCalledTimes(1));
      await eventually(async () => expect((await handle.query(getProgressQuery)).status).toBe('OVERDUE'));
      await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs('WITHDRAWN')] });
      expect(await handle.result()).toEqual({ requestId, status: 'WITHDRAWN', wasOverdue: true });
    });
    // The first step ran once, on worker 1; replay on worker 2 did not run it again.
    expect(stepsCalled(first)).toEqual({ started: 1, reminder: 0, overdue: 0, fulfil: 0 });
    expect(stepsCalled(second)).toEqual({ started: 0, reminder: 1, overdue: 1, fulfil: 1 });
  });

  it('(d) a second fulfilment is rejected by the validator with error.msg.privacy.request.invalid.state.transition', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first outcome's activity waits, so the workflow is still running when the second arrives.
    mocks.activities.fulfilPrivacyRequest.mockImplementation(async (input) => {
      await gate;
      return { requestId: input.requestId, status: input.outcome };
    });
    const input = await inputAt(requestId);
    const worker = await createWorker(taskQueue, mocks.activities);
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      const first = await handle.startUpdate(fulfilRequestUpdate, {
        args: [fulfilArgs('FULFILLED')],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      await eventually(() => expect(mocks.activities.fulfilPrivacyRequest).toHaveBeenCalledTimes(1));

      // Accepted by mistake, it would wait on the gate too: give the rejection 10 s to arrive.
      const rejected = await Promise.race([
        handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs('DENIED')] }).then(
          () => 'accepted',
          (err: unknown) => err,
        ),
        new Promise((resolve) => setTimeout(() => resolve('no answer within 10 s'), 10_000)),
      ]);
      expect(rejected).toBeInstanceOf(WorkflowUpdateFailedError);
      const cause = (rejected as WorkflowUpdateFailedError).cause;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect((cause as ApplicationFailure).type).toBe('error.msg.privacy.request.invalid.state.transition');
      expect((cause as ApplicationFailure).nonRetryable).toBe(true);

      release();
      expect(await first.result()).toEqual({ requestId, status: 'FULFILLED' });
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: false });
    });
    // The rejected update never reached the activity.
    expect(mocks.activities.fulfilPrivacyRequest).toHaveBeenCalledTimes(1);
    expect(mocks.activities.fulfilPrivacyRequest.mock.calls[0]?.[0].outcome).toBe('FULFILLED');
  });

  it('(e) a rejected outcome (unknown evidence) fails the update but leaves the request open for a correct one', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    mocks.activities.fulfilPrivacyRequest.mockImplementationOnce(async () => {
      throw new DomainError('validation.msg.validation.errors.exist', 'Some evidence was not found.', {
        errors: [fieldError('evidenceIds[1]', 6, 'Evidence 6 was not found.')],
      });
    });
    const input = await inputAt(requestId);
    // Registered as the worker registers them: a DomainError becomes a non-retryable ApplicationFailure.
    const worker = await createWorker(taskQueue, asTemporalActivities(mocks.activities));
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      const failed = await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(WorkflowUpdateFailedError);
      const activityFailure = (failed as WorkflowUpdateFailedError).cause;
      expect(activityFailure).toBeInstanceOf(ActivityFailure);
      const appFailure = (activityFailure as ActivityFailure).cause as ApplicationFailure;
      expect(appFailure).toBeInstanceOf(ApplicationFailure);
      expect(appFailure.type).toBe('validation.msg.validation.errors.exist');
      expect(appFailure.details).toEqual([
        { errors: [expect.objectContaining({ parameterName: 'evidenceIds[1]' })] },
      ]);
      // Not retried: the failure is non-retryable.
      expect(mocks.activities.fulfilPrivacyRequest).toHaveBeenCalledTimes(1);
      expect((await handle.query(getProgressQuery)).status).toBe('RECEIVED');

      expect(await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] })).toEqual({
        requestId,
        status: 'FULFILLED',
      });
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: false });
    });
    expect(mocks.activities.fulfilPrivacyRequest).toHaveBeenCalledTimes(2);
  });

  it('(g) a fulfilment stuck in retries: a new one is refused at first, supersedes it after 2 minutes, and ends the request', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    let stuckAttempts = 0;
    // The stuck outcome fails the way an unstorable value did before a retryable error, for ever.
    mocks.activities.fulfilPrivacyRequest.mockImplementation(async (input) => {
      if (input.outcomeReason === 'stuck') {
        stuckAttempts += 1;
        throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
      }
      return { requestId: input.requestId, status: input.outcome };
    });
    const input = await inputAt(requestId);
    const worker = await createWorker(taskQueue, asTemporalActivities(mocks.activities));
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      const stuck = await handle.startUpdate(fulfilRequestUpdate, {
        args: [{ ...fulfilArgs(), outcomeReason: 'stuck' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      await eventually(() => expect(stuckAttempts).toBeGreaterThanOrEqual(1));

      // At once: refused, the first may still succeed.
      const early = await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs('DENIED')] }).then(
        () => 'accepted',
        (err: unknown) => err,
      );
      expect(early).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(((early as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe(
        'error.msg.privacy.request.invalid.state.transition',
      );

      // Still retrying after 3 minutes: stuck. A new fulfilment supersedes it.
      await env.sleep(3 * 60_000);
      await eventually(() => expect(stuckAttempts).toBeGreaterThanOrEqual(3));
      expect(await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] })).toEqual({
        requestId,
        status: 'FULFILLED',
      });
      const superseded = await stuck.result().then(
        () => 'fulfilled',
        (err: unknown) => err,
      );
      expect(superseded).toBeInstanceOf(WorkflowUpdateFailedError);
      const cause = (superseded as WorkflowUpdateFailedError).cause as ApplicationFailure;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect(cause.type).toBe('error.msg.privacy.request.invalid.state.transition');
      expect(cause.message).toMatch(/superseded/);
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: false });

      // The stuck operation is cancelled, not retried any more; the change is marked in history.
      const attempts = stuckAttempts;
      await settle();
      expect(stuckAttempts).toBe(attempts);
      const history = await handle.fetchHistory();
      expect(
        (history.events ?? []).some(
          (e) =>
            e.activityTaskCancelRequestedEventAttributes != null ||
            e.activityTaskCanceledEventAttributes != null,
        ),
      ).toBe(true);
      const patchMarkers = (history.events ?? []).filter(
        (e) => e.markerRecordedEventAttributes?.markerName === 'core_patch',
      );
      expect(patchMarkers).toHaveLength(1);
      const patchData =
        patchMarkers[0]?.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
      expect(JSON.parse(Buffer.from(patchData ?? []).toString())).toEqual({
        id: 'supersede-stuck-fulfilment',
        deprecated: false,
      });
    });
    expect(mocks.activities.fulfilPrivacyRequest.mock.calls.at(-1)?.[0].outcomeReason).toBe(
      'Deleted from all systems',
    );
  });

  it('(h) a request wedged before recovers once workers run the fix: the stuck attempt fails non-retryably as a 400, a new fulfilment succeeds', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    let stuckAttempts = 0;
    // What PostgreSQL answered for a NUL in outcomeReason: drizzle-orm's failed query around SQLSTATE 22021.
    mocks.activities.fulfilPrivacyRequest.mockImplementation(async (input) => {
      if (input.outcomeReason.includes('\u0000')) {
        stuckAttempts += 1;
        throw new DrizzleQueryError(
          'update "privacy_requests" set "outcome_reason" = $1',
          [input.outcomeReason],
          Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
            severity: 'ERROR',
            code: '22021',
          }),
        );
      }
      return { requestId: input.requestId, status: input.outcome };
    });
    const input = await inputAt(requestId);
    // Before the fix: operations registered without the mapping, so the failure is retried for ever.
    const before = await createWorker(taskQueue, mocks.activities, { maxCachedWorkflows: 0 });
    const { handle, stuck } = await withWorker(before, async () => {
      const h = await startWorkflow(taskQueue, workflowId, input);
      const u = await h.startUpdate(fulfilRequestUpdate, {
        args: [{ ...fulfilArgs(), outcomeReason: 'Deleted\u0000' }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      await eventually(() => expect(stuckAttempts).toBeGreaterThanOrEqual(2));
      return { handle: h, stuck: u };
    });

    // After the fix: the next attempt fails non-retryably; the stuck caller gets the 400 it stands for.
    const after = await createWorker(taskQueue, asTemporalActivities(mocks.activities));
    await withWorker(after, async () => {
      await env.sleep(6 * 60_000);
      const failed = await stuck.result().then(
        () => 'fulfilled',
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(WorkflowUpdateFailedError);
      const appFailure = ((failed as WorkflowUpdateFailedError).cause as ActivityFailure)
        .cause as ApplicationFailure;
      expect(appFailure.type).toBe('validation.msg.validation.errors.exist');
      expect(appFailure.nonRetryable).toBe(true);
      expect(appFailure.message).not.toContain('Deleted');
      expect((await handle.query(getProgressQuery)).status).toBe('RECEIVED');
      expect(await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] })).toEqual({
        requestId,
        status: 'FULFILLED',
      });
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: false });
    });
  });

  it('(f) started after its due time (a late start by the sweep): reminder and overdue at once', async () => {
    const { taskQueue, workflowId, requestId } = uniqueNames();
    const mocks = mockActivities();
    const now = await env.currentTimeMs();
    const input: PrivacyRequestWorkflowInput = {
      ...(await inputAt(requestId)),
      dueAtMs: now - HOUR,
      reminderAtMs: now - HOUR - 10 * DAY,
    };
    const worker = await createWorker(taskQueue, mocks.activities);
    await withWorker(worker, async () => {
      const handle = await startWorkflow(taskQueue, workflowId, input);
      await eventually(() => expect(mocks.activities.markPrivacyRequestOverdue).toHaveBeenCalledTimes(1));
      await eventually(async () => expect((await handle.query(getProgressQuery)).status).toBe('OVERDUE'));
      await handle.executeUpdate(fulfilRequestUpdate, { args: [fulfilArgs()] });
      expect(await handle.result()).toEqual({ requestId, status: 'FULFILLED', wasOverdue: true });
    });
    expect(stepsCalled(mocks)).toEqual({ started: 1, reminder: 1, overdue: 1, fulfil: 1 });
  });
});
