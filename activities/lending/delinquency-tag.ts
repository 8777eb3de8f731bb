/**
 * A loan's stored delinquency tag (docs/lending.md "Close of business"; Apache Fineract `SetLoanDelinquencyTags`
 * and `LoanDelinquencyTagHistory`): the one in-transaction function that derives the classification, compares it
 * with the stored tag and, on a change, stores it with its collections consequence. Two callers, one code path:
 * - the close-of-business loan step for day D (activities/lending/close-loan-business-day.ts, steps 2 and 4), as
 *   of D + 1, its history row dated D (`source` CLOSE_OF_BUSINESS);
 * - every money operation's re-post (activities/lending/repost-loan.ts) of a loan that has had its first step, as
 *   of the loan's business date B = lastClosedBusinessDate + 1, its history row dated B (`source` TRANSACTION):
 *   a payment or charge that changes what is overdue sets the tag at once, so the next step compares with it and
 *   writes nothing twice.
 * The installment-level tags are set beside the classification. A pause active on the as-of date leaves a step's
 * tags as they are (a money operation sets them all the same); a loan never closed keeps its null tags
 * (NO_DELINQUENCY, no installment tags).
 */
import { and, eq } from 'drizzle-orm';
import {
  type CloseOfBusinessRange,
  type LoanTagContext,
  lastDelinquencyHistoryId,
  openCollectionsCaseOfLoan,
  readLoanTagContext,
} from '../../db/queries/lending/close-of-business';
import { storedDelinquencySettingsOf } from '../../db/queries/lending/delinquency';
import type { LoanForMoney } from '../../db/queries/lending/loans';
import { customers, loanDelinquencyHistory, loans } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { addDays } from '../../domain/calendar';
import { DomainError } from '../../domain/errors';
import { installmentStatesAsOf } from '../../domain/lending/allocation/summary';
import type { AllocationInput } from '../../domain/lending/allocation/types';
import {
  type DelinquencyChange,
  delinquencyChange,
  pauseActiveOn,
} from '../../domain/lending/close-of-business';
import {
  type DelinquencyInstallment,
  type DelinquencyResult,
  delinquencyInstallmentsOf,
  deriveDelinquency,
  type InstallmentDelinquencyTag,
  loanStatusAsOf,
  noDelinquency,
  sameInstallmentTags,
} from '../../domain/lending/delinquency';
import { type EffectivePause, effectivePauses } from '../../domain/lending/delinquency-actions';
import type { LoanStatus } from '../../domain/lending/loan-status';
import { activeRestrictions } from '../customers/restrictions';
import { writeOutboxEvent } from '../platform/outbox';
import { closeCaseInTx } from '../servicing/close-case';
import { openCaseInTx } from '../servicing/open-case';
import { openTask, recordEffect } from '../servicing/records';

/** What stored the change: a close-of-business loan step, or a money operation's re-post. */
export type DelinquencyTagSource = 'CLOSE_OF_BUSINESS' | 'TRANSACTION';

/** The loan fields the tag needs (a `LoanDayRow` or a `LoanForMoney`). */
export interface TaggedLoan {
  id: number;
  accountNo: string;
  clientId: number;
  currencyCode: string;
}

/** Input of `setDelinquencyTag`. */
export interface SetDelinquencyTagInput {
  tenantId: string;
  loan: TaggedLoan;
  /** The loan's status after the money it holds (the re-post's, or the stored one in a step). */
  status: LoanStatus;
  /** Per installment what it owes as of `asOfDate` (minor units). */
  installments: readonly DelinquencyInstallment[];
  /** The product's `graceOnArrearsAgeing`, days ≥ 0. */
  graceOnArrearsAgeingDays: number;
  /** The ranges of the loan's bucket (empty: always NO_DELINQUENCY). */
  ranges: readonly CloseOfBusinessRange[];
  /** The loan's effective pauses, by start. */
  pauses: readonly EffectivePause[];
  /** The stored tag's classification, null for none (NO_DELINQUENCY). */
  storedClassification: string | null;
  /** The product's `enableInstallmentLevelDelinquency` (from the loan's terms). */
  enableInstallmentLevelDelinquency: boolean;
  /** The stored installment-level tags (null: none). */
  storedInstallmentTags: readonly InstallmentDelinquencyTag[] | null;
  /** ISO date the classification is derived as of. */
  asOfDate: string;
  /** ISO date the history row and the event carry (the step's D, or the loan's business date). */
  businessDate: string;
  source: DelinquencyTagSource;
  now: Date;
  /**
   * Run once before the first write of a change (none without one): portfolio boarding writes the events its chunk
   * holds back first, so that the loan's events keep their order (activities/lending/loan-chunk.ts).
   */
  beforeWrites?: () => Promise<void>;
}

/**
 * Derives the loan's classification and installment-level tags as of `asOfDate` (domain/lending/delinquency.ts
 * `deriveDelinquency`) and sets them in `tx`, as Fineract's `LoanAccountDomainServiceJpa.setLoanDelinquencyTag`
 * does: the installment-level tags (`loans.installment_delinquency_tags`, written only when they differ) and, when
 * the classification differs from the stored tag, the collections case opened or closed CURED
 * (`collectionsOnChange`), a `loan_delinquency_history` row, `loans.delinquency_range_id` and
 * `loan.delinquency.changed`. A close-of-business step on a day a pause is active on (`asOfDate`) sets nothing
 * (Fineract `SetLoanDelinquencyTagsBusinessStep`); a money operation sets them the pause notwithstanding, as
 * Fineract's repayment and charge commands do (`LoanDelinquency.feature` "partial repayment during PAUSE period").
 * Answers the derivation and the classification change stored (null when none). Errors: a DomainError of the
 * collections case (e.g. a range naming a case type the tenant no longer has); PostgreSQL's.
 */
export async function setDelinquencyTag(
  tx: Tx,
  input: SetDelinquencyTagInput,
): Promise<{ derived: DelinquencyResult; change: DelinquencyChange | null }> {
  const { tenantId, loan, businessDate, now } = input;
  const derived = deriveDelinquency({
    currency: loan.currencyCode,
    asOfDate: input.asOfDate,
    loanStatus: loanStatusAsOf(input.status, input.installments),
    installments: input.installments,
    graceOnArrearsAgeingDays: input.graceOnArrearsAgeingDays,
    ranges: input.ranges,
    pausePeriods: input.pauses,
    enableInstallmentLevelDelinquency: input.enableInstallmentLevelDelinquency,
    lastPayment: null,
  });
  const pauseActive = input.source === 'CLOSE_OF_BUSINESS' && pauseActiveOn(input.pauses, input.asOfDate);
  if (pauseActive) return { derived, change: null };
  const change = delinquencyChange({
    storedClassification: input.storedClassification,
    derived: { classification: derived.classification, rangeId: derived.range?.id ?? null },
    pauseActive: false,
  });
  const tagsChanged = !sameInstallmentTags(input.storedInstallmentTags, derived.installmentTags);
  if (!change && !tagsChanged) return { derived, change: null };
  await input.beforeWrites?.();
  if (tagsChanged) {
    await tx
      .update(loans)
      .set({
        installmentDelinquencyTags: derived.installmentTags.length > 0 ? derived.installmentTags : null,
      })
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan.id)));
  }
  if (!change) return { derived, change: null };

  // A step's writes are keyed by its day (one step per loan and day); a transaction's by the history row it
  // follows, since several changes may share a business date.
  const keys =
    input.source === 'CLOSE_OF_BUSINESS'
      ? {
          collections: `close-of-business/collections/${loan.id}/${businessDate}`,
          event: `loan/${loan.id}/delinquency/${businessDate}`,
          label: `close of business ${businessDate}`,
        }
      : await (async () => {
          const after = await lastDelinquencyHistoryId(tx, tenantId, loan.id);
          return {
            collections: `delinquency-change/collections/${loan.id}/after/${after}`,
            event: `loan/${loan.id}/delinquency-change/after/${after}`,
            label: `business date ${businessDate}`,
          };
        })();
  const caseTypeCode =
    change.rangeId === null
      ? null
      : (input.ranges.find((r) => r.id === change.rangeId)?.collectionsCaseTypeCode ?? null);
  const collections = await collectionsOnChange(
    tx,
    tenantId,
    loan,
    change,
    caseTypeCode,
    businessDate,
    keys,
    now,
  );
  await tx
    .insert(loanDelinquencyHistory)
    .values({
      tenantId,
      loanId: loan.id,
      businessDate,
      source: input.source,
      classification: change.classification,
      previousClassification: change.previousClassification,
      delinquencyRangeId: change.rangeId,
      delinquentDays: derived.delinquent.delinquentDays,
      delinquentAmount: derived.delinquent.delinquentAmount,
      collectionsCaseId: collections.caseId,
      collectionsSuppressedBy: collections.suppressedBy,
      createdAt: now,
    })
    .onConflictDoNothing();
  await tx
    .update(loans)
    .set({ delinquencyRangeId: change.rangeId })
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan.id)));
  await writeOutboxEvent(tx, {
    tenantId,
    eventType: 'loan.delinquency.changed',
    subjectId: loan.id,
    data: {
      loanId: loan.id,
      loanRef: loan.accountNo,
      businessDate,
      previousClassification: change.previousClassification,
      classification: change.classification,
      pastDueDays: derived.delinquent.pastDueDays,
      delinquentDays: derived.delinquent.delinquentDays,
      delinquentAmount: derived.delinquent.delinquentAmount,
      currency: loan.currencyCode,
    },
    occurredAt: now,
    dedupeKey: keys.event,
  });
  return { derived, change };
}

/** Input of `retagLoanAfterRepost`. */
export interface RetagLoanAfterRepostInput {
  tenantId: string;
  /** The loan as the money operation locked it. */
  loan: LoanForMoney;
  /** Its status after the re-post. */
  status: LoanStatus;
  /** The re-post's allocation input (every funding, posted payment, charge and forgiveness, minor units). */
  allocationInput: AllocationInput;
  now: Date;
  /** `setDelinquencyTag`'s `beforeWrites`. */
  beforeWrites?: () => Promise<void>;
  /** The loan's tag context as the caller knows it (`readLoanTagContext`'s answer): not read. */
  context?: LoanTagContext;
}

/**
 * After a money operation re-posted a loan (activities/lending/repost-loan.ts): when the loan has had its first
 * close-of-business step and is booked, re-derives its tags as of its business date B = lastClosedBusinessDate + 1
 * from the re-post's own allocation input (no re-read of the money) and stores a change (`setDelinquencyTag`,
 * `source` TRANSACTION, dated B; a pause active on B does not hold it back). A loan never closed costs nothing; a closed one one statement (its settings,
 * tag, ranges and pauses) and a replay in memory, and writes only on a change. Errors: `setDelinquencyTag`'s.
 */
export async function retagLoanAfterRepost(tx: Tx, input: RetagLoanAfterRepostInput): Promise<void> {
  const { tenantId, loan } = input;
  if (loan.lastClosedBusinessDate === null) return;
  if (input.status === 'SUBMITTED' || input.status === 'APPROVED') return;
  const context = input.context ?? (await readLoanTagContext(tx, tenantId, loan.id));
  if (context === null) return;
  const settings = storedDelinquencySettingsOf(
    context.delinquency === null ? null : { delinquency: context.delinquency },
  );
  const businessDate = addDays(loan.lastClosedBusinessDate, 1);
  const states =
    input.allocationInput.installments.length === 0 ||
    !input.allocationInput.events.some((e) => e.kind === 'DISBURSEMENT')
      ? []
      : installmentStatesAsOf(input.allocationInput, businessDate);
  await setDelinquencyTag(tx, {
    tenantId,
    loan,
    status: input.status,
    installments: delinquencyInstallmentsOf(states),
    graceOnArrearsAgeingDays: settings.graceOnArrearsAgeing,
    ranges: settings.delinquencyBucketId === null ? [] : context.ranges,
    pauses: effectivePauses(context.actions).sort((a, b) => (a.startDate < b.startDate ? -1 : 1)),
    storedClassification: context.storedClassification,
    enableInstallmentLevelDelinquency: settings.enableInstallmentLevelDelinquency,
    storedInstallmentTags: context.installmentDelinquencyTags ?? null,
    asOfDate: businessDate,
    businessDate,
    source: 'TRANSACTION',
    now: input.now,
    ...(input.beforeWrites ? { beforeWrites: input.beforeWrites } : {}),
  });
}

/** The restriction types that hold back a collections case, in the order the history row names them. */
const collectionsHolds = ['COLLECTIONS_HOLD', 'COMMUNICATION_HOLD'] as const;

/**
 * P7 step 4 for a stored change: entering a range with a `collectionsCaseTypeCode` opens a case of that type for
 * the borrower (customerRef = its externalId, else its id; summary naming the loan; task "Contact borrower"; effect
 * COLLECTIONS_CASE_OPENED), unless the loan has an open one or a COLLECTIONS_HOLD / COMMUNICATION_HOLD is in force
 * (customer-wide or on this loan), which is named instead; back to NO_DELINQUENCY closes the loan's open
 * collections case with outcome CURED (`case.transitioned`), unless the case's own rules refuse the close (a
 * required ON_CLOSE answer missing: it stays open). Answers the case opened or closed and the hold.
 */
async function collectionsOnChange(
  tx: Tx,
  tenantId: string,
  loan: TaggedLoan,
  change: DelinquencyChange,
  caseTypeCode: string | null,
  businessDate: string,
  keys: { collections: string; label: string },
  now: Date,
): Promise<{ caseId: number | null; suppressedBy: string | null }> {
  if (change.classification === noDelinquency) {
    const caseId = await openCollectionsCaseOfLoan(tx, tenantId, loan.id);
    if (caseId === null) return { caseId: null, suppressedBy: null };
    try {
      await closeCaseInTx(
        tx,
        {
          tenantId,
          caseId,
          outcomeCode: 'CURED',
          closureReason: `Loan ${loan.accountNo} is no longer delinquent (${keys.label}).`,
        },
        now,
      );
    } catch (err) {
      // The case's own rules (an ON_CLOSE answer missing) refuse before any write: it stays open for a person.
      if (err instanceof DomainError) return { caseId: null, suppressedBy: null };
      throw err;
    }
    return { caseId, suppressedBy: null };
  }
  if (!caseTypeCode) return { caseId: null, suppressedBy: null };
  const holds = await activeRestrictions(tx, tenantId, loan.clientId, loan.id, {
    at: now,
    types: [...collectionsHolds],
  });
  const hold = collectionsHolds.find((type) => holds.some((h) => h.restrictionType === type));
  if (hold) return { caseId: null, suppressedBy: hold };
  if ((await openCollectionsCaseOfLoan(tx, tenantId, loan.id)) !== null)
    return { caseId: null, suppressedBy: null };
  const [customer] = await tx
    .select({ id: customers.id, externalId: customers.externalId })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), eq(customers.id, loan.clientId)));
  const opened = await openCaseInTx(
    tx,
    {
      tenantId,
      customerRef: customer?.externalId ?? String(loan.clientId),
      caseTypeCode,
      summary: `Loan ${loan.accountNo} entered ${change.classification} (${keys.label}).`,
      requestKey: keys.collections,
    },
    now,
  );
  await openTask(tx, {
    tenantId,
    caseId: opened.caseId,
    taskType: 'COLLECTIONS_CONTACT',
    title: 'Contact borrower',
    subjectType: 'loan',
    subjectId: loan.id,
    dueAt: null,
    dedupeKey: `${keys.collections}/contact`,
  });
  await recordEffect(tx, {
    tenantId,
    caseId: opened.caseId,
    effectType: 'COLLECTIONS_CASE_OPENED',
    subjectType: 'loan',
    subjectId: loan.id,
    detail: { loanId: loan.id, loanRef: loan.accountNo, classification: change.classification, businessDate },
    occurredAt: now,
    dedupeKey: `${keys.collections}/opened`,
  });
  return { caseId: opened.caseId, suppressedBy: null };
}
