/**
 * Creates a payment intent (OpenAPI `POST /v1/loans/{loanId}/payments`, docs/design.md §5 Rejections: "amount plus
 * in-flight intents must not exceed total outstanding"; docs/design.md §5; docs/processes.md P1): `createPaymentIntent`,
 * and `createPaymentIntentIn` (the same inside the caller's transaction, for autopay collections). Also
 * `assertInstrumentEligible`, the instrument rule the intent checks and autopay enrolment reuses. The status changes
 * that follow are one file each (mark-payment-submitted.ts, fail-payment-intent.ts, cancel-payment-intent.ts,
 * post-settled-payment.ts, return-payment.ts) over payment-status-changes.ts. The rail call itself is never in these
 * operations (docs/design.md §1: record intent → call → record outcome): see activities/payments/submit-payment-to-rail.ts.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { loanChargesForAllocation } from '../../db/queries/lending/loan-charges';
import { type LoanForMoney, lockLoanForMoney } from '../../db/queries/lending/loans';
import { loanPrincipalForgiveness } from '../../db/queries/lending/schedule-versions';
import { type PaymentIntentView, paymentViewOf } from '../../db/queries/payments/payments';
import { fundings, loanInstallments, loanParties, paymentInstruments, payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, validationError } from '../../domain/errors';
import { outstandingSummary } from '../../domain/lending/allocation/summary';
import { allocationInputOf, allocationStrategyOf, minorOf } from '../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import {
  inFlightPaymentStatuses,
  type PaymentIntentWorkflowInput,
  type PaymentRailCode,
  paymentIntentStartSpec,
  paymentRails,
} from '../../domain/payments/payment-intent';
import { assertEffectiveDateAllowed } from '../../domain/payments/rails';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps, OperationContext } from '../deps';
import { assertIsoDate, moneyOfInput, utcDateOf } from '../lending/loan-money';
import { recordStartIntent } from '../platform/start-intents';
import { appendHistory, type PaymentRow } from './payment-status-changes';

export interface CreatePaymentIntentInput extends OperationContext {
  loanId: number;
  /** A payment instrument of the borrower or a co-borrower (VERIFIED and ACTIVE). */
  instrumentId: number;
  /** Decimal string > 0 with at most the currency's digits. */
  amount: string;
  /** ISO 4217; must be the loan's. */
  currency: string;
  rail: string;
  /** ISO date the payment is value-dated to when it posts; within the rail's bounds (domain/payments/rails.ts). */
  effectiveDate: string;
  /** Originating system or actor (free text; never an identifier or account number). */
  source: string;
}

export interface CreatePaymentIntentResult {
  payment: PaymentIntentView;
  /** The workflow to start after commit (also stored as a start intent). */
  workflow: { workflowId: string; input: PaymentIntentWorkflowInput };
  /** True when this call created it; false when the same request key found the intent created before. */
  created: boolean;
}

/**
 * Creates a payment intent (docs/lending.md "Lending core"; docs/processes.md P1). One transaction under the loan's
 * row lock: the loan ACTIVE; the currency the loan's; the instrument the tenant's, VERIFIED and ACTIVE and owned
 * by the borrower or a CO_BORROWER party of the loan; no PAYMENT_HOLD in force for the borrower (customer-wide or
 * on this loan); `amount` + the loan's intents in flight (CREATED, SUBMITTED) ≤ its total outstanding (the
 * summary's `totalOutstanding` at the later of today and `effectiveDate`). Then it stores the payment (status
 * CREATED, the reservation), its first history item and the start intent of `payment-intent/<tenant>/<paymentId>`
 * (the API starts the workflow after commit; the start-intent relay does if the process dies first).
 *
 * Idempotent by `requestKey` (`<clientId>/<Idempotency-Key>`): the same key returns the intent as it stands with
 * `created: false`.
 *
 * Errors: 400 `validation.msg.validation.errors.exist` naming `rail` (unknown), `amount` (malformed, ≤ 0, too many
 * decimals), `currency` (unknown), `effectiveDate` (malformed, or outside the rail's bounds around today in UTC:
 * domain/payments/rails.ts `assertEffectiveDateAllowed`, e.g. not in the past but for a CHECK received up to five
 * business days ago, at most 30 days ahead), `source` (empty or identifier-looking); 400
 * `validation.msg.payment.currency.mismatch`; 404 for a loan that is not the tenant's; 409
 * `error.msg.loan.invalid.state.transition` unless the loan is ACTIVE; 409 `error.msg.payment.instrument.not.eligible`;
 * 409 `error.msg.loan.payment.hold.active`; 409 `error.msg.loan.payment.amount.exceeds.outstanding`.
 */
export function createPaymentIntent(deps: Deps) {
  return async (input: CreatePaymentIntentInput): Promise<CreatePaymentIntentResult> => {
    checkIntentInput(input);
    return withTenantTransaction(deps.db, input.tenantId, (tx) => createPaymentIntentIn(tx, deps, input));
  };
}

/** The checks of `createPaymentIntent` that need no database (400s); returns the rail and the amount. */
function checkIntentInput(input: CreatePaymentIntentInput) {
  if (!(paymentRails as readonly string[]).includes(input.rail)) {
    throw validationError('rail', input.rail, `rail must be one of ${paymentRails.join(', ')}.`);
  }
  const rail = input.rail as PaymentRailCode;
  assertNoSensitiveData('source', input.source);
  if (input.source.trim() === '') throw validationError('source', input.source, 'source must not be empty.');
  const money = moneyOfInput(input.amount, input.currency);
  assertIsoDate('effectiveDate', input.effectiveDate);
  return { rail, money };
}

/**
 * `createPaymentIntent` inside the caller's transaction `tx` (the same rules, the same writes, the same errors;
 * it takes the loan's row lock itself): for operations that create an intent as part of a larger change, such as
 * an autopay collection (activities/payments/collect-autopay-installment.ts), which runs it in a savepoint so that a refusal can be
 * recorded instead.
 */
export async function createPaymentIntentIn(
  tx: Tx,
  deps: Deps,
  input: CreatePaymentIntentInput,
): Promise<CreatePaymentIntentResult> {
  const { rail, money } = checkIntentInput(input);
  const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
  const now = deps.clock();
  if (input.requestKey) {
    const [earlier] = await tx
      .select()
      .from(payments)
      .where(and(eq(payments.tenantId, input.tenantId), eq(payments.requestKey, input.requestKey)));
    if (earlier) return { ...resultOf(earlier, loan, deps), created: false };
  }
  if (loan.status !== 'ACTIVE') {
    throw new DomainError(
      'error.msg.loan.invalid.state.transition',
      `Loan ${loan.id} is ${loan.status}: payment intents can be created for an ACTIVE loan only.`,
    );
  }
  if (input.currency !== loan.currencyCode) {
    const message = `currency ${input.currency} differs from the loan's currency ${loan.currencyCode}.`;
    throw new DomainError('validation.msg.payment.currency.mismatch', message, {
      errors: [fieldError('currency', input.currency, message, 'validation.msg.payment.currency.mismatch')],
    });
  }
  const today = utcDateOf(now);
  assertEffectiveDateAllowed(rail, input.effectiveDate, today);
  await assertInstrumentEligible(tx, input.tenantId, loan, input.instrumentId);
  const holds = await activeRestrictions(tx, input.tenantId, loan.clientId, loan.id, {
    at: now,
    types: ['PAYMENT_HOLD'],
  });
  if (holds.length > 0) {
    throw new DomainError(
      'error.msg.loan.payment.hold.active',
      `Restriction ${holds[0]!.restrictionId} (PAYMENT_HOLD) is active for the borrower of loan ${loan.id}.`,
    );
  }
  const outstandingMinor = await totalOutstandingMinor(
    tx,
    input.tenantId,
    loan,
    input.effectiveDate > today ? input.effectiveDate : today,
  );
  const [inFlight] = await tx
    .select({ total: sql<string>`coalesce(sum(${payments.amount}), 0)::text` })
    .from(payments)
    .where(
      and(
        eq(payments.tenantId, input.tenantId),
        eq(payments.loanId, loan.id),
        inArray(payments.status, [...inFlightPaymentStatuses]),
      ),
    );
  const inFlightMinor = minorOf(inFlight?.total ?? '0', loan.currencyCode);
  if (money.minor + inFlightMinor > outstandingMinor) {
    const digits = minorUnitDigits(loan.currencyCode);
    throw new DomainError(
      'error.msg.loan.payment.amount.exceeds.outstanding',
      `amount ${money.text} plus ${formatMinor(inFlightMinor, digits)} in flight exceeds the total outstanding ${formatMinor(outstandingMinor, digits)} of loan ${loan.id}.`,
    );
  }
  const [row] = await tx
    .insert(payments)
    .values({
      tenantId: input.tenantId,
      loanId: loan.id,
      amount: money.text,
      currencyCode: loan.currencyCode,
      effectiveDate: input.effectiveDate,
      status: 'CREATED',
      source: input.source,
      rail,
      instrumentId: input.instrumentId,
      requestKey: input.requestKey ?? null,
      actorUsername: input.actor ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('payment insert returned nothing');
  await appendHistory(tx, row, 'CREATED', now, { rail, instrumentId: input.instrumentId });
  const result = resultOf(row, loan, deps);
  await recordStartIntent(tx, paymentIntentStartSpec(result.workflow.input), now);
  return { ...result, created: true };
}

function resultOf(
  row: PaymentRow,
  loan: LoanForMoney,
  deps: Deps,
): Omit<CreatePaymentIntentResult, 'created'> {
  const payment = paymentViewOf(row, loan.accountNo);
  const input: PaymentIntentWorkflowInput = {
    tenantId: row.tenantId,
    paymentId: row.id,
    loanId: row.loanId,
    loanRef: loan.accountNo,
    rail: payment.rail ?? 'ACH',
    amount: payment.amount,
    currency: payment.currency,
    effectiveDate: payment.effectiveDate,
    sandboxTimeline: deps.environment === 'sandbox',
  };
  return { payment, workflow: { workflowId: paymentIntentStartSpec(input).workflowId, input } };
}

/**
 * 409 `error.msg.payment.instrument.not.eligible` (naming `instrumentId`) unless instrument `instrumentId` may be
 * debited for `loan`: the tenant's, VERIFIED and ACTIVE, owned by the borrower or a CO_BORROWER party of the loan
 * (docs/processes.md P1). Used by payment intents and autopay enrolment.
 */
export async function assertInstrumentEligible(
  tx: Tx,
  tenantId: string,
  loan: LoanForMoney,
  instrumentId: number,
): Promise<void> {
  const [instrument] = await tx
    .select()
    .from(paymentInstruments)
    .where(and(eq(paymentInstruments.tenantId, tenantId), eq(paymentInstruments.id, instrumentId)));
  const refuse = (why: string) => {
    throw new DomainError(
      'error.msg.payment.instrument.not.eligible',
      `Payment instrument ${instrumentId} ${why}.`,
      {
        errors: [
          fieldError(
            'instrumentId',
            instrumentId,
            `instrumentId ${why}.`,
            'error.msg.payment.instrument.not.eligible',
          ),
        ],
      },
    );
  };
  if (!instrument) return refuse('does not exist');
  if (instrument.verificationStatus !== 'VERIFIED' || instrument.state !== 'ACTIVE') {
    return refuse(`is ${instrument.verificationStatus} and ${instrument.state}, not VERIFIED and ACTIVE`);
  }
  if (instrument.customerId === loan.clientId) return;
  const [coBorrower] = await tx
    .select({ id: loanParties.id })
    .from(loanParties)
    .where(
      and(
        eq(loanParties.tenantId, tenantId),
        eq(loanParties.loanId, loan.id),
        eq(loanParties.customerId, instrument.customerId),
        eq(loanParties.role, 'CO_BORROWER'),
      ),
    );
  if (!coBorrower) refuse("is not the borrower's or a co-borrower's");
}

/** The loan's total outstanding (minor units) at the end of `asOfDate`: the summary's figure, from the posted money. */
async function totalOutstandingMinor(
  tx: Tx,
  tenantId: string,
  loan: LoanForMoney,
  asOfDate: string,
): Promise<bigint> {
  const [installmentRows, fundingRows, paymentRows, forgivenessRows, chargeRows] = await Promise.all([
    tx
      .select()
      .from(loanInstallments)
      .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loan.id)))
      .orderBy(asc(loanInstallments.installmentNumber)),
    tx
      .select({ id: fundings.id, valueDate: fundings.fundingDate, amount: fundings.amount })
      .from(fundings)
      .where(and(eq(fundings.tenantId, tenantId), eq(fundings.loanId, loan.id))),
    tx
      .select({
        id: payments.id,
        valueDate: payments.effectiveDate,
        amount: payments.amount,
        recordedAt: payments.createdAt,
      })
      .from(payments)
      .where(
        and(eq(payments.tenantId, tenantId), eq(payments.loanId, loan.id), eq(payments.status, 'POSTED')),
      ),
    loanPrincipalForgiveness(tx, tenantId, loan.id),
    loanChargesForAllocation(tx, tenantId, loan.id),
  ]);
  const summary = outstandingSummary(
    allocationInputOf({
      currency: loan.currencyCode,
      installments: installmentRows,
      fundings: fundingRows,
      payments: paymentRows,
      strategy: allocationStrategyOf(loan.transactionProcessingStrategyCode, loan.paymentAllocation),
      disbursementChargesDue: loan.disbursementChargesDue,
      principalForgiveness: forgivenessRows,
      loanCharges: chargeRows,
    }),
    asOfDate,
  );
  return summary.outstanding.totalMinor;
}
