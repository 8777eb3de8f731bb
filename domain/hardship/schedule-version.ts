/**
 * A loan's schedule versions as JSON (docs/processes.md P5 "APPLIED: the loan's schedule is modified (a
 * new schedule version …)"): the installments of one version and the summary of the relief that made it, as
 * stored in `loan_schedule_versions` (db/schema/lending/lending.ts) and answered by the reads. Money amounts are decimal
 * strings of minor units of the loan's currency (bigint `…Minor` → `"12345"`, never a float); dates ISO
 * `YYYY-MM-DD`. Pure.
 */
import type { ReliefInstallment, ReliefSummary, ReliefType } from './relief';

/** One installment of a schedule version. Amounts: decimal strings of minor units, ≥ 0. */
export interface ScheduleInstallmentJson {
  installmentNumber: number;
  fromDate: string;
  dueDate: string;
  principalDueMinor: string;
  interestDueMinor: string;
  feeDueMinor: string;
  penaltyDueMinor: string;
  principalPaidMinor: string;
  interestPaidMinor: string;
  feePaidMinor: string;
  penaltyPaidMinor: string;
}

/** `ReliefSummary` (domain/hardship/relief.ts) as JSON: every bigint as a decimal string of minor units. */
export interface ReliefSummaryJson {
  reliefType: ReliefType;
  asOfDate: string;
  totalDueBeforeMinor: string;
  totalDueAfterMinor: string;
  reductionMinor: { principalMinor: string; interestMinor: string; feeMinor: string; penaltyMinor: string };
  reductionTotalMinor: string;
  movedMinor: string;
  changedInstallmentNumbers: number[];
  addedInstallmentNumbers: number[];
}

/** The installments as `ScheduleInstallmentJson`, in the given order. */
export function scheduleInstallmentsJson(
  installments: readonly ReliefInstallment[],
): ScheduleInstallmentJson[] {
  return installments.map((i) => ({
    installmentNumber: i.installmentNumber,
    fromDate: i.fromDate,
    dueDate: i.dueDate,
    principalDueMinor: i.principalDueMinor.toString(),
    interestDueMinor: i.interestDueMinor.toString(),
    feeDueMinor: i.feeDueMinor.toString(),
    penaltyDueMinor: i.penaltyDueMinor.toString(),
    principalPaidMinor: i.principalPaidMinor.toString(),
    interestPaidMinor: i.interestPaidMinor.toString(),
    feePaidMinor: i.feePaidMinor.toString(),
    penaltyPaidMinor: i.penaltyPaidMinor.toString(),
  }));
}

/** `summary` as `ReliefSummaryJson` (arrays copied). */
export function reliefSummaryJson(summary: ReliefSummary): ReliefSummaryJson {
  const r = summary.reductionMinor;
  return {
    reliefType: summary.reliefType,
    asOfDate: summary.asOfDate,
    totalDueBeforeMinor: summary.totalDueBeforeMinor.toString(),
    totalDueAfterMinor: summary.totalDueAfterMinor.toString(),
    reductionMinor: {
      principalMinor: r.principalMinor.toString(),
      interestMinor: r.interestMinor.toString(),
      feeMinor: r.feeMinor.toString(),
      penaltyMinor: r.penaltyMinor.toString(),
    },
    reductionTotalMinor: summary.reductionTotalMinor.toString(),
    movedMinor: summary.movedMinor.toString(),
    changedInstallmentNumbers: [...summary.changedInstallmentNumbers],
    addedInstallmentNumbers: [...summary.addedInstallmentNumbers],
  };
}
