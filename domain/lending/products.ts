/**
 * Loan products of the lending core (OpenAPI `GET /v1/loanproducts`; `POST /v1/loanproducts`, "product
 * with native calculation settings and lmsConfig"): the rules a product definition must satisfy, the
 * default payment allocation, and the configuration status that loan approval relies on. Pure: no clock, no I/O.
 *
 * Calculation settings use Apache Fineract's names and integer codes, which domain/lending/schedule.ts's `ScheduleInput`
 * consumes unchanged (`codeDefinitions` of test/vectors/fineract-schedules.json, apache/fineract commit
 * 4198b0bc): `repaymentFrequencyType` 0 days, 1 weeks, 2 months, 3 years; `interestRateFrequencyType` the same plus
 * 4 whole term; `interestType` 0 declining balance, 1 flat; `amortizationType` 0 equal principal, 1 equal
 * installments; `interestCalculationPeriodType` 0 daily, 1 same as repayment period; `daysInYearType` 1 actual,
 * 360, 364, 365; `daysInMonthType` 1 actual, 30.
 *
 * Bounds follow Fineract's `LoanProductDataValidator`: min/max principal > 0, min/max repayments ≥ 1, min/max
 * rates ≥ 0; a maximum below its minimum is reported on the maximum (`notLessThanMin`), a default outside its
 * bounds on the default (`inMinAndMaxAmountRange`); grace periods are shorter than the number of repayments
 * (`validateRepaymentPeriodWithGraceSettings`). Added here: `digitsAfterDecimal` is any integer from 0 to the
 * currency's ISO 4217 minor unit, as Fineract allows and lenders use (e.g. USD with 0 digits and `inMultiplesOf`
 * 100, so installments are whole hundreds): amounts of such a product are rounded to fewer digits and so remain
 * representable in the currency's minor units (docs/design.md §5 Currencies); more digits than the minor unit → 400
 * `validation.msg.loanproduct.digitsAfterDecimal.above.currency.minor.unit`. The product's amounts may not carry
 * more fraction digits than `digitsAfterDecimal` (refused, never rounded), and with no fraction digits and
 * `inMultiplesOf` > 0 the default principal must be a multiple of it (domain/lending/schedule.ts rejects others).
 */

import { type FieldError, fieldError } from '../errors';
import { minorUnitDigits, parseDecimalToMinor } from '../money';
import { type PaymentAllocationRule as AllocationRuleName, paymentAllocationRules } from './allocation/types';
import { compareDecimalText, decimalShape, isZeroDecimalText, moneyDigits, rateDigits } from './decimal-text';

// ---- codes ------------------------------------------------------------------------------------------------

/** Fineract `PeriodFrequencyType` of `repaymentFrequencyType`: 0 days, 1 weeks, 2 months, 3 years. */
export const repaymentFrequencyTypes = [0, 1, 2, 3] as const;
/** `interestRateFrequencyType`: the rate is per 0 day, 1 week, 2 month, 3 year, 4 whole term. */
export const interestRateFrequencyTypes = [0, 1, 2, 3, 4] as const;
/** Fineract `InterestMethod`: 0 declining balance, 1 flat. */
export const interestTypes = [0, 1] as const;
/** Fineract `AmortizationMethod`: 0 equal principal, 1 equal installments. */
export const amortizationTypes = [0, 1] as const;
/** Fineract `InterestCalculationPeriodMethod`: 0 daily, 1 same as repayment period. */
export const interestCalculationPeriodTypes = [0, 1] as const;
/** Fineract `DaysInYearType`: 1 actual, 360, 364, 365. */
export const daysInYearTypes = [1, 360, 364, 365] as const;
/** Fineract `DaysInMonthType`: 1 actual, 30. */
export const daysInMonthTypes = [1, 30] as const;

/**
 * Repayment strategies (Fineract `transactionProcessingStrategyCode`) this engine accepts:
 * - `advanced-payment-allocation-strategy`: the order comes from `paymentAllocation` (docs/design.md §5 default below);
 * - `mifos-standard-strategy`: per installment, oldest first, penalties, fees, interest, principal
 *   (`FineractStyleLoanRepaymentScheduleTransactionProcessor`);
 * - `due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy`: due and in-advance
 *   amounts each as penalty, interest, principal, fee (`DuePenIntPriFeeInAdvancePenIntPriFeeLoanRepaymentSchedule
 *   TransactionProcessor`); the product of the published vector `fineract-it-1250-flat-12pct-multiples1` uses it.
 * Fineract's other processors (heavensfamily, creocore, rbi-india, early-repayment, …) have no allocation here.
 */
export const transactionProcessingStrategyCodes = [
  'advanced-payment-allocation-strategy',
  'mifos-standard-strategy',
  'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy',
] as const;
export type TransactionProcessingStrategyCode = (typeof transactionProcessingStrategyCodes)[number];
/** The strategy whose order comes from `paymentAllocation`. */
export const advancedPaymentAllocationStrategy = 'advanced-payment-allocation-strategy';

/**
 * Fineract `PaymentAllocationType`: a due-ness (past due, due, in advance) and a component. The one list is
 * domain/lending/allocation/types.ts `paymentAllocationRules`.
 */
export const paymentAllocationTypes = paymentAllocationRules;
/** One of `paymentAllocationTypes` (domain/lending/allocation/types.ts `PaymentAllocationRule`). */
export type PaymentAllocationType = AllocationRuleName;

/** Fineract `PaymentAllocationTransactionType`: which transactions a rule allocates (DEFAULT: all others). */
export const paymentAllocationTransactionTypes = [
  'DEFAULT',
  'REPAYMENT',
  'DOWN_PAYMENT',
  'MERCHANT_ISSUED_REFUND',
  'PAYOUT_REFUND',
  'GOODWILL_CREDIT',
  'CHARGE_REFUND',
  'CHARGE_ADJUSTMENT',
  'WAIVE_INTEREST',
  'CHARGE_PAYMENT',
  'REFUND_FOR_ACTIVE_LOAN',
  'INTEREST_PAYMENT_WAIVER',
  'INTEREST_REFUND',
] as const;
export type PaymentAllocationTransactionType = (typeof paymentAllocationTransactionTypes)[number];

/** Fineract `FutureInstallmentAllocationRule`: where a payment for future installments goes. */
export const futureInstallmentAllocationRules = [
  'NEXT_INSTALLMENT',
  'LAST_INSTALLMENT',
  'REAMORTIZATION',
] as const;
export type FutureInstallmentAllocationRule = (typeof futureInstallmentAllocationRules)[number];

/** One allocation rule of the advanced strategy, in Fineract's JSON shape (`paymentAllocation[]`). */
export interface PaymentAllocationRule {
  transactionType: PaymentAllocationTransactionType;
  /** Exactly the 12 allocation types, each once, with orders 1–12 (stored sorted by order). */
  paymentAllocationOrder: { paymentAllocationRule: PaymentAllocationType; order: number }[];
  futureInstallmentAllocationRule: FutureInstallmentAllocationRule;
}

/**
 * docs/design.md §5's default order of `advanced-payment-allocation-strategy` for COVERED_CONSUMER products: past-due
 * interest, principal, fee, penalty; then due in the same order; then in advance in the same order; payments
 * for future installments go to the next installment (avoids fee pyramiding, 16 CFR §444.4). Applied whenever an
 * advanced-strategy product omits `paymentAllocation`.
 */
export const defaultPaymentAllocation: readonly PaymentAllocationRule[] = Object.freeze([
  {
    transactionType: 'DEFAULT',
    paymentAllocationOrder: (['PAST_DUE', 'DUE', 'IN_ADVANCE'] as const)
      .flatMap((due) =>
        (['INTEREST', 'PRINCIPAL', 'FEE', 'PENALTY'] as const).map((c) => `${due}_${c}` as const),
      )
      .map((paymentAllocationRule, index) => ({ paymentAllocationRule, order: index + 1 })),
    futureInstallmentAllocationRule: 'NEXT_INSTALLMENT',
  },
]);

// ---- lmsConfig and configuration status -----------------------------------------------------------------

/** Product classes: COVERED_CONSUMER (consumer credit under Regulation Z) and COMMERCIAL. */
export const productClasses = ['COVERED_CONSUMER', 'COMMERCIAL'] as const;
export type ProductClass = (typeof productClasses)[number];
/** APR disclosure rounding (docs/design.md §5 APR): to the nearest 0.01 percentage point, half up. */
export const aprRoundings = ['NEAREST_0_01_PERCENT_HALF_UP'] as const;
/** APR tolerance (12 CFR §1026.22(a)(2)–(3)): REGULAR ±0.125, IRREGULAR ±0.25 percentage point. */
export const aprTolerancePolicies = ['REGULAR', 'IRREGULAR'] as const;
/** Statement lead time (docs/design.md §5 Statements): 14–28 days before the due date, default 21. */
export const statementLeadDaysRange = { min: 14, max: 28, default: 21 } as const;

/** `lmsConfig` as a client sends it: every field optional (null = absent). */
export interface LmsConfigInput {
  productClass?: string | null;
  aprEnabled?: boolean | null;
  aprRounding?: string | null;
  aprTolerancePolicy?: string | null;
  statementEnabled?: boolean | null;
  /** Integer days, 14–28; absent = 21. */
  statementLeadDays?: number | null;
}

/** `lmsConfig` as stored and read (OpenAPI `GET /v1/loanproducts`, `lmsConfig.*`). */
export interface LmsConfig {
  productClass: string | null;
  aprEnabled: boolean;
  aprRounding: string | null;
  aprTolerancePolicy: string | null;
  statementEnabled: boolean;
  /** Days before each due date on which the statement is generated (integer). */
  statementLeadDays: number;
}

/** The stored form of `input`: booleans default to false, `statementLeadDays` to 21. */
export function normalizeLmsConfig(input: LmsConfigInput | null | undefined): LmsConfig {
  return {
    productClass: input?.productClass ?? null,
    aprEnabled: input?.aprEnabled ?? false,
    aprRounding: input?.aprRounding ?? null,
    aprTolerancePolicy: input?.aprTolerancePolicy ?? null,
    statementEnabled: input?.statementEnabled ?? false,
    statementLeadDays: input?.statementLeadDays ?? statementLeadDaysRange.default,
  };
}

/**
 * `CONFIGURED`, or the first thing loan approval would miss, in this order:
 * - `MISSING_PRODUCT_CLASS`: no `lmsConfig.productClass`, so whether Regulation Z applies is unknown;
 * - `MISSING_APR_SETTINGS`: a COVERED_CONSUMER product without `aprEnabled: true` (approval must produce the
 *   §1026.18 APR disclosure, docs/lending.md "Lending core": "loan submitted → approved"), or any product with `aprEnabled` but
 *   without `aprRounding` and `aprTolerancePolicy`;
 * - `MISSING_STATEMENT_SETTINGS`: `statementEnabled` without an explicit `statementLeadDays` while the default
 *   (21 days) is not shorter than the repayment period (e.g. weekly or fortnightly repayments).
 */
export type ConfigurationStatus =
  | 'CONFIGURED'
  | 'MISSING_PRODUCT_CLASS'
  | 'MISSING_APR_SETTINGS'
  | 'MISSING_STATEMENT_SETTINGS';

/** The configuration status of a product (rules on `ConfigurationStatus`); `repayment` is its schedule unit. */
export function configurationStatusOf(
  lmsConfig: LmsConfigInput | null | undefined,
  repayment: { repaymentEvery: number; repaymentFrequencyType: number },
): ConfigurationStatus {
  const productClass = lmsConfig?.productClass ?? null;
  if (productClass === null) return 'MISSING_PRODUCT_CLASS';
  const aprEnabled = lmsConfig?.aprEnabled ?? false;
  if (productClass === 'COVERED_CONSUMER' && !aprEnabled) return 'MISSING_APR_SETTINGS';
  if (aprEnabled && (!lmsConfig?.aprRounding || !lmsConfig?.aprTolerancePolicy))
    return 'MISSING_APR_SETTINGS';
  if (lmsConfig?.statementEnabled) {
    const explicit = lmsConfig.statementLeadDays ?? null;
    const periodDays = minimumRepaymentPeriodDays(repayment.repaymentEvery, repayment.repaymentFrequencyType);
    if (explicit === null && statementLeadDaysRange.default >= periodDays)
      return 'MISSING_STATEMENT_SETTINGS';
  }
  return 'CONFIGURED';
}

/**
 * The fewest calendar days one repayment period can have: `repaymentEvery` days, 7 × weeks, 28 × months (a lower
 * bound, exact for one month, the only case where it meets the 14–28 lead-day range) or 365 × years.
 */
export function minimumRepaymentPeriodDays(repaymentEvery: number, repaymentFrequencyType: number): number {
  const daysPerUnit = [1, 7, 28, 365][repaymentFrequencyType] ?? 1;
  return repaymentEvery * daysPerUnit;
}

// ---- the product definition ------------------------------------------------------------------------------

/** Upper bounds of integer settings (ours; Fineract has none beyond `int`). */
export const productLimits = {
  numberOfRepayments: 10_000,
  repaymentEvery: 1_000,
  inMultiplesOf: 1_000_000,
  installmentAmountInMultiplesOf: 1_000_000,
} as const;

/**
 * A product's repayment and interest settings as Fineract codes, the same in the definition it is created from
 * (`LoanProductDefinition`) and the view it is read back as (db/queries/lending/products.ts `LoanProductView`).
 */
export interface LoanProductSettings {
  /** Integers ≥ 1. */
  numberOfRepayments: number;
  minNumberOfRepayments: number | null;
  maxNumberOfRepayments: number | null;
  repaymentEvery: number;
  repaymentFrequencyType: number;
  interestRateFrequencyType: number;
  interestType: number;
  amortizationType: number;
  interestCalculationPeriodType: number;
  allowPartialPeriodInterestCalcualtion: boolean;
  daysInYearType: number;
  daysInMonthType: number;
  /** Integers ≥ 0 and below `numberOfRepayments`. */
  graceOnPrincipalPayment: number;
  graceOnInterestPayment: number;
  transactionProcessingStrategyCode: string;
}

/** A loan product as `POST /v1/loanproducts` takes it, after JSON numbers became decimal strings. */
export interface LoanProductDefinition extends LoanProductSettings {
  /** 1–100 characters. */
  name: string;
  /** 1–4 characters (Fineract `shortName`). */
  shortName: string;
  /** ISO 4217 code known to dinero.js. */
  currencyCode: string;
  /** Integer from 0 to the currency's ISO 4217 minor-unit digits (fewer: amounts rounded to whole units or tenths). */
  digitsAfterDecimal: number;
  /** Integer ≥ 0; 0 = none (see domain/lending/schedule.ts `ScheduleCurrency.inMultiplesOf`). */
  inMultiplesOf: number;
  /** Integer ≥ 1, or null = none. */
  installmentAmountInMultiplesOf: number | null;
  /** Decimal strings > 0 in the product currency; min/max null = unbounded. */
  principal: string;
  minPrincipal: string | null;
  maxPrincipal: string | null;
  /** Nominal rates in percent per `interestRateFrequencyType`, decimal strings ≥ 0 (≤ 8 fraction digits). */
  interestRatePerPeriod: string;
  minInterestRatePerPeriod: string | null;
  maxInterestRatePerPeriod: string | null;
  /** Advanced strategy only; null = docs/design.md §5's default order. */
  paymentAllocation: PaymentAllocationRule[] | null;
  lmsConfig: LmsConfigInput | null;
  /** Fineract `enableDownPayment`: a down payment due at disbursement (see `downPaymentErrors`); absent = false. */
  enableDownPayment?: boolean;
  /** Percent of the disbursed principal, decimal string 1–100 with ≤ 6 fraction digits; null/absent = not given. */
  disbursedAmountPercentageForDownPayment?: string | null;
  /** Fineract `enableAutoRepaymentForDownPayment`; null/absent = not given (stored as false). */
  enableAutoRepaymentForDownPayment?: boolean | null;
  /** The tenant's delinquency bucket (checked by the operation); null/absent = none. */
  delinquencyBucketId?: number | null;
  /** Fineract `graceOnArrearsAgeing`, days ≥ 0; absent = 0. */
  graceOnArrearsAgeing?: number;
  /** Fineract `enableInstallmentLevelDelinquency`; absent = false. */
  enableInstallmentLevelDelinquency?: boolean;
  /** Delinquent days ≥ 1 at which close of business charges off; null/absent = never automatically. */
  chargeOffDaysPastDue?: number | null;
}

/**
 * Every rule `product` breaks, as Shape A field errors with dotted `parameterName`s (empty when acceptable). See
 * the module note for the sources. Attached charges are checked by the operation (they need the database).
 */
export function loanProductErrors(product: LoanProductDefinition): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (parameterName: string, value: unknown, message: string, rule: string) =>
    errors.push(
      fieldError(parameterName, value, message, `validation.msg.loanproduct.${parameterName}.${rule}`),
    );

  textRule(product.name, 'name', 100, fail);
  textRule(product.shortName, 'shortName', 4, fail);

  let digits: number | null = null;
  try {
    digits = minorUnitDigits(product.currencyCode);
  } catch {
    fail(
      'currencyCode',
      product.currencyCode,
      `${product.currencyCode} is not an ISO 4217 currency code.`,
      'unknown',
    );
  }
  if (digits !== null && product.digitsAfterDecimal > digits) {
    fail(
      'digitsAfterDecimal',
      product.digitsAfterDecimal,
      `digitsAfterDecimal must be from 0 to ${digits}, the minor unit of ${product.currencyCode}.`,
      'above.currency.minor.unit',
    );
  }
  // The product's own digits bound its amounts (at most the currency's minor unit).
  if (digits !== null && Number.isInteger(product.digitsAfterDecimal) && product.digitsAfterDecimal >= 0) {
    digits = Math.min(digits, product.digitsAfterDecimal);
  }
  integerRule(product.inMultiplesOf, 'inMultiplesOf', 0, productLimits.inMultiplesOf, fail);
  if (product.installmentAmountInMultiplesOf !== null) {
    integerRule(
      product.installmentAmountInMultiplesOf,
      'installmentAmountInMultiplesOf',
      1,
      productLimits.installmentAmountInMultiplesOf,
      fail,
    );
  }

  // principal: money in the product currency, > 0
  const moneyOk = (name: string, value: string | null) =>
    value === null ||
    decimalRule(value, name, { positive: true, ...moneyDigits, currencyDigits: digits }, fail);
  boundsRule(
    ['principal', product.principal, moneyOk('principal', product.principal)],
    ['minPrincipal', product.minPrincipal, moneyOk('minPrincipal', product.minPrincipal)],
    ['maxPrincipal', product.maxPrincipal, moneyOk('maxPrincipal', product.maxPrincipal)],
    compareDecimalText,
    fail,
  );
  if (
    digits === 0 &&
    product.inMultiplesOf > 0 &&
    Number.isInteger(product.inMultiplesOf) &&
    decimalShape(product.principal)?.fractionDigits === 0 &&
    parseDecimalToMinor(product.principal, 0) % BigInt(product.inMultiplesOf) !== 0n
  ) {
    fail(
      'principal',
      product.principal,
      `principal must be a multiple of inMultiplesOf (${product.inMultiplesOf}).`,
      'not.in.multiples',
    );
  }

  const countOk = (name: string, value: number | null) =>
    value === null || integerRule(value, name, 1, productLimits.numberOfRepayments, fail);
  boundsRule(
    [
      'numberOfRepayments',
      product.numberOfRepayments,
      countOk('numberOfRepayments', product.numberOfRepayments),
    ],
    [
      'minNumberOfRepayments',
      product.minNumberOfRepayments,
      countOk('minNumberOfRepayments', product.minNumberOfRepayments),
    ],
    [
      'maxNumberOfRepayments',
      product.maxNumberOfRepayments,
      countOk('maxNumberOfRepayments', product.maxNumberOfRepayments),
    ],
    (a, b) => Math.sign(a - b) as -1 | 0 | 1,
    fail,
  );

  const rateOk = (name: string, value: string | null) =>
    value === null ||
    decimalRule(value, name, { positive: false, ...rateDigits, currencyDigits: null }, fail);
  boundsRule(
    [
      'interestRatePerPeriod',
      product.interestRatePerPeriod,
      rateOk('interestRatePerPeriod', product.interestRatePerPeriod),
    ],
    [
      'minInterestRatePerPeriod',
      product.minInterestRatePerPeriod,
      rateOk('minInterestRatePerPeriod', product.minInterestRatePerPeriod),
    ],
    [
      'maxInterestRatePerPeriod',
      product.maxInterestRatePerPeriod,
      rateOk('maxInterestRatePerPeriod', product.maxInterestRatePerPeriod),
    ],
    compareDecimalText,
    fail,
  );

  integerRule(product.repaymentEvery, 'repaymentEvery', 1, productLimits.repaymentEvery, fail);
  codeRule(
    product.repaymentFrequencyType,
    'repaymentFrequencyType',
    repaymentFrequencyTypes,
    '0 days, 1 weeks, 2 months, 3 years',
    fail,
  );
  codeRule(
    product.interestRateFrequencyType,
    'interestRateFrequencyType',
    interestRateFrequencyTypes,
    '0 per day, 1 per week, 2 per month, 3 per year, 4 per whole term',
    fail,
  );
  codeRule(product.interestType, 'interestType', interestTypes, '0 declining balance, 1 flat', fail);
  codeRule(
    product.amortizationType,
    'amortizationType',
    amortizationTypes,
    '0 equal principal, 1 equal installments',
    fail,
  );
  codeRule(
    product.interestCalculationPeriodType,
    'interestCalculationPeriodType',
    interestCalculationPeriodTypes,
    '0 daily, 1 same as repayment period',
    fail,
  );
  codeRule(product.daysInYearType, 'daysInYearType', daysInYearTypes, '1 actual, 360, 364, 365', fail);
  codeRule(product.daysInMonthType, 'daysInMonthType', daysInMonthTypes, '1 actual, 30', fail);

  for (const name of ['graceOnPrincipalPayment', 'graceOnInterestPayment'] as const) {
    const grace = product[name];
    if (
      integerRule(grace, name, 0, productLimits.numberOfRepayments, fail) &&
      grace >= product.numberOfRepayments
    ) {
      fail(
        name,
        grace,
        `${name} must be less than numberOfRepayments (${product.numberOfRepayments}).`,
        'mustBeLessThan.numberOfRepayments',
      );
    }
  }

  const strategyKnown = (transactionProcessingStrategyCodes as readonly string[]).includes(
    product.transactionProcessingStrategyCode,
  );
  if (!strategyKnown) {
    fail(
      'transactionProcessingStrategyCode',
      product.transactionProcessingStrategyCode,
      `transactionProcessingStrategyCode must be one of ${transactionProcessingStrategyCodes.join(', ')}.`,
      'is.not.one.of.expected.enumerations',
    );
  } else {
    errors.push(
      ...paymentAllocationErrors(product.transactionProcessingStrategyCode, product.paymentAllocation),
    );
  }

  errors.push(...lmsConfigErrors(product.lmsConfig, product));
  errors.push(...downPaymentErrors(product));
  return errors;
}

/** Bounds of `disbursedAmountPercentageForDownPayment` (Fineract `validateDownPaymentPercentage`). */
export const downPaymentPercentRange = { min: '1', max: '100', fractionDigits: 6 } as const;

/**
 * Rules of the down-payment fields (Fineract `LoanProductDataValidator.validateDownPaymentPercentage` and
 * `validateAutoRepaymentForDownPayment`): with `enableDownPayment`, `disbursedAmountPercentageForDownPayment` is
 * required (`required.for.enable.down.payment.true`), from 1 to 100 (`not.less.than.min`, `not.greater.than.max`)
 * with at most 6 fraction digits (`scale.is.greater.than.6`); without it, neither the percentage nor
 * `enableAutoRepaymentForDownPayment` may be given (`supported.only.for.enable.down.payment.true`).
 */
export function downPaymentErrors(product: {
  enableDownPayment?: boolean;
  disbursedAmountPercentageForDownPayment?: string | null;
  enableAutoRepaymentForDownPayment?: boolean | null;
}): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (parameterName: string, value: unknown, message: string, rule: string) =>
    errors.push(
      fieldError(parameterName, value, message, `validation.msg.loanproduct.${parameterName}.${rule}`),
    );
  const percent = product.disbursedAmountPercentageForDownPayment ?? null;
  const autoRepayment = product.enableAutoRepaymentForDownPayment ?? null;
  const percentName = 'disbursedAmountPercentageForDownPayment';
  if (!product.enableDownPayment) {
    if (percent !== null) {
      fail(
        percentName,
        percent,
        `${percentName} is supported only if enableDownPayment is true.`,
        'supported.only.for.enable.down.payment.true',
      );
    }
    if (autoRepayment !== null) {
      fail(
        'enableAutoRepaymentForDownPayment',
        autoRepayment,
        'enableAutoRepaymentForDownPayment is supported only if enableDownPayment is true.',
        'supported.only.for.enable.down.payment.true',
      );
    }
    return errors;
  }
  if (percent === null) {
    fail(
      percentName,
      null,
      `${percentName} is required if enableDownPayment is true.`,
      'required.for.enable.down.payment.true',
    );
    return errors;
  }
  const shape = decimalShape(percent);
  const { min, max, fractionDigits } = downPaymentPercentRange;
  if (!shape) {
    fail(
      percentName,
      percent,
      `${percentName} must be a decimal number from ${min} to ${max}.`,
      'invalid.decimal',
    );
  } else if (compareDecimalText(percent, min) < 0) {
    fail(percentName, percent, `${percentName} must not be less than ${min}.`, 'not.less.than.min');
  } else if (compareDecimalText(percent, max) > 0) {
    fail(percentName, percent, `${percentName} must not be greater than ${max}.`, 'not.greater.than.max');
  } else if (shape.fractionDigits > fractionDigits) {
    fail(
      percentName,
      percent,
      `${percentName} must have at most ${fractionDigits} fraction digits.`,
      `scale.is.greater.than.${fractionDigits}`,
    );
  }
  return errors;
}

/**
 * Rules of `paymentAllocation` (Fineract `AdvancedPaymentAllocationsValidator`, `AdvancedPaymentAllocationsJson
 * Parser`): only with the advanced strategy; at least one rule, one of them DEFAULT, each transaction type once;
 * each rule lists the 12 allocation types once with orders exactly 1–12 and a future-installment rule; and, as
 * Fineract requires for the default horizontal processing (`checkGroupingOfAllocationRules`), the types of one
 * due-ness (past due, due, in advance) are consecutive in the order.
 */
export function paymentAllocationErrors(
  strategyCode: string,
  rules: readonly PaymentAllocationRule[] | null,
): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (parameterName: string, value: unknown, message: string, rule: string) =>
    errors.push(
      fieldError(parameterName, value, message, `validation.msg.loanproduct.paymentAllocation.${rule}`),
    );
  if (rules === null) return errors;
  if (strategyCode !== advancedPaymentAllocationStrategy) {
    fail(
      'paymentAllocation',
      null,
      `paymentAllocation is only allowed with ${advancedPaymentAllocationStrategy}.`,
      'not.allowed.for.strategy',
    );
    return errors;
  }
  if (!rules.some((rule) => rule.transactionType === 'DEFAULT')) {
    fail('paymentAllocation', null, 'paymentAllocation must contain a DEFAULT rule.', 'without.default');
  }
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    const at = `paymentAllocation[${index}]`;
    if (!(paymentAllocationTransactionTypes as readonly string[]).includes(rule.transactionType)) {
      fail(
        `${at}.transactionType`,
        rule.transactionType,
        'transactionType is not a Fineract payment allocation transaction type.',
        'transactionType.invalid',
      );
    } else if (seen.has(rule.transactionType)) {
      fail(
        `${at}.transactionType`,
        rule.transactionType,
        `transactionType ${rule.transactionType} is given more than once.`,
        'duplicate.transactionType',
      );
    }
    seen.add(rule.transactionType);
    if (
      !(futureInstallmentAllocationRules as readonly string[]).includes(rule.futureInstallmentAllocationRule)
    ) {
      fail(
        `${at}.futureInstallmentAllocationRule`,
        rule.futureInstallmentAllocationRule,
        `futureInstallmentAllocationRule must be one of ${futureInstallmentAllocationRules.join(', ')}.`,
        'futureInstallmentAllocationRule.invalid',
      );
    }
    const order = rule.paymentAllocationOrder;
    const types = order.map((o) => o.paymentAllocationRule);
    if (order.length !== 12) {
      fail(
        `${at}.paymentAllocationOrder`,
        null,
        `paymentAllocationOrder must contain exactly 12 entries, not ${order.length}.`,
        'must.contain.12.entries',
      );
      return;
    }
    if (
      new Set(types).size !== 12 ||
      !types.every((t) => (paymentAllocationTypes as readonly string[]).includes(t))
    ) {
      fail(
        `${at}.paymentAllocationOrder`,
        null,
        'paymentAllocationOrder must list each of the 12 allocation types once.',
        'duplicate.rule',
      );
      return;
    }
    const orders = order.map((o) => o.order).sort((a, b) => a - b);
    if (!orders.every((value, i) => value === i + 1)) {
      fail(
        `${at}.paymentAllocationOrder`,
        null,
        'The orders of paymentAllocationOrder must be exactly 1 to 12.',
        'invalid.order',
      );
      return;
    }
    const dueness = sortedAllocationOrder(order).map((o) => dueTypeOf(o.paymentAllocationRule));
    const grouped = [0, 4, 8].every((start) =>
      dueness.slice(start, start + 4).every((d) => d === dueness[start]),
    );
    if (!grouped) {
      fail(
        `${at}.paymentAllocationOrder`,
        null,
        'The allocation types of one due-ness (PAST_DUE, DUE, IN_ADVANCE) must be consecutive.',
        'mixed.due.type',
      );
    }
  });
  return errors;
}

/**
 * The allocation rules a product stores: the given rules with each order sorted, docs/design.md §5's default when an
 * advanced-strategy product gives none, and null for the other strategies.
 */
export function resolvedPaymentAllocation(
  strategyCode: string,
  rules: readonly PaymentAllocationRule[] | null,
): PaymentAllocationRule[] | null {
  if (strategyCode !== advancedPaymentAllocationStrategy) return null;
  const source = rules ?? defaultPaymentAllocation;
  return source.map((rule) => ({
    transactionType: rule.transactionType,
    paymentAllocationOrder: sortedAllocationOrder(rule.paymentAllocationOrder),
    futureInstallmentAllocationRule: rule.futureInstallmentAllocationRule,
  }));
}

function sortedAllocationOrder(order: PaymentAllocationRule['paymentAllocationOrder']) {
  return [...order]
    .sort((a, b) => a.order - b.order)
    .map((o) => ({ paymentAllocationRule: o.paymentAllocationRule, order: o.order }));
}

function dueTypeOf(type: PaymentAllocationType): string {
  return type.startsWith('PAST_DUE_') ? 'PAST_DUE' : type.startsWith('IN_ADVANCE_') ? 'IN_ADVANCE' : 'DUE';
}

/** Enumerations of `lmsConfig`, and an explicit `statementLeadDays` of 14–28 shorter than the repayment period. */
function lmsConfigErrors(
  lms: LmsConfigInput | null,
  repayment: { repaymentEvery: number; repaymentFrequencyType: number },
): FieldError[] {
  const errors: FieldError[] = [];
  if (!lms) return errors;
  const fail = (field: string, value: unknown, message: string, rule: string) =>
    errors.push(
      fieldError(
        `lmsConfig.${field}`,
        value,
        message,
        `validation.msg.loanproduct.lmsConfig.${field}.${rule}`,
      ),
    );
  const oneOf = (field: string, value: string | null | undefined, allowed: readonly string[]) => {
    if (value !== null && value !== undefined && !allowed.includes(value))
      fail(
        field,
        value,
        `lmsConfig.${field} must be one of ${allowed.join(', ')}.`,
        'is.not.one.of.expected.enumerations',
      );
  };
  oneOf('productClass', lms.productClass, productClasses);
  oneOf('aprRounding', lms.aprRounding, aprRoundings);
  oneOf('aprTolerancePolicy', lms.aprTolerancePolicy, aprTolerancePolicies);
  const lead = lms.statementLeadDays;
  if (lead !== null && lead !== undefined) {
    const { min, max } = statementLeadDaysRange;
    if (!Number.isInteger(lead) || lead < min || lead > max) {
      fail(
        'statementLeadDays',
        lead,
        `lmsConfig.statementLeadDays must be an integer from ${min} to ${max}.`,
        'out.of.range',
      );
    } else if (lms.statementEnabled) {
      const periodDays = minimumRepaymentPeriodDays(
        repayment.repaymentEvery,
        repayment.repaymentFrequencyType,
      );
      if (lead >= periodDays) {
        fail(
          'statementLeadDays',
          lead,
          `lmsConfig.statementLeadDays must be shorter than the repayment period (${periodDays} days at the shortest).`,
          'not.shorter.than.repayment.period',
        );
      }
    }
  }
  return errors;
}

/** Records one field error: the parameter, the value refused, the message and the Fineract rule suffix. */
export type Fail = (parameterName: string, value: unknown, message: string, rule: string) => void;

function textRule(value: string, name: string, max: number, fail: Fail): void {
  if (value.trim().length === 0) fail(name, value, `${name} must not be blank.`, 'cannot.be.blank');
  else if (value.length > max)
    fail(name, value, `${name} must be at most ${max} characters.`, 'exceeds.max.length');
}

function integerRule(value: number, name: string, min: number, max: number, fail: Fail): boolean {
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(name, value, `${name} must be an integer from ${min} to ${max}.`, 'out.of.range');
    return false;
  }
  return true;
}

function codeRule(
  value: number,
  name: string,
  allowed: readonly number[],
  meaning: string,
  fail: Fail,
): void {
  if (!allowed.includes(value))
    fail(name, value, `${name} must be one of: ${meaning}.`, 'is.not.one.of.expected.enumerations');
}

/**
 * Checks a decimal text against its storage limits, reporting the first broken rule through `fail`: the shape,
 * zero when `positive`, the integer digits, then the fraction digits (`currencyDigits` when given, with the
 * currency message, else `fraction`). True when acceptable.
 */
export function decimalRule(
  value: string,
  name: string,
  limits: { positive: boolean; integer: number; fraction: number; currencyDigits: number | null },
  fail: Fail,
): boolean {
  const shape = decimalShape(value);
  if (!shape) {
    fail(
      name,
      value,
      `${name} must be a non-negative decimal number such as "1000" or "12.5".`,
      'invalid.decimal',
    );
    return false;
  }
  if (limits.positive && isZeroDecimalText(value)) {
    fail(name, value, `${name} must be greater than zero.`, 'not.greater.than.zero');
    return false;
  }
  if (shape.integerDigits > limits.integer) {
    fail(name, value, `${name} must have at most ${limits.integer} integer digits.`, 'too.large');
    return false;
  }
  const fraction = limits.currencyDigits ?? limits.fraction;
  if (shape.fractionDigits > fraction) {
    fail(
      name,
      value,
      limits.currencyDigits === null
        ? `${name} must have at most ${fraction} fraction digits.`
        : `${name} has more fraction digits than the currency allows (${fraction}).`,
      'too.many.fraction.digits',
    );
    return false;
  }
  return true;
}

/**
 * Fineract's bound checks on a default and its optional min/max (each given as [name, value, valid]): the
 * maximum not below the minimum (reported on the maximum), the default within the bounds (reported on it).
 */
function boundsRule<T>(
  value: [string, T, boolean],
  min: [string, T | null, boolean],
  max: [string, T | null, boolean],
  compare: (a: T, b: T) => -1 | 0 | 1,
  fail: Fail,
): void {
  const [name, v, valueOk] = value;
  const lower = min[2] ? min[1] : null;
  const upper = max[2] ? max[1] : null;
  if (lower !== null && upper !== null && compare(upper, lower) < 0) {
    fail(max[0], upper, `${max[0]} must not be less than ${min[0]} (${String(lower)}).`, 'not.less.than.min');
    return;
  }
  if (!valueOk) return;
  if (lower !== null && compare(v, lower) < 0) {
    fail(name, v, `${name} must not be less than ${min[0]} (${String(lower)}).`, 'not.in.range');
  } else if (upper !== null && compare(v, upper) > 0) {
    fail(name, v, `${name} must not be greater than ${max[0]} (${String(upper)}).`, 'not.in.range');
  }
}
