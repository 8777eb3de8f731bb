/**
 * A loan's step of close of business (docs/processes.md P7 "A loan's step for day D"; docs/lending.md "Close of
 * business"; Apache Fineract's Loan COB business steps): one short transaction per loan under its row lock,
 * idempotent per (loan, day) through `loans.last_closed_business_date` (a loan whose `lastClosedBusinessDate` ≥ D is
 * skipped). The stamp `lastClosedBusinessDate := D` is written with the row lock, first; then, in the same
 * transaction, in P7's order:
 * 1. penalties (`ApplyChargeToOverdueLoans`): the product's overdue-installment charges on installments overdue for
 *    more than the tenant's `penaltyWaitPeriodDays` as of D + 1, once per (charge, installment), dated the
 *    installment's due date; none under an active SCRA_MLA_PROTECTED restriction (50 U.S.C. §3937), none once
 *    charged off, none for an installment due before a boarded loan's first covered day; `loan.penalty.assessed`;
 * 2. delinquency (`SetLoanDelinquencyTags`): derived as of D + 1; unless a pause is active on D + 1, the
 *    installment-level tags are set (`loans.installment_delinquency_tags`) and a changed
 *    classification is stored (`loans.delinquency_range_id`), a history row written, `loan.delinquency.changed`
 *    (steps 2 and 4 are activities/lending/delinquency-tag.ts `setDelinquencyTag`, which a money operation's
 *    re-post also calls, so the stored tag compared with may be one a payment or charge set since the last run);
 * 3. notices (`CheckLoanRepaymentDue`, `CheckLoanRepaymentOverdue`) for the covered days, at most the last 7;
 * 4. collections, with the change of step 2 (the history row names the case): a range with a
 *    `collectionsCaseTypeCode` opens a case of that type unless one is open for the loan or a COLLECTIONS_HOLD or
 *    COMMUNICATION_HOLD holds it back; back to NO_DELINQUENCY closes the open one as CURED;
 * 5. automatic charge-off when the delinquent days reach the product's `chargeOffDaysPastDue`, dated the first
 *    as-of date they reached it.
 * A current loan with nothing due costs two statements (the lock with the stamp, the posted state) and writes only
 * the stamp.
 */
import { withoutQueryParameters } from '../../db/errors';
import {
  type CloseOfBusinessContext,
  type LoanDayRow,
  readCloseOfBusinessContext,
  stampLoanDay,
} from '../../db/queries/lending/close-of-business';
import {
  installmentStatesOfPostedState,
  type LoanPostedState,
  readLoanPostedState,
  storedDelinquencySettingsOf,
} from '../../db/queries/lending/delinquency';
import { lockLoanForMoney } from '../../db/queries/lending/loans';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { notFound } from '../../domain/errors';
import {
  automaticChargeOffDate,
  coveredDays,
  type InstallmentOwed,
  penaltiesToAssess,
  repaymentNotices,
} from '../../domain/lending/close-of-business';
import { delinquencyInstallmentsOf } from '../../domain/lending/delinquency';
import { effectivePauses } from '../../domain/lending/delinquency-actions';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import { activeRestrictions } from '../customers/restrictions';
import type { Deps } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { addOverduePenaltyToLockedLoan } from './add-loan-charge';
import { chargeOffLockedLoan } from './charge-off-loan';
import { setDelinquencyTag } from './delinquency-tag';
import { repostLoan } from './repost-loan';

/** What one loan's step did for day D: CLOSED (the day closed now), SKIPPED (closed before), FAILED (rolled back). */
export interface LoanDayOutcome {
  loanId: number;
  outcome: 'CLOSED' | 'SKIPPED' | 'FAILED';
  /** FAILED only: the error's message (what `GET /v1/cob/runs/{runId}/errors` shows). */
  error?: string;
}

/** Input of `closeLoanBusinessDay`. */
export interface CloseLoanBusinessDayInput {
  tenantId: string;
  loanId: number;
  /** ISO date D of the day that ended (the state stored is as of D + 1). */
  businessDate: string;
  /**
   * The tenant-level context read once for a chunk (`readCloseOfBusinessContext`); read inside the step's
   * transaction when absent.
   */
  context?: CloseOfBusinessContext;
}

/**
 * Closes day D for one loan (module note) in one tenant transaction under the loan's row lock. Answers CLOSED or
 * SKIPPED. Errors: 404 `error.msg.resource.not.found` when the tenant has no such loan; a DomainError of the
 * automatic charge-off or the collections case (e.g. a range naming a case type the tenant no longer has);
 * PostgreSQL's and the allocation replay's, unchanged. On any error the transaction rolls back and the loan's day
 * stays open.
 */
export function closeLoanBusinessDay(deps: Deps) {
  return async (input: CloseLoanBusinessDayInput): Promise<LoanDayOutcome> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const context = input.context ?? (await readCloseOfBusinessContext(tx, input.tenantId));
      return closeLoanDayInTx(tx, context, input.loanId, input.businessDate, deps.clock());
    });
}

/** The loan's step (module note) in the caller's tenant transaction. */
async function closeLoanDayInTx(
  tx: Tx,
  context: CloseOfBusinessContext,
  loanId: number,
  businessDate: string,
  now: Date,
): Promise<LoanDayOutcome> {
  const tenantId = context.tenantId;
  // Sent together (one round trip): the read is a statement of its own, so in READ COMMITTED its snapshot is
  // taken after the lock is held and sees every money movement committed before it.
  const [loan, posted] = await Promise.all([
    stampLoanDay(tx, tenantId, loanId, businessDate, context.timeZone),
    readLoanPostedState(tx, tenantId, { id: loanId, productId: null }),
  ]);
  if (loan === null) throw notFound('Loan', loanId);
  if (loan === 'SKIPPED') return { loanId, outcome: 'SKIPPED' };
  const booked = loan.status !== 'SUBMITTED' && loan.status !== 'APPROVED';
  if (booked) await closeBookedLoanDay(tx, context, loan, posted, businessDate, now);
  return { loanId: loan.id, outcome: 'CLOSED' };
}

/** Steps 1–5 for a loan that has been disbursed (active, or closed since). */
async function closeBookedLoanDay(
  tx: Tx,
  context: CloseOfBusinessContext,
  loan: LoanDayRow,
  postedAtLock: LoanPostedState,
  businessDate: string,
  now: Date,
): Promise<void> {
  const tenantId = context.tenantId;
  const asOfDate = addDays(businessDate, 1);
  const digits = minorUnitDigits(loan.currencyCode);
  const settings = storedDelinquencySettingsOf(
    loan.delinquency === null ? null : { delinquency: loan.delinquency },
  );
  const ranges =
    settings.delinquencyBucketId === null
      ? []
      : (context.bucketRanges.get(settings.delinquencyBucketId) ?? []);
  let posted = postedAtLock;
  let owed = owedOf(posted, loan, asOfDate);

  // 1. Penalties.
  const overdueCharges = context.overdueCharges.get(loan.productId) ?? [];
  if (loan.status === 'ACTIVE' && !loan.chargedOff && overdueCharges.length > 0) {
    const assessed = new Set(posted.charges.map((c) => `${c.chargeId}/${c.installmentNumber}`));
    const penalties = penaltiesToAssess({
      asOfDate,
      penaltyWaitPeriodDays: context.penaltyWaitPeriodDays,
      digits,
      charges: overdueCharges,
      installments: owed.map(owedInstallment),
      assessed,
      notBeforeDueDate: loan.boardedOnDate === null ? null : addDays(loan.boardedOnDate, -1),
    });
    if (penalties.length > 0) {
      const protectedBorrower = await activeRestrictions(tx, tenantId, loan.clientId, loan.id, {
        at: now,
        types: ['SCRA_MLA_PROTECTED'],
      });
      if (protectedBorrower.length === 0) {
        const added: { penalty: (typeof penalties)[number]; loanChargeId: number }[] = [];
        for (const penalty of penalties) {
          const row = await addOverduePenaltyToLockedLoan(tx, {
            tenantId,
            loanId: loan.id,
            chargeId: penalty.chargeId,
            installmentNumber: penalty.installmentNumber,
            dueDate: penalty.dueDate,
            amount: formatMinor(penalty.amountMinor, digits),
            requestKey: `overdue-penalty/${loan.id}/${penalty.chargeId}/${penalty.installmentNumber}`,
            now,
          });
          if (row) added.push({ penalty, loanChargeId: row.loanChargeId });
        }
        if (added.length > 0) {
          // The step's own part 2 below stores the tag as of D + 1, dated D: the re-post leaves it alone.
          await repostLoan(tx, {
            tenantId,
            loan: await lockLoanForMoney(tx, tenantId, loan.id),
            now,
            retagDelinquency: false,
          });
          for (const { penalty, loanChargeId } of added) {
            await writeOutboxEvent(tx, {
              tenantId,
              eventType: 'loan.penalty.assessed',
              subjectId: loan.id,
              data: {
                loanId: loan.id,
                loanRef: loan.accountNo,
                loanChargeId,
                chargeId: penalty.chargeId,
                installmentNumber: penalty.installmentNumber,
                dueDate: penalty.dueDate,
                amount: formatMinor(penalty.amountMinor, digits),
                currency: loan.currencyCode,
                businessDate,
              },
              occurredAt: now,
              dedupeKey: `loan-charge/${loanChargeId}/penalty-assessed`,
            });
          }
          posted = await readLoanPostedState(tx, tenantId, loan);
          owed = owedOf(posted, loan, asOfDate);
        }
      }
    }
  }

  // 2. Delinquency, with 4. collections on its change (activities/lending/delinquency-tag.ts, shared with the
  // re-post of every money operation, whose change this compares with through the stored tag).
  const pauses = effectivePauses(posted.actions).sort((a, b) => (a.startDate < b.startDate ? -1 : 1));
  const { derived } = await setDelinquencyTag(tx, {
    tenantId,
    loan,
    status: loan.status,
    installments: owed,
    graceOnArrearsAgeingDays: settings.graceOnArrearsAgeing,
    ranges,
    pauses,
    storedClassification:
      loan.delinquencyRangeId === null
        ? null
        : (context.ranges.get(loan.delinquencyRangeId)?.classification ?? null),
    enableInstallmentLevelDelinquency: settings.enableInstallmentLevelDelinquency,
    storedInstallmentTags: loan.installmentDelinquencyTags,
    asOfDate,
    businessDate,
    source: 'CLOSE_OF_BUSINESS',
    now,
  });

  // 3. Notices.
  if (loan.status === 'ACTIVE') {
    const notices = repaymentNotices({
      days: coveredDays({
        businessDate,
        lastClosedBusinessDate: loan.lastClosedBusinessDate,
        disbursedOnDate: loan.disbursedOnDate,
      }),
      dueDays: context.dueDaysForRepaymentEvent,
      overdueDays: context.overdueDaysForRepaymentEvent,
      installments: owed.map(owedInstallment),
    });
    for (const notice of notices) {
      const data = {
        loanId: loan.id,
        loanRef: loan.accountNo,
        installmentNumber: notice.installmentNumber,
        dueDate: notice.dueDate,
        amountDue: formatMinor(notice.outstandingMinor, digits),
        currency: loan.currencyCode,
        noticeDate: notice.noticeDate,
      };
      const key = `loan/${loan.id}/installment/${notice.installmentNumber}/${notice.dueDate}`;
      if (notice.kind === 'DUE') {
        await writeOutboxEvent(tx, {
          tenantId,
          eventType: 'loan.repayment.due',
          subjectId: loan.id,
          data,
          occurredAt: now,
          dedupeKey: `${key}/repayment-due`,
        });
      } else {
        await writeOutboxEvent(tx, {
          tenantId,
          eventType: 'loan.repayment.overdue',
          subjectId: loan.id,
          data,
          occurredAt: now,
          dedupeKey: `${key}/repayment-overdue`,
        });
      }
    }
  }

  // 5. Charge-off.
  if (loan.status === 'ACTIVE' && !loan.chargedOff && settings.chargeOffDaysPastDue !== null) {
    const oldest = derived.delinquent.delinquentDate;
    const moneyDates = [...posted.fundings, ...posted.payments].map((e) => e.valueDate).sort();
    const date = automaticChargeOffDate({
      chargedOff: loan.chargedOff,
      chargeOffDaysPastDue: settings.chargeOffDaysPastDue,
      delinquentDays: derived.delinquent.delinquentDays,
      oldestOverdueDueDate: oldest === null ? null : addDays(oldest, -settings.graceOnArrearsAgeing),
      graceDays: settings.graceOnArrearsAgeing,
      pauses,
      asOfDate,
      notBeforeDate: loan.boardedOnDate ?? loan.createdOnDate,
      lastMoneyDate: moneyDates.at(-1) ?? null,
    });
    if (date !== null) {
      await chargeOffLockedLoan(tx, {
        tenantId,
        loan: await lockLoanForMoney(tx, tenantId, loan.id),
        transactionDate: date,
        rawTransactionDate: date,
        reason: `automatic: ${settings.chargeOffDaysPastDue} days past due`,
        externalId: null,
        automatic: true,
        actor: null,
        requestKey: `close-of-business/charge-off/${loan.id}/${businessDate}`,
        now,
        retagDelinquency: false,
      });
    }
  }
}

/** Per installment what it owes as of `asOfDate` (the allocation replay of the posted state). */
function owedOf(posted: LoanPostedState, loan: LoanDayRow, asOfDate: string) {
  return delinquencyInstallmentsOf(installmentStatesOfPostedState(posted, loan, asOfDate));
}

function owedInstallment(i: ReturnType<typeof delinquencyInstallmentsOf>[number]): InstallmentOwed {
  return {
    installmentNumber: i.installmentNumber,
    dueDate: i.dueDate,
    principalOutstandingMinor: i.principalOutstandingMinor,
    interestOutstandingMinor: i.interestOutstandingMinor,
    outstandingMinor:
      i.principalOutstandingMinor +
      i.interestOutstandingMinor +
      i.feeOutstandingMinor +
      i.penaltyOutstandingMinor,
  };
}

/** Input of `closeLoansForDay`. */
export interface CloseLoansForDayInput {
  tenantId: string;
  /** ISO date D. */
  businessDate: string;
  /** The loans to close, in the order given. */
  loanIds: readonly number[];
  /** Loan steps at once (each its own transaction); default 4. */
  concurrency?: number;
  /** Called after each loan's step (an activity's heartbeat). */
  onLoanDone?: (outcome: LoanDayOutcome) => void;
  /**
   * The tenant-level context (`readCloseOfBusinessContext`); read once for the call when absent. In-process only
   * (it holds Maps): an activity reads it itself, a workflow never passes it through Temporal.
   */
  context?: CloseOfBusinessContext;
}

/**
 * Closes day D for each of `loanIds`, `concurrency` loans at a time, each in its own transaction
 * (`closeLoanBusinessDay`), with the tenant-level context read once for the call. One loan's failure never stops
 * the others: it is answered FAILED with its message and its day stays open for the next run. Answers one outcome
 * per loan, in the order of `loanIds`. Errors: PostgreSQL's when the context cannot be read (nothing is closed).
 */
export function closeLoansForDay(deps: Deps) {
  const closeOne = closeLoanBusinessDay(deps);
  return async (input: CloseLoansForDayInput): Promise<LoanDayOutcome[]> => {
    const outcomes: LoanDayOutcome[] = new Array(input.loanIds.length);
    if (input.loanIds.length === 0) return outcomes;
    const context =
      input.context ??
      (await withTenantTransaction(deps.db, input.tenantId, (tx) =>
        readCloseOfBusinessContext(tx, input.tenantId),
      ));
    let next = 0;
    const lane = async () => {
      while (next < input.loanIds.length) {
        const index = next++;
        const loanId = input.loanIds[index] as number;
        let outcome: LoanDayOutcome;
        try {
          outcome = await closeOne({
            tenantId: input.tenantId,
            loanId,
            businessDate: input.businessDate,
            context,
          });
        } catch (err) {
          // a failed query's message lists its parameters: never carried into the run's errors
          const clean = withoutQueryParameters(err);
          outcome = {
            loanId,
            outcome: 'FAILED',
            error: clean instanceof Error ? clean.message : String(clean),
          };
        }
        outcomes[index] = outcome;
        input.onLoanDone?.(outcome);
      }
    };
    const lanes = Math.max(1, Math.min(input.concurrency ?? 4, input.loanIds.length));
    await Promise.all(Array.from({ length: lanes }, lane));
    return outcomes;
  };
}
