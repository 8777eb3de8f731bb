/**
 * Takes a promise to pay on a case (docs/processes.md P4 "Promises to pay"): `createPromiseToPay`, which the API
 * calls; it stores the promise PENDING with its watch window, the case effect, `promise.created` and the start intent
 * of `promiseWorkflow`. One transaction; idempotent by request key.
 */
import { and, eq } from 'drizzle-orm';
import { type PromiseView, promiseViewOf } from '../../db/queries/servicing/promises';
import { loans, promises } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, validationError } from '../../domain/errors';
import { promiseWorkflowId } from '../../domain/ids';
import { fixDecimalText } from '../../domain/lending/decimal-text';
import { minorUnitDigits, parseMoney } from '../../domain/money';
import {
  checkPromisedDate,
  computePromiseWindow,
  type PromiseChannel,
  type PromiseWorkflowInput,
  promiseHorizonDays,
  promiseStartSpec,
} from '../../domain/servicing/promise';
import { tenantComplianceTimeZone } from '../common/tenant-time-zone';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { recordStartIntent } from '../platform/start-intents';
import { assertCaseCustomerIsLoanParty } from './case-checks';
import { assertCaseTakesRecords, recordEffect, rowOfRequestKey, shareCase } from './records';

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
