import { and, eq, inArray } from 'drizzle-orm';
import { insertJsonRowsReturning } from '../../db/queries/json-rows';
import type { NewInstallmentRow } from '../../db/queries/lending/installments';
import { type LoanForMoney, lockLoanForMoney, type StoredLoanTerms } from '../../db/queries/lending/loans';
import { payments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, type ShapeABody, shapeAOf } from '../../domain/errors';
import type { ExternalFunding } from '../../domain/lending/schemas/fundings';
import type { ExternalPayment } from '../../domain/payments/schemas/recorded-payments';
import type { Deps, OperationContext } from '../deps';
import { flushLoanChunkEvents, type LoanChunk } from '../lending/loan-chunk';
import {
  checkFundingInput,
  type RecordExternalFundingResult,
  recordFundingOfLockedLoan,
} from '../lending/record-external-funding';
import { type RepostFundingRow, type RepostPaymentRow, repostLoan } from '../lending/repost-loan';
import { type OutboxEventInput, writeOutboxEvents } from '../platform/outbox';
import {
  assertNewPaymentRules,
  checkPaymentFields,
  newPaymentRowOf,
  type PaymentRow,
  paymentContentDigestOf,
  paymentPostedEventOf,
  type RecordExternalPaymentResult,
  replayOf,
  resultOf,
} from './external-payments';

/** One payment of a history: the fields of `RecordExternalPaymentInput` without the loan and the context. */
export type HistoricalPaymentInput = ExternalPayment;

export interface RecordExternalPaymentHistoryInput extends OperationContext {
  loanId: number;
  /**
   * The loan's fundings not yet recorded, in value-date order, recorded first in the same transaction with
   * `recordExternalFunding`'s rules and events, and reposted together with the payments (boarding: one repost per
   * loan for its whole money history). Absent: none.
   */
  fundings?: ExternalFunding[];
  /** The loan's payments, in chronological order (the order one-by-one recording would use). */
  payments: HistoricalPaymentInput[];
}

/** The outcome of one payment of the history, in input order. */
export type HistoricalPaymentOutcome =
  | { externalRecordRef: string; ok: true; payment: RecordExternalPaymentResult }
  | { externalRecordRef: string; ok: false; error: ShapeABody };

/** The outcome of one funding of the history, in input order. */
export type HistoricalFundingOutcome =
  | { externalRecordRef: string; ok: true; funding: RecordExternalFundingResult }
  | { externalRecordRef: string; ok: false; error: ShapeABody };

export interface RecordExternalPaymentHistoryResult {
  loanId: number;
  /** The fundings' outcomes, in input order (empty without `fundings`). */
  fundingOutcomes: HistoricalFundingOutcome[];
  /** The loan's `accountNo` (the OpenAPI document's `loanRef`). */
  loanRef: string;
  outcomes: HistoricalPaymentOutcome[];
}

/**
 * Records a loan's whole payment history at once (portfolio boarding, docs/processes.md P3 "one ledger repost per
 * loan, not per payment"): the same rules, results and events as calling `recordExternalPayment` for
 * each payment in turn, but ONE allocation and journal repost (repost-loan.ts) for the loan instead of one per
 * payment. Because the repost replays every money event of the loan in value-date order and appends only the
 * difference to the journal, the loan, its installments, every payment's allocation and the journal's lines end
 * exactly as one-by-one recording in chronological order leaves them (test/activities/boarding.test.ts compares
 * both on twin loans).
 *
 * One transaction under the loan's row lock (`lockLoanForMoney`). Each payment is checked by the rule set
 * `recordExternalPayment` uses (external-payments.ts: `checkPaymentFields` — sensitive-looking `externalRecordRef` /
 * `rationale`, amount and currency, ISO `effectiveDate`; `assertNewPaymentRules` — the loan ACTIVE, its currency,
 * `effectiveDate` not in the future and not before the first funding), stored as the same row (`newPaymentRowOf`)
 * and deduplicated by `externalRecordRef` with the same content digest (`paymentContentDigestOf`: the same content
 * replays the recorded payment, `created: false`; other content → 409 `error.msg.external.record.ref.conflict`). A payment that fails a rule fails alone: its outcome
 * carries the Shape A error (`ok: false`) and the others are recorded. Every new payment writes `payment.posted`
 * to the outbox, as one-by-one recording would.
 *
 * Differences from one-by-one recording: the loan's state is checked once, before the history (it must be ACTIVE,
 * else every new payment fails with 409 `error.msg.loan.invalid.state.transition`); a payment dated after the
 * loan was paid off by an earlier payment of the same history is therefore recorded (the loan ends OVERPAID)
 * where one-by-one recording would refuse it (the loan being closed by then).
 *
 * Errors (thrown, nothing recorded): 404 when the tenant has no such loan.
 */
export function recordExternalPaymentHistory(deps: Deps) {
  return async (input: RecordExternalPaymentHistoryInput): Promise<RecordExternalPaymentHistoryResult> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) =>
      recordExternalPaymentHistoryInTx(tx, input, deps.clock()),
    );
}

/**
 * `recordExternalPaymentHistory` inside the caller's tenant transaction `tx` (the same rules, rows, events and
 * outcomes; `now` is the operation's clock reading), for an operation that boards a loan and its history in one
 * transaction (activities/lending/board-loan.ts); `options` (`HistoryInTxOptions`) say what the caller's transaction
 * already holds. Errors: those of `recordExternalPaymentHistory`.
 */
export async function recordExternalPaymentHistoryInTx(
  tx: Tx,
  input: RecordExternalPaymentHistoryInput,
  now: Date,
  options: HistoryInTxOptions = {},
): Promise<RecordExternalPaymentHistoryResult> {
  const { chunk } = options;
  const fresh = options.createdInThisTransaction === true;
  const locked =
    options.lockedLoan && options.lockedLoan.id === input.loanId
      ? options.lockedLoan
      : await lockLoanForMoney(tx, input.tenantId, input.loanId);
  const fundingOutcomes: HistoricalFundingOutcome[] = [];
  let fundedNow = 0;
  let firstFundingDate = locked.disbursedOnDate;
  // A loan created in this transaction has exactly the fundings recorded below.
  const fundedSoFar = fresh ? { totalMinor: 0n, earliestDate: null as string | null } : null;
  const installmentsNow = fresh && options.installments ? { rows: options.installments } : null;
  // A chunk's new loan: every money row it gets is inserted below, so the repost is handed them (not read back).
  const insertedRows =
    chunk && installmentsNow
      ? { fundings: [] as RepostFundingRow[], payments: [] as RepostPaymentRow[] }
      : null;
  for (const funding of input.fundings ?? []) {
    try {
      const money = checkFundingInput({ ...funding, tenantId: input.tenantId, loanId: locked.id });
      const result = await recordFundingOfLockedLoan(
        tx,
        { ...funding, tenantId: input.tenantId, loanId: locked.id, actor: input.actor ?? null },
        money,
        locked,
        now,
        {
          repost: false,
          createdInThisTransaction: fresh,
          ...(chunk ? { chunk } : {}),
          ...(options.loanTerms ? { loanTerms: options.loanTerms } : {}),
          ...(fundedSoFar ? { fundedSoFar: { ...fundedSoFar } } : {}),
          ...(installmentsNow ? { installments: installmentsNow } : {}),
          ...(insertedRows ? { insertedRows } : {}),
        },
      );
      if (result.created && fundedSoFar) {
        fundedSoFar.totalMinor += money.minor;
        if (fundedSoFar.earliestDate === null || result.fundingDate < fundedSoFar.earliestDate)
          fundedSoFar.earliestDate = result.fundingDate;
      }
      if (result.created) {
        fundedNow += 1;
        if (firstFundingDate === null || result.fundingDate < firstFundingDate) {
          firstFundingDate = result.fundingDate;
        }
      }
      fundingOutcomes.push({ externalRecordRef: funding.externalRecordRef, ok: true, funding: result });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      fundingOutcomes.push({
        externalRecordRef: funding.externalRecordRef,
        ok: false,
        error: shapeAOf(err),
      });
    }
  }
  // The payments' rules see the loan as the repost below will leave it: ACTIVE from its first funding.
  const loan =
    fundedNow > 0 && (locked.status === 'APPROVED' || locked.status === 'ACTIVE')
      ? { ...locked, status: 'ACTIVE' as const, disbursedOnDate: firstFundingDate }
      : locked;
  const refs = input.payments.map((p) => p.externalRecordRef);
  const earlierRows: PaymentRow[] =
    refs.length === 0 || (chunk && !refs.some((ref) => chunk.storedPaymentRefs.has(ref)))
      ? []
      : await tx
          .select()
          .from(payments)
          .where(and(eq(payments.tenantId, input.tenantId), inArray(payments.externalRecordRef, refs)));
  const byRef = new Map<string, PaymentRow>(earlierRows.map((r) => [r.externalRecordRef ?? '', r]));

  const outcomes: (HistoricalPaymentOutcome | { externalRecordRef: string; pending: PaymentRow })[] = [];
  const created: PaymentRow[] = [];
  const toInsert: {
    values: typeof payments.$inferInsert & { externalRecordRef: string };
    standIn: PaymentRow;
    contentDigest: string;
  }[] = [];
  for (const payment of input.payments) {
    try {
      const checked = checkPaymentFields(payment);
      const contentDigest = paymentContentDigestOf(loan.id, payment, checked);
      const earlier = byRef.get(payment.externalRecordRef);
      if (earlier) {
        if (created.includes(earlier)) {
          // The same ref twice in this history: a replay of the first (or a conflict), as one by one.
          replayOf(earlier, contentDigest, loan);
          outcomes.push({ externalRecordRef: payment.externalRecordRef, pending: earlier });
        } else {
          outcomes.push({
            externalRecordRef: payment.externalRecordRef,
            ok: true,
            payment: replayOf(earlier, contentDigest, loan),
          });
        }
        continue;
      }
      assertNewPaymentRules(loan, payment, now);
      const values = newPaymentRowOf(
        input.tenantId,
        loan.id,
        payment,
        checked,
        contentDigest,
        input.actor ?? null,
        now,
      );
      // Inserted with the others in one statement below; a stand-in row until then.
      const standIn = { ...values, id: 0 } as unknown as PaymentRow;
      toInsert.push({ values, standIn, contentDigest });
      byRef.set(payment.externalRecordRef, standIn);
      created.push(standIn);
      outcomes.push({ externalRecordRef: payment.externalRecordRef, pending: standIn });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      outcomes.push({ externalRecordRef: payment.externalRecordRef, ok: false, error: shapeAOf(err) });
    }
  }
  if (toInsert.length > 0) {
    // One jsonb parameter for the history's payments (db/queries/json-rows.ts), rows as `.returning()` gives them.
    const inserted = await insertJsonRowsReturning(
      tx,
      payments,
      toInsert.map((t) => t.values),
      { onConflictDoNothing: { target: [payments.tenantId, payments.externalRecordRef] } },
    );
    const insertedByRef = new Map(inserted.map((r) => [r.externalRecordRef ?? '', r]));
    for (const item of toInsert) {
      const ref = item.values.externalRecordRef;
      const fresh = insertedByRef.get(ref);
      let replacement: PaymentRow | null = fresh ?? null;
      let replay: ReturnType<typeof replayOf> | null = null;
      if (!fresh) {
        // Committed meanwhile by a call on another loan (this loan's lock excludes this one's).
        const [winner] = await tx
          .select()
          .from(payments)
          .where(and(eq(payments.tenantId, input.tenantId), eq(payments.externalRecordRef, ref)));
        if (!winner) throw new Error('payment vanished after an externalRecordRef conflict');
        replay = replayOf(winner, item.contentDigest, loan);
        replacement = null;
      }
      const at = created.indexOf(item.standIn);
      if (replacement) created[at] = replacement;
      else created.splice(at, 1);
      for (let i = 0; i < outcomes.length; i += 1) {
        const o = outcomes[i];
        if (!o || !('pending' in o) || o.pending !== item.standIn) continue;
        outcomes[i] = replacement
          ? { externalRecordRef: ref, pending: replacement }
          : { externalRecordRef: ref, ok: true, payment: replay as ReturnType<typeof replayOf> };
      }
    }
  }

  // Handed to the repost only when every funding was inserted (a refused one may have left a row behind).
  const known =
    insertedRows && installmentsNow && fundingOutcomes.every((o) => o.ok && o.funding.created)
      ? {
          installments: installmentsNow.rows,
          fundings: insertedRows.fundings,
          payments: [
            ...insertedRows.payments,
            ...created.map((row) => ({
              id: row.id,
              valueDate: row.effectiveDate,
              amount: row.amount,
              allocation: row.allocation,
            })),
          ],
        }
      : undefined;
  const tagContext =
    known && chunk && options.loanTerms && locked.lastClosedBusinessDate !== null
      ? await chunk.tagContextOf(tx, options.loanTerms as unknown as Record<string, unknown>)
      : undefined;
  const allocations =
    created.length > 0 || fundedNow > 0
      ? (
          await repostLoan(tx, {
            tenantId: input.tenantId,
            loan: locked,
            now,
            createdInThisTransaction: fresh,
            chartReady: chunk?.chartReady === true,
            ...(known && chunk ? { known, deferWrites: chunk.reposts } : {}),
            ...(tagContext ? { tagContext } : {}),
            // A tag change writes its event and history at once: the chunk's held-back ones go first.
            ...(chunk ? { beforeDirectWrites: () => flushLoanChunkEvents(tx, chunk) } : {}),
          })
        ).allocations
      : null;
  const finished: HistoricalPaymentOutcome[] = [];
  const firstOfRow = new Set<number>();
  const events: OutboxEventInput<'payment.posted'>[] = [];
  for (const outcome of outcomes) {
    if (!('pending' in outcome)) {
      finished.push(outcome);
      continue;
    }
    const row = outcome.pending;
    const allocation = allocations?.get(row.id);
    if (!allocation) throw new Error(`payment ${row.id} was not allocated`);
    const isNew = !firstOfRow.has(row.id);
    firstOfRow.add(row.id);
    const result = resultOf({ ...row, allocation: { ...allocation } }, loan, isNew);
    finished.push({ externalRecordRef: outcome.externalRecordRef, ok: true, payment: result });
    if (!isNew) continue;
    events.push(paymentPostedEventOf(input.tenantId, result, now));
  }
  await writeOutboxEvents(tx, events, chunk?.outbox);
  return { loanId: loan.id, loanRef: loan.accountNo, fundingOutcomes, outcomes: finished };
}

/** How `recordExternalPaymentHistoryInTx` runs inside its caller's transaction. */
export interface HistoryInTxOptions {
  /** The loan as the caller holds it locked in this transaction (`lockLoanForMoney`'s shape); not read again. */
  lockedLoan?: LoanForMoney;
  /** Its stored terms as the caller holds them in this transaction; not read again by the fundings. */
  loanTerms?: StoredLoanTerms;
  /** Its installment rows as the caller stored them in this transaction; not read again by the fundings. */
  installments?: NewInstallmentRow[];
  /**
   * The loan was created in this transaction (boarding): it has no journal, added charge, relief or charge-off yet,
   * so the repost does not read them (repost-loan.ts `createdInThisTransaction`).
   */
  createdInThisTransaction?: boolean;
  /** The boarding chunk (activities/lending/loan-chunk.ts): events buffered in it, its chart of accounts ready. */
  chunk?: LoanChunk;
}
