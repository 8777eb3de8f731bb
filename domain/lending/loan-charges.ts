/**
 * Charges added to an active loan (`POST /v1/loans/{loanId}/charges`, Apache Fineract's
 * `LoanChargesApiResource` and `LoanChargeWritePlatformServiceImpl.addLoanCharge`): which charge definitions may be
 * added, which installment a charge lands on, and the `chargeTimeType` enum object Fineract's `LoanChargeData`
 * shows. Pure. Dates are ISO calendar dates `YYYY-MM-DD`; amounts decimal strings.
 *
 * Installment of a due date (Fineract `Loan.addLoanCharge` → `LoanCharge.isDueForCollectionFromIncludingAndUpToAndIncluding`
 * for the first installment, `isDueForCollectionFromAndUpToAndIncluding` for the others): the installment with
 * fromDate < dueDate ≤ its dueDate, the first one also holding its fromDate (the disbursement date). A down-payment
 * installment never takes a charge: the first installment after it is the first one (Fineract
 * `LoanRepaymentScheduleProcessingWrapper.fetchFirstNormalInstallmentNumber`), so a charge due on the disbursement
 * date lands on it (LoanReAging-Part2.feature, "re-aging transaction at 1st installment with charge"). A due date
 * after the last installment's due date gets an additional installment ("N+1", Fineract
 * `LoanRepaymentScheduleInstallment.additional`): from the last due date to the charge's due date, with no
 * principal or interest; when the last installment is already such an additional one, its due date moves to the
 * charge's instead (Fineract `Loan.addLoanCharge`: `latestRepaymentScheduleInstalment.updateDueDate`).
 */
import { type FieldError, fieldError } from '../errors';
import { chargeTimeTypeNames } from './charges';
import type { LoanChargeDefinition } from './loan-terms/types';
import type { ChargeTimeType } from './schedule';

/** Fineract `ChargeTimeType.SPECIFIED_DUE_DATE`: the only charges that may be added to an active loan here. */
export const specifiedDueDateChargeTimeType = 2;

/** One installment's period, as the placement needs it. */
export interface InstallmentSpan {
  installmentNumber: number;
  /** ISO dates. */
  fromDate: string;
  dueDate: string;
  /** An additional ("N+1") installment made for charges. */
  additional: boolean;
  /** The down-payment installment (due at disbursement, Fineract `downPaymentPeriod`); absent = false. */
  downPayment?: boolean;
}

/** Where a charge due on a date lands (module note). */
export type ChargePlacement =
  | { kind: 'INSTALLMENT'; installmentNumber: number }
  | { kind: 'MOVE_ADDITIONAL'; installmentNumber: number; dueDate: string }
  | { kind: 'NEW_ADDITIONAL'; installmentNumber: number; fromDate: string; dueDate: string };

/**
 * The installment a charge due on `dueDate` belongs to (module note). `installments` is the loan's schedule
 * (at least one, in installment order). RangeError when it is empty or `dueDate` is before the first
 * installment's fromDate (the caller refuses a due date before the disbursement first).
 */
export function placeLoanCharge(installments: readonly InstallmentSpan[], dueDate: string): ChargePlacement {
  const sorted = [...installments].sort((a, b) => a.installmentNumber - b.installmentNumber);
  const ordered = sorted.filter((installment) => !installment.downPayment);
  const first = ordered[0];
  const last = ordered[ordered.length - 1];
  if (!first || !last) throw new RangeError('a loan charge needs the loan to have installments');
  if (dueDate < (sorted[0] ?? first).fromDate) {
    throw new RangeError(`dueDate ${dueDate} is before the schedule starts`);
  }
  for (const [position, installment] of ordered.entries()) {
    const after = position === 0 ? dueDate >= installment.fromDate : dueDate > installment.fromDate;
    if (after && dueDate <= installment.dueDate) {
      return { kind: 'INSTALLMENT', installmentNumber: installment.installmentNumber };
    }
  }
  if (last.additional) return { kind: 'MOVE_ADDITIONAL', installmentNumber: last.installmentNumber, dueDate };
  return {
    kind: 'NEW_ADDITIONAL',
    installmentNumber: last.installmentNumber + 1,
    fromDate: last.dueDate,
    dueDate,
  };
}

/**
 * Why `definition` cannot be added to a loan in `loanCurrency`, as Shape A field errors naming `chargeId` (empty
 * when it can): an inactive definition (Fineract `ChargeIsNotActiveException`, `error.msg.charge.is.not.active`),
 * one of another currency (Fineract `LoanChargeAssembler`: the charge's currency must be the loan's), one that is
 * not a specified-due-date charge (only those are added to an active loan here; installment fees and disbursement
 * charges come with the application), or one that is not a flat amount (percentage charges are not added to an
 * active loan here).
 */
export function loanChargeDefinitionErrors(
  definition: LoanChargeDefinition,
  loanCurrency: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const id = definition.chargeId;
  if (!definition.active) {
    errors.push(
      fieldError(
        'chargeId',
        id,
        `Charge '${definition.name}' with identifier ${id} is not active.`,
        'error.msg.charge.is.not.active',
      ),
    );
  }
  if (definition.currencyCode !== loanCurrency) {
    errors.push(
      fieldError(
        'chargeId',
        id,
        `Charge ${id} is in ${definition.currencyCode}, the loan in ${loanCurrency}.`,
        'validation.msg.loancharge.currency.mismatch',
      ),
    );
  }
  if (definition.chargeTimeType !== specifiedDueDateChargeTimeType) {
    errors.push(
      fieldError(
        'chargeId',
        id,
        `Charge ${id} is a ${chargeTimeTypeNames[definition.chargeTimeType] ?? definition.chargeTimeType} charge: only specified-due-date charges (chargeTimeType 2) can be added to an active loan.`,
        'validation.msg.loancharge.chargeTimeType.not.allowed',
      ),
    );
  }
  if (definition.chargeCalculationType !== 1) {
    errors.push(
      fieldError(
        'chargeId',
        id,
        `Charge ${id} is a percentage charge: only flat charges (chargeCalculationType 1) can be added to an active loan.`,
        'validation.msg.loancharge.chargeCalculationType.not.allowed',
      ),
    );
  }
  return errors;
}

/** Fineract `EnumOptionData` of a `chargeTimeType` (`ChargeEnumerations.chargeTimeType`). */
export interface ChargeTimeTypeOption {
  id: ChargeTimeType;
  code: string;
  value: string;
}

const chargeTimeTypeOptions: Record<ChargeTimeType, ChargeTimeTypeOption> = {
  1: { id: 1, code: 'chargeTimeType.disbursement', value: 'Disbursement' },
  2: { id: 2, code: 'chargeTimeType.specifiedDueDate', value: 'Specified due date' },
  8: { id: 8, code: 'chargeTimeType.instalmentFee', value: 'Installment Fee' },
};

/** The enum object of a supported `chargeTimeType` code. */
export function chargeTimeTypeOption(code: ChargeTimeType): ChargeTimeTypeOption {
  return { ...chargeTimeTypeOptions[code] };
}
