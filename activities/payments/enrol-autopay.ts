/**
 * Enrols a loan in autopay (docs/processes.md P1 Autopay; docs/lending.md "Autopay": "Autopay enrollment carries
 * authorizationRef and never backfills history"): `enrolAutopay`, which the enrolment route calls; it stores an ACTIVE
 * enrolment and the start intent of `autopay/<tenant>/<loanId>` under the loan's row lock. One transaction; idempotent
 * by request key.
 */
import { and, eq } from 'drizzle-orm';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import {
  type AutopayEnrolmentView,
  autopayViewOf,
  currentAutopayRow,
} from '../../db/queries/payments/autopay';
import { autopayEnrolments } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, validationError } from '../../domain/errors';
import {
  type AutopayWorkflowInput,
  autopayAmountTypes,
  autopayStartSpec,
  maxDaysBeforeDue,
  minDaysBeforeDue,
} from '../../domain/payments/autopay';
import { paymentRails } from '../../domain/payments/payment-intent';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { moneyOfInput, utcDateOf } from '../lending/loan-money';
import { rearmStartIntent } from '../platform/start-intents';
import { assertInstrumentEligible } from './create-payment-intent';

/** Input of `enrolAutopay`: the route's body (docs/processes.md P1 Autopay) and the loan. */
export interface EnrolAutopayInput extends OperationContext {
  loanId: number;
  /** A VERIFIED and ACTIVE instrument of the borrower or a co-borrower. */
  instrumentId: number;
  /** The borrower's authorization of recurring debits (free text, never an identifier or account number). */
  authorizationRef: string;
  /** docs/design.md §5 rail. */
  rail: string;
  amountType: string;
  /** Decimal string > 0 with at most the loan currency's digits; required iff `amountType` is FIXED. */
  fixedAmount?: string | null;
  /** Calendar days before each due date on which the intent is created, 0..15. */
  daysBeforeDue: number;
}

/** What `enrolAutopay` answers: the enrolment's view, the process to start, and whether this call created it. */
export interface EnrolAutopayResult {
  enrolment: AutopayEnrolmentView;
  /** The loan's autopay process to start after commit (also stored as a start intent). */
  workflow: { workflowId: string; input: AutopayWorkflowInput };
  created: boolean;
}

/**
 * Enrols a loan in autopay (docs/processes.md P1 Autopay). One transaction under the loan's row lock: the loan
 * ACTIVE, the instrument eligible as for payment intents (`assertInstrumentEligible`), no other ACTIVE enrolment;
 * stores the enrolment (`enrolledOn` = today in UTC: installments due on or before it are never collected) and the
 * start intent of `autopay/<tenant>/<loanId>` (re-armed when an earlier enrolment of the loan had one).
 * Idempotent by `requestKey`: the same key answers the enrolment it created (`created: false`).
 *
 * Errors: 400 `validation.msg.validation.errors.exist` naming `rail`, `amountType`, `fixedAmount` (missing for
 * FIXED, present for INSTALLMENT_DUE, malformed, ≤ 0, more digits than the loan currency), `daysBeforeDue` (not an
 * integer in 0..15), `authorizationRef` (empty or identifier-looking); 404 for a loan that is not the tenant's;
 * 409 `error.msg.loan.invalid.state.transition` unless the loan is ACTIVE; 409
 * `error.msg.payment.instrument.not.eligible`; 409 `error.msg.loan.autopay.already.active`.
 */
export function enrolAutopay(deps: Deps) {
  return async (input: EnrolAutopayInput): Promise<EnrolAutopayResult> => {
    if (!(paymentRails as readonly string[]).includes(input.rail)) {
      throw validationError('rail', input.rail, `rail must be one of ${paymentRails.join(', ')}.`);
    }
    if (!(autopayAmountTypes as readonly string[]).includes(input.amountType)) {
      throw validationError(
        'amountType',
        input.amountType,
        `amountType must be one of ${autopayAmountTypes.join(', ')}.`,
      );
    }
    const fixed = input.fixedAmount ?? null;
    if (input.amountType === 'FIXED' && fixed === null) {
      throw validationError('fixedAmount', null, 'fixedAmount is required when amountType is FIXED.');
    }
    if (input.amountType !== 'FIXED' && fixed !== null) {
      throw validationError('fixedAmount', fixed, 'fixedAmount is allowed only when amountType is FIXED.');
    }
    if (
      !Number.isInteger(input.daysBeforeDue) ||
      input.daysBeforeDue < minDaysBeforeDue ||
      input.daysBeforeDue > maxDaysBeforeDue
    ) {
      throw validationError(
        'daysBeforeDue',
        input.daysBeforeDue,
        `daysBeforeDue must be an integer from ${minDaysBeforeDue} to ${maxDaysBeforeDue}.`,
      );
    }
    assertNoSensitiveData('authorizationRef', input.authorizationRef);
    if (input.authorizationRef.trim() === '') {
      throw validationError(
        'authorizationRef',
        input.authorizationRef,
        'authorizationRef must not be empty.',
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const now = deps.clock();
      if (input.requestKey) {
        const [earlier] = await tx
          .select()
          .from(autopayEnrolments)
          .where(
            and(
              eq(autopayEnrolments.tenantId, input.tenantId),
              eq(autopayEnrolments.requestKey, input.requestKey),
            ),
          );
        if (earlier) return { ...enrolmentResult(earlier, loan), created: false };
      }
      if (loan.status !== 'ACTIVE') {
        throw new DomainError(
          'error.msg.loan.invalid.state.transition',
          `Loan ${loan.id} is ${loan.status}: only an ACTIVE loan can be enrolled in autopay.`,
        );
      }
      const fixedAmount = fixed === null ? null : fixedAmountOf(fixed, loan.currencyCode);
      await assertInstrumentEligible(tx, input.tenantId, loan, input.instrumentId);
      const current = await currentAutopayRow(tx, input.tenantId, loan.id);
      if (current?.status === 'ACTIVE') {
        throw new DomainError(
          'error.msg.loan.autopay.already.active',
          `Loan ${loan.id} already has the ACTIVE autopay enrolment ${current.id}.`,
        );
      }
      const [row] = await tx
        .insert(autopayEnrolments)
        .values({
          tenantId: input.tenantId,
          loanId: loan.id,
          instrumentId: input.instrumentId,
          authorizationRef: input.authorizationRef.trim(),
          rail: input.rail,
          amountType: input.amountType as (typeof autopayAmountTypes)[number],
          fixedAmount,
          daysBeforeDue: input.daysBeforeDue,
          status: 'ACTIVE',
          enrolledAt: now,
          enrolledOn: utcDateOf(now),
          actorUsername: input.actor ?? null,
          requestKey: input.requestKey ?? null,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error('autopay enrolment insert returned nothing');
      const result = enrolmentResult(row, loan);
      await rearmStartIntent(tx, autopayStartSpec(result.workflow.input), now);
      return { ...result, created: true };
    });
  };
}

/** `fixedAmount` in the loan's currency (canonical digits); 400 naming `fixedAmount` when it does not fit. */
function fixedAmountOf(fixed: string, currency: string): string {
  try {
    return moneyOfInput(fixed, currency).text;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const why = err.errors[0]?.defaultUserMessage ?? err.message;
    throw validationError('fixedAmount', fixed, `fixedAmount: ${why}`);
  }
}

function enrolmentResult(
  row: typeof autopayEnrolments.$inferSelect,
  loan: { id: number; accountNo: string; currencyCode: string },
): Omit<EnrolAutopayResult, 'created'> {
  const input: AutopayWorkflowInput = {
    tenantId: row.tenantId,
    loanId: loan.id,
    loanRef: loan.accountNo,
    enrolmentId: row.id,
    lastInstallmentNumber: 0,
  };
  return {
    enrolment: autopayViewOf(row, loan),
    workflow: { workflowId: autopayStartSpec(input).workflowId, input },
  };
}
