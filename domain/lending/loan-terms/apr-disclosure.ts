/**
 * The Regulation Z disclosure of a loan (12 CFR §1026.18, §1026.22; docs/design.md §5 APR): the prepaid finance
 * charges of its schedule (§1026.4(a), §1026.18(b)) and the APR disclosure built by domain/lending/disclosure.ts from
 * the loan's terms, or why it cannot be produced. Pure.
 */

import { formatMinor, parseDecimalToMinor } from '../../money';
import {
  type AprDisclosure,
  type AprRounding,
  type AprTolerancePolicy,
  buildAprDisclosure,
  DisclosureUnavailableError,
  type DisclosureUnavailableReason,
  type PrepaidFinanceCharge,
  repaymentFrequencyOf,
} from '../disclosure';
import type { ConfigurationStatus, LmsConfig } from '../products';
import { generateSchedule, type Schedule } from '../schedule';
import { scheduleInputOf } from './schedule-input';
import type { LoanTerms } from './types';

/** Why a loan's disclosure cannot be produced: domain/lending/disclosure.ts's reasons, plus the product and the schedule. */
export type LoanDisclosureUnavailableReason =
  | DisclosureUnavailableReason
  | 'PRODUCT_NOT_CONFIGURED'
  | 'UNSUPPORTED_REPAYMENT_FREQUENCY';

export type LoanDisclosureResult =
  | { ok: true; disclosure: AprDisclosure }
  | { ok: false; reason: LoanDisclosureUnavailableReason; message: string };

/**
 * The prepaid finance charges of a loan (§1026.4(a), §1026.18(b)): every charge due at disbursement, by name
 * and amount. This engine's charge definitions have no "not a finance charge" flag, and every charge it
 * schedules is imposed by the creditor incident to the credit (origination fees and the like), so all of them
 * count. Each amount is that charge's disbursement-row amount (a schedule generated with it alone, as
 * percentages of the interest depend only on the interest); the last one absorbs any rounding of the row's total
 * (`inMultiplesOf`), so the charges sum to `schedule.periods[0].feeChargesDue`.
 */
export function prepaidFinanceChargesOf(
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
  schedule: Schedule,
): PrepaidFinanceCharge[] {
  const atDisbursement = terms.charges.filter((c) => c.chargeTimeType === 1);
  if (atDisbursement.length === 0) return [];
  const digits = schedule.currency.digitsAfterDecimal;
  const total = parseDecimalToMinor(schedule.periods[0].feeChargesDue, digits);
  if (atDisbursement.length === 1)
    return [{ name: atDisbursement[0]!.name, amount: formatMinor(total, digits) }];
  const result: PrepaidFinanceCharge[] = [];
  let sum = 0n;
  for (const [index, charge] of atDisbursement.entries()) {
    let amount: bigint;
    if (index === atDisbursement.length - 1) amount = total - sum;
    else {
      const alone = generateSchedule({
        ...scheduleInputOf({ ...terms, charges: [charge] }, principal, expectedDisbursementDate),
      });
      amount = parseDecimalToMinor(alone.periods[0].feeChargesDue, digits);
    }
    sum += amount;
    result.push({ name: charge.name, amount: formatMinor(amount < 0n ? 0n : amount, digits) });
  }
  return result;
}

/**
 * The schedule of the credit a disclosure describes: without the down-payment period of a product with
 * `enableDownPayment` and with the principal less that down payment. The down payment is paid when the credit
 * is extended (12 CFR §1026.2(a)(18) "downpayment"; §1026.18(b) amount financed, (g) payment schedule), so it is
 * neither financed nor one of the scheduled payments; the APR is unchanged by the choice (a payment at the
 * advance is discounted by nothing), the amount financed and the total of payments are not. A schedule without a
 * down payment is returned as it is.
 */
export function creditScheduleOf(schedule: Schedule): Schedule {
  const [disbursement, ...installments] = schedule.periods;
  const down = installments.find((p) => p.downPaymentPeriod);
  if (!down) return schedule;
  const digits = schedule.currency.digitsAfterDecimal;
  const minor = (text: string) => parseDecimalToMinor(text, digits);
  const less = (text: string) => formatMinor(minor(text) - minor(down.principalDue), digits);
  return {
    ...schedule,
    totalPrincipalExpected: less(schedule.totalPrincipalExpected),
    totalRepaymentExpected: less(schedule.totalRepaymentExpected),
    periods: [
      {
        ...disbursement,
        principalDisbursed: less(disbursement.principalDisbursed),
        principalLoanBalanceOutstanding: less(disbursement.principalLoanBalanceOutstanding),
      },
      ...installments.filter((p) => p !== down),
    ],
  };
}

/**
 * The §1026.18 disclosure of a loan whose product has `lmsConfig.aprEnabled` (docs/design.md §5 APR): the schedule, its
 * repayment frequency (the Appendix J unit-period), the prepaid finance charges (`prepaidFinanceChargesOf`),
 * the down payment left out of the credit (`creditScheduleOf`),
 * and the product's `aprRounding` and `aprTolerancePolicy`. Not ok when the product is not CONFIGURED or lacks
 * those settings, when the repayment frequency has no implemented unit-period, or for any
 * `DisclosureUnavailableError` (amount financed not positive, negative finance charge, APR not computable,
 * outside tolerance). `finalizedAt` is added by whoever freezes it.
 */
export function loanAprDisclosure(
  product: { configurationStatus: ConfigurationStatus; lmsConfig: LmsConfig },
  terms: LoanTerms,
  principal: string,
  expectedDisbursementDate: string,
  schedule: Schedule,
): LoanDisclosureResult {
  const { lmsConfig } = product;
  if (
    product.configurationStatus !== 'CONFIGURED' ||
    !lmsConfig.aprRounding ||
    !lmsConfig.aprTolerancePolicy
  ) {
    return {
      ok: false,
      reason: 'PRODUCT_NOT_CONFIGURED',
      message: `the loan product is not configured for approval (configurationStatus ${product.configurationStatus})`,
    };
  }
  try {
    return {
      ok: true,
      disclosure: buildAprDisclosure({
        schedule: creditScheduleOf(schedule),
        disbursementDate: expectedDisbursementDate,
        repaymentFrequency: repaymentFrequencyOf(terms.repaymentEvery, terms.repaymentFrequencyType),
        prepaidFinanceCharges: prepaidFinanceChargesOf(terms, principal, expectedDisbursementDate, schedule),
        aprRounding: lmsConfig.aprRounding as AprRounding,
        aprTolerancePolicy: lmsConfig.aprTolerancePolicy as AprTolerancePolicy,
      }),
    };
  } catch (error) {
    if (error instanceof DisclosureUnavailableError)
      return { ok: false, reason: error.reason, message: error.message };
    if (error instanceof RangeError && /unit-period/.test(error.message)) {
      return { ok: false, reason: 'UNSUPPORTED_REPAYMENT_FREQUENCY', message: error.message };
    }
    throw error;
  }
}
