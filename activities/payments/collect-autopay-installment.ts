/**
 * Collects one installment under autopay (docs/processes.md P1 Autopay; docs/design.md §5 Holds "PAYMENT_HOLD blocks
 * payment intents and autopay"): `collectAutopayInstallment`, called by `autopayWorkflow`. Under the loan's row lock, the
 * enrolment still ACTIVE → the payment intent through the same rules as `createPaymentIntent` (in a savepoint), or a
 * skip with a case effect and a task when a PAYMENT_HOLD is in force (or another rule refuses the intent). One
 * transaction.
 */
import { and, eq } from 'drizzle-orm';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import { autopayEnrolments, cases, customers, loanInstallments, payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import { minorOf } from '../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import { type AutopayCollection, autopayRequestKeyOf, autopaySource } from '../../domain/payments/autopay';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps } from '../deps';
import { utcDateOf } from '../lending/loan-money';
import { openTask, recordEffect, rowOfRequestKey } from '../servicing/records';
import { createPaymentIntentIn } from './create-payment-intent';

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
