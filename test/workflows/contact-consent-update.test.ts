/**
 * contactConsentUpdateWorkflow on the time-skipping test server (docs/conventions.md §11) with the real operations on the real test
 * PostgreSQL (docs/processes.md P4 "Contact-consent updates"): a scheduled update changes nothing until its timer
 * fires at `effectiveAt`, then is applied once; "the newest instruction wins" (domain/servicing/contact-consent.ts):
 * an update recorded later and applied first, or an SMS opt-out recorded later, supersedes a scheduled one, which then
 * changes nothing. One environment for the file, tests in sequence, a unique queue and tenant per test. The operations'
 * clock is the test server's time, so what is "now" for the recording is "now" for the timer.
 */
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities, createPlatformOperations, type Deps } from '../../activities';
import type { RecordContactConsentUpdateInput } from '../../activities/servicing/record-contact-consent-update';
import { createDb } from '../../db/client';
import {
  caseEffects,
  contactConsentUpdates,
  contactPoints,
  customerHistory,
  outboxEvents,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { asTemporalActivities } from '../../workers/activities';
import { getProgressQuery } from '../../workflows/servicing/contact-consent-update/messages';
import type { ContactConsentUpdateWorkflowInput } from '../../workflows/servicing/contact-consent-update/types';
import type { contactConsentUpdateWorkflow } from '../../workflows/servicing/contact-consent-update/workflow';

const DAY = 86_400_000;

let env: TestWorkflowEnvironment;
let dbHandle: ReturnType<typeof createDb>;
let deps: Deps;
const now: { value: Date } = { value: new Date() };
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
  dbHandle = createDb(inject('databaseUrl'), { maxConnections: 6 });
  deps = {
    db: dbHandle.db,
    clock: () => now.value,
    secretPepper: 'ccu-pepper',
    dataEncryptionKey: 'c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf',
    environment: 'sandbox',
  };
});
afterAll(async () => {
  await env?.teardown();
  await dbHandle?.close();
});

/** Moves the operations' clock to the test server's current time (plus `offsetMs`). */
async function syncClock(offsetMs = 0): Promise<number> {
  const serverNowMs = await env.currentTimeMs();
  now.value = new Date(serverNowMs + offsetMs);
  return serverNowMs;
}

/** A tenant with one customer (one phone), an open case of theirs, a unique queue and a worker on it. */
async function scenario() {
  sequence += 1;
  const suffix = `${Date.now().toString(36)}-${sequence}`;
  const tenantId = `ccu-${randomBytes(4).toString('hex')}`;
  await syncClock();
  const activities = createActivities(deps);
  await createPlatformOperations(deps).ensureTenant({ tenantId });
  const customer = await activities.createCustomer({
    tenantId,
    firstName: 'Wren',
    lastName: 'Timer',
    contactPoints: [{ contactType: 'PHONE', value: '(415) 555-2671' }],
  });
  const [point] = await withTenantTransaction(deps.db, tenantId, (tx) =>
    tx.select().from(contactPoints).where(eq(contactPoints.customerId, customer.customerId)),
  );
  if (!point) throw new Error('the customer has no contact point');
  const { caseId } = await activities.openCase({
    tenantId,
    customerRef: customer.customerRef,
    caseTypeCode: 'GENERAL',
    summary: 'Contact preferences',
  });
  const taskQueue = `ccu-test-${suffix}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    activities: asTemporalActivities(activities),
  });
  /** Records an SMS update effective `effectiveInMs` after the server's now (≤ 0: at once). */
  const record = async (effectiveInMs: number, canReceiveSms: boolean) => {
    const serverNowMs = await syncClock();
    const input: RecordContactConsentUpdateInput = {
      tenantId,
      caseId,
      customerRef: customer.customerRef,
      operation: 'UPDATE_SMS_PERMISSION',
      contactPointRef: point.contactPointRef,
      canReceiveSms,
      effectiveAt: new Date(serverNowMs + effectiveInMs).toISOString(),
      reason: 'Customer call',
    };
    return activities.recordContactConsentUpdate(input);
  };
  const start = (input: ContactConsentUpdateWorkflowInput) =>
    env.client.workflow.start<typeof contactConsentUpdateWorkflow>('contactConsentUpdateWorkflow', {
      taskQueue,
      workflowId: `${input.tenantId}/${input.updateId}-${suffix}`,
      args: [input],
    });
  const pointNow = async () => {
    const [row] = await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.select().from(contactPoints).where(eq(contactPoints.id, point.id)),
    );
    return row;
  };
  const updateRow = async (updateId: number) => {
    const [row] = await withTenantTransaction(deps.db, tenantId, (tx) =>
      tx.select().from(contactConsentUpdates).where(eq(contactConsentUpdates.id, updateId)),
    );
    return row;
  };
  const historyActions = async () =>
    (
      await withTenantTransaction(deps.db, tenantId, (tx) =>
        tx
          .select({ action: customerHistory.action })
          .from(customerHistory)
          .where(eq(customerHistory.customerId, customer.customerId)),
      )
    ).map((r) => r.action);
  const effectTypes = async () =>
    (
      await withTenantTransaction(deps.db, tenantId, (tx) =>
        tx
          .select({ effectType: caseEffects.effectType })
          .from(caseEffects)
          .where(eq(caseEffects.caseId, caseId))
          .orderBy(caseEffects.id),
      )
    ).map((r) => r.effectType);
  return {
    tenantId,
    activities,
    customer,
    point,
    caseId,
    worker,
    record,
    start,
    pointNow,
    updateRow,
    historyActions,
    effectTypes,
  };
}

/** True once the workflow has started a timer (it waits for `effectiveAt`). */
async function waitsOnTimer(handle: {
  fetchHistory(): Promise<{ events?: { timerStartedEventAttributes?: unknown }[] | null }>;
}) {
  const history = await handle.fetchHistory();
  return (history.events ?? []).some((e) => e.timerStartedEventAttributes != null);
}

async function untilTimer(handle: Parameters<typeof waitsOnTimer>[0]) {
  for (let i = 0; i < 100 && !(await waitsOnTimer(handle)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(await waitsOnTimer(handle)).toBe(true);
}

describe('contactConsentUpdateWorkflow', () => {
  it('applies an update scheduled 3 days ahead when its timer fires, not before, and once', async () => {
    const s = await scenario();
    const scheduled = await s.record(3 * DAY, false);
    expect(scheduled.status).toBe('SCHEDULED');
    expect(scheduled.workflow?.workflowId).toBe(`contact-consent-update/${s.tenantId}/${scheduled.updateId}`);
    const input = scheduled.workflow!.input;

    const result = await s.worker.runUntil(async () => {
      const handle = await s.start(input);
      await untilTimer(handle);
      expect(await handle.query(getProgressQuery)).toEqual({
        updateId: scheduled.updateId,
        status: 'SCHEDULED',
        effectiveAt: input.effectiveAt,
      });
      // Nothing has changed while the timer runs.
      expect((await s.pointNow())?.canReceiveSms).toBeNull();
      expect(await s.historyActions()).not.toContain('CONTACT_CONSENT_UPDATED');
      const outcome = await handle.result();
      // The timer fired at effectiveAt: the server's clock has passed it.
      expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(input.effectiveAtMs);
      expect(await handle.query(getProgressQuery)).toMatchObject({ status: 'COMPLETED' });
      return outcome;
    });
    expect(result).toEqual({ updateId: scheduled.updateId, status: 'COMPLETED' });
    expect((await s.pointNow())?.canReceiveSms).toBe(false);
    expect(await s.updateRow(scheduled.updateId)).toMatchObject({ status: 'COMPLETED', supersededBy: null });
    expect(await s.effectTypes()).toEqual([
      'CASE_OPENED',
      'CONTACT_CONSENT_SCHEDULED',
      'CONTACT_CONSENT_UPDATED',
    ]);
    const events = await withTenantTransaction(deps.db, s.tenantId, (tx) =>
      tx
        .select()
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.eventType, 'contact.consent.updated'),
            eq(outboxEvents.subjectId, String(scheduled.updateId)),
          ),
        ),
    );
    expect(events.map((e) => e.data)).toEqual([
      {
        customerRef: s.customer.customerRef,
        contactPointRef: s.point.contactPointRef,
        operation: 'UPDATE_SMS_PERMISSION',
        permission: false,
        effectiveAt: input.effectiveAt,
        caseId: s.caseId,
      },
    ]);

    // The step is idempotent: run again, it answers COMPLETED and writes nothing more.
    expect(
      await s.activities.applyContactConsentUpdate({ tenantId: s.tenantId, updateId: scheduled.updateId }),
    ).toEqual({
      updateId: scheduled.updateId,
      status: 'COMPLETED',
    });
    expect((await s.historyActions()).filter((a) => a === 'CONTACT_CONSENT_UPDATED')).toHaveLength(1);
  });

  it('does not let an older scheduled update overwrite a later immediate one: SUPERSEDED, nothing changed', async () => {
    const s = await scenario();
    // Monday: "stop SMS from Thursday". Tuesday: "actually, SMS is fine, from now on".
    const older = await s.record(3 * DAY, false);
    expect(older.status).toBe('SCHEDULED');
    const result = await s.worker.runUntil(async () => {
      const handle = await s.start(older.workflow!.input);
      await untilTimer(handle);
      const later = await s.record(-1000, true);
      expect(later.status).toBe('COMPLETED');
      expect((await s.pointNow())?.canReceiveSms).toBe(true);
      return { outcome: await handle.result(), later };
    });
    expect(result.outcome).toEqual({ updateId: older.updateId, status: 'SUPERSEDED' });
    expect((await s.pointNow())?.canReceiveSms).toBe(true);
    expect(await s.updateRow(older.updateId)).toMatchObject({
      status: 'SUPERSEDED',
      supersededBy: `contact-consent-update/${result.later.updateId}`,
    });
    expect((await s.historyActions()).filter((a) => a === 'CONTACT_CONSENT_UPDATED')).toHaveLength(1);
    expect(await s.effectTypes()).toEqual([
      'CASE_OPENED',
      'CONTACT_CONSENT_SCHEDULED',
      'CONTACT_CONSENT_UPDATED',
      'CONTACT_CONSENT_SUPERSEDED',
    ]);
  });

  it('applies the newer of two scheduled updates even when it takes effect first; the older one is then superseded', async () => {
    const s = await scenario();
    const older = await s.record(5 * DAY, false);
    const newer = await s.record(2 * DAY, true);
    const outcomes = await s.worker.runUntil(async () => {
      const first = await s.start(older.workflow!.input);
      const second = await s.start(newer.workflow!.input);
      return { newer: await second.result(), older: await first.result() };
    });
    expect(outcomes).toEqual({
      newer: { updateId: newer.updateId, status: 'COMPLETED' },
      older: { updateId: older.updateId, status: 'SUPERSEDED' },
    });
    expect((await s.pointNow())?.canReceiveSms).toBe(true);
  });

  it('applies a scheduled update recorded after an earlier applied one (the newer instruction, not the earlier one, wins)', async () => {
    const s = await scenario();
    const first = await s.record(-1000, false);
    expect(first.status).toBe('COMPLETED');
    const scheduled = await s.record(3 * DAY, true);
    const outcome = await s.worker.runUntil(async () => (await s.start(scheduled.workflow!.input)).result());
    expect(outcome).toEqual({ updateId: scheduled.updateId, status: 'COMPLETED' });
    expect((await s.pointNow())?.canReceiveSms).toBe(true);
  });

  it('never re-enables SMS after a later opt-out: a scheduled "may receive SMS" is superseded by an SMS consent record made after it', async () => {
    const s = await scenario();
    const scheduled = await s.record(3 * DAY, true);
    const outcome = await s.worker.runUntil(async () => {
      const handle = await s.start(scheduled.workflow!.input);
      await untilTimer(handle);
      await syncClock(1000);
      const { consentId } = await s.activities.recordCustomerConsent({
        tenantId: s.tenantId,
        customerId: s.customer.customerId,
        consentType: 'SMS',
        granted: false,
        captureMethod: 'SMS_KEYWORD',
        evidenceRef: 'channel-event/gw/evt-stop',
        capturedAt: now.value.toISOString(),
      });
      return { result: await handle.result(), consentId };
    });
    expect(outcome.result).toEqual({ updateId: scheduled.updateId, status: 'SUPERSEDED' });
    expect(await s.updateRow(scheduled.updateId)).toMatchObject({
      supersededBy: `consent/${outcome.consentId}`,
    });
    expect((await s.pointNow())?.canReceiveSms).toBeNull();
  });
});
