/**
 * Charge definitions of the lending core (OpenAPI `POST /v1/charges`, "charge definitions,
 * created before products attach them by id"), in Apache Fineract's names and integer codes
 * (`codeDefinitions` of test/vectors/fineract-schedules.json, apache/fineract commit 4198b0bc).
 *
 * Supported here (what domain/lending/schedule.ts computes):
 * - `chargeAppliesTo` 1 LOAN (Fineract `ChargeAppliesTo`; savings 2, client 3 and shares 4 are not loan charges);
 * - `chargeTimeType` 1 DISBURSEMENT, 2 SPECIFIED_DUE_DATE, 8 INSTALMENT_FEE (Fineract `ChargeTimeType`), which the
 *   schedule computes (`chargeTimeTypes`), and 9 OVERDUE_INSTALLMENT, which never enters a schedule: a product
 *   attaches it and close of business assesses it on each installment overdue past the tenant's penalty wait period
 *   (docs/lending.md "Delinquency configuration"). It must be a penalty (Fineract `ChargeMustBePenaltyException`,
 *   `error.msg.charge.must.be.penalty`) and flat (1), a percent of the installment's overdue principal (2) or of
 *   its overdue principal + interest (3); 12 tranche disbursement is not supported;
 * - `chargeCalculationType` 1 FLAT, 2 PERCENT_OF_AMOUNT, 3 PERCENT_OF_AMOUNT_AND_INTEREST, 4 PERCENT_OF_INTEREST
 *   (Fineract `ChargeCalculationType`; 5 PERCENT_OF_DISBURSEMENT_AMOUNT is accepted by Fineract only with tranche
 *   disbursement, `ChargeDefinitionCommandFromApiJsonDeserializer.performChargeTimeNCalculationTypeValidation`).
 *
 * Combinations Fineract rejects when a loan charge is defined, and so do we:
 * - a penalty due at disbursement (`Charge` constructor → `ChargeDueAtDisbursementCannotBePenaltyException`);
 * - calculation type 5 outside tranche disbursement (above);
 * - an amount that is not greater than zero (`positiveAmount()` on `amount`).
 * Fineract does accept the percentage-of-interest and percentage-of-amount-and-interest types at disbursement
 * (integration-tests ClientLoanIntegrationTest creates such charges with `ChargesHelper.getLoanDisbursementJSON`;
 * `Loan.recalculateAllCharges` computes them on the schedule's total interest), and domain/lending/schedule.ts reproduces
 * that, so they are accepted here too.
 *
 * Amounts: a flat charge is money in the charge's currency, with at most the currency's ISO 4217 minor-unit
 * digits (docs/design.md §5 Currencies); a percentage charge carries the percent (`"1.5"` = 1.5 %) with at most 6 fraction
 * digits (`numeric(19,6)`, stored exactly).
 */
import { type FieldError, fieldError } from '../errors';
import { minorUnitDigits } from '../money';
import { decimalShape, isZeroDecimalText, moneyDigits } from './decimal-text';
import type { ChargeCalculationType, ChargeTimeType } from './schedule';

/** Fineract `ChargeAppliesTo.LOAN`: the only charges this engine defines. */
export const chargeAppliesToLoan = 1;

/** Fineract `ChargeTimeType` values supported, with their names. */
export const chargeTimeTypeNames = {
  1: 'DISBURSEMENT',
  2: 'SPECIFIED_DUE_DATE',
  8: 'INSTALMENT_FEE',
} as const satisfies Record<ChargeTimeType, string>;
/** The `chargeTimeType` codes a schedule computes. */
export const chargeTimeTypes = [1, 2, 8] as const satisfies readonly ChargeTimeType[];

/** Fineract `ChargeTimeType.OVERDUE_INSTALLMENT`: assessed by close of business, never in a schedule. */
export const overdueInstallmentChargeTimeType = 9;
/** The `chargeCalculationType` codes an overdue-installment charge accepts: flat, % of principal, % of principal + interest. */
export const overdueChargeCalculationTypes = [1, 2, 3] as const;
/** The `chargeTimeType` codes a charge definition accepts: the schedule's and the overdue-installment charge. */
export const definitionChargeTimeTypes = [...chargeTimeTypes, overdueInstallmentChargeTimeType] as const;

/** Fineract `ChargeCalculationType` values supported, with their names. */
export const chargeCalculationTypeNames = {
  1: 'FLAT',
  2: 'PERCENT_OF_AMOUNT',
  3: 'PERCENT_OF_AMOUNT_AND_INTEREST',
  4: 'PERCENT_OF_INTEREST',
} as const satisfies Record<ChargeCalculationType, string>;
/** The supported `chargeCalculationType` codes. */
export const chargeCalculationTypes = [1, 2, 3, 4] as const satisfies readonly ChargeCalculationType[];

/** The fields of a charge definition, as `POST /v1/charges` takes them (Fineract's names). */
export interface ChargeDefinition {
  /** 1–100 characters (Fineract `notExceedingLengthOf(100)`). */
  name: string;
  /** ISO 4217 alphabetic code known to dinero.js, e.g. `"USD"`. */
  currencyCode: string;
  /** Decimal string > 0: flat money amount, or the percent of a percentage charge. */
  amount: string;
  /** 1 loan. */
  chargeAppliesTo: number;
  /** 1 disbursement, 2 specified due date, 8 installment fee, 9 overdue installment. */
  chargeTimeType: number;
  /** 1 flat, 2 % of amount, 3 % of amount + interest, 4 % of interest. */
  chargeCalculationType: number;
  /** Booked as a penalty instead of a fee; not allowed at disbursement. */
  penalty: boolean;
  /** Only active charges can be attached to a product. */
  active: boolean;
}

/**
 * Every rule a charge definition breaks, as Shape A field errors (empty when it is acceptable): a blank or
 * over-long name, an unknown currency, unsupported codes, a penalty at disbursement, an amount that is not > 0, that has more fraction
 * digits than the currency (flat) or than 6 (percentage), or more than 13 integer digits.
 */
export function chargeDefinitionErrors(charge: ChargeDefinition): FieldError[] {
  const errors: FieldError[] = [];
  if (charge.name.trim().length === 0 || charge.name.length > 100) {
    errors.push(
      fieldError(
        'name',
        charge.name,
        'name must be 1 to 100 characters, not blank.',
        'validation.msg.charge.name.invalid',
      ),
    );
  }
  let currencyDigits: number | null = null;
  try {
    currencyDigits = minorUnitDigits(charge.currencyCode);
  } catch {
    errors.push(
      fieldError(
        'currencyCode',
        charge.currencyCode,
        `currencyCode ${charge.currencyCode} is not an ISO 4217 currency code.`,
        'validation.msg.charge.currencyCode.unknown',
      ),
    );
  }
  if (charge.chargeAppliesTo !== chargeAppliesToLoan) {
    errors.push(
      fieldError(
        'chargeAppliesTo',
        charge.chargeAppliesTo,
        'chargeAppliesTo must be 1 (loan): only loan charges are supported.',
        'validation.msg.charge.chargeAppliesTo.is.not.one.of.expected.enumerations',
      ),
    );
  }
  const timeSupported = (definitionChargeTimeTypes as readonly number[]).includes(charge.chargeTimeType);
  if (!timeSupported) {
    errors.push(
      fieldError(
        'chargeTimeType',
        charge.chargeTimeType,
        'chargeTimeType must be 1 (disbursement), 2 (specified due date), 8 (installment fee) or 9 (overdue installment).',
        'validation.msg.charge.chargeTimeType.is.not.one.of.expected.enumerations',
      ),
    );
  }
  const calculationSupported = (chargeCalculationTypes as readonly number[]).includes(
    charge.chargeCalculationType,
  );
  if (!calculationSupported) {
    errors.push(
      fieldError(
        'chargeCalculationType',
        charge.chargeCalculationType,
        charge.chargeCalculationType === 5
          ? 'chargeCalculationType 5 (% of disbursement amount) applies only to tranche disbursement charges, which are not supported.'
          : 'chargeCalculationType must be 1 (flat), 2 (% of amount), 3 (% of amount and interest) or 4 (% of interest).',
        'validation.msg.charge.chargeCalculationType.is.not.one.of.expected.enumerations',
      ),
    );
  }
  if (charge.penalty && charge.chargeTimeType === 1) {
    errors.push(
      fieldError(
        'penalty',
        charge.penalty,
        'A charge due at disbursement cannot be a penalty.',
        'error.msg.charge.due.at.disbursement.cannot.be.penalty',
      ),
    );
  }
  if (charge.chargeTimeType === overdueInstallmentChargeTimeType) {
    if (!charge.penalty) {
      errors.push(
        fieldError(
          'penalty',
          charge.penalty,
          'An overdue-installment charge (chargeTimeType 9) must be a penalty.',
          'error.msg.charge.must.be.penalty',
        ),
      );
    }
    if (
      calculationSupported &&
      !(overdueChargeCalculationTypes as readonly number[]).includes(charge.chargeCalculationType)
    ) {
      errors.push(
        fieldError(
          'chargeCalculationType',
          charge.chargeCalculationType,
          'An overdue-installment charge is 1 (flat), 2 (% of the overdue principal) or 3 (% of the overdue principal and interest).',
          'validation.msg.charge.chargeCalculationType.not.allowed.for.overdue.installment',
        ),
      );
    }
  }
  const flat = charge.chargeCalculationType === 1;
  const amountError = amountProblem(charge.amount, flat ? currencyDigits : moneyDigits.fraction, flat);
  if (amountError) {
    errors.push(fieldError('amount', charge.amount, amountError, 'validation.msg.charge.amount.invalid'));
  }
  return errors;
}

/** Why `amount` is unacceptable, or null. `fractionDigits` null = unknown currency (reported elsewhere). */
function amountProblem(amount: string, fractionDigits: number | null, flat: boolean): string | null {
  const shape = decimalShape(amount);
  if (!shape) return 'amount must be a non-negative decimal number such as "25" or "1.5".';
  if (isZeroDecimalText(amount)) return 'amount must be greater than zero.';
  if (shape.integerDigits > moneyDigits.integer)
    return `amount must have at most ${moneyDigits.integer} integer digits.`;
  if (fractionDigits !== null && shape.fractionDigits > fractionDigits) {
    return flat
      ? `amount has more fraction digits than the currency allows (${fractionDigits}).`
      : `amount (a percentage) must have at most ${fractionDigits} fraction digits.`;
  }
  return null;
}
