import { and, asc, eq, sql } from 'drizzle-orm';
import { type NewInstallmentRow, replaceInstallmentRows } from '../../db/queries/lending/installments';
import { loanChargesForAllocation } from '../../db/queries/lending/loan-charges';
import { type LoanForMoney, lockLoanForMoney, type StoredLoanTerms } from '../../db/queries/lending/loans';
import { fundings, loanInstallments, loans, payments, reconciliationItems } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { latestDateInForce } from '../../domain/customers/customer';
import { DomainError, fieldError, validationError } from '../../domain/errors';
import { minorOf } from '../../domain/lending/loan-allocation';
import { scheduleOf } from '../../domain/lending/loan-terms/schedule-input';
import type { Schedule } from '../../domain/lending/schedule';
import type { ExternalFunding } from '../../domain/lending/schemas/fundings';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../domain/money';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps, OperationContext } from '../deps';
import {
  type PaymentRow,
  paymentPostedEventOf,
  resultOf as paymentResultOf,
} from '../payments/external-payments';
import { writeOutboxEvent } from '../platform/outbox';
import { installmentRowsOf } from './create-loan';
import type { LoanChunk } from './loan-chunk';
import { assertIsoDate, contentDigestOf, moneyOfInput } from './loan-money';
import { type RepostFundingRow, type RepostPaymentRow, repostLoan } from './repost-loan';

/** A funding recorded as external: the loan, the request context and the funding's fields (`ExternalFunding`). */
export interface RecordExternalFundingInput extends OperationContext, ExternalFunding {
  loanId: number;
}

/** The funding as recorded (also the answer to a replay). */
export interface RecordExternalFundingResult {
  fundingId: number;
  loanId: number;
  /** The loan's `accountNo` (spec `loanRef`). */
  loanRef: string;
  status: 'RECORDED_EXTERNAL';
  /** Decimal string with the currency's digits. */
  amount: string;
  currency: string;
  fundingType: string;
  recipientType: string;
  /** ISO date the disbursement is value-dated to. */
  fundingDate: string;
  /** True when this call recorded it, false for a replay of an earlier call. */
  created: boolean;
}

/**
 * Records money lent outside the system as the loan's disbursement (docs/lending.md "Lending core": funding
 * `POST loans/{loanId}/fundings/record-external` — "loan approved, amount not above approved principal, no active
 * DISBURSEMENT_HOLD → RECORDED_EXTERNAL; enters reconciliation; disbursement posts value-dated to the original
 * funding date and the loan is active as of that date"; docs/design.md §5 Rejections: "disbursement record may not exceed
 * approved principal"; docs/design.md §5 Holds and rejection codes).
 *
 * One transaction: locks the loan (db/queries/lending/loans.ts `lockLoanForMoney`), replays or rejects a reused `externalRecordRef`, checks the
 * rules, inserts the funding (`RECORDED_EXTERNAL`) and its reconciliation item (`FUNDING`, `open`), regenerates
 * the schedule on the principal funded so far (`rescheduleOnFundedPrincipal`: a partly funded loan owes interest
 * on what was lent only, as Fineract's disbursement of a lesser amount), re-runs the loan's allocation and
 * appends the disbursement's journal entry value-dated to `fundingDate` (repost-loan.ts:
 * Dr LOAN_PORTFOLIO / Cr EXTERNAL_CLEARING), makes the loan ACTIVE with `disbursedOnDate` = its earliest funding
 * date, and writes the outbox event `funding.posted` (data `{fundingId, loanRef, status, amount, currency,
 * fundingDate, fundingType, recipientType}`, subject `funding`/`<fundingId>`). For a loan whose product has
 * `enableDownPayment` and `enableAutoRepaymentForDownPayment`, the same transaction records the down payment
 * (`recordAutomaticDownPayment`: a `DOWN_PAYMENT` payment under `<externalRecordRef>:down-payment`, value-dated to
 * `fundingDate`, allocated and journalled by the same repost: Dr EXTERNAL_CLEARING / Cr LOAN_PORTFOLIO) and
 * writes its `payment.posted` (with `transactionType: DOWN_PAYMENT`) after `funding.posted`.
 *
 * Idempotent by `externalRecordRef` (unique per tenant, for ever): the same content (SHA-256 of the canonical
 * `{loanId, amount, currency, fundingType, recipientType, recipientRef, reason, fundingDate}`, the amount at the
 * currency's digits and the date after its default) returns the recorded funding with `created: false`, whatever
 * the loan's state is by then. A retry under the same request key is such a replay too (the key is not stored:
 * the API's Idempotency-Key middleware answers it first).
 *
 * Errors: 400 `validation.msg.validation.errors.exist` for a malformed or over-precise amount, an unknown
 * currency, a malformed date, a `fundingDate` in the future (after today anywhere on earth) or before the loan's
 * approval date, and an `externalRecordRef`, `recipientRef` or `reason` that looks like an identifier or account
 * number (not echoed); 400 `validation.msg.payment.currency.mismatch` when `currency` is not the loan's;
 * 404 when the tenant has no such loan; 409 `error.msg.external.record.ref.conflict` for a reused
 * `externalRecordRef` with other content; 409 `error.msg.loan.invalid.state.transition` unless the loan is
 * APPROVED or ACTIVE; 409 `error.msg.loan.funding.exceeds.approved.principal` when the loan's fundings with this
 * one would exceed its approved principal; 409 `error.msg.loan.funding.below.disbursement.charges` when this
 * funding would be the loan's first (in value-date order) and is smaller than the charges due at disbursement,
 * which are withheld from the first funding's proceeds (the rule chosen: refuse rather than split
 * the charges over several fundings; nothing is recorded); 409 `error.msg.loan.disbursement.hold.active` while a
 * DISBURSEMENT_HOLD is active for the borrower (customer-wide or on this loan); 400 naming `amount` when no
 * schedule can be generated on the funded principal.
 */
export function recordExternalFunding(deps: Deps) {
  return async (input: RecordExternalFundingInput): Promise<RecordExternalFundingResult> => {
    const money = checkFundingInput(input);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const loan = await lockLoanForMoney(tx, input.tenantId, input.loanId);
      return recordFundingOfLockedLoan(tx, input, money, loan, deps.clock(), { repost: true });
    });
  };
}

/**
 * The checks of a funding's input that need no database (sensitive-looking refs, amount and currency, ISO date);
 * returns the amount. Throws the 400s `recordExternalFunding` documents.
 */
export function checkFundingInput(input: RecordExternalFundingInput): ReturnType<typeof moneyOfInput> {
  assertNoSensitiveData('externalRecordRef', input.externalRecordRef);
  assertNoSensitiveData('recipientRef', input.recipientRef);
  assertNoSensitiveData('reason', input.reason);
  const money = moneyOfInput(input.amount, input.currency);
  if (input.fundingDate !== undefined && input.fundingDate !== null) {
    assertIsoDate('fundingDate', input.fundingDate);
  }
  return money;
}

/**
 * `recordExternalFunding`'s work on a loan the caller has locked (`lockLoanForMoney`) in its transaction, at
 * `now`: the same rules, rows and `funding.posted` event. With `repost: false` the loan is not reposted (nor made
 * ACTIVE): the caller reposts once after more money events (a boarded history,
 * activities/payments/record-external-payment-history.ts). `createdInThisTransaction` and `chunk`: as `recordExternalPaymentHistoryInTx`'s
 * options (a boarded loan).
 */
export async function recordFundingOfLockedLoan(
  tx: Tx,
  input: RecordExternalFundingInput,
  money: ReturnType<typeof moneyOfInput>,
  loan: LoanForMoney,
  now: Date,
  options: {
    repost: boolean;
    /** The loan was created in this transaction (boarding): it has no added charge to read. */
    createdInThisTransaction?: boolean;
    /**
     * The boarding chunk (activities/lending/loan-chunk.ts): the events and the reconciliation item are buffered in
     * it, a ref it knows is not stored is not looked up, and a loan created in this transaction whose borrower it
     * locked takes its disbursement holds from it.
     */
    chunk?: LoanChunk;
    /** The loan's stored terms as the caller holds them in this transaction (not read again). */
    loanTerms?: StoredLoanTerms;
    /**
     * The loan's installment rows as this transaction stored them (a loan created in it): not read again, and
     * updated here when the funding regenerates them.
     */
    installments?: { rows: NewInstallmentRow[] };
    /** What this transaction knows to be the loan's fundings so far (a loan created in it): not summed again. */
    fundedSoFar?: { totalMinor: bigint; earliestDate: string | null };
    /**
     * Collects the funding row and the automatic down payment this call inserts, as the repost replays them (a
     * loan created in this transaction, whose caller then hands every money row to the repost).
     */
    insertedRows?: { fundings: RepostFundingRow[]; payments: RepostPaymentRow[] };
  },
): Promise<RecordExternalFundingResult> {
  {
    const fundingDate = input.fundingDate ?? loan.expectedDisbursementDate;
    const contentDigest = contentDigestOf({
      kind: 'funding',
      loanId: loan.id,
      amount: money.text,
      currency: input.currency,
      fundingType: input.fundingType,
      recipientType: input.recipientType,
      recipientRef: input.recipientRef,
      reason: input.reason,
      fundingDate,
    });
    const { chunk } = options;
    const earlier =
      chunk && !chunk.storedFundingRefs.has(input.externalRecordRef)
        ? undefined
        : await fundingOfRef(tx, input.tenantId, input.externalRecordRef);
    if (earlier) return replayOf(earlier, contentDigest, loan);

    if (loan.status !== 'APPROVED' && loan.status !== 'ACTIVE') {
      throw new DomainError(
        'error.msg.loan.invalid.state.transition',
        `Loan ${loan.id} is ${loan.status}: only an APPROVED or ACTIVE loan can be funded.`,
      );
    }
    if (input.currency !== loan.currencyCode) {
      const message = `currency ${input.currency} differs from the loan's currency ${loan.currencyCode}.`;
      throw new DomainError('validation.msg.payment.currency.mismatch', message, {
        errors: [fieldError('currency', input.currency, message, 'validation.msg.payment.currency.mismatch')],
      });
    }
    if (fundingDate > latestDateInForce(now)) {
      throw validationError('fundingDate', fundingDate, 'fundingDate must not be in the future.');
    }
    if (loan.approvedOnDate !== null && fundingDate < loan.approvedOnDate) {
      throw validationError(
        'fundingDate',
        fundingDate,
        `fundingDate must not be before the loan's approval date ${loan.approvedOnDate}.`,
      );
    }
    const [funded] = options.fundedSoFar
      ? [
          {
            total: formatMinor(options.fundedSoFar.totalMinor, minorUnitDigits(loan.currencyCode)),
            earliestDate: options.fundedSoFar.earliestDate,
          },
        ]
      : await tx
          .select({
            total: sql<string>`coalesce(sum(${fundings.amount}), 0)::text`,
            earliestDate: sql<string | null>`min(${fundings.fundingDate})::text`,
          })
          .from(fundings)
          .where(and(eq(fundings.tenantId, input.tenantId), eq(fundings.loanId, loan.id)));
    const fundedMinor = minorOf(funded?.total ?? '0', loan.currencyCode);
    const approvedMinor =
      loan.approvedPrincipal === null ? 0n : minorOf(loan.approvedPrincipal, loan.currencyCode);
    if (fundedMinor + money.minor > approvedMinor) {
      const digits = minorUnitDigits(loan.currencyCode);
      throw new DomainError(
        'error.msg.loan.funding.exceeds.approved.principal',
        `Loan ${loan.id} has ${formatMinor(fundedMinor, digits)} funded of ${formatMinor(approvedMinor, digits)} approved; ${money.text} more would exceed it.`,
      );
    }
    // The first funding in replay order (value date, then recording order) pays the charges due at disbursement
    // (domain/lending/loan-allocation.ts): this one is first when nothing earlier or on its date is recorded.
    const chargesMinor = minorOf(loan.disbursementChargesDue, loan.currencyCode);
    const earliest = funded?.earliestDate ?? null;
    if ((earliest === null || fundingDate < earliest) && money.minor < chargesMinor) {
      throw new DomainError(
        'error.msg.loan.funding.below.disbursement.charges',
        `Loan ${loan.id} has ${loan.disbursementChargesDue} of charges due at disbursement, withheld from its first funding; a first funding of ${money.text} cannot cover them.`,
      );
    }
    const holdIds =
      chunk && options.createdInThisTransaction && chunk.lockedBorrowers.has(loan.clientId)
        ? (chunk.disbursementHolds.get(loan.clientId) ?? [])
        : (
            await activeRestrictions(tx, input.tenantId, loan.clientId, loan.id, {
              at: now,
              types: ['DISBURSEMENT_HOLD'],
            })
          ).map((hold) => hold.restrictionId);
    if (holdIds.length > 0) {
      throw new DomainError(
        'error.msg.loan.disbursement.hold.active',
        `Restriction ${holdIds[0]} (DISBURSEMENT_HOLD) is active for the borrower of loan ${loan.id}.`,
      );
    }

    const [created] = await tx
      .insert(fundings)
      .values({
        tenantId: input.tenantId,
        loanId: loan.id,
        amount: money.text,
        currencyCode: input.currency,
        fundingType: input.fundingType,
        recipientType: input.recipientType,
        recipientRef: input.recipientRef,
        externalRecordRef: input.externalRecordRef,
        reason: input.reason,
        fundingDate,
        status: 'RECORDED_EXTERNAL',
        contentDigest,
        actorUsername: input.actor ?? null,
        createdAt: now,
      })
      .onConflictDoNothing({ target: [fundings.tenantId, fundings.externalRecordRef] })
      .returning();
    if (!created) {
      // The same ref committed meanwhile by a call on another loan (this loan's lock excludes this one's).
      const winner = await fundingOfRef(tx, input.tenantId, input.externalRecordRef);
      if (!winner) throw new Error('funding vanished after an externalRecordRef conflict');
      return replayOf(winner, contentDigest, loan);
    }
    options.insertedRows?.fundings.push({
      id: created.id,
      valueDate: created.fundingDate,
      amount: created.amount,
    });
    const item = {
      tenantId: input.tenantId,
      targetType: 'FUNDING' as const,
      targetId: created.id,
      externalRecordRef: created.externalRecordRef,
      status: 'open' as const,
      createdAt: now,
      lastSeenAt: now,
    };
    if (chunk) chunk.reconciliation.push(item);
    else
      await tx
        .insert(reconciliationItems)
        .values(item)
        .onConflictDoNothing({
          target: [
            reconciliationItems.tenantId,
            reconciliationItems.targetType,
            reconciliationItems.targetId,
          ],
        });
    const schedule = await rescheduleOnFundedPrincipal(
      tx,
      input.tenantId,
      loan,
      fundedMinor + money.minor,
      options.createdInThisTransaction === true,
      options.loanTerms,
      options.installments,
    );
    const downPayment = await recordAutomaticDownPayment(
      tx,
      input.tenantId,
      loan,
      created,
      schedule,
      now,
      options.loanTerms,
    );
    if (downPayment && downPayment.status === 'POSTED')
      options.insertedRows?.payments.push({
        id: downPayment.id,
        valueDate: downPayment.effectiveDate,
        amount: downPayment.amount,
        allocation: downPayment.allocation,
      });
    if (options.repost) await repostLoan(tx, { tenantId: input.tenantId, loan, now });
    const result = resultOf(created, loan, true);
    await writeOutboxEvent(
      tx,
      {
        tenantId: input.tenantId,
        eventType: 'funding.posted',
        subjectId: created.id,
        data: {
          fundingId: result.fundingId,
          loanRef: result.loanRef,
          status: result.status,
          amount: result.amount,
          currency: result.currency,
          fundingDate: result.fundingDate,
          fundingType: result.fundingType,
          recipientType: result.recipientType,
        },
        occurredAt: now,
        dedupeKey: `funding/${created.id}/posted`,
      },
      options.chunk?.outbox,
    );
    if (downPayment) {
      const posted = paymentPostedEventOf(input.tenantId, paymentResultOf(downPayment, loan, true), now);
      await writeOutboxEvent(
        tx,
        { ...posted, data: { ...posted.data, transactionType: 'DOWN_PAYMENT' } },
        options.chunk?.outbox,
      );
    }
    return result;
  }
}

/** Suffix of the `externalRecordRef` of the down payment recorded with a funding (`<funding ref>:down-payment`). */
export const downPaymentRefSuffix = ':down-payment';

/**
 * The down payment a funding records automatically (Fineract `LoanDownPaymentHandlerServiceImpl` on
 * disbursement with `enableAutoRepaymentForDownPayment`): for a loan whose stored terms have
 * `enableDownPayment` and `enableAutoRepaymentForDownPayment`, a POSTED payment of `transactionType`
 * `DOWN_PAYMENT`, `source` `DOWN_PAYMENT`, value-dated to the funding date, under the `externalRecordRef`
 * `<funding ref>:down-payment`, of the down-payment installment's principal on the principal funded so far
 * (`schedule`, regenerated for this funding) less the down payments already recorded: a second funding pays the
 * down payment of its own amount, as Fineract's down payment per disbursement. The caller reposts the loan,
 * which allocates it like any payment (it pays the down-payment installment). Null when the loan has no
 * automatic down payment or nothing is left to pay. 409 `error.msg.external.record.ref.conflict` when another
 * payment already holds that `externalRecordRef` (nothing is recorded: the whole funding rolls back).
 */
async function recordAutomaticDownPayment(
  tx: Tx,
  tenantId: string,
  loan: LoanForMoney,
  funding: FundingRow,
  schedule: Schedule | null,
  now: Date,
  loanTerms: StoredLoanTerms | undefined,
): Promise<PaymentRow | null> {
  const terms = await storedTermsOf(tx, tenantId, loan.id, loanTerms);
  if (!terms?.enableDownPayment || !terms.enableAutoRepaymentForDownPayment || schedule === null) return null;
  const [, ...installments] = schedule.periods;
  const downPaymentPeriod = installments.find((p) => p.downPaymentPeriod);
  if (!downPaymentPeriod) return null;
  const dueMinor = minorOf(downPaymentPeriod.principalDue, loan.currencyCode);
  const [recorded] = await tx
    .select({ total: sql<string>`coalesce(sum(${payments.amount}), 0)::text` })
    .from(payments)
    .where(
      and(
        eq(payments.tenantId, tenantId),
        eq(payments.loanId, loan.id),
        eq(payments.transactionType, 'DOWN_PAYMENT'),
        eq(payments.status, 'POSTED'),
      ),
    );
  const amountMinor = dueMinor - minorOf(recorded?.total ?? '0', loan.currencyCode);
  if (amountMinor <= 0n) return null;
  const amount = formatMinor(amountMinor, minorUnitDigits(loan.currencyCode));
  const externalRecordRef = `${funding.externalRecordRef}${downPaymentRefSuffix}`;
  const [created] = await tx
    .insert(payments)
    .values({
      tenantId,
      loanId: loan.id,
      amount,
      currencyCode: funding.currencyCode,
      effectiveDate: funding.fundingDate,
      status: 'POSTED',
      source: 'DOWN_PAYMENT',
      rationale: null,
      externalRecordRef,
      transactionType: 'DOWN_PAYMENT',
      contentDigest: contentDigestOf({
        kind: 'down-payment',
        loanId: loan.id,
        fundingId: funding.id,
        amount,
        currency: funding.currencyCode,
        effectiveDate: funding.fundingDate,
      }),
      actorUsername: funding.actorUsername,
      createdAt: now,
    })
    .onConflictDoNothing({ target: [payments.tenantId, payments.externalRecordRef] })
    .returning();
  if (!created) {
    throw new DomainError(
      'error.msg.external.record.ref.conflict',
      `The down payment of this funding is recorded under its externalRecordRef followed by "${downPaymentRefSuffix}", which another payment already uses.`,
    );
  }
  return created;
}

type FundingRow = typeof fundings.$inferSelect;

/**
 * Regenerates the loan's schedule on the principal funded so far (`fundedMinor`, minor units), as Fineract does
 * when a loan is disbursed for less than its approved amount (`Loan.disburse` → `regenerateRepaymentSchedule`
 * with the disbursed principal): the same terms and expected disbursement date as at approval
 * (domain/lending/loan-terms/schedule-input.ts `scheduleOf`), so the installments owe interest on the money lent only, and the
 * schedule, the summary and the journal agree on the principal. A later funding regenerates it again; once the
 * whole approved principal is funded it is the approval's schedule again. The installments are replaced only
 * when they differ (their paid and waived columns start at zero; the repost that follows recomputes them from
 * every money event). Charges due at disbursement stay as fixed at approval (`disbursementFeeChargesDue`).
 * A loan stored without version-1 terms (boarded rows written around `createLoan`) keeps its installments.
 * Returns the schedule generated (null for such a loan).
 * 400 naming `amount` when no schedule can be generated on that principal (e.g. not a multiple of the currency's
 * `inMultiplesOf`, or more digits than the product's currency allows).
 */
async function rescheduleOnFundedPrincipal(
  tx: Tx,
  tenantId: string,
  loan: LoanForMoney,
  fundedMinor: bigint,
  createdInThisTransaction: boolean,
  loanTerms: StoredLoanTerms | undefined,
  known: { rows: NewInstallmentRow[] } | undefined,
): Promise<Schedule | null> {
  const terms = await storedTermsOf(tx, tenantId, loan.id, loanTerms);
  if (terms?.version !== 1) return null;
  const principal = formatMinor(fundedMinor, loan.digitsAfterDecimal);
  const termDigits = terms.currency?.digitsAfterDecimal ?? loan.digitsAfterDecimal;
  const fits = (() => {
    try {
      return formatMinor(
        parseDecimalToMinor(principal, termDigits, { allowTrailingZeros: true }),
        termDigits,
      );
    } catch {
      return null;
    }
  })();
  const scheduled =
    fits === null ? null : scheduleOf(terms as StoredLoanTerms, fits, loan.expectedDisbursementDate);
  if (scheduled === null || !scheduled.ok) {
    const reason =
      scheduled === null
        ? `the loan's currency takes ${termDigits} fraction digits`
        : scheduled.errors.map((e) => e.developerMessage).join(' ');
    throw validationError(
      'amount',
      principal,
      `No repayment schedule can be generated on the funded principal ${principal}: ${reason}`,
    );
  }
  let rows = installmentRowsOf(tenantId, loan.id, scheduled.value);
  const stored: readonly NewInstallmentRow[] =
    known?.rows ??
    (await tx
      .select()
      .from(loanInstallments)
      .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loan.id)))
      .orderBy(asc(loanInstallments.installmentNumber)));
  const digits = loan.digitsAfterDecimal;
  // Charges added to the active loan stay on their installments (db/README.md), additional ones included.
  // A loan created in this transaction has no added charge yet (they are added to an active loan).
  const added = createdInThisTransaction ? [] : await loanChargesForAllocation(tx, tenantId, loan.id);
  if (added.length > 0) {
    rows = [
      ...rows,
      ...stored
        .filter((s) => s.additional && !rows.some((r) => r.installmentNumber === s.installmentNumber))
        .map((s) => ({
          tenantId,
          loanId: loan.id,
          installmentNumber: s.installmentNumber,
          fromDate: s.fromDate,
          dueDate: s.dueDate,
          principalDue: '0',
          interestDue: '0',
          feeChargesDue: '0',
          penaltyChargesDue: '0',
          additional: true,
        })),
    ];
    const minorText = (value: string) => parseDecimalToMinor(value, digits, { allowTrailingZeros: true });
    for (const charge of added) {
      const row = rows.find((r) => r.installmentNumber === charge.installmentNumber);
      if (!row) throw new Error(`loan charge ${charge.id} has no installment ${charge.installmentNumber}`);
      const key = charge.penalty ? 'penaltyChargesDue' : 'feeChargesDue';
      row[key] = formatMinor(minorText(String(row[key])) + minorText(charge.amount), digits);
    }
  }
  const same = (a: string, b: string) =>
    parseDecimalToMinor(a, digits, { allowTrailingZeros: true }) ===
    parseDecimalToMinor(b, digits, { allowTrailingZeros: true });
  const unchanged =
    stored.length === rows.length &&
    rows.every((r, i) => {
      const s = stored[i]!;
      return (
        s.installmentNumber === r.installmentNumber &&
        s.fromDate === r.fromDate &&
        s.dueDate === r.dueDate &&
        same(s.principalDue, r.principalDue) &&
        same(s.interestDue, r.interestDue) &&
        same(s.feeChargesDue, r.feeChargesDue) &&
        same(s.penaltyChargesDue, r.penaltyChargesDue)
      );
    });
  if (!unchanged) {
    await replaceInstallmentRows(tx, tenantId, loan.id, rows);
    if (known) known.rows = rows;
  }
  return scheduled.value;
}

async function fundingOfRef(
  tx: Tx,
  tenantId: string,
  externalRecordRef: string,
): Promise<FundingRow | undefined> {
  const [row] = await tx
    .select()
    .from(fundings)
    .where(and(eq(fundings.tenantId, tenantId), eq(fundings.externalRecordRef, externalRecordRef)));
  return row;
}

/** The earlier funding under the same ref: the original result when the content matches, else 409. */
function replayOf(row: FundingRow, contentDigest: string, loan: LoanForMoney): RecordExternalFundingResult {
  if (row.contentDigest !== contentDigest || row.loanId !== loan.id) {
    throw new DomainError(
      'error.msg.external.record.ref.conflict',
      'This externalRecordRef was already used for a funding with other content.',
    );
  }
  return resultOf(row, loan, false);
}

function resultOf(row: FundingRow, loan: LoanForMoney, created: boolean): RecordExternalFundingResult {
  return {
    fundingId: row.id,
    loanId: row.loanId,
    loanRef: loan.accountNo,
    status: 'RECORDED_EXTERNAL',
    amount: formatMinor(minorOf(row.amount, row.currencyCode), minorUnitDigits(row.currencyCode)),
    currency: row.currencyCode,
    fundingType: row.fundingType,
    recipientType: row.recipientType,
    fundingDate: row.fundingDate,
    created,
  };
}

/**
 * The loan's stored terms (`loans.terms` JSON, partial when an older version wrote it): `known` as is when the
 * caller already holds them (a loan created in this transaction), else one read. Undefined when the loan has none.
 */
async function storedTermsOf(
  tx: Tx,
  tenantId: string,
  loanId: number,
  known: StoredLoanTerms | undefined,
): Promise<Partial<StoredLoanTerms> | undefined> {
  if (known) return known;
  const [row] = await tx
    .select({ terms: loans.terms })
    .from(loans)
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
  return row?.terms as Partial<StoredLoanTerms> | undefined;
}
