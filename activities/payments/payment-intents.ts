/**
 * Payment intents (spec § Lending core writes `POST /v1/loans/{loanId}/payments`, § States, § Limits
 * "amount plus in-flight intents must not exceed total outstanding"; docs/design.md §5 rejections, rails, statuses;
 * docs/processes.md P1). The operations the API and `paymentIntentWorkflow` run, one transaction each, each under
 * the loan's row lock (db/queries/lending/loans.ts `lockLoanForMoney`) so that every money event of one loan,
 * intents included, is serialized:
 * - `createPaymentIntent`: checks the rules, stores the intent (status CREATED: its amount is now reserved against
 *   the loan's total outstanding) with its first history item and the start intent of its workflow;
 * - `markPaymentSubmitted`, `failPaymentIntent`, `cancelPaymentIntent`: status changes that post nothing;
 * - `postSettledPayment`: SUBMITTED → POSTED through the same allocation and ledger path as record-external
 *   (repost-loan.ts, value-dated to `effectiveDate`), event `payment.posted`;
 * - `returnPayment`: POSTED → RETURNED, the allocation re-run without it (later payments re-allocated in date order,
 *   the journal appends only the difference), event `payment.returned`.
 * Each status change is idempotent (a retried activity finds the status already reached and answers the same) and
 * appends one `payment_status_history` row. The rail call itself is never in these operations (docs/design.md §1: record
 * intent → call → record outcome): see activities/payments/rail-calls.ts.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type LoanForMoney, lockLoanForMoney } from '../../db/queries/lending/loans';
import { loanPrincipalForgiveness } from '../../db/queries/lending/schedule-versions';
import { type PaymentIntentView, paymentViewOf } from '../../db/queries/payments/payments';
import {
  fundings,
  loanInstallments,
  loanParties,
  paymentInstruments,
  paymentStatusHistory,
  payments,
} from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError, notFound, validationError } from '../../domain/errors';
import { outstandingSummary } from '../../domain/lending/allocation/summary';
import { allocationInputOf, allocationStrategyOf, minorOf } from '../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import {
  canTransition,
  inFlightPaymentStatuses,
  type PaymentIntentWorkflowInput,
  type PaymentRailCode,
  type PaymentStatus,
  paymentIntentStartSpec,
  paymentRails,
} from '../../domain/payments/payment-intent';
import { assertEffectiveDateAllowed } from '../../domain/payments/rails';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps, OperationContext } from '../deps';
import { assertIsoDate, moneyOfInput, utcDateOf } from '../lending/loan-money';
import { repostLoan } from '../lending/repost-loan';
import { writeOutboxEvent } from '../platform/outbox';
import { recordStartIntent } from '../platform/start-intents';

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

type PaymentRow = typeof payments.$inferSelect;

/**
 * Creates a payment intent (spec § Lending core writes; docs/processes.md P1). One transaction under the loan's
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
 * an autopay collection (activities/payments/autopay.ts), which runs it in a savepoint so that a refusal can be
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
  const [installmentRows, fundingRows, paymentRows, forgivenessRows] = await Promise.all([
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
      .select({ id: payments.id, valueDate: payments.effectiveDate, amount: payments.amount })
      .from(payments)
      .where(
        and(eq(payments.tenantId, tenantId), eq(payments.loanId, loan.id), eq(payments.status, 'POSTED')),
      ),
    loanPrincipalForgiveness(tx, tenantId, loan.id),
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
    }),
    asOfDate,
  );
  return summary.outstanding.totalMinor;
}

async function appendHistory(
  tx: Tx,
  row: Pick<PaymentRow, 'tenantId' | 'id'>,
  status: PaymentStatus,
  at: Date,
  detail: Record<string, unknown>,
): Promise<void> {
  await tx
    .insert(paymentStatusHistory)
    .values({ tenantId: row.tenantId, paymentId: row.id, status, at, detail });
}

/** What every status change of the workflow names. */
export interface PaymentRef {
  tenantId: string;
  paymentId: number;
}

/**
 * Locks the loan of payment `ref` then the payment (the lock order of every money event) and returns both.
 * 404 when the tenant has no such payment.
 */
async function lockPayment(tx: Tx, ref: PaymentRef): Promise<{ loan: LoanForMoney; row: PaymentRow }> {
  const [found] = await tx
    .select({ loanId: payments.loanId })
    .from(payments)
    .where(and(eq(payments.tenantId, ref.tenantId), eq(payments.id, ref.paymentId)));
  if (!found) throw notFound('Payment', ref.paymentId);
  const loan = await lockLoanForMoney(tx, ref.tenantId, found.loanId);
  const [row] = await tx
    .select()
    .from(payments)
    .where(and(eq(payments.tenantId, ref.tenantId), eq(payments.id, ref.paymentId)))
    .for('update');
  if (!row) throw notFound('Payment', ref.paymentId);
  return { loan, row };
}

function invalidTransition(row: PaymentRow, to: PaymentStatus): DomainError {
  return new DomainError(
    'error.msg.payment.invalid.state.transition',
    `Payment ${row.id} is ${row.status}: it cannot become ${to}.`,
  );
}

/**
 * Moves payment `ref` to `to` under the locks, appending history; a payment already in `to` is answered as it
 * stands (a retried activity). `apply` writes what the change carries. 409
 * `error.msg.payment.invalid.state.transition` when the status does not allow it; 404 for an unknown payment.
 */
async function transition(
  deps: Deps,
  ref: PaymentRef,
  to: PaymentStatus,
  detail: Record<string, unknown>,
  apply: (
    tx: Tx,
    loan: LoanForMoney,
    row: PaymentRow,
    now: Date,
  ) => Promise<Partial<typeof payments.$inferInsert>>,
): Promise<PaymentIntentView> {
  return withTenantTransaction(deps.db, ref.tenantId, async (tx) => {
    const { loan, row } = await lockPayment(tx, ref);
    if (row.status === to) return paymentViewOf(row, loan.accountNo);
    if (!canTransition(row.status, to)) throw invalidTransition(row, to);
    const now = deps.clock();
    const changes = await apply(tx, loan, row, now);
    const [updated] = await tx
      .update(payments)
      .set({ ...changes, status: to, updatedAt: now })
      .where(and(eq(payments.tenantId, ref.tenantId), eq(payments.id, ref.paymentId)))
      .returning();
    if (!updated) throw new Error(`payment ${ref.paymentId} vanished under its lock`);
    await appendHistory(tx, updated, to, now, detail);
    if (to === 'POSTED' || to === 'RETURNED') {
      await repostLoan(tx, { tenantId: ref.tenantId, loan, now });
    }
    const view = paymentViewOf(updated, loan.accountNo);
    const common = {
      paymentId: view.paymentId,
      loanRef: view.loanRef,
      amount: view.amount,
      currency: view.currency,
      effectiveDate: view.effectiveDate,
    };
    if (to === 'POSTED') {
      await writeOutboxEvent(tx, {
        tenantId: ref.tenantId,
        eventType: 'payment.posted',
        subjectId: view.paymentId,
        data: { ...common, status: 'POSTED' },
        occurredAt: now,
        dedupeKey: `payment/${view.paymentId}/posted`,
      });
    } else if (to === 'RETURNED') {
      await writeOutboxEvent(tx, {
        tenantId: ref.tenantId,
        eventType: 'payment.returned',
        subjectId: view.paymentId,
        data: { ...common, status: 'RETURNED', returnCode: view.returnCode ?? '' },
        occurredAt: now,
        dedupeKey: `payment/${view.paymentId}/returned`,
      });
    } else if (to === 'FAILED') {
      await writeOutboxEvent(tx, {
        tenantId: ref.tenantId,
        eventType: 'payment.failed',
        subjectId: view.paymentId,
        data: { ...common, status: 'FAILED', reason: String(detail.reason ?? '') },
        occurredAt: now,
        dedupeKey: `payment/${view.paymentId}/failed`,
      });
    }
    return view;
  });
}

/** CREATED → SUBMITTED with the rail's `providerRef` (docs/design.md §5). Idempotent; 409 from another status. */
export function markPaymentSubmitted(deps: Deps) {
  return (input: PaymentRef & { providerRef: string }): Promise<PaymentIntentView> =>
    transition(deps, input, 'SUBMITTED', { providerRef: input.providerRef }, async () => ({
      providerRef: input.providerRef,
    }));
}

/**
 * CREATED or SUBMITTED → FAILED (declined or rejected at submission, failed by the rail before settlement, or closed
 * without posting by a reconciliation decision): the reservation is released, event `payment.failed`. `reason` is
 * free text kept in the history (never account data). Idempotent; 409 from another status.
 */
export function failPaymentIntent(deps: Deps) {
  return (input: PaymentRef & { reason: string }): Promise<PaymentIntentView> =>
    transition(deps, input, 'FAILED', { reason: input.reason }, async () => ({}));
}

/** CREATED → CANCELLED (before submission only; docs/design.md §5). Idempotent; 409 `error.msg.payment.invalid.state.transition` otherwise. */
export function cancelPaymentIntent(deps: Deps) {
  return (input: PaymentRef & { reason?: string | null }): Promise<PaymentIntentView> =>
    transition(deps, input, 'CANCELLED', { reason: input.reason ?? null }, async () => ({}));
}

/**
 * SUBMITTED → POSTED on settlement (docs/processes.md P1): the payment is posted value-dated to its `effectiveDate`
 * through the loan's allocation and the journal (repost-loan.ts, as record-external), event `payment.posted`.
 * `amount` is what is posted (decimal string): the intent's amount, or the settled amount when an operator resolved
 * a reconciliation exception with POST_AS_SETTLED (the intent's amount stays in the history). `settledOn` is the
 * rail's settlement date (ISO). Errors: 409 `error.msg.loan.invalid.state.transition` when the loan no longer
 * accepts payments (not ACTIVE): the workflow then opens a `SETTLED_NOT_POSTED` exception; 409 from a status other
 * than SUBMITTED; 400 for a malformed amount.
 */
export function postSettledPayment(deps: Deps) {
  return (input: PaymentRef & { amount: string; settledOn: string }): Promise<PaymentIntentView> =>
    transition(
      deps,
      input,
      'POSTED',
      { settledOn: input.settledOn, postedAmount: input.amount },
      async (_tx, loan, row) => {
        assertIsoDate('settledOn', input.settledOn);
        const money = moneyOfInput(input.amount, row.currencyCode);
        if (loan.status !== 'ACTIVE') {
          throw new DomainError(
            'error.msg.loan.invalid.state.transition',
            `Loan ${loan.id} is ${loan.status}: the settled payment ${row.id} cannot be posted automatically.`,
          );
        }
        return { amount: money.text, settledOn: input.settledOn };
      },
    );
}

/**
 * POSTED → RETURNED (docs/processes.md P1): the rail returned the money; the allocation is re-run without the
 * payment, as if it had never been applied (later payments re-allocated in date order; the journal appends only
 * the difference), event `payment.returned` with `returnCode`. Whether the return is inside the rail's window is
 * the workflow's decision (domain rails); this records it. Idempotent; 409 from another status.
 */
export function returnPayment(deps: Deps) {
  return (input: PaymentRef & { returnCode: string; returnedOn: string }): Promise<PaymentIntentView> =>
    transition(
      deps,
      input,
      'RETURNED',
      { returnCode: input.returnCode, returnedOn: input.returnedOn },
      async () => {
        assertIsoDate('returnedOn', input.returnedOn);
        return { returnCode: input.returnCode, returnedOn: input.returnedOn };
      },
    );
}
