/**
 * The schedule of a loan's terms: the `ScheduleInput` of domain/lending/schedule.ts from `LoanTerms`, a principal and
 * a disbursement date, and the generated schedule or the field errors for what the schedule refuses. Used at
 * submission, at approval and by the disclosure. Source: Apache Fineract `LoanScheduleValidator`.
 */

import type { FieldError } from '../../errors';
import { generateSchedule, type Schedule, type ScheduleCharge, type ScheduleInput } from '../schedule';
import { collector } from './field-checks';
import type { LoanCharge, LoanTerms, Resolution } from './types';

/** The `ScheduleInput` of a loan's `terms` with its `principal` and disbursement date (ISO). */
export function scheduleInputOf(
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
): ScheduleInput {
  return {
    principal,
    numberOfRepayments: terms.numberOfRepayments,
    repaymentEvery: terms.repaymentEvery,
    repaymentFrequencyType: terms.repaymentFrequencyType,
    interestRatePerPeriod: terms.interestRatePerPeriod,
    interestRateFrequencyType: terms.interestRateFrequencyType,
    interestType: terms.interestType,
    amortizationType: terms.amortizationType,
    interestCalculationPeriodType: terms.interestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion: terms.allowPartialPeriodInterestCalcualtion,
    daysInYearType: terms.daysInYearType,
    daysInMonthType: terms.daysInMonthType,
    graceOnPrincipalPayment: terms.graceOnPrincipalPayment,
    graceOnInterestPayment: terms.graceOnInterestPayment,
    expectedDisbursementDate,
    repaymentsStartingFromDate: terms.repaymentsStartingFromDate,
    charges: terms.charges.map(scheduleChargeOf),
    currency: { ...terms.currency },
    installmentAmountInMultiplesOf: terms.installmentAmountInMultiplesOf,
    ...(terms.enableDownPayment
      ? {
          enableDownPayment: true,
          disbursedAmountPercentageForDownPayment: terms.disbursedAmountPercentageForDownPayment ?? null,
        }
      : {}),
  };
}

function scheduleChargeOf(charge: LoanCharge): ScheduleCharge {
  return {
    chargeTimeType: charge.chargeTimeType,
    chargeCalculationType: charge.chargeCalculationType,
    amount: charge.amount,
    dueDate: charge.dueDate,
    penalty: charge.penalty,
  };
}

/**
 * The schedule of `terms` at `principal` disbursed on `expectedDisbursementDate`, or the field errors for what
 * domain/lending/schedule.ts refuses (an equal installment below the interest due, a charge date outside the schedule,
 * a principal that is not a multiple of `inMultiplesOf`), named after the parameter that caused it. Used at
 * submission and when approval changes the principal or the disbursement date.
 */
export function scheduleOf(
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
  principalParameter = 'principal',
): Resolution<Schedule> {
  try {
    return { ok: true, value: generateSchedule(scheduleInputOf(terms, principal, expectedDisbursementDate)) };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const message = error.message;
    const charge = /^charge (\d+)|^charges\[(\d+)\]/.exec(message);
    let parameterName = principalParameter;
    let rule = 'not.schedulable';
    if (charge) {
      parameterName = `charges[${charge[1] ?? charge[2]}].dueDate`;
      rule = 'outside.repayment.schedule';
    } else if (/equal installment/.test(message)) {
      parameterName = 'interestRatePerPeriod';
      rule = 'installment.below.interest.due';
    } else if (/repaymentsStartingFromDate/.test(message)) {
      parameterName = 'repaymentsStartingFromDate';
    }
    const errors: FieldError[] = [];
    collector(errors)(parameterName, null, `The schedule cannot be generated: ${message}.`, rule);
    return { ok: false, errors };
  }
}
