/**
 * Resolves a PENDING promise to pay as KEPT, PARTIALLY_KEPT or BROKEN with its case effect, event and follow-up task
 * (docs/processes.md P4 "Promises to pay"): `resolvePromiseToPay`, called by `promiseWorkflow`. One transaction;
 * idempotent.
 */
import { and, eq } from 'drizzle-orm';
import { type PromiseView, promiseViewOf } from '../../db/queries/servicing/promises';
import { promises } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { EventData } from '../../domain/events';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import { minorUnitDigits } from '../../domain/money';
import {
  type PromiseOutcome,
  promiseEffectTypes,
  promiseFollowUpTaskType,
} from '../../domain/servicing/promise';
import type { Deps } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import type { PromiseRef } from './read-promise-payments';
import { openTask, recordEffect } from './records';

export interface ResolvePromiseInput extends PromiseRef {
  outcome: PromiseOutcome;
  /** Decimal string: the sum the workflow read (`readPromisePayments`). */
  paidAmount: string;
}

/**
 * Resolves a PENDING promise (docs/processes.md P4), in one transaction under the promise's row lock: status
 * `outcome`, `paidAmount`, `resolvedAt`; the case effect `PROMISE_KEPT` / `PROMISE_PARTIALLY_KEPT` /
 * `PROMISE_BROKEN`; the event `promise.kept` / `promise.partially.kept` / `promise.broken`; and for an outcome
 * other than KEPT a `PROMISE_FOLLOW_UP` task on the case (with its `TASK_CREATED` effect). Idempotent: a promise
 * already resolved is answered as it stands (every write is keyed by `promise/<id>/…`). Errors: 404 for an unknown
 * promise.
 */
export function resolvePromiseToPay(deps: Deps) {
  return async (input: ResolvePromiseInput): Promise<PromiseView> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [row] = await tx
        .select()
        .from(promises)
        .where(and(eq(promises.tenantId, input.tenantId), eq(promises.id, input.promiseId)))
        .for('update');
      if (!row) throw notFound('Promise', input.promiseId);
      if (row.status !== 'PENDING') return promiseViewOf(row);
      const digits = minorUnitDigits(row.currencyCode);
      const paidAmount = fixDecimalText(input.paidAmount, digits);
      const amount = fixDecimalText(row.amount, digits);
      const now = deps.clock();
      let followUpTaskId: number | null = null;
      if (input.outcome !== 'KEPT') {
        const task = await openTask(tx, {
          tenantId: input.tenantId,
          caseId: row.caseId,
          taskType: promiseFollowUpTaskType,
          title: `Promise ${row.id} of ${amount} ${row.currencyCode} by ${row.promisedDate} ${input.outcome === 'BROKEN' ? 'was broken' : `was partially kept (${paidAmount} paid)`}`,
          subjectType: 'promise',
          subjectId: row.id,
          dueAt: null,
          dedupeKey: `promise/${row.id}/follow-up`,
        });
        followUpTaskId = task.id;
        await recordEffect(tx, {
          tenantId: input.tenantId,
          caseId: row.caseId,
          effectType: 'TASK_CREATED',
          subjectType: 'task',
          subjectId: task.id,
          detail: { taskType: promiseFollowUpTaskType, promiseId: row.id },
          occurredAt: now,
          dedupeKey: `task/${task.id}/created`,
        });
      }
      const [updated] = await tx
        .update(promises)
        .set({ status: input.outcome, paidAmount, resolvedAt: now, followUpTaskId, updatedAt: now })
        .where(and(eq(promises.tenantId, input.tenantId), eq(promises.id, row.id)))
        .returning();
      if (!updated) throw new Error('update returned no row');
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: promiseEffectTypes[input.outcome],
        subjectType: 'promise',
        subjectId: row.id,
        detail: {
          promiseId: row.id,
          loanId: row.loanId,
          fromStatus: 'PENDING',
          toStatus: input.outcome,
          amount,
          paidAmount,
          currency: row.currencyCode,
          followUpTaskId,
        },
        occurredAt: now,
        dedupeKey: `promise/${row.id}/resolved`,
      });
      await writeResolutionEvent(tx, input.outcome, {
        tenantId: input.tenantId,
        subjectId: row.id,
        occurredAt: now,
        dedupeKey: `promise/${row.id}/resolved`,
        data: {
          promiseId: row.id,
          caseId: row.caseId,
          loanId: row.loanId,
          amount,
          paidAmount,
          currency: row.currencyCode,
          promisedDate: row.promisedDate,
          resolvedAt: now.toISOString(),
        },
      });
      return promiseViewOf(updated);
    });
}

type ResolutionEventData = Omit<EventData<'promise.kept'>, 'status'>;

/** Writes the catalogue event of `outcome`: `promise.kept`, `promise.partially.kept` or `promise.broken`. */
async function writeResolutionEvent(
  tx: Tx,
  outcome: PromiseOutcome,
  common: {
    tenantId: string;
    subjectId: number;
    occurredAt: Date;
    dedupeKey: string;
    data: ResolutionEventData;
  },
): Promise<void> {
  const { data, ...rest } = common;
  switch (outcome) {
    case 'KEPT':
      await writeOutboxEvent(tx, { ...rest, eventType: 'promise.kept', data: { ...data, status: 'KEPT' } });
      return;
    case 'PARTIALLY_KEPT':
      await writeOutboxEvent(tx, {
        ...rest,
        eventType: 'promise.partially.kept',
        data: { ...data, status: 'PARTIALLY_KEPT' },
      });
      return;
    case 'BROKEN':
      await writeOutboxEvent(tx, {
        ...rest,
        eventType: 'promise.broken',
        data: { ...data, status: 'BROKEN' },
      });
      return;
  }
}
