/**
 * Autopay (docs/processes.md P1 Autopay; spec § Boarding rules "Autopay enrollment carries
 * authorizationRef and never backfills history", "Re-apply restrictions before any payment, autopay…"; docs/design.md §5
 * Holds "PAYMENT_HOLD blocks payment intents and autopay"). The operations of the enrolment routes and of
 * `autopayWorkflow`, one transaction each, each under the loan's row lock (`lockLoanForMoney`), so an enrolment, its
 * cancellation and a collection of one loan serialize with every other money event of that loan:
 * - `enrolAutopay`: stores an ACTIVE enrolment and the start intent of `autopay/<tenant>/<loanId>`;
 * - `cancelAutopay`: ACTIVE → CANCELLED;
 * - `planAutopayCycle`: the next installment to collect (due strictly after enrolment, after the cursor), or why
 *   the process ends;
 * - `collectAutopayInstallment`: the enrolment still ACTIVE → the payment intent through the same rules as
 *   `createPaymentIntent` (in a savepoint), or a skip with a case effect and a task when a PAYMENT_HOLD is in
 *   force (or another rule refuses the intent).
 */
import { and, asc, eq, gt } from 'drizzle-orm';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import {
  type AutopayEnrolmentView,
  autopayViewOf,
  currentAutopayRow,
} from '../../db/queries/payments/autopay';
import { autopayEnrolments, cases, customers, loanInstallments, loans, payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound, validationError } from '../../domain/errors';
import { minorOf } from '../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import {
  type AutopayCollection,
  type AutopayPlan,
  type AutopayWorkflowInput,
  autopayAmountTypes,
  autopayCollectionDateOf,
  autopayRequestKeyOf,
  autopaySource,
  autopayStartSpec,
  maxDaysBeforeDue,
  minDaysBeforeDue,
} from '../../domain/payments/autopay';
import { paymentRails } from '../../domain/payments/payment-intent';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps, OperationContext } from '../deps';
import { moneyOfInput, utcDateOf } from '../lending/loan-money';
import { rearmStartIntent } from '../platform/start-intents';
import { openTask, recordEffect, rowOfRequestKey } from '../servicing/records';
import { assertInstrumentEligible, createPaymentIntentIn } from './create-payment-intent';

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

/**
 * Cancels the loan's ACTIVE enrolment (ACTIVE → CANCELLED) under the loan's lock, so no collection of it starts
 * afterwards (a collection checks the status under the same lock). Idempotent: a loan whose latest enrolment is
 * already CANCELLED answers it as it stands. Returns the enrolment and whether this call cancelled it. Errors: 404
 * when the loan is not the tenant's or never had an enrolment.
 */
export function cancelAutopay(deps: Deps) {
  return async (
    input: OperationContext & { loanId: number },
  ): Promise<{ enrolment: AutopayEnrolmentView; cancelled: boolean }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const current = await currentAutopayRow(tx, input.tenantId, loan.id);
      if (!current) throw notFound('Autopay enrolment of loan', loan.id);
      if (current.status !== 'ACTIVE') return { enrolment: autopayViewOf(current, loan), cancelled: false };
      const now = deps.clock();
      const [row] = await tx
        .update(autopayEnrolments)
        .set({ status: 'CANCELLED', cancelledAt: now, updatedAt: now })
        .where(and(eq(autopayEnrolments.tenantId, input.tenantId), eq(autopayEnrolments.id, current.id)))
        .returning();
      if (!row) throw new Error(`autopay enrolment ${current.id} vanished under the loan's lock`);
      return { enrolment: autopayViewOf(row, loan), cancelled: true };
    });
}

/**
 * Plans the next cycle of the loan's autopay process from the stored state (read only). The enrolment served is
 * the loan's ACTIVE one: the input's `enrolmentId` with its cursor `lastInstallmentNumber`, or (after a cancel and a
 * new enrolment) the new one from the start. The next installment is the lowest-numbered one after the cursor
 * that is due strictly after the enrolment's `enrolledOn` (no backfill). Returns COLLECT with its collection date
 * (due date − daysBeforeDue), or END: NO_ACTIVE_ENROLMENT, LOAN_NOT_ACTIVE, NOTHING_LEFT. Errors: none besides
 * infrastructure (an unknown loan plans END NO_ACTIVE_ENROLMENT).
 */
export function planAutopayCycle(deps: Deps) {
  return async (input: AutopayWorkflowInput): Promise<AutopayPlan> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const enrolment = await currentAutopayRow(tx, input.tenantId, input.loanId);
      if (enrolment?.status !== 'ACTIVE') return { kind: 'END', reason: 'NO_ACTIVE_ENROLMENT' };
      const [loan] = await tx
        .select({ status: loans.status })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)));
      if (loan?.status !== 'ACTIVE') return { kind: 'END', reason: 'LOAN_NOT_ACTIVE' };
      const after = enrolment.id === input.enrolmentId ? input.lastInstallmentNumber : 0;
      const [next] = await tx
        .select({ installmentNumber: loanInstallments.installmentNumber, dueDate: loanInstallments.dueDate })
        .from(loanInstallments)
        .where(
          and(
            eq(loanInstallments.tenantId, input.tenantId),
            eq(loanInstallments.loanId, input.loanId),
            gt(loanInstallments.installmentNumber, after),
            gt(loanInstallments.dueDate, enrolment.enrolledOn),
          ),
        )
        .orderBy(asc(loanInstallments.installmentNumber))
        .limit(1);
      if (!next) return { kind: 'END', reason: 'NOTHING_LEFT' };
      return {
        kind: 'COLLECT',
        enrolmentId: enrolment.id,
        installmentNumber: next.installmentNumber,
        dueDate: next.dueDate,
        collectOn: autopayCollectionDateOf(next.dueDate, enrolment.daysBeforeDue),
      };
    });
}

/** Which installment of which enrolment `collectAutopayInstallment` collects. */
export interface CollectAutopayInput {
  tenantId: string;
  loanId: number;
  enrolmentId: number;
  installmentNumber: number;
}

/**
 * Collects one installment for an enrolment (docs/processes.md P1 Autopay), in one transaction under the loan's
 * row lock:
 * - the enrolment no longer ACTIVE → ENROLMENT_INACTIVE; the loan not ACTIVE → LOAN_NOT_ACTIVE (nothing written);
 * - an intent already created for (enrolment, installment) (request key `autopay/<enrolmentId>/<n>`) → CREATED
 *   with that intent (a retried activity);
 * - the amount: INSTALLMENT_DUE = what the installment still owes per the loan's stored state (due − paid −
 *   waived, every component), FIXED = `fixedAmount`; nothing owed → NOTHING_DUE;
 * - a PAYMENT_HOLD in force (customer-wide or on this loan; docs/design.md §5 Holds) → SKIPPED: an
 *   `AUTOPAY_INSTALLMENT_SKIPPED` effect and an `AUTOPAY_SKIPPED_REVIEW` task on the loan's autopay case (a GENERAL
 *   servicing case of the borrower, opened at the first skip of the enrolment and reused after);
 * - else the intent through `createPaymentIntentIn` (the rules and writes of `createPaymentIntent`, in a
 *   savepoint) with the enrolment's instrument and rail, source `AUTOPAY`, effectiveDate = the due date or today
 *   (UTC) if later → CREATED, with the intent's start spec (its start intent is stored too). Another refusal of
 *   the rules (instrument no longer eligible, amount above the outstanding) → SKIPPED the same way, reasonCode the
 *   refusal's code.
 * Idempotent per (enrolment, installment): the effect and task by dedupe keys, the intent by its request key.
 * Errors: 404 for an unknown loan or enrolment.
 */
export function collectAutopayInstallment(deps: Deps) {
  return async (input: CollectAutopayInput): Promise<AutopayCollection> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      const [enrolment] = await tx
        .select()
        .from(autopayEnrolments)
        .where(
          and(
            eq(autopayEnrolments.tenantId, input.tenantId),
            eq(autopayEnrolments.loanId, input.loanId),
            eq(autopayEnrolments.id, input.enrolmentId),
          ),
        );
      if (!enrolment) throw notFound('Autopay enrolment', input.enrolmentId);
      const requestKey = autopayRequestKeyOf(enrolment.id, input.installmentNumber);
      const [earlier] = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(and(eq(payments.tenantId, input.tenantId), eq(payments.requestKey, requestKey)));
      if (enrolment.status !== 'ACTIVE' && !earlier) return { outcome: 'ENROLMENT_INACTIVE' };
      if (loan.status !== 'ACTIVE' && !earlier) return { outcome: 'LOAN_NOT_ACTIVE' };
      const [installment] = await tx
        .select()
        .from(loanInstallments)
        .where(
          and(
            eq(loanInstallments.tenantId, input.tenantId),
            eq(loanInstallments.loanId, input.loanId),
            eq(loanInstallments.installmentNumber, input.installmentNumber),
          ),
        );
      if (!installment) throw notFound('Installment', input.installmentNumber);
      const now = deps.clock();
      const today = utcDateOf(now);
      const digits = minorUnitDigits(loan.currencyCode);
      let amount: string;
      if (enrolment.amountType === 'FIXED' && enrolment.fixedAmount !== null) {
        amount = formatMinor(minorOf(enrolment.fixedAmount, loan.currencyCode), digits);
      } else {
        const m = (value: string) => minorOf(value, loan.currencyCode);
        const owedMinor =
          m(installment.principalDue) +
          m(installment.interestDue) +
          m(installment.feeChargesDue) +
          m(installment.penaltyChargesDue) -
          m(installment.principalPaid) -
          m(installment.interestPaid) -
          m(installment.feeChargesPaid) -
          m(installment.penaltyChargesPaid) -
          m(installment.interestWaived) -
          m(installment.feeChargesWaived) -
          m(installment.penaltyChargesWaived);
        if (owedMinor <= 0n && !earlier) return { outcome: 'NOTHING_DUE' };
        amount = formatMinor(owedMinor > 0n ? owedMinor : 1n, digits);
      }
      if (!earlier) {
        const holds = await activeRestrictions(tx, input.tenantId, loan.clientId, loan.id, {
          at: now,
          types: ['PAYMENT_HOLD'],
        });
        if (holds.length > 0) {
          return skip(tx, {
            tenantId: input.tenantId,
            loan,
            enrolmentId: enrolment.id,
            installmentNumber: input.installmentNumber,
            dueDate: installment.dueDate,
            reasonCode: 'error.msg.loan.payment.hold.active',
            detail: `Restriction ${holds[0]!.restrictionId} (PAYMENT_HOLD) is in force.`,
            now,
          });
        }
      }
      try {
        const created = await tx.transaction((savepoint) =>
          createPaymentIntentIn(savepoint, deps, {
            tenantId: input.tenantId,
            loanId: loan.id,
            instrumentId: enrolment.instrumentId,
            amount,
            currency: loan.currencyCode,
            rail: enrolment.rail,
            effectiveDate: installment.dueDate > today ? installment.dueDate : today,
            source: autopaySource,
            requestKey,
            actor: null,
          }),
        );
        return { outcome: 'CREATED', paymentId: created.payment.paymentId, workflow: created.workflow };
      } catch (err) {
        if (!(err instanceof DomainError) || err.code.startsWith('validation.')) throw err;
        return skip(tx, {
          tenantId: input.tenantId,
          loan,
          enrolmentId: enrolment.id,
          installmentNumber: input.installmentNumber,
          dueDate: installment.dueDate,
          reasonCode: err.code,
          detail: err.message,
          now,
        });
      }
    });
}

/** Records a skipped installment: the loan's autopay case (opened or reused), an effect and a task. */
async function skip(
  tx: Tx,
  args: {
    tenantId: string;
    loan: { id: number; accountNo: string; clientId: number };
    enrolmentId: number;
    installmentNumber: number;
    dueDate: string;
    reasonCode: string;
    detail: string;
    now: Date;
  },
): Promise<AutopayCollection> {
  const caseId = await autopayCaseOf(tx, args);
  const dedupeKey = `${autopayRequestKeyOf(args.enrolmentId, args.installmentNumber)}/skipped`;
  const task = await openTask(tx, {
    tenantId: args.tenantId,
    caseId,
    taskType: 'AUTOPAY_SKIPPED_REVIEW',
    title: `Autopay skipped installment ${args.installmentNumber} (due ${args.dueDate}) of loan ${args.loan.accountNo}`,
    subjectType: 'autopay_enrolment',
    subjectId: args.enrolmentId,
    dueAt: null,
    dedupeKey,
  });
  await recordEffect(tx, {
    tenantId: args.tenantId,
    caseId,
    effectType: 'AUTOPAY_INSTALLMENT_SKIPPED',
    subjectType: 'autopay_enrolment',
    subjectId: args.enrolmentId,
    detail: {
      enrolmentId: args.enrolmentId,
      loanId: args.loan.id,
      installmentNumber: args.installmentNumber,
      dueDate: args.dueDate,
      reasonCode: args.reasonCode,
      reason: args.detail,
      taskId: task.id,
    },
    occurredAt: args.now,
    dedupeKey,
  });
  return { outcome: 'SKIPPED', reasonCode: args.reasonCode, taskId: task.id };
}

/**
 * The servicing case that holds an enrolment's skips: a GENERAL case of the borrower (customerRef = the
 * customer's externalId, else its id), opened at the first skip under the request key `autopay/<enrolmentId>` (with
 * its CASE_OPENED effect) and reused by later ones.
 */
async function autopayCaseOf(
  tx: Tx,
  args: { tenantId: string; loan: { accountNo: string; clientId: number }; enrolmentId: number; now: Date },
): Promise<number> {
  const requestKey = `autopay/${args.enrolmentId}`;
  const [customer] = await tx
    .select({ id: customers.id, externalId: customers.externalId })
    .from(customers)
    .where(and(eq(customers.tenantId, args.tenantId), eq(customers.id, args.loan.clientId)));
  const customerRef = customer?.externalId ?? String(args.loan.clientId);
  const [created] = await tx
    .insert(cases)
    .values({
      tenantId: args.tenantId,
      customerRef,
      caseTypeCode: 'GENERAL',
      summary: `Autopay of loan ${args.loan.accountNo}: skipped collections`,
      openedAt: args.now,
      updatedAt: args.now,
      requestKey,
    })
    .onConflictDoNothing({ target: [cases.tenantId, cases.requestKey] })
    .returning({ id: cases.id });
  if (!created) return (await rowOfRequestKey(tx, cases, args.tenantId, requestKey)).id;
  await recordEffect(tx, {
    tenantId: args.tenantId,
    caseId: created.id,
    effectType: 'CASE_OPENED',
    subjectType: 'case',
    subjectId: created.id,
    detail: { caseTypeCode: 'GENERAL', customerRef, autopayEnrolmentId: args.enrolmentId },
    occurredAt: args.now,
    dedupeKey: `case/${created.id}/opened`,
  });
  return created.id;
}
