/**
 * The status change of a payment intent shared by its operations (docs/design.md §5 statuses; docs/processes.md P1):
 * `transition` locks the loan then the payment (the lock order of every money event, db/queries/lending/loans.ts
 * `lockLoanForMoney`), checks the change, appends one `payment_status_history` row (`appendHistory`), reposts the
 * loan for POSTED and RETURNED (repost-loan.ts) and writes the `payment.posted` / `payment.returned` /
 * `payment.failed` event, in one transaction. Each change is idempotent: a payment already in the target status is
 * answered as it stands.
 */
import { and, eq } from 'drizzle-orm';
import { type LoanForMoney, lockLoanForMoney } from '../../db/queries/lending/loans';
import { type PaymentIntentView, paymentViewOf } from '../../db/queries/payments/payments';
import { paymentStatusHistory, payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import { canTransition, type PaymentStatus } from '../../domain/payments/payment-intent';
import type { Deps } from '../deps';
import { repostLoan } from '../lending/repost-loan';
import { writeOutboxEvent } from '../platform/outbox';

/** A `payments` row as stored. */
export type PaymentRow = typeof payments.$inferSelect;

/** Appends one `payment_status_history` row: payment `row` reached `status` at `at`, with `detail` (no account data). */
export async function appendHistory(
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

/** The NSF fee a return added (`payment.returned` data `nsfFee`): the loan charge, its amount and currency. */
export interface NsfFeeAdded {
  loanChargeId: number;
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
}

/**
 * Runs after a return's repost, in its transaction, with the loan as the repost left it (its status): adds the
 * NSF fee when one is due (return-payment.ts), or answers null.
 */
export type AfterReturn = (
  tx: Tx,
  loan: LoanForMoney,
  row: PaymentRow,
  now: Date,
) => Promise<NsfFeeAdded | null>;

/**
 * Moves payment `ref` to `to` under the locks, appending history; a payment already in `to` is answered as it
 * stands (a retried activity). `apply` writes what the change carries; `afterReturn` (RETURNED only) what follows
 * the return's repost (the NSF fee). 409
 * `error.msg.payment.invalid.state.transition` when the status does not allow it; 404 for an unknown payment.
 */
export async function transition(
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
  afterReturn?: AfterReturn,
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
    let nsfFee: NsfFeeAdded | null = null;
    if (to === 'POSTED' || to === 'RETURNED') {
      const repost = await repostLoan(tx, { tenantId: ref.tenantId, loan, now });
      if (to === 'RETURNED' && afterReturn) {
        nsfFee = await afterReturn(tx, { ...loan, status: repost.status }, updated, now);
      }
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
        data: { ...common, status: 'RETURNED', returnCode: view.returnCode ?? '', nsfFee },
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
