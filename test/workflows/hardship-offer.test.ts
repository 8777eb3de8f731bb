/**
 * hardshipOfferWorkflow on the time-skipping test server (docs/conventions.md §11; docs/processes.md P5): one
 * environment for the file, tests in sequence (skipped time is global to the server), a unique queue and workflow
 * id per test, mock activities typed `Activities` (every other operation a failing spy). The four steps of the
 * process answer from a small in-memory model of the offer's row that follows the contracts of
 * activities/hardship/ (expire-hardship-offer.ts and the other steps): `expireHardshipOffer` expires only OFFERED / APPROVED;
 * `confirmHardshipEvidence` applies when evidence is on the case, lapses at the deadline without it, and leaves any
 * other status as it is; `reevaluateHardshipOffer` turns an open offer INELIGIBLE when the loan no longer
 * qualifies. The test plays the routes (approve, reject, accept write the row, then signal `offerChanged`) and the
 * evidence and payment paths (`evidenceAdded`, `loanChanged`). Every step records its server time
 * (`activityInfo().scheduledTimestampMs`), so the timers are asserted to the second.
 */
import { activityInfo } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { type Activities, createActivities, type Deps } from '../../activities';
import type {
  HardshipOfferProgress,
  HardshipOfferWorkflowInput,
  LoanChangedHint,
} from '../../domain/hardship/offer-process';
import { hardshipOfferWorkflowId } from '../../domain/ids';
import { asTemporalActivities } from '../../workers/activities';
import {
  evidenceAddedSignal,
  getStateQuery,
  loanChangedSignal,
  offerChangedSignal,
} from '../../workflows/hardship/hardship-offer/messages';
import type { hardshipOfferWorkflow } from '../../workflows/hardship/hardship-offer/workflow';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A timer's step runs at its instant: not before, and within a second after. */
const TIMER_SLACK_MS = 1000;

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

/** The offer's row as the activities see it, plus what the test controls about its case and loan. */
interface OfferRow {
  offerId: number;
  status: string;
  offerExpiresAtMs: number | null;
  documentsDueAtMs: number | null;
  /** The program's required evidence is on the case (recorded after the offer). */
  evidenceOnCase: boolean;
  /** The loan still qualifies for the offer (re-evaluation leaves it as it is). */
  loanQualifies: boolean;
}

type Step = 'read' | 'expire' | 'confirm' | 'reevaluate';

/** One call of a step: which, at what server time, with what input. */
interface StepCall {
  step: Step;
  atMs: number;
  atDeadline?: boolean;
  change?: LoanChangedHint;
}

const progressOf = (row: OfferRow): HardshipOfferProgress => ({
  offerId: row.offerId,
  status: row.status,
  offerExpiresAtMs: row.offerExpiresAtMs,
  documentsDueAtMs: row.documentsDueAtMs,
});

/**
 * Mock activities over `row`: the process's four steps model the operations' contracts; every other operation is
 * a failing spy. `calls` lists the steps in the order they ran, with their server time.
 */
function mockActivities(row: OfferRow) {
  const calls: StepCall[] = [];
  const unused = <K extends keyof Activities>(name: K) =>
    vi.fn<Activities[K]>(async () => {
      throw new Error(`${name} is not a step of the hardship-offer workflow`);
    });
  const everyOperation = Object.fromEntries(
    (Object.keys(createActivities({} as Deps)) as (keyof Activities)[]).map((name) => [name, unused(name)]),
  ) as { [K in keyof Activities]: ReturnType<typeof unused<K>> };
  const at = () => activityInfo().scheduledTimestampMs;
  const activities = {
    ...everyOperation,
    readHardshipOfferProgress: vi.fn<Activities['readHardshipOfferProgress']>(async () => {
      calls.push({ step: 'read', atMs: at() });
      return progressOf(row);
    }),
    expireHardshipOffer: vi.fn<Activities['expireHardshipOffer']>(async () => {
      calls.push({ step: 'expire', atMs: at() });
      if (row.status === 'OFFERED' || row.status === 'APPROVED') row.status = 'EXPIRED';
      return progressOf(row);
    }),
    confirmHardshipEvidence: vi.fn<Activities['confirmHardshipEvidence']>(async (input) => {
      calls.push({ step: 'confirm', atMs: at(), atDeadline: input.atDeadline });
      if (row.status !== 'AWAITING_DOCUMENTS') return progressOf(row);
      if (row.evidenceOnCase) row.status = 'APPLIED';
      else if (input.atDeadline) row.status = 'LAPSED';
      return progressOf(row);
    }),
    reevaluateHardshipOffer: vi.fn<Activities['reevaluateHardshipOffer']>(async (input) => {
      calls.push({ step: 'reevaluate', atMs: at(), change: input.change });
      const open = ['PENDING_APPROVAL', 'OFFERED', 'APPROVED'].includes(row.status);
      if (open && !row.loanQualifies) {
        row.status = 'INELIGIBLE';
        row.offerExpiresAtMs = null;
      }
      return progressOf(row);
    }),
  } satisfies Activities;
  return { activities, calls };
}

type Mocks = ReturnType<typeof mockActivities>;

/** The routes, as they write the row (the test then signals `offerChanged`, or not, for a lost signal). */
const routes = {
  /** The checker approves: APPROVED, valid for `validityHours` from now. */
  approve(row: OfferRow, nowMs: number, validityHours = 48) {
    expect(row.status).toBe('PENDING_APPROVAL');
    row.status = 'APPROVED';
    row.offerExpiresAtMs = nowMs + validityHours * HOUR;
  },
  reject(row: OfferRow) {
    expect(row.status).toBe('PENDING_APPROVAL');
    row.status = 'REJECTED';
  },
  /** The borrower accepts: AWAITING_DOCUMENTS due in `documentHours`, or APPLIED when no evidence is asked. */
  accept(row: OfferRow, nowMs: number, options: { evidenceRequired?: boolean; documentHours?: number } = {}) {
    expect(['OFFERED', 'APPROVED']).toContain(row.status);
    expect(nowMs).toBeLessThan(row.offerExpiresAtMs ?? Number.POSITIVE_INFINITY);
    row.offerExpiresAtMs = null;
    if (options.evidenceRequired === false) {
      row.status = 'APPLIED';
      return;
    }
    row.status = 'AWAITING_DOCUMENTS';
    row.documentsDueAtMs = nowMs + (options.documentHours ?? 120) * HOUR;
  },
};

function uniqueNames() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  return { taskQueue: `hardship-offer-test-${suffix}`, offerId: 3000 + sequence };
}

/** A routed offer: its row (OFFERED rows valid for `validityHours` from now) and the workflow's input. */
async function offerAt(
  offerId: number,
  status: string,
  validityHours = 72,
): Promise<{ row: OfferRow; input: HardshipOfferWorkflowInput }> {
  const nowMs = await env.currentTimeMs();
  const row: OfferRow = {
    offerId,
    status,
    offerExpiresAtMs: status === 'OFFERED' ? nowMs + validityHours * HOUR : null,
    documentsDueAtMs: null,
    evidenceOnCase: false,
    loanQualifies: true,
  };
  const input: HardshipOfferWorkflowInput = {
    tenantId: 'wf-test',
    offerId,
    caseId: 77,
    loanId: 9,
    programCode: 'FORBEAR-3M',
    status,
  };
  return { row, input };
}

async function createWorker(taskQueue: string, activities: Activities, maxCachedWorkflows?: number) {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(activities),
    ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
  });
}

async function run<T>(taskQueue: string, activities: Activities, fn: () => Promise<T>): Promise<T> {
  return (await createWorker(taskQueue, activities)).runUntil(fn);
}

function start(taskQueue: string, input: HardshipOfferWorkflowInput) {
  return env.client.workflow.start<typeof hardshipOfferWorkflow>('hardshipOfferWorkflow', {
    taskQueue,
    workflowId: `${hardshipOfferWorkflowId(input.tenantId, input.offerId)}-${taskQueue}`,
    args: [input],
  });
}

/** Retries an assertion until the worker has caught up with the server (generous on 2 busy cores). */
function eventually<T>(assertion: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(assertion, { timeout: 15_000, interval: 50 });
}

/** Lets the worker finish anything the server has already handed out (real time). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The steps that ran, in order (with `atDeadline` for the evidence step). */
function stepsOf(mocks: Mocks): string[] {
  return mocks.calls.map((c) =>
    c.step === 'confirm' ? `confirm(${c.atDeadline ? 'deadline' : 'look'})` : c.step,
  );
}

/** The server time of the last call of `step`. */
function lastAt(mocks: Mocks, step: Step): number {
  const call = mocks.calls.filter((c) => c.step === step).at(-1);
  if (!call) throw new Error(`${step} never ran`);
  return call.atMs;
}

function expectAtInstant(atMs: number, instantMs: number) {
  expect(atMs).toBeGreaterThanOrEqual(instantMs);
  expect(atMs).toBeLessThan(instantMs + TIMER_SLACK_MS);
}

describe('hardshipOfferWorkflow', () => {
  it('1. straight through: OFFERED, accepted with the evidence already on the case → APPLIED at once, no wait', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED');
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      await env.sleep(2 * HOUR);
      row.evidenceOnCase = true;
      const acceptedAtMs = await env.currentTimeMs();
      routes.accept(row, acceptedAtMs);
      await handle.signal(offerChangedSignal);
      expect(await handle.result()).toEqual({ offerId, status: 'APPLIED' });
      // The look on entering AWAITING_DOCUMENTS applied the relief: no timer ran, no expiry.
      expect(stepsOf(mocks)).toEqual(['read', 'confirm(look)']);
      expect(lastAt(mocks, 'confirm')).toBeLessThan(acceptedAtMs + 60_000);
      expect(mocks.activities.confirmHardshipEvidence).toHaveBeenCalledWith({
        tenantId: 'wf-test',
        offerId,
        atDeadline: false,
      });
    });
  });

  it('2. straight through, no evidence asked: accepted → APPLIED in the row, offerChanged → ends APPLIED', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED');
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      await env.sleep(HOUR);
      const acceptedAtMs = await env.currentTimeMs();
      routes.accept(row, acceptedAtMs, { evidenceRequired: false });
      await handle.signal(offerChangedSignal);
      expect(await handle.result()).toEqual({ offerId, status: 'APPLIED' });
      // One re-read after the signal, then the end.
      expect(stepsOf(mocks)).toEqual(['read', 'confirm(look)']);
      expect(lastAt(mocks, 'confirm')).toBeLessThan(acceptedAtMs + 60_000);
    });
  });

  it('3. PENDING_APPROVAL → approved (48 h) → not accepted → EXPIRED at the expiry instant', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'PENDING_APPROVAL');
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      // No timer while waiting for the checker: a day passes and nothing runs.
      await env.sleep(DAY);
      await settle();
      expect(stepsOf(mocks)).toEqual(['read']);
      routes.approve(row, await env.currentTimeMs());
      const expiresAtMs = row.offerExpiresAtMs as number;
      await handle.signal(offerChangedSignal);
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({
          status: 'APPROVED',
          offerExpiresAtMs: expiresAtMs,
          hintsReceived: 1,
        }),
      );
      expect(await handle.result()).toEqual({ offerId, status: 'EXPIRED' });
      expect(stepsOf(mocks)).toEqual(['read', 'confirm(look)', 'expire']);
      expect(mocks.activities.expireHardshipOffer).toHaveBeenCalledTimes(1);
      expectAtInstant(lastAt(mocks, 'expire'), expiresAtMs);
    });
  });

  it('4. PENDING_APPROVAL → rejected → REJECTED; no expiry, the process ends', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'PENDING_APPROVAL');
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      await env.sleep(3 * HOUR);
      routes.reject(row);
      const rejectedAtMs = await env.currentTimeMs();
      await handle.signal(offerChangedSignal);
      expect(await handle.result()).toEqual({ offerId, status: 'REJECTED' });
      expect(stepsOf(mocks)).toEqual(['read', 'confirm(look)']);
      expect(lastAt(mocks, 'confirm')).toBeLessThan(rejectedAtMs + 60_000);
      expect(mocks.activities.expireHardshipOffer).not.toHaveBeenCalled();
      const { status } = await handle.describe();
      expect(status.name).toBe('COMPLETED');
    });
  });

  it('5. OFFERED for 72 h, nothing happens → EXPIRED at 72 h', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const expiresAtMs = row.offerExpiresAtMs as number;
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const startedAtMs = await env.currentTimeMs();
      const handle = await start(taskQueue, input);
      expect(await handle.result()).toEqual({ offerId, status: 'EXPIRED' });
      expect(stepsOf(mocks)).toEqual(['read', 'expire']);
      expect(lastAt(mocks, 'read')).toBeLessThan(startedAtMs + 60_000);
      expectAtInstant(lastAt(mocks, 'expire'), expiresAtMs);
      expect(expiresAtMs - startedAtMs).toBeGreaterThanOrEqual(72 * HOUR - 60_000);
    });
  });

  it('6. documents missing: AWAITING_DOCUMENTS without evidence → LAPSED at documentsDueAt; a hint without it changes nothing', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      await env.sleep(2 * HOUR);
      routes.accept(row, await env.currentTimeMs(), { documentHours: 120 });
      const dueAtMs = row.documentsDueAtMs as number;
      await handle.signal(offerChangedSignal);
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({
          status: 'AWAITING_DOCUMENTS',
          offerExpiresAtMs: null,
          documentsDueAtMs: dueAtMs,
        }),
      );
      // Past the old expiry instant (72 h): the validity timer no longer runs.
      await env.sleep(3 * DAY);
      await settle();
      const looksBefore = mocks.calls.filter((c) => c.step === 'confirm').length;
      // Evidence of another type was added: the hint's look finds nothing and nothing changes.
      await handle.signal(evidenceAddedSignal, { evidenceId: 501 });
      await eventually(() =>
        expect(mocks.calls.filter((c) => c.step === 'confirm')).toHaveLength(looksBefore + 1),
      );
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({
          status: 'AWAITING_DOCUMENTS',
          documentsDueAtMs: dueAtMs,
          hintsReceived: 2,
        }),
      );
      expect(await handle.result()).toEqual({ offerId, status: 'LAPSED' });
      // offerChanged's re-read (which looked: no second look on entering AWAITING_DOCUMENTS), the hint's look, then
      // the deadline's.
      expect(stepsOf(mocks)).toEqual(['read', 'confirm(look)', 'confirm(look)', 'confirm(deadline)']);
      const confirms = mocks.calls.filter((c) => c.step === 'confirm');
      expectAtInstant(lastAt(mocks, 'confirm'), dueAtMs);
      for (const c of confirms.slice(0, -1)) expect(c.atMs).toBeLessThan(dueAtMs - DAY);
      expect(mocks.activities.expireHardshipOffer).not.toHaveBeenCalled();
      expect(mocks.activities.reevaluateHardshipOffer).not.toHaveBeenCalled();
    });
  });

  it('7. evidence arrives before the deadline (evidenceAdded) → APPLIED then; a loanChanged meanwhile re-evaluates nothing', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      routes.accept(row, await env.currentTimeMs(), { documentHours: 120 });
      const dueAtMs = row.documentsDueAtMs as number;
      await handle.signal(offerChangedSignal);
      await eventually(async () =>
        expect((await handle.query(getStateQuery)).status).toBe('AWAITING_DOCUMENTS'),
      );
      // A payment posts on the loan: an accepted offer is no longer re-evaluated.
      await handle.signal(loanChangedSignal, { kind: 'PAYMENT', resourceId: 61 });
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({ loanChangesReceived: 1, reevaluations: 0 }),
      );
      await env.sleep(2 * DAY);
      row.evidenceOnCase = true;
      const addedAtMs = await env.currentTimeMs();
      await handle.signal(evidenceAddedSignal, { evidenceId: 502 });
      expect(await handle.result()).toEqual({ offerId, status: 'APPLIED' });
      expect(mocks.activities.reevaluateHardshipOffer).not.toHaveBeenCalled();
      expect(mocks.activities.expireHardshipOffer).not.toHaveBeenCalled();
      const confirms = mocks.calls.filter((c) => c.step === 'confirm');
      expect(confirms.every((c) => c.atDeadline === false)).toBe(true);
      const appliedAtMs = lastAt(mocks, 'confirm');
      expect(appliedAtMs).toBeGreaterThanOrEqual(addedAtMs);
      expect(appliedAtMs).toBeLessThan(addedAtMs + 60_000);
      expect(appliedAtMs).toBeLessThan(dueAtMs - DAY);
    });
  });

  it.each([
    ['no evidence by the deadline → LAPSED at documentsDueAt', false, 'LAPSED'],
    ['evidence on the case → APPLIED at the expiry instant', true, 'APPLIED'],
  ] as const)(
    '8. a lost offerChanged: the expiry step finds the acceptance, the document deadline follows; %s',
    async (_name, evidence, outcome) => {
      const { taskQueue, offerId } = uniqueNames();
      const { row, input } = await offerAt(offerId, 'OFFERED', 72);
      const expiresAtMs = row.offerExpiresAtMs as number;
      const mocks = mockActivities(row);
      await run(taskQueue, mocks.activities, async () => {
        const handle = await start(taskQueue, input);
        await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
        await env.sleep(HOUR);
        // Accepted, evidence maybe added, but no signal reaches the process.
        routes.accept(row, await env.currentTimeMs(), { documentHours: 120 });
        row.evidenceOnCase = evidence;
        const dueAtMs = row.documentsDueAtMs as number;
        expect(await handle.result()).toEqual({ offerId, status: outcome });
        // The expiry step ran at the expiry instant and did not expire the accepted offer.
        expect(mocks.activities.expireHardshipOffer).toHaveBeenCalledTimes(1);
        expectAtInstant(lastAt(mocks, 'expire'), expiresAtMs);
        const [look, ...rest] = mocks.calls.filter((c) => c.step === 'confirm');
        // The look on entering AWAITING_DOCUMENTS, right after the expiry step.
        expect(look).toMatchObject({ atDeadline: false });
        expectAtInstant(look?.atMs ?? 0, expiresAtMs);
        if (evidence) {
          expect(stepsOf(mocks)).toEqual(['read', 'expire', 'confirm(look)']);
        } else {
          expect(stepsOf(mocks)).toEqual(['read', 'expire', 'confirm(look)', 'confirm(deadline)']);
          expectAtInstant(rest[0]?.atMs ?? 0, dueAtMs);
        }
      });
    },
  );

  it('9. loan drift: three loanChanged signals arriving together are coalesced into one re-evaluation (the last hint) → INELIGIBLE', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const mocks = mockActivities(row);
    // Worker 1 keeps no workflow cache, so the next task goes to the shared queue, not to its sticky queue.
    const worker1 = await createWorker(taskQueue, mocks.activities, 0);
    const handle = await worker1.runUntil(async () => {
      const h = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      await eventually(async () => expect((await h.query(getStateQuery)).status).toBe('OFFERED'));
      return h;
    });
    // Three payments post while no worker runs; the third takes the loan out of hardship.
    const hints: LoanChangedHint[] = [
      { kind: 'PAYMENT', resourceId: 71 },
      { kind: 'PAYMENT', resourceId: 72 },
      { kind: 'PAYMENT', resourceId: 73 },
    ];
    for (const hint of hints) await handle.signal(loanChangedSignal, hint);
    row.loanQualifies = false;
    const signalledAtMs = await env.currentTimeMs();
    const worker2 = await createWorker(taskQueue, mocks.activities, 0);
    await worker2.runUntil(async () => {
      expect(await handle.result()).toEqual({ offerId, status: 'INELIGIBLE' });
      const reevaluations = mocks.activities.reevaluateHardshipOffer.mock.calls;
      expect(reevaluations.length).toBeGreaterThanOrEqual(1);
      expect(reevaluations.length).toBeLessThan(hints.length);
      expect(reevaluations.at(-1)?.[0]).toEqual({ tenantId: 'wf-test', offerId, change: hints[2] });
      expect(stepsOf(mocks)).toEqual(['read', 'reevaluate']);
      expect(lastAt(mocks, 'reevaluate')).toBeLessThan(signalledAtMs + 60_000);
      expect(await handle.query(getStateQuery)).toMatchObject({
        status: 'INELIGIBLE',
        offerExpiresAtMs: null,
        loanChangesReceived: 3,
        reevaluations: 1,
      });
    });
    expect(mocks.activities.expireHardshipOffer).not.toHaveBeenCalled();
  });

  it('9b. loan drift while the offer still qualifies: re-evaluated, the offer stands and expires on time', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const expiresAtMs = row.offerExpiresAtMs as number;
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read']));
      await env.sleep(DAY);
      await handle.signal(loanChangedSignal, { kind: 'FUNDING', resourceId: 81 });
      await eventually(() => expect(stepsOf(mocks)).toEqual(['read', 'reevaluate']));
      expect(await handle.result()).toEqual({ offerId, status: 'EXPIRED' });
      expect(stepsOf(mocks)).toEqual(['read', 'reevaluate', 'expire']);
      // The validity timer was re-armed for what was left of it, not restarted.
      expectAtInstant(lastAt(mocks, 'expire'), expiresAtMs);
    });
  });

  it('10. a worker restart while waiting for the expiry loses nothing: EXPIRED on the second worker, each step once', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const expiresAtMs = row.offerExpiresAtMs as number;
    const first = mockActivities(row);
    const second = mockActivities(row);
    const worker1 = await createWorker(taskQueue, first.activities, 0);
    const handle = await worker1.runUntil(async () => {
      const h = await start(taskQueue, input);
      await eventually(() => expect(stepsOf(first)).toEqual(['read']));
      // The read is done once the workflow waits on its expiry timer.
      await eventually(async () => {
        const history = await h.fetchHistory();
        expect((history.events ?? []).some((e) => e.timerStartedEventAttributes != null)).toBe(true);
      });
      return h;
    });
    expect(worker1.getState()).toBe('STOPPED');
    await env.sleep(DAY);
    const worker2 = await createWorker(taskQueue, second.activities, 0);
    await worker2.runUntil(async () => {
      expect(await handle.result()).toEqual({ offerId, status: 'EXPIRED' });
    });
    // The read ran once, on worker 1; replay on worker 2 did not run it again.
    expect(stepsOf(first)).toEqual(['read']);
    expect(stepsOf(second)).toEqual(['expire']);
    expectAtInstant(lastAt(second, 'expire'), expiresAtMs);
  });

  it('11. query getState: status, timers and counters as the process moves', async () => {
    const { taskQueue, offerId } = uniqueNames();
    const { row, input } = await offerAt(offerId, 'OFFERED', 72);
    const expiresAtMs = row.offerExpiresAtMs as number;
    const mocks = mockActivities(row);
    await run(taskQueue, mocks.activities, async () => {
      const handle = await start(taskQueue, input);
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toEqual({
          offerId,
          status: 'OFFERED',
          offerExpiresAtMs: expiresAtMs,
          documentsDueAtMs: null,
          hintsReceived: 0,
          loanChangesReceived: 0,
          reevaluations: 0,
        }),
      );
      // A hint while OFFERED: a re-read, nothing changes.
      await handle.signal(evidenceAddedSignal, { evidenceId: null });
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({ status: 'OFFERED', hintsReceived: 1 }),
      );
      // A loan change while OFFERED, still qualifying: one re-evaluation.
      await handle.signal(loanChangedSignal, { kind: 'RESTRICTION', resourceId: 91 });
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({ loanChangesReceived: 1, reevaluations: 1 }),
      );
      await env.sleep(HOUR);
      routes.accept(row, await env.currentTimeMs(), { documentHours: 96 });
      const dueAtMs = row.documentsDueAtMs as number;
      await handle.signal(offerChangedSignal);
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toEqual({
          offerId,
          status: 'AWAITING_DOCUMENTS',
          offerExpiresAtMs: null,
          documentsDueAtMs: dueAtMs,
          hintsReceived: 2,
          loanChangesReceived: 1,
          reevaluations: 1,
        }),
      );
      // A loan change after acceptance is counted but not re-evaluated.
      await handle.signal(loanChangedSignal, { kind: 'PAYMENT', resourceId: 92 });
      await eventually(async () =>
        expect(await handle.query(getStateQuery)).toMatchObject({ loanChangesReceived: 2, reevaluations: 1 }),
      );
      row.evidenceOnCase = true;
      await handle.signal(evidenceAddedSignal, { evidenceId: 503 });
      expect(await handle.result()).toEqual({ offerId, status: 'APPLIED' });
      expect(await handle.query(getStateQuery)).toEqual({
        offerId,
        status: 'APPLIED',
        offerExpiresAtMs: null,
        documentsDueAtMs: dueAtMs,
        hintsReceived: 3,
        loanChangesReceived: 2,
        reevaluations: 1,
      });
      expect(mocks.activities.reevaluateHardshipOffer).toHaveBeenCalledTimes(1);
    });
  });

  it.each(['INELIGIBLE', 'REFERRED', 'SPECIALIST'])(
    '12. a final routed status (%s) ends the process after one read',
    async (status) => {
      const { taskQueue, offerId } = uniqueNames();
      const { row, input } = await offerAt(offerId, status);
      const mocks = mockActivities(row);
      await run(taskQueue, mocks.activities, async () => {
        const handle = await start(taskQueue, input);
        expect(await handle.result()).toEqual({ offerId, status });
        expect(stepsOf(mocks)).toEqual(['read']);
        expect(mocks.activities.readHardshipOfferProgress).toHaveBeenCalledWith({
          tenantId: 'wf-test',
          offerId,
        });
      });
    },
  );
});
