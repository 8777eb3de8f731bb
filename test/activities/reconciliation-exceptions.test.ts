/**
 * Reconciliation exceptions as operations (docs/processes.md P1), on the real PostgreSQL: opening twice
 * keeps one open row and moves `lastSeenAt` with one `reconciliation.exception.opened` event; resolving records
 * the decision with one `reconciliation.exception.resolved` event; resolving twice → 409; bad input → 400 and
 * nothing written; another tenant sees nothing (row-level security).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportReconciliationExceptions,
  getReconciliationException,
  listReconciliationExceptions,
} from '../../db/queries/payments/reconciliation-exceptions';
import { outboxEvents, reconciliationExceptions } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { type ActivityHarness, createHarness, expectDomainError, newTenant } from './helpers';

let h: ActivityHarness;
let counter = 0;
/** A target ref of letters and a counter (never a long digit run, which the identifier guard refuses). */
const nextRef = (prefix = 'pay') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

beforeAll(() => {
  h = createHarness();
});
afterAll(async () => h?.close());

function rowsOf(tenantId: string) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx.select().from(reconciliationExceptions).orderBy(reconciliationExceptions.id),
  );
}

function eventsOf(tenantId: string, exceptionId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(outboxEvents)
      .where(
        and(
          eq(outboxEvents.subjectType, 'reconciliation_exception'),
          eq(outboxEvents.subjectId, String(exceptionId)),
        ),
      )
      .orderBy(outboxEvents.id),
  );
}

const settled = (targetRef: string, settledAmount = '99.50') => ({
  exceptionType: 'SETTLED_NOT_POSTED' as const,
  targetType: 'PAYMENT_INTENT',
  targetRef,
  detail: { providerRef: `sbx-ach-${targetRef}`, reason: 'AMOUNT_MISMATCH', settledAmount, currency: 'USD' },
});

describe('openReconciliationException', () => {
  it('opens once: a recurrence moves lastSeenAt and replaces detail, one row, one opened event', async () => {
    const tenantId = await newTenant(h, 'recon');
    const ref = nextRef();
    h.now.value = new Date('2026-11-24T10:00:00.000Z');
    const first = await h.activities.openReconciliationException({ tenantId, ...settled(ref) });
    expect(first.created).toBe(true);
    expect(first.exception).toEqual({
      exceptionId: expect.any(Number),
      exceptionType: 'SETTLED_NOT_POSTED',
      targetType: 'PAYMENT_INTENT',
      targetRef: ref,
      status: 'open',
      detail: {
        providerRef: `sbx-ach-${ref}`,
        reason: 'AMOUNT_MISMATCH',
        settledAmount: '99.50',
        currency: 'USD',
      },
      createdAt: '2026-11-24T10:00:00.000Z',
      lastSeenAt: '2026-11-24T10:00:00.000Z',
    });

    h.now.value = new Date('2026-11-25T10:00:00.000Z');
    const second = await h.activities.openReconciliationException({ tenantId, ...settled(ref, '98.00') });
    expect(second.created).toBe(false);
    expect(second.exception.exceptionId).toBe(first.exception.exceptionId);
    expect(second.exception.createdAt).toBe('2026-11-24T10:00:00.000Z');
    expect(second.exception.lastSeenAt).toBe('2026-11-25T10:00:00.000Z');
    expect(second.exception.detail.settledAmount).toBe('98.00');

    // A recurrence seen with an older clock never moves lastSeenAt backwards.
    h.now.value = new Date('2026-11-24T12:00:00.000Z');
    const third = await h.activities.openReconciliationException({ tenantId, ...settled(ref) });
    expect(third.exception.lastSeenAt).toBe('2026-11-25T10:00:00.000Z');
    h.now.value = null;

    expect(await rowsOf(tenantId)).toHaveLength(1);
    const events = await eventsOf(tenantId, first.exception.exceptionId);
    expect(events.map((e) => e.eventType)).toEqual(['reconciliation.exception.opened']);
    expect(events[0]?.data).toMatchObject({
      exceptionId: first.exception.exceptionId,
      status: 'open',
      targetRef: ref,
    });
  });

  it('keeps other types and targets apart', async () => {
    const tenantId = await newTenant(h, 'recon');
    const ref = nextRef();
    const a = await h.activities.openReconciliationException({ tenantId, ...settled(ref) });
    const b = await h.activities.openReconciliationException({ tenantId, ...settled(nextRef()) });
    const c = await h.activities.openReconciliationException({
      tenantId,
      ...settled(ref),
      exceptionType: 'POSTED_NOT_SETTLED',
    });
    expect(new Set([a, b, c].map((r) => r.exception.exceptionId)).size).toBe(3);
    expect([a, b, c].every((r) => r.created)).toBe(true);
  });

  it('twenty concurrent openings of one target leave one open row and one event', async () => {
    const tenantId = await newTenant(h, 'recon');
    const ref = nextRef();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.activities.openReconciliationException({ tenantId, ...settled(ref) }),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.exception.exceptionId)).size).toBe(1);
    expect(await rowsOf(tenantId)).toHaveLength(1);
    expect(await eventsOf(tenantId, results[0]?.exception.exceptionId ?? 0)).toHaveLength(1);
  });

  it('opens a new exception for a target whose previous one was resolved', async () => {
    const tenantId = await newTenant(h, 'recon');
    const ref = nextRef();
    const first = await h.activities.openReconciliationException({ tenantId, ...settled(ref) });
    await h.activities.resolveReconciliationException({
      tenantId,
      exceptionId: first.exception.exceptionId,
      resolution: 'DISMISS',
      reason: 'Duplicate settlement line',
      actor: 'ops-anna',
    });
    const again = await h.activities.openReconciliationException({ tenantId, ...settled(ref) });
    expect(again.created).toBe(true);
    expect(again.exception.exceptionId).not.toBe(first.exception.exceptionId);
    expect((await rowsOf(tenantId)).map((r) => r.status)).toEqual(['resolved', 'open']);
  });

  it('refuses malformed input with 400 and writes nothing', async () => {
    const tenantId = await newTenant(h, 'recon');
    const ref = nextRef();
    const bad = [
      { ...settled(ref), exceptionType: 'LOST_IN_THE_MAIL' as never },
      { ...settled(ref), targetType: 'payment intent' },
      { ...settled(ref), targetRef: '' },
      { ...settled(ref), detail: { reason: 'no provider ref' } as never },
      { ...settled(ref), detail: { providerRef: 'x', settledAmount: 99.5 } as never },
    ];
    for (const input of bad) {
      await expectDomainError(
        h.activities.openReconciliationException({ tenantId, ...input }),
        'validation.msg.validation.errors.exist',
      );
    }
    expect(await rowsOf(tenantId)).toHaveLength(0);
  });
});

describe('resolveReconciliationException', () => {
  it('resolves an open exception once: status, decision, actor, one resolved event; twice → 409', async () => {
    const tenantId = await newTenant(h, 'recon');
    const ref = nextRef();
    const { exception } = await h.activities.openReconciliationException({ tenantId, ...settled(ref) });
    h.now.value = new Date('2026-11-26T09:30:00.000Z');
    const resolved = await h.activities.resolveReconciliationException({
      tenantId,
      exceptionId: exception.exceptionId,
      resolution: 'POST_AS_SETTLED',
      reason: '  Provider confirmed the partial settlement  ',
      actor: 'ops-anna',
    });
    h.now.value = null;
    expect(resolved).toEqual({
      ...exception,
      status: 'resolved',
      resolution: 'POST_AS_SETTLED',
      resolutionReason: 'Provider confirmed the partial settlement',
      resolvedBy: 'ops-anna',
      resolvedAt: '2026-11-26T09:30:00.000Z',
    });
    expect(await getReconciliationException(h.db, tenantId, exception.exceptionId)).toEqual(resolved);

    const err = await expectDomainError(
      h.activities.resolveReconciliationException({
        tenantId,
        exceptionId: exception.exceptionId,
        resolution: 'DISMISS',
        reason: 'again',
        actor: 'ops-bert',
      }),
      'error.msg.reconciliation.exception.invalid.state.transition',
    );
    expect(err.status).toBe(409);
    const [row] = await rowsOf(tenantId);
    expect(row?.resolution).toBe('POST_AS_SETTLED');
    expect(row?.resolvedBy).toBe('ops-anna');

    const events = await eventsOf(tenantId, exception.exceptionId);
    expect(events.map((e) => e.eventType)).toEqual([
      'reconciliation.exception.opened',
      'reconciliation.exception.resolved',
    ]);
    expect(events[1]?.data).toEqual({
      exceptionId: exception.exceptionId,
      exceptionType: 'SETTLED_NOT_POSTED',
      targetType: 'PAYMENT_INTENT',
      targetRef: ref,
      status: 'resolved',
      resolution: 'POST_AS_SETTLED',
      resolvedAt: '2026-11-26T09:30:00.000Z',
    });
  });

  it('two concurrent resolutions: one wins, the other gets 409', async () => {
    const tenantId = await newTenant(h, 'recon');
    const { exception } = await h.activities.openReconciliationException({ tenantId, ...settled(nextRef()) });
    const attempts = await Promise.allSettled(
      (['DISMISS', 'REFUND_BORROWER'] as const).map((resolution) =>
        h.activities.resolveReconciliationException({
          tenantId,
          exceptionId: exception.exceptionId,
          resolution,
          reason: 'Operator decision',
          actor: `ops-${resolution.toLowerCase()}`,
        }),
      ),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const rejected = attempts.find((a) => a.status === 'rejected');
    expect((rejected as PromiseRejectedResult).reason.code).toBe(
      'error.msg.reconciliation.exception.invalid.state.transition',
    );
    expect((await eventsOf(tenantId, exception.exceptionId)).map((e) => e.eventType)).toEqual([
      'reconciliation.exception.opened',
      'reconciliation.exception.resolved',
    ]);
  });

  it('404 for an unknown id; 400 for a bad resolution or reason, and nothing changes', async () => {
    const tenantId = await newTenant(h, 'recon');
    const { exception } = await h.activities.openReconciliationException({ tenantId, ...settled(nextRef()) });
    const base = {
      tenantId,
      exceptionId: exception.exceptionId,
      resolution: 'DISMISS' as const,
      reason: 'ok',
      actor: 'ops-anna',
    };
    await expectDomainError(
      h.activities.resolveReconciliationException({ ...base, exceptionId: exception.exceptionId + 100000 }),
      'error.msg.resource.not.found',
    );
    for (const input of [
      { ...base, resolution: 'WRITE_OFF' as never },
      { ...base, reason: '   ' },
      { ...base, reason: 'x'.repeat(2001) },
      { ...base, reason: 'Borrower SSN 123-45-6789 confirmed' },
    ]) {
      await expectDomainError(
        h.activities.resolveReconciliationException(input),
        'validation.msg.validation.errors.exist',
      );
    }
    const sensitive = await expectDomainError(
      h.activities.resolveReconciliationException({ ...base, reason: 'card 4111 1111 1111 1111' }),
      'validation.msg.validation.errors.exist',
    );
    expect(JSON.stringify(sensitive.errors)).not.toContain('4111');
    expect((await rowsOf(tenantId))[0]?.status).toBe('open');
  });
});

describe('reads and row-level security', () => {
  it('another tenant sees nothing and cannot resolve (404)', async () => {
    const owner = await newTenant(h, 'recon');
    const other = await newTenant(h, 'recon');
    const { exception } = await h.activities.openReconciliationException({
      tenantId: owner,
      ...settled(nextRef()),
    });
    expect(await getReconciliationException(h.db, other, exception.exceptionId)).toBeNull();
    expect(await listReconciliationExceptions(h.db, other, { limit: 200, offset: 0 })).toEqual([]);
    const batches = [];
    for await (const batch of exportReconciliationExceptions(h.db, other, {})) batches.push(batch);
    expect(batches).toEqual([]);
    // Even without the tenant filter, RLS hides the owner's row from the other tenant's transaction.
    expect(await rowsOf(other)).toEqual([]);
    await expectDomainError(
      h.activities.resolveReconciliationException({
        tenantId: other,
        exceptionId: exception.exceptionId,
        resolution: 'DISMISS',
        reason: 'not mine',
        actor: 'ops-eve',
      }),
      'error.msg.resource.not.found',
    );
    expect((await getReconciliationException(h.db, owner, exception.exceptionId))?.status).toBe('open');
  });

  it('lists newest first with filters and offset paging; the export reads every row oldest first in batches', async () => {
    const tenantId = await newTenant(h, 'recon');
    const opened = [];
    for (let i = 0; i < 7; i++) {
      const type = i % 2 === 0 ? 'SETTLED_NOT_POSTED' : 'UNMATCHED_SETTLEMENT';
      opened.push(
        (
          await h.activities.openReconciliationException({
            tenantId,
            ...settled(nextRef()),
            exceptionType: type,
          })
        ).exception,
      );
    }
    await h.activities.resolveReconciliationException({
      tenantId,
      exceptionId: opened[0]?.exceptionId ?? 0,
      resolution: 'DISMISS',
      reason: 'Known timing difference',
      actor: 'ops-anna',
    });
    const ids = opened.map((e) => e.exceptionId);
    const all = await listReconciliationExceptions(h.db, tenantId, { limit: 50, offset: 0 });
    expect(all.map((e) => e.exceptionId)).toEqual([...ids].reverse());
    const page = await listReconciliationExceptions(h.db, tenantId, { limit: 3, offset: 3 });
    expect(page.map((e) => e.exceptionId)).toEqual([ids[3], ids[2], ids[1]]);
    const open = await listReconciliationExceptions(h.db, tenantId, { status: 'open', limit: 50, offset: 0 });
    expect(open.map((e) => e.exceptionId)).toEqual(ids.slice(1).reverse());
    const unmatched = await listReconciliationExceptions(h.db, tenantId, {
      exceptionType: 'UNMATCHED_SETTLEMENT',
      limit: 50,
      offset: 0,
    });
    expect(unmatched.map((e) => e.exceptionId)).toEqual([ids[5], ids[3], ids[1]]);
    const resolvedSettled = await listReconciliationExceptions(h.db, tenantId, {
      status: 'resolved',
      exceptionType: 'SETTLED_NOT_POSTED',
      limit: 50,
      offset: 0,
    });
    expect(resolvedSettled.map((e) => e.exceptionId)).toEqual([ids[0]]);

    const batches = [];
    for await (const batch of exportReconciliationExceptions(h.db, tenantId, {}, 3)) batches.push(batch);
    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(batches.flat().map((e) => e.exceptionId)).toEqual(ids);
    const openBatches = [];
    for await (const batch of exportReconciliationExceptions(h.db, tenantId, { status: 'open' }, 3))
      openBatches.push(batch);
    expect(openBatches.flat().map((e) => e.exceptionId)).toEqual(ids.slice(1));
  });
});
