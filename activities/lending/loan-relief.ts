/**
 * `applyLoanRelief`: applies a hardship relief to a loan's schedule inside the caller's transaction (* docs/processes.md P5 "APPLIED: the loan's schedule is modified (a new schedule version; the ledger stays
 * balanced)"). A tx-level helper: the offer's APPLY operation calls it in its own transaction, so the offer's
 * status change, its events and the schedule change commit together.
 *
 * Steps:
 * 1. lock the loan (`lockLoanForMoney`, `SELECT … FOR UPDATE`: the lock every money operation takes first, so a
 *    payment or funding of the same loan waits for the relief and its repost sees the new schedule);
 * 2. read its installments (`loan_installments`, the current schedule) and its repayment frequency (the loan's
 *    stored terms, else its product's) and build the `ReliefSchedule`;
 * 3. `applyRelief` (domain/hardship/relief.ts) — its DomainErrors propagate unchanged, before anything is written;
 * 4. write the new schedule into `loan_installments`: the due columns of the changed installments, the appended
 *    installments (`fromDate` = the previous installment's due date, as the relief sets it);
 * 5. append the schedule history (`loan_schedule_versions`, append-only): version 1 = the schedule before the
 *    first relief (written lazily, by the first relief), then the new version n + 1 with the relief's source,
 *    type, as-of date, installments (paid amounts as the relief saw them, before step 6), summary and the
 *    principal it forgave;
 * 5b. a `PAYMENT_DEFERRAL` or `FORBEARANCE` records a delinquency PAUSE over the deferred span, from the as-of
 *    date to the due date of the window's last installment, clipped so it overlaps no other pause
 *    (domain/lending/delinquency-actions.ts `reliefPauseOf`; docs/processes.md P7 "Delinquency actions");
 * 6. repost the loan (activities/lending/repost-loan.ts): every posted payment is re-allocated against the new
 *    schedule, so the paid and met columns, the payments' allocations, the journal and the loan's status agree
 *    with it. Repost reads the stored installments (never the loan's terms) and the principal forgiven by the
 *    stored versions, so this and every later repost (a payment recorded after the relief) allocate against the
 *    modified schedule and keep the forgiveness posted.
 *
 * Ledger (domain/lending/ledger.ts: cash basis — interest, fees and penalties become income only when paid; the only
 * receivable is LOAN_PORTFOLIO, principal disbursed and not repaid):
 * - PAYMENT_DEFERRAL, FORBEARANCE, REDUCED_PAYMENT move due amounts only: no posting;
 * - FEE_WAIVER, RATE_REDUCTION reduce fees, penalties or interest that the ledger never recognised (no receivable
 *   for them): no posting — the reduced amounts simply never become income;
 * - PRINCIPAL_FORGIVENESS writes off principal receivable: the version records `principalForgivenMinor`, and the
 *   repost books it (domain/lending/ledger.ts) as journal entry `forgiveness/<version row id>`, value-dated `asOfDate`:
 *   Dr PRINCIPAL_FORGIVENESS_EXPENSE / Cr LOAN_PORTFOLIO, the forgiven amount; the allocation and the summary
 *   reads deduct it from the disbursed principal (domain/lending/allocation/replay.ts, principal forgiveness).
 * `journalEntryId` is the id of that entry's first line (`journal_entries.id`, the debit) for a forgiveness, null
 * otherwise. The repost may also append reversals and revisions of payment postings when the new schedule splits an
 * earlier payment differently (balanced, like any back-dated payment).
 *
 * Idempotent per `source`: a source already applied (its schedule version exists) answers what it answered then,
 * writing nothing (a retried APPLY); the same source on another loan is a 409 naming `loanId`.
 *
 * Errors (DomainError; nothing is written): 404 `error.msg.resource.not.found` for an unknown loan;
 * 409 `error.msg.hardship.relief.not.applicable` naming `loanId` when the loan is not ACTIVE, not fully funded
 * (fundings below the approved principal: a later funding would regenerate the schedule) or carries amounts
 * waived by a payoff; naming `requestedRelief.params.currentRateBasisPoints` for a RATE_REDUCTION whose current
 * rate is not the loan's nominal annual rate (its terms', else its product's, per month × 12 or per year; not
 * checked for another rate frequency); and `applyRelief`'s 400
 * `validation.msg.validation.errors.exist` / 409 `error.msg.hardship.relief.not.applicable` unchanged.
 */
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { readDelinquencyActions } from '../../db/queries/lending/delinquency-configuration';
import {
  type InstallmentDueAmounts,
  insertInstallmentRows,
  updateInstallmentDueAmounts,
} from '../../db/queries/lending/installments';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import {
  fundings,
  journalEntries,
  loanDelinquencyActions,
  loanInstallments,
  loanProducts,
  loanScheduleVersions,
  loans,
} from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import type { RequestedRelief } from '../../domain/hardship/offer';
import {
  applyRelief,
  type ReliefInstallment,
  type ReliefSchedule,
  totalDueMinor,
} from '../../domain/hardship/relief';
import {
  type ReliefSummaryJson,
  reliefSummaryJson,
  scheduleInstallmentsJson,
} from '../../domain/hardship/schedule-version';
import { effectivePauses, reliefPauseOf } from '../../domain/lending/delinquency-actions';
import { sourceRef } from '../../domain/lending/ledger';
import { minorOf } from '../../domain/lending/loan-allocation';
import type { PeriodFrequencyType } from '../../domain/lending/schedule';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';
import { repostLoan } from './repost-loan';

export interface ApplyLoanReliefInput {
  tenantId: string;
  loanId: number;
  /** The relief to apply (domain/hardship/offer.ts). */
  requestedRelief: RequestedRelief;
  /** ISO date, the tenant's calendar day (today): the relief works on the open installments due from it. */
  asOfDate: string;
  /** What causes the relief (stored on the schedule version). */
  source: { kind: 'HARDSHIP_OFFER'; offerId: number };
  /** The actor of the operation (`Service-Actor`), null when none. */
  actor: string | null;
  /** Instant of the operation (`deps.clock()`). */
  now: Date;
}

export interface AppliedLoanRelief {
  /** The loan's new schedule version (1 = the original, so the first relief gives 2). */
  scheduleVersion: number;
  /** What the relief changed; amounts as decimal strings of minor units. */
  summary: ReliefSummaryJson;
  installmentCountBefore: number;
  installmentCountAfter: number;
  /** Σ due of every installment and component before and after, decimal strings of minor units. */
  totalDueBefore: string;
  totalDueAfter: string;
  /** ISO 4217 code of the loan: the currency of every amount above. */
  currency: string;
  /**
   * The journal entry the relief booked (id of its first `journal_entries` line): a principal forgiveness only;
   * null when the relief moved no money in the ledger (module note).
   */
  journalEntryId: number | null;
}

const notApplicableCode = 'error.msg.hardship.relief.not.applicable';

function notApplicable(parameterName: string, value: unknown, message: string): DomainError {
  return new DomainError(notApplicableCode, message, {
    errors: [fieldError(parameterName, value, message, notApplicableCode)],
  });
}

/**
 * The relief `source` already applied to loan `loanId` (its schedule version, at most one per source: unique index),
 * as `applyLoanRelief` answered it, or null. Under the loan's lock.
 */
async function appliedBySource(
  tx: Tx,
  tenantId: string,
  loanId: number,
  source: ApplyLoanReliefInput['source'],
): Promise<Omit<AppliedLoanRelief, 'currency'> | null> {
  const [row] = await tx
    .select()
    .from(loanScheduleVersions)
    .where(
      and(
        eq(loanScheduleVersions.tenantId, tenantId),
        eq(loanScheduleVersions.sourceKind, source.kind),
        eq(loanScheduleVersions.sourceId, source.offerId),
      ),
    );
  if (!row?.summary) return null;
  if (row.loanId !== loanId) {
    throw notApplicable('loanId', loanId, `${source.kind} ${source.offerId} was applied to another loan.`);
  }
  const [previous] = await tx
    .select({ installmentCount: loanScheduleVersions.installmentCount })
    .from(loanScheduleVersions)
    .where(
      and(
        eq(loanScheduleVersions.tenantId, tenantId),
        eq(loanScheduleVersions.loanId, loanId),
        eq(loanScheduleVersions.version, row.version - 1),
      ),
    );
  let journalEntryId: number | null = null;
  if (BigInt(row.principalForgivenMinor) > 0n) {
    const [line] = await tx
      .select({ id: journalEntries.id })
      .from(journalEntries)
      .where(
        and(
          eq(journalEntries.tenantId, tenantId),
          eq(journalEntries.loanId, loanId),
          eq(journalEntries.transactionRef, sourceRef({ kind: 'PRINCIPAL_FORGIVENESS', id: row.id })),
        ),
      )
      .orderBy(asc(journalEntries.id))
      .limit(1);
    journalEntryId = line?.id ?? null;
  }
  return {
    scheduleVersion: row.version,
    summary: row.summary,
    installmentCountBefore: previous?.installmentCount ?? row.installmentCount,
    installmentCountAfter: row.installmentCount,
    totalDueBefore: row.summary.totalDueBeforeMinor,
    totalDueAfter: row.summary.totalDueAfterMinor,
    journalEntryId,
  };
}

/** Scale of `annualRateBasisPointsScaled`: basis points × 10^6 (the rates are stored with 8 fraction digits). */
const rateScale = 1_000_000n;

/**
 * The loan's nominal annual rate in basis points × 10^6 (exact) from its rate in percent (decimal string, 8 fraction
 * digits at most) per Fineract `InterestRateFrequencyType` (2 per month: × 12; 3 per year); null when unknown
 * (no rate, another frequency), in which case a rate reduction's `currentRateBasisPoints` is not checked.
 */
function annualRateBasisPointsScaled(
  ratePercent: string | undefined,
  frequencyType: number | undefined,
): bigint | null {
  if (ratePercent === undefined || (frequencyType !== 2 && frequencyType !== 3)) return null;
  // percent × 10^8 = basis points × 10^6
  const scaled = parseDecimalToMinor(ratePercent, 8, { allowTrailingZeros: true });
  return frequencyType === 2 ? scaled * 12n : scaled;
}

/**
 * Applies `input.requestedRelief` to loan `input.loanId` in `tx` (module note: steps, ledger, errors) and returns
 * the new schedule version with its summary. Amounts are minor units of the loan's currency.
 */
export async function applyLoanRelief(tx: Tx, input: ApplyLoanReliefInput): Promise<AppliedLoanRelief> {
  const { tenantId, loanId, requestedRelief, asOfDate, now } = input;
  const loan = await lockLoanForMoney(tx, tenantId, loanId);
  const done = await appliedBySource(tx, tenantId, loanId, input.source);
  if (done) return { ...done, currency: loan.currencyCode };
  if (loan.status !== 'ACTIVE') {
    throw notApplicable(
      'loanId',
      loanId,
      `Loan ${loanId} is ${loan.status}; a relief applies to an ACTIVE loan.`,
    );
  }
  const currency = loan.currencyCode;
  const minor = (amount: string) => minorOf(amount, currency);
  const [rows, [funded], [frequency], [latest]] = await Promise.all([
    tx
      .select()
      .from(loanInstallments)
      .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loanId)))
      .orderBy(asc(loanInstallments.installmentNumber)),
    tx
      .select({ amount: sql<string>`coalesce(sum(${fundings.amount}), 0)::text` })
      .from(fundings)
      .where(and(eq(fundings.tenantId, tenantId), eq(fundings.loanId, loanId))),
    tx
      .select({
        terms: loans.terms,
        productEvery: loanProducts.repaymentEvery,
        productFrequencyType: loanProducts.repaymentFrequencyType,
        productRate: loanProducts.interestRatePerPeriod,
        productRateFrequencyType: loanProducts.interestRateFrequencyType,
      })
      .from(loans)
      .innerJoin(
        loanProducts,
        and(eq(loanProducts.tenantId, loans.tenantId), eq(loanProducts.id, loans.productId)),
      )
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId))),
    tx
      .select({ version: loanScheduleVersions.version })
      .from(loanScheduleVersions)
      .where(and(eq(loanScheduleVersions.tenantId, tenantId), eq(loanScheduleVersions.loanId, loanId)))
      .orderBy(desc(loanScheduleVersions.version))
      .limit(1),
  ]);
  const approvedMinor = loan.approvedPrincipal === null ? 0n : minor(loan.approvedPrincipal);
  if (minor(funded?.amount ?? '0') < approvedMinor) {
    throw notApplicable(
      'loanId',
      loanId,
      `Loan ${loanId} is not fully funded; a relief applies once the approved principal is disbursed.`,
    );
  }
  if (
    rows.some(
      (row) =>
        minor(row.interestWaived) !== 0n ||
        minor(row.feeChargesWaived) !== 0n ||
        minor(row.penaltyChargesWaived) !== 0n,
    )
  ) {
    throw notApplicable(
      'loanId',
      loanId,
      `Loan ${loanId} has amounts waived by a payoff; no relief applies.`,
    );
  }

  const terms = (frequency?.terms ?? {}) as {
    repaymentEvery?: unknown;
    repaymentFrequencyType?: unknown;
    interestRatePerPeriod?: unknown;
    interestRateFrequencyType?: unknown;
  };
  const schedule: ReliefSchedule = {
    currency,
    repaymentEvery:
      typeof terms.repaymentEvery === 'number' ? terms.repaymentEvery : (frequency?.productEvery ?? 1),
    repaymentFrequencyType: (typeof terms.repaymentFrequencyType === 'number'
      ? terms.repaymentFrequencyType
      : (frequency?.productFrequencyType ?? 2)) as PeriodFrequencyType,
    installments: rows.map(
      (row): ReliefInstallment => ({
        installmentNumber: row.installmentNumber,
        fromDate: row.fromDate,
        dueDate: row.dueDate,
        principalDueMinor: minor(row.principalDue),
        interestDueMinor: minor(row.interestDue),
        feeDueMinor: minor(row.feeChargesDue),
        penaltyDueMinor: minor(row.penaltyChargesDue),
        principalPaidMinor: minor(row.principalPaid),
        interestPaidMinor: minor(row.interestPaid),
        feePaidMinor: minor(row.feeChargesPaid),
        penaltyPaidMinor: minor(row.penaltyChargesPaid),
      }),
    ),
  };
  // applyRelief's DomainErrors (400 malformed parameters, 409 not applicable) propagate before any write.
  const outcome = applyRelief(
    requestedRelief.reliefType,
    schedule,
    requestedRelief.params as never,
    asOfDate,
  );

  // checked after applyRelief, so malformed parameters are its 400 first
  if (requestedRelief.reliefType === 'RATE_REDUCTION') {
    const annual = annualRateBasisPointsScaled(
      typeof terms.interestRatePerPeriod === 'string' ? terms.interestRatePerPeriod : frequency?.productRate,
      typeof terms.interestRateFrequencyType === 'number'
        ? terms.interestRateFrequencyType
        : frequency?.productRateFrequencyType,
    );
    const current = requestedRelief.params.currentRateBasisPoints;
    if (annual !== null && Number.isSafeInteger(current) && BigInt(current) * rateScale !== annual) {
      throw notApplicable(
        'requestedRelief.params.currentRateBasisPoints',
        current,
        `currentRateBasisPoints ${current} is not the loan's nominal annual rate.`,
      );
    }
  }

  // 4. the new schedule
  const text = (amount: bigint) => formatMinor(amount, loan.digitsAfterDecimal);
  const before = new Map(schedule.installments.map((i) => [i.installmentNumber, i]));
  const changed: InstallmentDueAmounts[] = [];
  const appended: ReliefInstallment[] = [];
  for (const installment of outcome.schedule.installments) {
    const old = before.get(installment.installmentNumber);
    if (!old) {
      appended.push(installment);
      continue;
    }
    if (
      old.principalDueMinor !== installment.principalDueMinor ||
      old.interestDueMinor !== installment.interestDueMinor ||
      old.feeDueMinor !== installment.feeDueMinor ||
      old.penaltyDueMinor !== installment.penaltyDueMinor
    ) {
      changed.push({
        installmentNumber: installment.installmentNumber,
        principalDue: text(installment.principalDueMinor),
        interestDue: text(installment.interestDueMinor),
        feeChargesDue: text(installment.feeDueMinor),
        penaltyChargesDue: text(installment.penaltyDueMinor),
      });
    }
  }
  await updateInstallmentDueAmounts(tx, tenantId, loanId, changed);
  await insertInstallmentRows(
    tx,
    appended.map((installment) => ({
      tenantId,
      loanId,
      installmentNumber: installment.installmentNumber,
      fromDate: installment.fromDate,
      dueDate: installment.dueDate,
      principalDue: text(installment.principalDueMinor),
      interestDue: text(installment.interestDueMinor),
      feeChargesDue: text(installment.feeDueMinor),
      penaltyChargesDue: text(installment.penaltyDueMinor),
    })),
  );

  // 5. the schedule history
  const summary = reliefSummaryJson(outcome.summary);
  let version = latest?.version ?? 0;
  const versions: (typeof loanScheduleVersions.$inferInsert)[] = [];
  if (version === 0) {
    version = 1;
    versions.push({
      tenantId,
      loanId,
      version,
      reason: 'ORIGINAL',
      installments: scheduleInstallmentsJson(schedule.installments),
      installmentCount: schedule.installments.length,
      totalDueMinor: totalDueMinor(schedule).toString(),
      createdAt: now,
      createdBy: input.actor,
    });
  }
  version += 1;
  versions.push({
    tenantId,
    loanId,
    version,
    reason: 'HARDSHIP_RELIEF',
    sourceKind: input.source.kind,
    sourceId: input.source.offerId,
    reliefType: requestedRelief.reliefType,
    asOfDate,
    installments: scheduleInstallmentsJson(outcome.schedule.installments),
    installmentCount: outcome.schedule.installments.length,
    totalDueMinor: outcome.summary.totalDueAfterMinor.toString(),
    summary,
    principalForgivenMinor: outcome.summary.reductionMinor.principalMinor.toString(),
    createdAt: now,
    createdBy: input.actor,
  });
  const inserted = await tx
    .insert(loanScheduleVersions)
    .values(versions)
    .returning({ id: loanScheduleVersions.id, version: loanScheduleVersions.version });
  const versionId = inserted.find((row) => row.version === version)?.id;

  // 5b. a relief that defers installments pauses the arrears' ageing over the deferred span (P7)
  const pause = reliefPauseOf({
    reliefType: requestedRelief.reliefType,
    asOfDate,
    disbursedOnDate: loan.disbursedOnDate,
    windowDueDates: outcome.summary.changedInstallmentNumbers
      .map((n) => before.get(n)?.dueDate)
      .filter((d): d is string => d !== undefined),
    existing: effectivePauses(await readDelinquencyActions(tx, tenantId, loanId)),
  });
  if (pause) {
    await tx.insert(loanDelinquencyActions).values({
      tenantId,
      loanId,
      action: 'PAUSE',
      startDate: pause.startDate,
      endDate: pause.endDate,
      createdAt: now,
    });
  }

  // 6. re-allocate every posted payment against the new schedule (and book a forgiveness)
  await repostLoan(tx, { tenantId, loan, now });
  let journalEntryId: number | null = null;
  if (outcome.summary.reductionMinor.principalMinor > 0n && versionId !== undefined) {
    const [line] = await tx
      .select({ id: journalEntries.id })
      .from(journalEntries)
      .where(
        and(
          eq(journalEntries.tenantId, tenantId),
          eq(journalEntries.loanId, loanId),
          eq(journalEntries.transactionRef, sourceRef({ kind: 'PRINCIPAL_FORGIVENESS', id: versionId })),
        ),
      )
      .orderBy(asc(journalEntries.id))
      .limit(1);
    if (!line) throw new Error(`the forgiveness of loan ${loanId} was not booked`);
    journalEntryId = line.id;
  }

  return {
    scheduleVersion: version,
    summary,
    installmentCountBefore: schedule.installments.length,
    installmentCountAfter: outcome.schedule.installments.length,
    totalDueBefore: summary.totalDueBeforeMinor,
    totalDueAfter: summary.totalDueAfterMinor,
    currency,
    journalEntryId,
  };
}
