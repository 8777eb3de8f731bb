/**
 * Operations of promises to pay (docs/processes.md P4 "Promises to pay"). The API calls
 * `createPromiseToPay`; `promiseWorkflow` calls `readPromisePayments` and `resolvePromiseToPay`; the
 * payment-intent workflow calls `findPendingPromisesOfLoan` after posting, to signal them. `close-case.ts`
 * calls `assertCaseOutcomeGrounded`. Each write is one transaction and idempotent.
 */
import { and, eq, exists, or, sql } from 'drizzle-orm';
import {
  type PromiseView,
  pendingPromiseIdsOfLoan,
  promiseViewOf,
  sumPostedPayments,
} from '../../db/queries/servicing/promises';
import { caseEffects, customers, loanParties, loans, promises } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound, validationError } from '../../domain/errors';
import type { EventData } from '../../domain/events';
import { promiseWorkflowId } from '../../domain/ids';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import { minorUnitDigits, parseMoney } from '../../domain/money';
import {
  checkPromisedDate,
  computePromiseWindow,
  type PromiseChannel,
  type PromiseOutcome,
  type PromiseWorkflowInput,
  promiseEffectTypes,
  promiseFollowUpTaskType,
  promiseHorizonDays,
  promiseStartSpec,
} from '../../domain/servicing/promise';
import { tenantComplianceTimeZone } from '../common/tenant-time-zone';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseTakesRecords, openTask, recordEffect, rowOfRequestKey, shareCase } from './records';

const notFoundCode = 'error.msg.resource.not.found';

export interface CreatePromiseToPayInput extends OperationContext {
  caseId: number;
  loanId: number;
  /** Decimal string > 0 with at most the currency's minor-unit digits. */
  amount: string;
  /** ISO 4217: must be the loan's currency. */
  currency: string;
  /** ISO date, today or later in the tenant's time zone, at most `promiseHorizonDays` ahead. */
  promisedDate: string;
  channel: PromiseChannel;
}

export interface CreatePromiseToPayResult {
  promise: PromiseView;
  /** What the workflow must be started with. */
  workflow: { workflowId: string; input: PromiseWorkflowInput };
}

type PromiseRow = typeof promises.$inferSelect;

function workflowInputOf(row: PromiseRow): PromiseWorkflowInput {
  return {
    tenantId: row.tenantId,
    promiseId: row.id,
    caseId: row.caseId,
    loanId: row.loanId,
    amount: fixDecimalText(row.amount, minorUnitDigits(row.currencyCode)),
    currency: row.currencyCode,
    promisedDate: row.promisedDate,
    deadlineAtMs: row.deadlineAt.getTime(),
  };
}

function createdResultOf(row: PromiseRow): CreatePromiseToPayResult {
  return {
    promise: promiseViewOf(row),
    workflow: { workflowId: row.workflowId, input: workflowInputOf(row) },
  };
}

/**
 * Takes a promise to pay on a case (docs/processes.md P4): stores it PENDING with its watch window (value dates
 * from today to promisedDate + 3 days, deadline at the end of that day, tenant time zone), appends a
 * `PROMISE_CREATED` effect to the case, writes `promise.created` and the workflow's start intent, all in one
 * transaction. Idempotent by `requestKey` (a replay returns the first promise before any check).
 * Errors, nothing stored: 404 `error.msg.resource.not.found` naming `caseId` and/or `loanId` when absent or another
 * tenant's; 409 `error.msg.case.invalid.state.transition` naming `caseId` when the case is not OPEN; 409
 * `error.msg.case.customer.mismatch` naming `caseId` when the case's customer is neither the loan's borrower nor
 * one of its parties (by `customerRef`); 409 `error.msg.loan.invalid.state.transition` naming `loanId` when the loan is not ACTIVE; 400
 * `validation.msg.payment.currency.mismatch` naming `currency` when it is not the loan's; 400
 * `validation.msg.validation.errors.exist` naming `promisedDate` when it is before today or more than
 * `promiseHorizonDays` ahead in the tenant's time zone, naming `amount` when it has too many digits.
 */
/**
 * Throws 409 `error.msg.case.customer.mismatch` (naming `caseId`) unless the case's `customerRef` is the
 * `customerRef` (docs/processes.md P4 "Refs") of the loan's borrower or of one of its parties (co-borrower,
 * guarantor, authorized party): a promise to pay is taken from someone who answers for the loan. Also used by
 * the hardship offers (activities/hardship/hardship-offers.ts).
 */
export async function assertCaseCustomerIsLoanParty(
  tx: Tx,
  tenantId: string,
  loanId: number,
  caseId: number,
  caseCustomerRef: string,
): Promise<void> {
  const [party] = await tx
    .select({ customerId: customers.id })
    .from(customers)
    .where(
      and(
        eq(customers.tenantId, tenantId),
        eq(customers.customerRef, caseCustomerRef),
        or(
          exists(
            tx
              .select({ one: sql`1` })
              .from(loans)
              .where(
                and(eq(loans.tenantId, tenantId), eq(loans.id, loanId), eq(loans.clientId, customers.id)),
              ),
          ),
          exists(
            tx
              .select({ one: sql`1` })
              .from(loanParties)
              .where(
                and(
                  eq(loanParties.tenantId, tenantId),
                  eq(loanParties.loanId, loanId),
                  eq(loanParties.customerId, customers.id),
                ),
              ),
          ),
        ),
      ),
    );
  if (!party) {
    const message = `caseId: case ${caseId} is not of the borrower or a party of loan ${loanId}.`;
    throw new DomainError('error.msg.case.customer.mismatch', message, {
      errors: [fieldError('caseId', caseId, message, 'error.msg.case.customer.mismatch')],
    });
  }
}

export function createPromiseToPay(deps: Deps) {
  return async (input: CreatePromiseToPayInput): Promise<CreatePromiseToPayResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [existing] = await tx
          .select()
          .from(promises)
          .where(and(eq(promises.tenantId, input.tenantId), eq(promises.requestKey, input.requestKey)));
        if (existing) return createdResultOf(existing);
      }
      const foundCase = await shareCase(tx, input.tenantId, input.caseId);
      const [loan] = await tx
        .select({ status: loans.status, currencyCode: loans.currencyCode })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)))
        .for('share');
      if (!foundCase || !loan) {
        const missing = [];
        if (!foundCase) {
          missing.push(
            fieldError('caseId', input.caseId, `caseId: Case ${input.caseId} was not found.`, notFoundCode),
          );
        }
        if (!loan) {
          missing.push(
            fieldError('loanId', input.loanId, `loanId: Loan ${input.loanId} was not found.`, notFoundCode),
          );
        }
        throw new DomainError(notFoundCode, missing.map((e) => e.developerMessage).join(' '), {
          errors: missing,
        });
      }
      assertCaseTakesRecords(foundCase, input.caseId, null);
      await assertCaseCustomerIsLoanParty(
        tx,
        input.tenantId,
        input.loanId,
        input.caseId,
        foundCase.customerRef,
      );
      if (loan.status !== 'ACTIVE') {
        const message = `loanId: loan ${input.loanId} is ${loan.status}; a promise to pay needs an ACTIVE loan.`;
        throw new DomainError('error.msg.loan.invalid.state.transition', message, {
          errors: [fieldError('loanId', input.loanId, message, 'error.msg.loan.invalid.state.transition')],
        });
      }
      if (input.currency !== loan.currencyCode) {
        const message = `currency ${input.currency} differs from the loan's currency ${loan.currencyCode}.`;
        throw new DomainError('validation.msg.payment.currency.mismatch', message, {
          errors: [
            fieldError('currency', input.currency, message, 'validation.msg.payment.currency.mismatch'),
          ],
        });
      }
      let amount: string;
      try {
        parseMoney(input.amount, input.currency);
        amount = fixDecimalText(input.amount, minorUnitDigits(input.currency));
      } catch {
        throw validationError(
          'amount',
          input.amount,
          `amount must be a decimal string with at most ${minorUnitDigits(input.currency)} fraction digits.`,
        );
      }
      const timeZone = await tenantComplianceTimeZone(tx, input.tenantId);
      const now = deps.clock();
      const dateCheck = checkPromisedDate(input.promisedDate, now.getTime(), timeZone);
      if (!dateCheck.ok) {
        throw validationError(
          'promisedDate',
          input.promisedDate,
          dateCheck.reason === 'PAST'
            ? `promisedDate must not be before today in the tenant's time zone (${timeZone}).`
            : `promisedDate must be at most ${promiseHorizonDays} days ahead.`,
        );
      }
      const window = computePromiseWindow({
        createdAtMs: now.getTime(),
        promisedDate: input.promisedDate,
        timeZone,
      });
      const [inserted] = await tx
        .insert(promises)
        .values({
          tenantId: input.tenantId,
          caseId: input.caseId,
          loanId: input.loanId,
          amount,
          currencyCode: input.currency,
          promisedDate: input.promisedDate,
          channel: input.channel,
          status: 'PENDING',
          windowStartDate: window.windowStartDate,
          windowEndDate: window.windowEndDate,
          deadlineAt: new Date(window.deadlineAtMs),
          deadlineAtText: window.deadlineAt,
          timeZone,
          workflowId: '',
          actorUsername: input.actor ?? null,
          createdAt: now,
          updatedAt: now,
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [promises.tenantId, promises.requestKey] })
        .returning();
      if (!inserted) {
        // A concurrent call with the same request key committed first: return its promise.
        return createdResultOf(await rowOfRequestKey(tx, promises, input.tenantId, input.requestKey));
      }
      const [row] = await tx
        .update(promises)
        .set({ workflowId: promiseWorkflowId(input.tenantId, inserted.id) })
        .where(and(eq(promises.tenantId, input.tenantId), eq(promises.id, inserted.id)))
        .returning();
      if (!row) throw new Error('update returned no row');
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: input.caseId,
        effectType: 'PROMISE_CREATED',
        subjectType: 'promise',
        subjectId: row.id,
        detail: {
          promiseId: row.id,
          loanId: input.loanId,
          amount,
          currency: input.currency,
          promisedDate: input.promisedDate,
          channel: input.channel,
          deadlineAt: window.deadlineAt,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `promise/${row.id}/created`,
      });
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'promise.created',
        subjectId: row.id,
        data: {
          promiseId: row.id,
          caseId: input.caseId,
          loanId: input.loanId,
          status: 'PENDING',
          amount,
          currency: input.currency,
          promisedDate: input.promisedDate,
          channel: input.channel,
          deadlineAt: new Date(window.deadlineAtMs).toISOString(),
        },
        occurredAt: now,
        dedupeKey: `promise/${row.id}/created`,
      });
      const created = createdResultOf(row);
      await recordStartIntent(tx, promiseStartSpec(created.workflow.input), now);
      return created;
    });
}

interface PromiseRef {
  tenantId: string;
  promiseId: number;
}

/**
 * What has been paid towards a promise: the sum of its loan's POSTED payments (returned ones excluded) value-dated
 * in its window, as a decimal string with the currency's digits, and its status. Read only (the workflow decides).
 * Errors: 404 for an unknown promise.
 */
export function readPromisePayments(deps: Deps) {
  return async (input: PromiseRef): Promise<{ paidAmount: string; status: PromiseView['status'] }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [row] = await tx
        .select()
        .from(promises)
        .where(and(eq(promises.tenantId, input.tenantId), eq(promises.id, input.promiseId)));
      if (!row) throw notFound('Promise', input.promiseId);
      const total = await sumPostedPayments(
        tx,
        input.tenantId,
        row.loanId,
        row.windowStartDate,
        row.windowEndDate,
      );
      return { paidAmount: fixDecimalText(total, minorUnitDigits(row.currencyCode)), status: row.status };
    });
}

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

/**
 * Ids of the loan's PENDING promises (whose processes a posted payment signals). Read only; an unknown loan has
 * none.
 */
export function findPendingPromisesOfLoan(deps: Deps) {
  return async (input: { tenantId: string; loanId: number }): Promise<{ promiseIds: number[] }> => ({
    promiseIds: await pendingPromiseIdsOfLoan(deps.db, input.tenantId, input.loanId),
  });
}

/** Outcome codes a case may close with only when its effects show the fact (code → effect type required). */
const groundingEffects: Readonly<Record<string, string>> = { PROMISE_KEPT: 'PROMISE_KEPT' };

/**
 * Throws unless the case's records ground `outcomeCode` (docs/processes.md P4; spec § Servicing plane: a case closed
 * with `PROMISE_KEPT`): `PROMISE_KEPT` needs a `PROMISE_KEPT` effect on that case (a promise of it resolved KEPT);
 * other codes need nothing. 409 `error.msg.case.outcome.not.grounded` naming `outcomeCode`. Runs in the closing
 * transaction (after the case row is locked).
 */
export async function assertCaseOutcomeGrounded(
  tx: Tx,
  tenantId: string,
  caseId: number,
  outcomeCode: string,
): Promise<void> {
  const effectType = groundingEffects[outcomeCode];
  if (effectType === undefined) return;
  const [found] = await tx
    .select({ id: caseEffects.id })
    .from(caseEffects)
    .where(
      and(
        eq(caseEffects.tenantId, tenantId),
        eq(caseEffects.caseId, caseId),
        eq(caseEffects.effectType, effectType),
      ),
    )
    .limit(1);
  if (found) return;
  const message = `outcomeCode: case ${caseId} has no kept promise to pay (no ${effectType} effect); close it with another outcome code or wait until a promise is kept.`;
  throw new DomainError('error.msg.case.outcome.not.grounded', message, {
    errors: [fieldError('outcomeCode', outcomeCode, message, 'error.msg.case.outcome.not.grounded')],
  });
}
