/**
 * `repostLoan`: after a money event of a loan was recorded, re-runs the allocation of all its money events and
 * brings everything derived from it up to date, inside the caller's transaction, under the caller's loan lock
 * (db/queries/lending/loans.ts `lockLoanForMoney`). Source: docs/lending.md "Lending core" (a back-dated payment re-runs
 * the allocation of the later transactions so the ledger equals what it would have been in date order; every money
 * event writes balanced journal entries; the trial balance is zero after every operation; allocation is performed
 * by the ledger, value-dated to `effectiveDate`); docs/conventions.md §8 (immutable journal, corrections as reversing entries).
 *
 * Steps, each a no-op when nothing changed (so a repost with nothing new writes nothing):
 * 1. read the loan's installments (the stored current schedule: as generated, or as a hardship relief modified
 *    it, activities/lending/loan-relief.ts — never regenerated from the terms here), fundings, POSTED payments,
 *    principal forgiven by reliefs (`loan_schedule_versions`) and whole journal (one pipelined round trip);
 * 2. `allocatePayments` (domain/lending/allocation/replay.ts) over every funding and posted payment, in value-date order, with
 *    the principal forgiven (its journal entries, `forgiveness/<id>`, come from the same diff as the others);
 * 3. update `loan_installments` paid and waived columns (a payoff waives what it does not charge, domain/lending/allocation/payoff.ts)
 *    and `obligations_met_on_date` of the changed rows (db/queries/lending/installments.ts, batched: a loan may
 *    have 10,000 installments);
 *    and the paid and waived amounts of each charge added to the loan (`loan_charges`, whose rows the replay reads
 *    as charges falling due on their dates, domain/lending/allocation/replay.ts module note);
 * 4. store each payment's allocation payload in `payments.allocation` (one statement per 1,000 changed rows);
 * 4b. with a charge-off in force (`loan_charge_offs` not reversed; activities/lending/charge-off-loan.ts): the
 *    payments after it are recoveries (domain/lending/charge-off.ts `isRecoveryPayment`), its portions are what the
 *    schedule had outstanding after the other payments (`chargeOffPortions` of a replay without the recoveries,
 *    stored on its row when they changed, e.g. after a back-dated payment), its principal is booked Dr
 *    CREDIT_LOSS_EXPENSE / Cr LOAN_PORTFOLIO and each recovery Dr EXTERNAL_CLEARING / Cr RECOVERY_INCOME
 *    (domain/lending/ledger.ts); an undone charge-off leaves the input, so its posting is reversed;
 * 5. make sure the tenant's chart exists (`defaultChartOfAccounts`, insert … on conflict do nothing), append
 *    `diffPostings(journal, postingsForAllocation(result))` to `journal_entries` (reversal lines point at the
 *    line they cancel through `reverses_entry_id`), and check every appended entry and the loan's whole journal
 *    balance (RangeError otherwise, which rolls the transaction back);
 * 6. set the loan's status (OVERPAID with an overpayment, CLOSED_OBLIGATIONS_MET when every installment is met —
 *    paid, or waived by a payoff —
 *    else ACTIVE — also back to ACTIVE when a back-dated change reopens it) and `disbursed_on_date` (the earliest
 *    funding date), once a first funding exists;
 * 7. a loan that has had its first close-of-business step: its delinquency tag re-derived as of its business date
 *    from the same allocation input, stored at once when it changed (activities/lending/delinquency-tag.ts
 *    `retagLoanAfterRepost`; docs/lending.md "Close of business"), unless the caller is that step.
 */
import canonicalize from 'canonicalize';
import { and, asc, eq, sql } from 'drizzle-orm';
import { insertJsonRows, intArrayLiteral } from '../../db/queries/json-rows';
import type { LoanTagContext } from '../../db/queries/lending/close-of-business';
import {
  type InstallmentLedgerState,
  type NewInstallmentRow,
  updateInstallmentLedgerState,
  updateInstallmentLedgerStates,
} from '../../db/queries/lending/installments';
import { loanChargesForAllocation } from '../../db/queries/lending/loan-charges';
import type { LoanForMoney } from '../../db/queries/lending/loans';
import { loanPrincipalForgiveness } from '../../db/queries/lending/schedule-versions';
import {
  fundings,
  glAccounts,
  journalEntries,
  loanChargeOffs,
  loanCharges,
  loanInstallments,
  loans,
  payments,
} from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import {
  type PaymentAllocationPayload,
  paymentAllocationPayload,
} from '../../domain/lending/allocation/payload';
import { allocatePayments } from '../../domain/lending/allocation/replay';
import type { AllocationInput, AllocationResult } from '../../domain/lending/allocation/types';
import { chargeOffPortions, isRecoveryPayment } from '../../domain/lending/charge-off';
import {
  assertBalanced,
  type ChargeOffPostingContext,
  defaultChartOfAccounts,
  diffPostings,
  type JournalEntry,
  type JournalLine,
  journalLinePayload,
  parseTransactionRef,
  postingsForAllocation,
  transactionRefOf,
  trialBalance,
} from '../../domain/lending/ledger';
import { allocationInputOf, allocationStrategyOf, minorOf } from '../../domain/lending/loan-allocation';
import { formatMinor, minorUnitDigits } from '../../domain/money';
import { retagLoanAfterRepost } from './delinquency-tag';

type LoanStatus = (typeof loans.$inferSelect)['status'];

export interface RepostInput {
  tenantId: string;
  /** The loan, locked by the caller in this transaction. */
  loan: LoanForMoney;
  /** Instant of the operation (`deps.clock()`): `created_at` of appended journal lines, `updated_at` of the loan. */
  now: Date;
  /**
   * Step 7 (module note); default true. false only from the close-of-business loan step, which stores the tag as
   * of D + 1 itself.
   */
  retagDelinquency?: boolean;
  /**
   * The loan was created in this transaction (portfolio boarding, activities/lending/board-loan.ts): it has no
   * journal, added charge, principal forgiveness or charge-off yet, so they are not read. Default false.
   */
  createdInThisTransaction?: boolean;
  /** The tenant's chart of accounts was ensured in this transaction (activities/lending/loan-chunk.ts). Default false. */
  chartReady?: boolean;
  /** Run before step 7 writes a tag change (`setDelinquencyTag`'s `beforeWrites`). */
  beforeDirectWrites?: () => Promise<void>;
  /**
   * The loan's installments, fundings and POSTED payments exactly as this transaction stored them (a loan created
   * in it, whose every row the caller wrote and holds: portfolio boarding's chunk, activities/lending/loan-chunk.ts):
   * step 1 does not read them. Only with `createdInThisTransaction`.
   */
  known?: RepostKnownRows;
  /**
   * Step 7's delinquency context as the caller knows it (a loan created in this transaction: its stored terms'
   * settings, no tag, no action; its bucket's ranges read once per chunk): not read again.
   */
  tagContext?: LoanTagContext;
  /**
   * With `known`: the writes of steps 3, 4, 5 and 6 (installment states, payment allocations, journal lines, the
   * loan's status and first funding date) are added here instead of sent, for the caller to write before its
   * transaction commits (portfolio boarding's chunk writes its new loans' together, activities/lending/loan-chunk.ts).
   * The caller must not read those rows back in between.
   */
  deferWrites?: RepostDeferredWrites;
}

/** The writes a repost leaves to its caller (`RepostInput.deferWrites`), each list in the order they were made. */
export interface RepostDeferredWrites {
  installments: (InstallmentLedgerState & { loanId: number })[];
  allocations: { loanId: number; allocation: PaymentAllocationPayload }[];
  journal: (typeof journalEntries.$inferInsert)[];
  loans: { id: number; status: LoanStatus; disbursedOnDate: string | null; updatedAt: Date }[];
  /**
   * Approvals of loans created in this transaction (activities/lending/approve-loan.ts with a chunk), written
   * before the statuses: each loan's row as `approveLoan` sets it (status APPROVED).
   */
  approvals: DeferredApproval[];
}

/** The columns an approval sets on the loan's row (`approveLoanInTx`). */
export interface DeferredApproval {
  id: number;
  approvedPrincipal: string;
  approvedOnDate: string;
  expectedDisbursementDate: string;
  terms: Record<string, unknown>;
  aprDisclosure: Record<string, unknown> | null;
  approvedBy: string | null;
  updatedAt: Date;
}

/**
 * Writes what reposts (`RepostInput.deferWrites`) and approvals deferred in `tx`: one statement per kind of row for
 * any number of loans (installment states, payment allocations, journal lines, approvals, then loans' status and
 * first funding date), and empties the lists. Errors: PostgreSQL's (the caller's transaction fails).
 */
export async function writeDeferredRepostWrites(
  tx: Tx,
  tenantId: string,
  deferred: RepostDeferredWrites,
): Promise<void> {
  await updateInstallmentLedgerStates(tx, tenantId, deferred.installments.splice(0));
  const allocations = deferred.allocations.splice(0);
  if (allocations.length > 0) {
    const payload = JSON.stringify(
      allocations.map(({ loanId, allocation }) => ({
        loan_id: loanId,
        id: allocation.paymentId,
        allocation,
      })),
    );
    await tx.execute(sql`
      update payments as p
         set allocation = v.allocation
        from jsonb_to_recordset(${payload}::jsonb) as v(loan_id bigint, id bigint, allocation jsonb)
       where p.tenant_id = ${tenantId}
         and p.id = any(${intArrayLiteral(allocations.map((a) => a.allocation.paymentId))}::bigint[])
         and p.id = v.id and p.loan_id = v.loan_id`);
  }
  await insertJsonRows(tx, journalEntries, deferred.journal.splice(0));
  const approvals = deferred.approvals.splice(0);
  if (approvals.length > 0) {
    const payload = JSON.stringify(
      approvals.map((row) => ({
        id: row.id,
        approved_principal: row.approvedPrincipal,
        approved_on_date: row.approvedOnDate,
        expected_disbursement_date: row.expectedDisbursementDate,
        terms: row.terms,
        apr_disclosure: row.aprDisclosure,
        approved_by: row.approvedBy,
        updated_at: row.updatedAt.toISOString(),
      })),
    );
    await tx.execute(sql`
      update loans as l
         set status = 'APPROVED', approved_principal = v.approved_principal, approved_on_date = v.approved_on_date,
             expected_disbursement_date = v.expected_disbursement_date, terms = v.terms,
             apr_disclosure = v.apr_disclosure, approved_by = v.approved_by, updated_at = v.updated_at
        from jsonb_to_recordset(${payload}::jsonb)
          as v(id bigint, approved_principal numeric, approved_on_date date, expected_disbursement_date date,
               terms jsonb, apr_disclosure jsonb, approved_by text, updated_at timestamptz)
       where l.tenant_id = ${tenantId}
         and l.id = any(${intArrayLiteral(approvals.map((row) => row.id))}::bigint[]) and l.id = v.id`);
  }
  const loanRows = deferred.loans.splice(0);
  if (loanRows.length > 0) {
    const payload = JSON.stringify(
      loanRows.map((row) => ({
        id: row.id,
        status: row.status,
        disbursed_on_date: row.disbursedOnDate,
        updated_at: row.updatedAt.toISOString(),
      })),
    );
    await tx.execute(sql`
      update loans as l
         set status = v.status::loan_status, disbursed_on_date = v.disbursed_on_date, updated_at = v.updated_at
        from jsonb_to_recordset(${payload}::jsonb)
          as v(id bigint, status text, disbursed_on_date date, updated_at timestamptz)
       where l.tenant_id = ${tenantId}
         and l.id = any(${intArrayLiteral(loanRows.map((row) => row.id))}::bigint[]) and l.id = v.id`);
  }
}

/** What step 1 would read of a loan created in this transaction (`RepostInput.known`). */
export interface RepostKnownRows {
  /** The installment rows as inserted (defaults of the paid and waived columns: zero, not met). */
  installments: readonly NewInstallmentRow[];
  /** Every funding of the loan: id, funding date (ISO), amount (decimal string). */
  fundings: readonly RepostFundingRow[];
  /** Every POSTED payment of the loan: id, effective date (ISO), amount (decimal string), stored allocation. */
  payments: readonly RepostPaymentRow[];
}

/** A funding as the repost replays it. */
export interface RepostFundingRow {
  id: number;
  valueDate: string;
  amount: string;
}

/** A POSTED payment as the repost replays it. */
export interface RepostPaymentRow {
  id: number;
  valueDate: string;
  amount: string;
  allocation: unknown;
  /** When it was recorded (`payments.created_at`); absent for rows the caller has just inserted with no charges. */
  recordedAt?: Date | string | null;
}

/** An inserted installment row as step 1 would read it back (the columns' defaults filled in). */
function installmentAsStored(row: NewInstallmentRow): typeof loanInstallments.$inferSelect {
  return {
    ...row,
    principalPaid: row.principalPaid ?? '0',
    interestPaid: row.interestPaid ?? '0',
    feeChargesPaid: row.feeChargesPaid ?? '0',
    penaltyChargesPaid: row.penaltyChargesPaid ?? '0',
    interestWaived: row.interestWaived ?? '0',
    feeChargesWaived: row.feeChargesWaived ?? '0',
    penaltyChargesWaived: row.penaltyChargesWaived ?? '0',
    obligationsMetOnDate: row.obligationsMetOnDate ?? null,
    additional: row.additional ?? false,
  } as typeof loanInstallments.$inferSelect;
}

export interface RepostResult {
  /** The replay of every funding and posted payment (minor units). */
  allocation: AllocationResult;
  /** The stored allocation payload of each posted payment, by payment id. */
  allocations: Map<number, PaymentAllocationPayload>;
  /** The loan's status after the repost. */
  status: LoanStatus;
  /** ISO date of the first funding, null without fundings. */
  disbursedOnDate: string | null;
  /** Journal lines appended by this repost. */
  appendedLineCount: number;
}

/**
 * Re-allocates the loan's money events and appends the journal corrections (module note). Call it after the new
 * funding or payment row is inserted, in the same transaction, with the loan locked. Throws an Error when the
 * stored loan cannot be replayed (e.g. fundings above its installments' principal, an unsupported strategy),
 * which is a data defect, never a caller's mistake.
 */
export async function repostLoan(tx: Tx, input: RepostInput): Promise<RepostResult> {
  const { tenantId, loan, now } = input;
  const currency = loan.currencyCode;
  const fresh = input.createdInThisTransaction === true;
  const known = fresh ? input.known : undefined;
  const deferred = known ? input.deferWrites : undefined;
  const [installmentRows, fundingRows, paymentRows, journalRows, forgivenessRows, chargeRows, chargeOffRows] =
    await Promise.all([
      known
        ? [...known.installments]
            .sort((a, b) => a.installmentNumber - b.installmentNumber)
            .map(installmentAsStored)
        : tx
            .select()
            .from(loanInstallments)
            .where(and(eq(loanInstallments.tenantId, tenantId), eq(loanInstallments.loanId, loan.id)))
            .orderBy(asc(loanInstallments.installmentNumber)),
      known
        ? known.fundings.map((f) => ({ ...f }))
        : tx
            .select({ id: fundings.id, valueDate: fundings.fundingDate, amount: fundings.amount })
            .from(fundings)
            .where(and(eq(fundings.tenantId, tenantId), eq(fundings.loanId, loan.id))),
      known
        ? known.payments.map((p) => ({ ...p }))
        : tx
            .select({
              id: payments.id,
              valueDate: payments.effectiveDate,
              amount: payments.amount,
              allocation: payments.allocation,
              recordedAt: payments.createdAt,
            })
            .from(payments)
            .where(
              and(
                eq(payments.tenantId, tenantId),
                eq(payments.loanId, loan.id),
                eq(payments.status, 'POSTED'),
              ),
            ),
      fresh
        ? []
        : tx
            .select()
            .from(journalEntries)
            .where(and(eq(journalEntries.tenantId, tenantId), eq(journalEntries.loanId, loan.id)))
            .orderBy(asc(journalEntries.id)),
      fresh ? [] : loanPrincipalForgiveness(tx, tenantId, loan.id),
      fresh ? [] : loanChargesForAllocation(tx, tenantId, loan.id),
      fresh
        ? []
        : tx
            .select()
            .from(loanChargeOffs)
            .where(
              and(
                eq(loanChargeOffs.tenantId, tenantId),
                eq(loanChargeOffs.loanId, loan.id),
                eq(loanChargeOffs.reversed, false),
              ),
            ),
    ]);

  const inputOf = (paymentsToReplay: typeof paymentRows): AllocationInput =>
    allocationInputOf({
      currency,
      installments: installmentRows,
      fundings: fundingRows,
      payments: paymentsToReplay,
      strategy: allocationStrategyOf(loan.transactionProcessingStrategyCode, loan.paymentAllocation),
      disbursementChargesDue: loan.disbursementChargesDue,
      principalForgiveness: forgivenessRows,
      loanCharges: chargeRows,
    });
  const replay = (paymentsToReplay: typeof paymentRows): AllocationResult => {
    try {
      return allocatePayments(inputOf(paymentsToReplay));
    } catch (err) {
      if (err instanceof RangeError) {
        throw new Error(`loan ${loan.id} cannot be re-allocated: ${err.message}`, { cause: err });
      }
      throw err;
    }
  };
  const allocation = replay(paymentRows);
  const digits = minorUnitDigits(currency);
  const text = (minor: bigint) => formatMinor(minor, digits);

  // 2b. the charge-off in force (domain/lending/charge-off.ts): its portions are what the schedule had outstanding
  // after the payments received before it, and the payments after it are recoveries
  const chargeOffRow = chargeOffRows[0] ?? null;
  let chargeOffContext: ChargeOffPostingContext | null = null;
  if (chargeOffRow) {
    const chargeOffTerms = {
      transactionDate: chargeOffRow.transactionDate,
      lastPaymentIdAtChargeOff: chargeOffRow.lastPaymentId,
    };
    const recoveryPaymentIds = new Set(
      paymentRows
        .filter((p) => isRecoveryPayment({ paymentId: p.id, valueDate: p.valueDate }, chargeOffTerms))
        .map((p) => p.id),
    );
    const before =
      recoveryPaymentIds.size === 0
        ? allocation
        : replay(paymentRows.filter((p) => !recoveryPaymentIds.has(p.id)));
    const portions = chargeOffPortions(before);
    const stored = {
      amount: text(portions.amountMinor),
      principalPortion: text(portions.principalMinor),
      interestPortion: text(portions.interestMinor),
      feeChargesPortion: text(portions.feeMinor),
      penaltyChargesPortion: text(portions.penaltyMinor),
    };
    if (
      minorOf(chargeOffRow.amount, currency) !== portions.amountMinor ||
      minorOf(chargeOffRow.principalPortion, currency) !== portions.principalMinor ||
      minorOf(chargeOffRow.interestPortion, currency) !== portions.interestMinor ||
      minorOf(chargeOffRow.feeChargesPortion, currency) !== portions.feeMinor ||
      minorOf(chargeOffRow.penaltyChargesPortion, currency) !== portions.penaltyMinor
    ) {
      await tx
        .update(loanChargeOffs)
        .set(stored)
        .where(and(eq(loanChargeOffs.tenantId, tenantId), eq(loanChargeOffs.id, chargeOffRow.id)));
    }
    chargeOffContext = {
      chargeOff: {
        id: chargeOffRow.id,
        valueDate: chargeOffRow.transactionDate,
        principalMinor: portions.principalMinor,
      },
      recoveryPaymentIds,
    };
  }
  const storedCharges = new Map(
    (fresh
      ? []
      : await tx
          .select({
            id: loanCharges.id,
            amountPaid: loanCharges.amountPaid,
            amountWaived: loanCharges.amountWaived,
          })
          .from(loanCharges)
          .where(and(eq(loanCharges.tenantId, tenantId), eq(loanCharges.loanId, loan.id)))
    ).map((row) => [
      row.id,
      {
        amountPaidMinor: minorOf(row.amountPaid, currency),
        amountWaivedMinor: minorOf(row.amountWaived, currency),
      },
    ]),
  );

  // 3. installments
  const storedInstallments = new Map(installmentRows.map((row) => [row.installmentNumber, row]));
  const changedInstallments = allocation.installments.filter((state) => {
    const row = storedInstallments.get(state.installmentNumber);
    return (
      !row ||
      minorOf(row.principalPaid, currency) !== state.principalPaidMinor ||
      minorOf(row.interestPaid, currency) !== state.interestPaidMinor ||
      minorOf(row.feeChargesPaid, currency) !== state.feePaidMinor ||
      minorOf(row.penaltyChargesPaid, currency) !== state.penaltyPaidMinor ||
      minorOf(row.interestWaived, currency) !== state.interestWaivedMinor ||
      minorOf(row.feeChargesWaived, currency) !== state.feeWaivedMinor ||
      minorOf(row.penaltyChargesWaived, currency) !== state.penaltyWaivedMinor ||
      row.obligationsMetOnDate !== state.obligationsMetOnDate
    );
  });
  const installmentStates = changedInstallments.map(
    (s): InstallmentLedgerState => ({
      installmentNumber: s.installmentNumber,
      principalPaid: text(s.principalPaidMinor),
      interestPaid: text(s.interestPaidMinor),
      feeChargesPaid: text(s.feePaidMinor),
      penaltyChargesPaid: text(s.penaltyPaidMinor),
      interestWaived: text(s.interestWaivedMinor),
      feeChargesWaived: text(s.feeWaivedMinor),
      penaltyChargesWaived: text(s.penaltyWaivedMinor),
      obligationsMetOnDate: s.obligationsMetOnDate,
    }),
  );
  if (deferred)
    deferred.installments.push(...installmentStates.map((state) => ({ ...state, loanId: loan.id })));
  else await updateInstallmentLedgerState(tx, tenantId, loan.id, installmentStates);

  // 3b. what each added charge has been paid and waived (loan_charges), where it changed
  const changedCharges = allocation.charges.filter((state) => {
    const row = storedCharges.get(state.id);
    return !row || row.amountPaidMinor !== state.paidMinor || row.amountWaivedMinor !== state.waivedMinor;
  });
  if (changedCharges.length > 0) {
    const payload = JSON.stringify(
      changedCharges.map((state) => ({
        id: state.id,
        amount_paid: text(state.paidMinor),
        amount_waived: text(state.waivedMinor),
      })),
    );
    await tx.execute(sql`
      update loan_charges as c
         set amount_paid = v.amount_paid, amount_waived = v.amount_waived
        from jsonb_to_recordset(${payload}::jsonb) as v(id bigint, amount_paid numeric, amount_waived numeric)
       where c.tenant_id = ${tenantId} and c.loan_id = ${loan.id}
         and c.id = any(${intArrayLiteral(changedCharges.map((state) => state.id))}::bigint[]) and c.id = v.id`);
  }

  // 4. payment allocations
  const allocations = new Map<number, PaymentAllocationPayload>();
  const storedAllocation = new Map(paymentRows.map((row) => [row.id, row.allocation]));
  const changedAllocations: PaymentAllocationPayload[] = [];
  for (const payment of allocation.payments) {
    const payload = paymentAllocationPayload(payment, currency);
    allocations.set(payment.paymentId, payload);
    if (canonicalize(storedAllocation.get(payment.paymentId) ?? null) !== canonicalize(payload)) {
      changedAllocations.push(payload);
    }
  }
  if (deferred) {
    deferred.allocations.push(...changedAllocations.map((allocation) => ({ loanId: loan.id, allocation })));
  } else if (changedAllocations.length > 0) {
    // One statement, one parameter, for any number of payments (db/queries/json-rows.ts).
    const payload = JSON.stringify(
      changedAllocations.map((allocation) => ({ id: allocation.paymentId, allocation })),
    );
    await tx.execute(sql`
      update payments as p
         set allocation = v.allocation
        from jsonb_to_recordset(${payload}::jsonb) as v(id bigint, allocation jsonb)
       where p.tenant_id = ${tenantId} and p.loan_id = ${loan.id}
         and p.id = any(${intArrayLiteral(changedAllocations.map((a) => a.paymentId))}::bigint[]) and p.id = v.id`);
  }

  // 5. journal
  const previous = journalOf(journalRows, currency);
  const appended = diffPostings(previous.entries, postingsForAllocation(allocation, chargeOffContext));
  for (const entry of appended) assertBalanced(entry);
  const balance = trialBalance([
    ...previous.entries.flatMap((entry) => entry.lines),
    ...appended.flatMap((entry) => entry.lines),
  ]);
  if (!balance.balanced) throw new RangeError(`the journal of loan ${loan.id} does not balance`);
  let appendedLineCount = 0;
  if (appended.length > 0 && input.chartReady !== true) {
    await ensureChartOfAccounts(tx, tenantId);
  }
  if (appended.length > 0) {
    const rows = appended.flatMap((entry) =>
      entry.lines.map((line) => {
        const amounts = journalLinePayload(line);
        let reversesEntryId: number | null = null;
        if (line.reverses) {
          const id = previous.lineIds.get(`${line.reverses.transactionRef}#${line.reverses.lineIndex}`);
          if (id === undefined) throw new RangeError(`no journal line ${line.reverses.transactionRef}`);
          reversesEntryId = id;
        }
        return {
          tenantId,
          loanId: loan.id,
          transactionRef: entry.transactionRef,
          accountCode: line.accountCode,
          entryDate: entry.valueDate,
          debit: amounts.debit,
          credit: amounts.credit,
          currencyCode: line.currency,
          reversesEntryId,
          createdAt: now,
        };
      }),
    );
    // One statement, one parameter, for any number of lines (a back-dated payment on a long loan can re-post
    // thousands of later payments): db/queries/json-rows.ts.
    if (deferred) deferred.journal.push(...rows);
    else await insertJsonRows(tx, journalEntries, rows);
    appendedLineCount = rows.length;
  }

  // 6. loan status and first funding date
  let status = loan.status;
  let disbursedOnDate: string | null = null;
  for (const funding of allocation.disbursements) {
    if (disbursedOnDate === null || funding.valueDate < disbursedOnDate) disbursedOnDate = funding.valueDate;
  }
  if (disbursedOnDate !== null && status !== 'SUBMITTED') {
    if (allocation.overpaymentMinor > 0n) status = 'OVERPAID';
    else if (allocation.installments.every((i) => i.outstandingMinor === 0n))
      status = 'CLOSED_OBLIGATIONS_MET';
    else status = 'ACTIVE';
  }
  if (deferred && (status !== loan.status || disbursedOnDate !== loan.disbursedOnDate)) {
    deferred.loans.push({ id: loan.id, status, disbursedOnDate, updatedAt: now });
  } else if (status !== loan.status || disbursedOnDate !== loan.disbursedOnDate) {
    await tx
      .update(loans)
      .set({ status, disbursedOnDate, updatedAt: now })
      .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loan.id)));
  }

  // 7. the delinquency tag
  if (input.retagDelinquency !== false && loan.lastClosedBusinessDate !== null) {
    await retagLoanAfterRepost(tx, {
      tenantId,
      loan,
      status,
      allocationInput: inputOf(paymentRows),
      now,
      ...(input.tagContext ? { context: input.tagContext } : {}),
      ...(input.beforeDirectWrites ? { beforeWrites: input.beforeDirectWrites } : {}),
    });
  }

  return { allocation, allocations, status, disbursedOnDate, appendedLineCount };
}

/**
 * The loan's journal rows as domain/lending/ledger.ts entries (grouped by `transaction_ref`, lines in id order), and the
 * id of each line by `<transactionRef>#<lineIndex>` (for `reverses_entry_id` of the reversals appended next).
 */
function journalOf(
  rows: readonly (typeof journalEntries.$inferSelect)[],
  currency: string,
): { entries: JournalEntry[]; lineIds: Map<string, number> } {
  const byRef = new Map<string, (typeof journalEntries.$inferSelect)[]>();
  for (const row of rows) {
    const group = byRef.get(row.transactionRef);
    if (group) group.push(row);
    else byRef.set(row.transactionRef, [row]);
  }
  const refOfLineId = new Map<number, { transactionRef: string; lineIndex: number }>();
  const lineIds = new Map<string, number>();
  for (const [transactionRef, group] of byRef) {
    group.forEach((row, lineIndex) => {
      refOfLineId.set(row.id, { transactionRef, lineIndex });
      lineIds.set(`${transactionRef}#${lineIndex}`, row.id);
    });
  }
  const entries: JournalEntry[] = [];
  for (const [transactionRef, group] of byRef) {
    const parsed = parseTransactionRef(transactionRef);
    const first = group[0]!;
    if (first.currencyCode !== currency) {
      throw new RangeError(
        `journal entry ${transactionRef} is in ${first.currencyCode}, the loan in ${currency}`,
      );
    }
    entries.push({
      transactionRef,
      source: parsed.source,
      kind: parsed.kind,
      revision: parsed.revision,
      valueDate: first.entryDate,
      currency: first.currencyCode,
      reversesTransactionRef:
        parsed.kind === 'REVERSAL' ? transactionRefOf(parsed.source, 'POSTING', parsed.revision) : null,
      lines: group.map(
        (row): JournalLine => ({
          accountCode: row.accountCode as JournalLine['accountCode'],
          debitMinor: minorOf(row.debit, row.currencyCode),
          creditMinor: minorOf(row.credit, row.currencyCode),
          currency: row.currencyCode,
          reverses: row.reversesEntryId === null ? null : (refOfLineId.get(row.reversesEntryId) ?? null),
        }),
      ),
    });
  }
  return { entries, lineIds };
}

/**
 * Writes the tenant's default chart of accounts (domain/lending ledger `defaultChartOfAccounts`) where an account is
 * missing: one multi-row INSERT … ON CONFLICT DO NOTHING, so it is safe to call on every posting and concurrently.
 * Source: docs/lending.md "Ledger" (the accounts every loan posting uses).
 */
export async function ensureChartOfAccounts(tx: Tx, tenantId: string): Promise<void> {
  await tx
    .insert(glAccounts)
    .values(
      defaultChartOfAccounts.map((account) => ({
        tenantId,
        code: account.code,
        name: account.name,
        accountType: account.accountType,
      })),
    )
    .onConflictDoNothing({ target: [glAccounts.tenantId, glAccounts.code] });
}
