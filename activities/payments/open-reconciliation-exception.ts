import { and, eq, sql } from 'drizzle-orm';
import * as v from 'valibot';
import {
  type ReconciliationExceptionView,
  reconciliationExceptionView,
} from '../../db/queries/payments/reconciliation-exceptions';
import { payments, reconciliationExceptions } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import {
  type ReconciliationDetail,
  type ReconciliationExceptionType,
  reconciliationDetailSchema,
  reconciliationExceptionTypes,
  targetRefSchema,
  targetTypeSchema,
} from '../../domain/payments/reconciliation-exceptions';
import type { Deps } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';

export interface OpenReconciliationExceptionInput {
  tenantId: string;
  exceptionType: ReconciliationExceptionType;
  /** What the exception is about, upper snake case, e.g. `PAYMENT_INTENT`. */
  targetType: string;
  /** The target's reference, e.g. the paymentId as text (1–128 visible ASCII). */
  targetRef: string;
  /** What was seen, every value a string: `providerRef` always; `reason`, `settledAmount` (decimal string)… */
  detail: ReconciliationDetail;
  /**
   * When the finding was observed, epoch milliseconds from the calling workflow's clock (`workflowNow()`), so
   * the instant does not depend on which worker runs the activity nor on its retries; `deps.clock()` when absent.
   */
  observedAtMs?: number;
}

export interface OpenReconciliationExceptionResult {
  /** The exception as `GET /v1/recon-exceptions/{exceptionId}` shows it (status `open`). */
  exception: ReconciliationExceptionView;
  /** True when this call created it; false when an open one of the same type and target took the recurrence. */
  created: boolean;
}

const inputSchema = v.object({
  exceptionType: v.picklist(reconciliationExceptionTypes),
  targetType: targetTypeSchema,
  targetRef: targetRefSchema,
  detail: reconciliationDetailSchema,
});

/** How often the insert-or-touch loop runs when the open exception is resolved between its two statements. */
const attemptsMax = 3;

/**
 * Opens a reconciliation exception (docs/processes.md P1 "Reconciliation exceptions"; docs/lending.md "Reconciliation exceptions"), or records a recurrence: when one of the same `exceptionType` and target
 * (`targetType`, `targetRef`) is already open, its `lastSeenAt` moves to now (never backwards) and its `detail`
 * is replaced, and no row is added (the partial unique index allows one open exception per type and target).
 * The outbox event `reconciliation.exception.opened` is written only when the exception is created, in the same
 * transaction. The instant (createdAt, lastSeenAt, the event's occurredAt) is `observedAtMs` when given, else
 * `deps.clock()`.
 *
 * Idempotent by its business key: a retried call finds the open exception and only moves `lastSeenAt`. (A call
 * retried after an operator resolved the exception opens a new one: a later occurrence is a new exception.)
 * Called by the payment-intent workflow (`SETTLED_NOT_POSTED`) and the daily reconciliation (the other types),
 * never by a route.
 *
 * Errors: 400 `validation.msg.validation.errors.exist` naming the field for an unknown `exceptionType`, a
 * `targetType` that is not upper snake case, a `targetRef` that is not 1–128 visible ASCII, or a `detail` without
 * `providerRef` or with a non-string value (a caller's bug; nothing is written).
 *
 * A `detail` that names an amount of a payment intent without its currency (`SETTLED_NOT_POSTED`'s
 * `settledAmount`/`intentAmount`) gets the payment's `currency` added before it is stored and sent.
 */
export function openReconciliationException(deps: Deps) {
  return async (input: OpenReconciliationExceptionInput): Promise<OpenReconciliationExceptionResult> => {
    const checked = v.safeParse(inputSchema, input);
    if (!checked.success) {
      const errors = checked.issues.map((issue) =>
        fieldError(
          v.getDotPath(issue) ?? 'input',
          null,
          `${v.getDotPath(issue) ?? 'input'}: ${issue.message}`,
        ),
      );
      throw new DomainError(
        'validation.msg.validation.errors.exist',
        errors.map((e) => e.developerMessage).join(' '),
        { errors },
      );
    }
    const { exceptionType, targetType, targetRef } = checked.output;
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const detail = await withCurrency(tx, input.tenantId, targetType, targetRef, checked.output.detail);
      const now = input.observedAtMs === undefined ? deps.clock() : new Date(input.observedAtMs);
      for (let attempt = 1; attempt <= attemptsMax; attempt++) {
        const [inserted] = await tx
          .insert(reconciliationExceptions)
          .values({
            tenantId: input.tenantId,
            exceptionType,
            targetType,
            targetRef,
            status: 'open',
            detail: detail as ReconciliationDetail,
            createdAt: now,
            lastSeenAt: now,
          })
          .onConflictDoNothing({
            target: [
              reconciliationExceptions.tenantId,
              reconciliationExceptions.exceptionType,
              reconciliationExceptions.targetType,
              reconciliationExceptions.targetRef,
            ],
            where: sql`status = 'open'`,
          })
          .returning();
        if (inserted) {
          const exception = reconciliationExceptionView(inserted);
          await writeOpenedEvent(tx, input.tenantId, exception, now);
          return { exception, created: true };
        }
        const [touched] = await tx
          .update(reconciliationExceptions)
          .set({
            lastSeenAt: sql`greatest(${reconciliationExceptions.lastSeenAt}, ${now.toISOString()}::timestamptz)`,
            detail: detail as ReconciliationDetail,
          })
          .where(
            and(
              eq(reconciliationExceptions.tenantId, input.tenantId),
              eq(reconciliationExceptions.exceptionType, exceptionType),
              eq(reconciliationExceptions.targetType, targetType),
              eq(reconciliationExceptions.targetRef, targetRef),
              eq(reconciliationExceptions.status, 'open'),
            ),
          )
          .returning();
        if (touched) return { exception: reconciliationExceptionView(touched), created: false };
        // The open exception was resolved between the two statements: insert again.
      }
      throw new Error(
        `reconciliation exception ${exceptionType} ${targetType}/${targetRef}: neither inserted nor found open after ${attemptsMax} attempts`,
      );
    });
  };
}

/**
 * `detail` with `currency` added when it names an amount (a key ending in `Amount`, a decimal string) without a
 * currency and its target is a payment intent: the payment's currency (money is a decimal string with its currency,
 * docs/integrating.md "Webhooks"). Any other detail is returned as it is.
 */
async function withCurrency(
  tx: Tx,
  tenantId: string,
  targetType: string,
  targetRef: string,
  detail: ReconciliationDetail,
): Promise<ReconciliationDetail> {
  const hasAmount = Object.keys(detail).some((key) => key.endsWith('Amount'));
  if (!hasAmount || detail.currency !== undefined || targetType !== 'PAYMENT_INTENT') return detail;
  if (!/^[1-9][0-9]{0,15}$/.test(targetRef)) return detail;
  const [payment] = await tx
    .select({ currencyCode: payments.currencyCode })
    .from(payments)
    .where(and(eq(payments.tenantId, tenantId), eq(payments.id, Number(targetRef))));
  return payment ? { ...detail, currency: payment.currencyCode } : detail;
}

async function writeOpenedEvent(tx: Tx, tenantId: string, exception: ReconciliationExceptionView, at: Date) {
  await writeOutboxEvent(tx, {
    tenantId,
    eventType: 'reconciliation.exception.opened',
    subjectId: exception.exceptionId,
    data: {
      exceptionId: exception.exceptionId,
      exceptionType: exception.exceptionType,
      targetType: exception.targetType,
      targetRef: exception.targetRef,
      status: 'open',
      detail: exception.detail,
      createdAt: exception.createdAt,
    },
    occurredAt: at,
    dedupeKey: `reconciliation_exception/${exception.exceptionId}/opened`,
  });
}
