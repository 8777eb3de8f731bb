import { and, eq } from 'drizzle-orm';
import { cases } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { assertCaseOutcomeGrounded } from './case-checks';
import { assertRequiredAnswersBeforeClose } from './form-entry-checks';
import { recordEffect } from './records';

export interface CloseCaseInput extends OperationContext {
  caseId: number;
  /** e.g. PROMISE_KEPT. */
  outcomeCode: string;
  closureReason: string;
}

export interface CloseCaseResult {
  caseId: number;
  status: 'CLOSED';
  outcomeCode: string;
}

/**
 * Closes an open case: status CLOSED, outcome recorded, a `CASE_CLOSED` effect and a
 * `case.transitioned` outbox event in the same transaction (docs/servicing.md "Promises to pay"; docs/integrating.md "Webhooks").
 * Errors: 404 when the case is not the tenant's; 409 `error.msg.case.invalid.state.transition`
 * when it is already closed; 409 `error.msg.case.close.required.answers.missing` when its form entry lacks an
 * ON_CLOSE answer (form-entry-checks.ts `assertRequiredAnswersBeforeClose`).
 * when it is already closed; 409 `error.msg.case.outcome.not.grounded` for `PROMISE_KEPT` without a kept
 * promise on the case (case-checks.ts `assertCaseOutcomeGrounded`).
 */
export function closeCase(deps: Deps) {
  return async (input: CloseCaseInput): Promise<CloseCaseResult> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) => closeCaseInTx(tx, input, deps.clock()));
}

/**
 * `closeCase` in the caller's tenant transaction `tx` (the same checks, rows, effect and event; `now` the
 * operation's clock reading): also the close of business closing a cured collections case
 * (activities/lending/close-loan-business-day.ts). Errors: those of `closeCase`.
 */
export async function closeCaseInTx(tx: Tx, input: CloseCaseInput, now: Date): Promise<CloseCaseResult> {
  const [current] = await tx
    .select({ status: cases.status })
    .from(cases)
    .where(and(eq(cases.tenantId, input.tenantId), eq(cases.id, input.caseId)))
    .for('update');
  if (!current) throw notFound('Case', input.caseId);
  if (current.status !== 'OPEN') {
    throw new DomainError(
      'error.msg.case.invalid.state.transition',
      `Case ${input.caseId} is already ${current.status}.`,
    );
  }
  await assertRequiredAnswersBeforeClose(tx, input.tenantId, input.caseId);
  await assertCaseOutcomeGrounded(tx, input.tenantId, input.caseId, input.outcomeCode);
  await tx
    .update(cases)
    .set({
      status: 'CLOSED',
      outcomeCode: input.outcomeCode,
      closureReason: input.closureReason,
      closedAt: now,
      updatedAt: now,
    })
    .where(and(eq(cases.tenantId, input.tenantId), eq(cases.id, input.caseId)));
  const transition = {
    caseId: input.caseId,
    fromStatus: 'OPEN',
    toStatus: 'CLOSED',
    outcomeCode: input.outcomeCode,
  };
  await recordEffect(tx, {
    tenantId: input.tenantId,
    caseId: input.caseId,
    effectType: 'CASE_CLOSED',
    subjectType: 'case',
    subjectId: input.caseId,
    detail: { ...transition, closureReason: input.closureReason },
    actor: input.actor,
    correlationId: input.correlationId,
    occurredAt: now,
    dedupeKey: `case/${input.caseId}/closed`,
  });
  await writeOutboxEvent(tx, {
    tenantId: input.tenantId,
    eventType: 'case.transitioned',
    subjectId: input.caseId,
    data: transition,
    occurredAt: now,
    dedupeKey: `case/${input.caseId}/closed`,
  });
  return { caseId: input.caseId, status: 'CLOSED', outcomeCode: input.outcomeCode };
}
