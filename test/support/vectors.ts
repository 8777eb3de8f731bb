/**
 * Published test vectors (`test/vectors/`, each with its source in that folder's README): resolved from
 * this file's location, so every clone of the repository has them.
 */
import { readFileSync } from 'node:fs';

/** Parses `test/vectors/<name>` as JSON. */
export function readVector<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8')) as T;
}

/**
 * The `POST /v1/loanproducts` body of the product a Fineract vector case's loan was made from
 * (`inputs` of test/vectors/fineract-schedules.json), with the given `lmsConfig`.
 */
export function productBodyOfVectorCase(
  // biome-ignore lint/suspicious/noExplicitAny: the vector file's inputs are read field by field
  c: { id: string; inputs: Record<string, any> },
  lmsConfig: Record<string, unknown>,
): Record<string, unknown> {
  const i = c.inputs;
  return {
    name: `Vector ${c.id}`.slice(0, 100),
    shortName: 'VEC',
    currencyCode: i.currency.code,
    digitsAfterDecimal: i.currency.digitsAfterDecimal,
    inMultiplesOf: i.currency.inMultiplesOf,
    installmentAmountInMultiplesOf: i.installmentAmountInMultiplesOf,
    principal: i.principal,
    numberOfRepayments: i.numberOfRepayments,
    interestRatePerPeriod: i.interestRatePerPeriod,
    repaymentEvery: i.repaymentEvery,
    repaymentFrequencyType: i.repaymentFrequencyType,
    interestRateFrequencyType: i.interestRateFrequencyType,
    interestType: i.interestType,
    amortizationType: i.amortizationType,
    interestCalculationPeriodType: i.interestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion: i.allowPartialPeriodInterestCalcualtion,
    daysInYearType: i.daysInYearType,
    daysInMonthType: i.daysInMonthType,
    graceOnPrincipalPayment: i.graceOnPrincipalPayment,
    graceOnInterestPayment: i.graceOnInterestPayment,
    transactionProcessingStrategyCode: i.transactionProcessingStrategyCode,
    isInterestRecalculationEnabled: i.isInterestRecalculationEnabled,
    charges: i.charges,
    locale: 'en',
    lmsConfig,
  };
}
