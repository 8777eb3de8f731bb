/**
 * Periodic statements of a loan (docs/design.md §5 "Statements"; docs/processes.md P6 "Statements"):
 * which installment a statement is for on a given day, and the statement's figures from the loan's summary at two
 * dates, its schedule and its money events of the period. Pure: no I/O, no clock; calendar arithmetic only via
 * domain/calendar.ts, local dates via domain/time-zone.ts.
 *
 * Timing: a product with `lmsConfig.statementEnabled` issues, for each installment, one statement on its due date
 * − `statementLeadDays` (default 21, 14–28, shorter than the repayment period), that date being a calendar date in
 * the tenant's compliance time zone. Calendar days, so a DST change (a 23- or 25-hour day) or a month end moves
 * nothing: a statement for the due date 2026-03-31 is issued on 2026-03-10 whatever the offsets.
 *
 * Figures (every amount a decimal string with the currency's minor-unit digits; computed in minor units):
 * - period: from the day after the previous statement's period end (or the first disbursement date) to the
 *   statement date, inclusive;
 * - balance at a date D = the loan summary's payoff quote at D less the overpayment held (`GET
 *   /v1/loans/{loanId}/summary?asOfDate=D`: `payoff.total − balances.overpayment`): what the borrower owes at the
 *   end of D, interest accrued to D included. previousBalance is the balance at the day before the period,
 *   newBalance the balance at the statement date, so both agree with the summary to the cent;
 * - payments: Σ of the POSTED payments value-dated in the period; interestCharged / feesCharged: the interest
 *   (fees + penalties) that became owed in the period, i.e. the change of that component of the balance plus what
 *   the period's payments paid of it; otherCredits: what else lowered the balance (a waiver, an allocation moved by
 *   a back-dated payment), normally zero, so that previousBalance + disbursements + interestCharged + feesCharged −
 *   payments − otherCredits = newBalance exactly;
 * - pastDue: the summary's `overdue.total` at the statement date (installments due before it, unpaid); currentDue:
 *   what is unpaid of the installment due on the due date; amountDue = pastDue + currentDue.
 */
import { addDays, isIsoDate } from '../calendar';
import { taskQueues } from '../ids';
import { formatMinor, minorUnitDigits } from '../money';
import { localDate } from '../time-zone';
import type { WorkflowStartSpec } from '../workflow-start';

/** `lmsConfig.statementLeadDays` when a product does not set it (docs/design.md §5). */
export const defaultStatementLeadDays = 21;

/** A product's statement settings as `lmsConfig` holds them (`statementEnabled`, `statementLeadDays`). */
export interface StatementSettings {
  enabled: boolean;
  /** Calendar days between the statement date and the due date. */
  leadDays: number;
}

/** The statement settings of a product's `lmsConfig` (absent lead days → `defaultStatementLeadDays`). */
export function statementSettingsOf(
  lmsConfig: Record<string, unknown> | null | undefined,
): StatementSettings {
  const lead = lmsConfig?.statementLeadDays;
  return {
    enabled: lmsConfig?.statementEnabled === true,
    leadDays:
      typeof lead === 'number' && Number.isInteger(lead) && lead > 0 ? lead : defaultStatementLeadDays,
  };
}

/** The tenant-local calendar date (ISO) of an instant (epoch ms) in the IANA zone `timeZone`: a cycle's asOf. */
export function statementAsOfDate(instantMs: number, timeZone: string): string {
  return localDate(instantMs, timeZone);
}

/**
 * The due date a statement issued on `asOfDate` is for: `asOfDate` + `leadDays` calendar days (ISO dates).
 * RangeError for an invalid date or a lead below 1.
 */
export function statementDueDateOn(asOfDate: string, leadDays: number): string {
  if (!isIsoDate(asOfDate)) throw new RangeError(`asOfDate is not an ISO date: ${String(asOfDate)}`);
  if (!Number.isInteger(leadDays) || leadDays < 1) throw new RangeError(`leadDays must be ≥ 1: ${leadDays}`);
  return addDays(asOfDate, leadDays);
}

/** The statement date of the installment due on `dueDate`: `dueDate` − `leadDays` calendar days. */
export function statementDateFor(dueDate: string, leadDays: number): string {
  if (!isIsoDate(dueDate)) throw new RangeError(`dueDate is not an ISO date: ${String(dueDate)}`);
  return addDays(dueDate, -leadDays);
}

/** A schedule row as the statement needs it (amounts in minor units). */
export interface StatementInstallment {
  installmentNumber: number;
  /** ISO date. */
  dueDate: string;
  /** principal + interest + fee + penalty due. */
  dueMinor: bigint;
  /** What of those components was paid (or waived) by the statement date. */
  settledMinor: bigint;
}

/**
 * The installment a statement issued on `asOfDate` is for: the one due exactly `leadDays` later (paid ahead or not);
 * null when there is none (no statement that day). Rows in any order.
 */
export function installmentForStatement(
  installments: readonly StatementInstallment[],
  asOfDate: string,
  leadDays: number,
): StatementInstallment | null {
  const dueDate = statementDueDateOn(asOfDate, leadDays);
  return installments.find((i) => i.dueDate === dueDate) ?? null;
}

/** One line of a stored payment allocation (`payments.allocation.lines`, domain/lending/allocation/payload.ts). */
export interface AllocationLineText {
  installmentNumber: number | null;
  component: string;
  /** Decimal string. */
  amount: string;
}

/**
 * What the given payments' allocations paid to installment `installmentNumber` (every component), minor units:
 * with the payments value-dated on or before the statement date, the installment's state at that date, whatever
 * was paid after it (a statement generated late shows the same figures).
 */
export function paidToInstallmentMinor(
  allocations: readonly (readonly AllocationLineText[])[],
  installmentNumber: number,
  toMinor: (amount: string) => bigint,
): bigint {
  let paid = 0n;
  for (const lines of allocations) {
    for (const line of lines) {
      if (line.installmentNumber === installmentNumber && line.component !== 'OVERPAYMENT')
        paid += toMinor(line.amount);
    }
  }
  return paid;
}

/**
 * First day of a statement's period: the day after the previous statement's period end, else the first
 * disbursement date (ISO dates).
 */
export function statementPeriodStart(previousPeriodEnd: string | null, disbursementDate: string): string {
  return previousPeriodEnd === null ? disbursementDate : addDays(previousPeriodEnd, 1);
}

/** Balance components at a date, minor units (the loan summary's payoff quote and overpayment held). */
export interface BalanceAt {
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
  overpaymentMinor: bigint;
}

/** A posted payment of the period with its current split, minor units. */
export interface PeriodPayment {
  paymentId: number;
  /** ISO date. */
  effectiveDate: string;
  amountMinor: bigint;
  principalMinor: bigint;
  interestMinor: bigint;
  feeMinor: bigint;
  penaltyMinor: bigint;
  overpaymentMinor: bigint;
}

/** A disbursement of the period, minor units. */
export interface PeriodFunding {
  fundingId: number;
  /** ISO date. */
  fundingDate: string;
  amountMinor: bigint;
}

/** Everything the figures are computed from. */
export interface StatementFigureInput {
  /** ISO 4217 code. */
  currency: string;
  /** ISO dates: the statement date (period end) and the installment's due date. */
  statementDate: string;
  dueDate: string;
  periodStart: string;
  /** Balance at periodStart − 1 and at statementDate. */
  previous: BalanceAt;
  current: BalanceAt;
  /** Summary `overdue.total` at statementDate, minor units. */
  pastDueMinor: bigint;
  /** The installment due on dueDate. */
  installment: StatementInstallment;
  payments: readonly PeriodPayment[];
  fundings: readonly PeriodFunding[];
  /** The frozen APR disclosure's `annualPercentageRate` (percent, decimal string), null when none. */
  annualPercentageRate: string | null;
  /** The product's late fee (flat penalty charge), minor units; null when it has none. */
  lateFeeMinor: bigint | null;
}

/** One line of the period's transactions. */
export interface StatementTransaction {
  /** ISO date. */
  date: string;
  type: 'DISBURSEMENT' | 'PAYMENT';
  description: string;
  /** `funding/<id>` or `payment/<id>`. */
  reference: string;
  /** Decimal string: positive raises the balance (disbursement), negative lowers it (payment). */
  amount: string;
}

/** A statement's figures (module note): amounts are decimal strings with the currency's digits. */
export interface StatementFigures {
  currency: string;
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  installmentNumber: number;
  previousBalance: string;
  disbursements: string;
  payments: string;
  otherCredits: string;
  interestCharged: string;
  feesCharged: string;
  newBalance: string;
  pastDue: string;
  currentDue: string;
  amountDue: string;
  /** Percent a year, as disclosed at approval; null when the loan has no APR disclosure. */
  annualPercentageRate: string | null;
  /** Decimal string, null when the product has no late fee. */
  lateFee: string | null;
  latePaymentWarning: string;
  transactions: StatementTransaction[];
}

const balanceOf = (b: BalanceAt) =>
  b.principalMinor + b.interestMinor + b.feeMinor + b.penaltyMinor - b.overpaymentMinor;

/**
 * The late-payment warning of a statement (Regulation Z §1026.7(b)(11) wording adapted to an installment loan):
 * names the amount due, the due date and, when the product has one, the late fee. Amounts are decimal strings.
 */
export function latePaymentWarning(
  amountDue: string,
  currency: string,
  dueDate: string,
  lateFee: string | null,
): string {
  const base = `Late payment warning: if we do not receive your payment of ${amountDue} ${currency} by ${dueDate},`;
  return lateFee === null
    ? `${base} your loan will be past due and the unpaid amount will be reported as overdue.`
    : `${base} you may have to pay a late fee of up to ${lateFee} ${currency}.`;
}

/** The statement's figures (module note). Pure; amounts out as decimal strings at the currency's digits. */
export function statementFigures(input: StatementFigureInput): StatementFigures {
  const digits = minorUnitDigits(input.currency);
  const text = (minor: bigint) => formatMinor(minor, digits);
  const sum = <T>(rows: readonly T[], pick: (row: T) => bigint) =>
    rows.reduce((acc, row) => acc + pick(row), 0n);
  const { previous, current, payments, fundings } = input;

  const disbursedMinor = sum(fundings, (f) => f.amountMinor);
  const paymentsMinor = sum(payments, (p) => p.amountMinor);
  const interestChargedMinor =
    current.interestMinor - previous.interestMinor + sum(payments, (p) => p.interestMinor);
  const feesChargedMinor =
    current.feeMinor +
    current.penaltyMinor -
    previous.feeMinor -
    previous.penaltyMinor +
    sum(payments, (p) => p.feeMinor + p.penaltyMinor);
  const previousMinor = balanceOf(previous);
  const newMinor = balanceOf(current);
  // Whatever else lowered the balance: zero unless a waiver or a re-allocation moved it (module note).
  const otherCreditsMinor =
    previousMinor + disbursedMinor + interestChargedMinor + feesChargedMinor - paymentsMinor - newMinor;
  const unpaid = input.installment.dueMinor - input.installment.settledMinor;
  const currentDueMinor = unpaid > 0n ? unpaid : 0n;
  const amountDueMinor = input.pastDueMinor + currentDueMinor;
  const lateFee = input.lateFeeMinor === null ? null : text(input.lateFeeMinor);

  const transactions: StatementTransaction[] = [
    ...fundings.map((f) => ({
      date: f.fundingDate,
      type: 'DISBURSEMENT' as const,
      description: 'Loan disbursement',
      reference: `funding/${f.fundingId}`,
      amount: text(f.amountMinor),
      order: 0,
      id: f.fundingId,
    })),
    ...payments.map((p) => ({
      date: p.effectiveDate,
      type: 'PAYMENT' as const,
      description: 'Payment received, thank you',
      reference: `payment/${p.paymentId}`,
      amount: text(-p.amountMinor),
      order: 1,
      id: p.paymentId,
    })),
  ]
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.order - b.order || a.id - b.id))
    .map(({ date, type, description, reference, amount }) => ({
      date,
      type,
      description,
      reference,
      amount,
    }));

  const amountDue = text(amountDueMinor);
  return {
    currency: input.currency,
    periodStart: input.periodStart,
    periodEnd: input.statementDate,
    dueDate: input.dueDate,
    installmentNumber: input.installment.installmentNumber,
    previousBalance: text(previousMinor),
    disbursements: text(disbursedMinor),
    payments: text(paymentsMinor),
    otherCredits: text(otherCreditsMinor),
    interestCharged: text(interestChargedMinor),
    feesCharged: text(feesChargedMinor),
    newBalance: text(newMinor),
    pastDue: text(input.pastDueMinor),
    currentDue: text(currentDueMinor),
    amountDue,
    annualPercentageRate: input.annualPercentageRate,
    lateFee,
    latePaymentWarning: latePaymentWarning(amountDue, input.currency, input.dueDate, lateFee),
    transactions,
  };
}

/** Masks an account number for print: all but the last 4 characters as `*` (at least 4 shown masked). */
export function maskAccountNumber(accountNo: string): string {
  const tail = accountNo.slice(-4);
  return `${'*'.repeat(Math.max(4, accountNo.length - 4))}${tail}`;
}

/** How one tenant's statement run for a date is started (the input of `tenantStatementCycleWorkflow`). */
export interface TenantStatementCycleInput {
  tenantId: string;
  /** ISO date in the tenant's time zone: statements for installments due asOf + lead days are generated. */
  asOf: string;
}

/** `statement-cycle/<tenant>/<asOf>`: one tenant's run for a date, found in the Temporal UI by its business key. */
export function tenantStatementCycleWorkflowId(tenantId: string, asOf: string): string {
  return `statement-cycle/${tenantId}/${asOf}`;
}

/** The id of the schedule that starts `dailyStatementCycleWorkflow` every day (one per namespace). */
export const statementCycleScheduleId = 'statement-cycle';

/**
 * How one tenant's statement run is started (docs/processes.md P0 start specs), by the daily run (as a child) or an
 * operator (`npm run admin -- statements run`): queue `lending`, `TenantId` search attribute, reuse allowed (a rerun
 * is idempotent: a statement is unique per loan and due date).
 */
export function tenantStatementCycleStartSpec(
  input: TenantStatementCycleInput,
): WorkflowStartSpec<TenantStatementCycleInput> {
  return {
    workflowType: 'tenantStatementCycleWorkflow',
    workflowId: tenantStatementCycleWorkflowId(input.tenantId, input.asOf),
    taskQueue: taskQueues.lending,
    input,
    tenantId: input.tenantId,
    searchAttributes: {},
    staticSummary: `Statements of ${input.tenantId} issued on ${input.asOf}`,
    idReusePolicy: 'ALLOW_DUPLICATE',
  };
}
