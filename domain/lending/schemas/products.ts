/**
 * Request and response schemas of charge definitions and loan products (OpenAPI `GET /v1/loanproducts`; `POST /v1/charges`, `POST /v1/loanproducts`; OpenAPI `GET /v1/loanproducts`).
 * Field names and integer codes are Apache Fineract's, so Fineract clients can send their usual bodies: amounts
 * and rates as decimal strings or JSON numbers (a number becomes the decimal string JavaScript renders for it;
 * one with an exponent is refused), `locale` and `dateFormat` accepted and ignored (amounts are always `.`
 * decimals). Bodies are strict: any other field is a 400. This edge checks shapes and enumerations; the rules
 * that span fields or need the currency (domain/lending/charges.ts, domain/lending/products.ts) and the database
 * (attached charges) are checked by the operations, also as Shape A 400s with `parameterName`.
 */
import * as v from 'valibot';
import { guardedText, integerId } from '../../validation/fields';
import { dateFormatField, localeField } from '../../validation/refs';
import { type ChargeDefinition, chargeCalculationTypes, definitionChargeTimeTypes } from '../charges';
import { decimalTextOfNumber, isDecimalText } from '../decimal-text';
import { maximumDelinquencyDays } from '../delinquency-ranges';
import {
  amortizationTypes,
  aprRoundings,
  aprTolerancePolicies,
  daysInMonthTypes,
  daysInYearTypes,
  futureInstallmentAllocationRules,
  interestCalculationPeriodTypes,
  interestRateFrequencyTypes,
  interestTypes,
  type LoanProductDefinition,
  paymentAllocationTransactionTypes,
  paymentAllocationTypes,
  productClasses,
  productLimits,
  repaymentFrequencyTypes,
  statementLeadDaysRange,
  transactionProcessingStrategyCodes,
} from '../products';

/** A non-negative decimal given as a string (`"12.5"`) or a JSON number (`12.5`); always a string after. */
export const decimal = v.pipe(
  v.union([v.string(), v.number()], 'must be a decimal string or a number.'),
  v.transform((value) => (typeof value === 'number' ? decimalTextOfNumber(value) : value)),
  v.check(
    isDecimalText,
    'must be a non-negative decimal such as "1000" or "12.5" (no sign, exponent or separators).',
  ),
);

/** An integer from `min` to `max`. */
export const integer = (min: number, max: number) =>
  v.pipe(
    v.number('must be an integer.'),
    v.integer('must be an integer.'),
    v.minValue(min, `must be an integer from ${min} to ${max}.`),
    v.maxValue(max, `must be an integer from ${min} to ${max}.`),
  );

/** One of Fineract's integer codes `values`, described by `meaning` in the error. */
export const code = <const T extends readonly number[]>(values: T, meaning: string) =>
  v.picklist(values, `must be one of: ${meaning}.`);

/** A positive integer id in a body. */
export const id = v.pipe(
  v.number('must be an integer.'),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);

const currencyCode = v.pipe(
  v.string(),
  v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code of three upper-case letters.'),
);

/** Formatting hints Fineract clients send with every write; accepted (in their strict formats, ./refs.ts) and ignored. */
const fineractHints = {
  locale: v.optional(localeField),
  dateFormat: v.optional(dateFormatField),
};

/** Path `{chargeId}`: a positive integer. */
export const chargeIdParam = v.strictObject({ chargeId: integerId('chargeId') });
/** Path `{productId}`: a positive integer. */
export const productIdParam = v.strictObject({ productId: integerId('productId') });

/** `POST /v1/charges` body (Fineract's charge fields; amount a decimal string or number). */
export const createChargeBody = v.strictObject({
  name: guardedText(100),
  currencyCode,
  amount: decimal,
  chargeAppliesTo: v.picklist([1], 'must be 1 (loan): only loan charges are supported.'),
  chargeTimeType: code(
    definitionChargeTimeTypes,
    '1 disbursement, 2 specified due date, 8 installment fee, 9 overdue installment',
  ),
  chargeCalculationType: code(
    chargeCalculationTypes,
    '1 flat, 2 % of amount, 3 % of amount and interest, 4 % of interest',
  ),
  /** Fineract `ChargePaymentMode`: only 0 (regular) is supported; not stored. */
  chargePaymentMode: v.optional(v.picklist([0], 'must be 0 (regular): account transfer is not supported.')),
  penalty: v.optional(v.boolean(), false),
  active: v.optional(v.boolean(), true),
  ...fineractHints,
});

const paymentAllocationRule = v.strictObject({
  transactionType: v.picklist(
    paymentAllocationTransactionTypes,
    'is not a payment allocation transaction type.',
  ),
  paymentAllocationOrder: v.pipe(
    v.array(
      v.strictObject({
        paymentAllocationRule: v.picklist(paymentAllocationTypes, 'is not a payment allocation type.'),
        order: integer(1, 12),
      }),
    ),
    v.maxLength(12, 'must contain exactly 12 entries.'),
  ),
  futureInstallmentAllocationRule: v.picklist(
    futureInstallmentAllocationRules,
    `must be one of ${futureInstallmentAllocationRules.join(', ')}.`,
  ),
});

/** `lmsConfig` of a product: every field optional; status rules in domain/lending/products.ts. */
export const lmsConfigBody = v.strictObject({
  productClass: v.nullish(v.picklist(productClasses, `must be one of ${productClasses.join(', ')}.`)),
  aprEnabled: v.nullish(v.boolean()),
  aprRounding: v.nullish(v.picklist(aprRoundings, `must be one of ${aprRoundings.join(', ')}.`)),
  aprTolerancePolicy: v.nullish(
    v.picklist(aprTolerancePolicies, `must be one of ${aprTolerancePolicies.join(', ')}.`),
  ),
  statementEnabled: v.nullish(v.boolean()),
  statementLeadDays: v.nullish(integer(statementLeadDaysRange.min, statementLeadDaysRange.max)),
});

/** `POST /v1/loanproducts` body (Fineract's product fields plus `lmsConfig`). */
export const createLoanProductBody = v.strictObject({
  name: guardedText(100),
  shortName: guardedText(4),
  currencyCode,
  digitsAfterDecimal: integer(0, 6),
  inMultiplesOf: v.nullish(integer(0, productLimits.inMultiplesOf)),
  installmentAmountInMultiplesOf: v.nullish(integer(1, productLimits.installmentAmountInMultiplesOf)),
  principal: decimal,
  minPrincipal: v.nullish(decimal),
  maxPrincipal: v.nullish(decimal),
  numberOfRepayments: integer(1, productLimits.numberOfRepayments),
  minNumberOfRepayments: v.nullish(integer(1, productLimits.numberOfRepayments)),
  maxNumberOfRepayments: v.nullish(integer(1, productLimits.numberOfRepayments)),
  interestRatePerPeriod: decimal,
  minInterestRatePerPeriod: v.nullish(decimal),
  maxInterestRatePerPeriod: v.nullish(decimal),
  repaymentEvery: integer(1, productLimits.repaymentEvery),
  repaymentFrequencyType: code(repaymentFrequencyTypes, '0 days, 1 weeks, 2 months, 3 years'),
  interestRateFrequencyType: code(
    interestRateFrequencyTypes,
    '0 per day, 1 per week, 2 per month, 3 per year, 4 per whole term',
  ),
  interestType: code(interestTypes, '0 declining balance, 1 flat'),
  amortizationType: code(amortizationTypes, '0 equal principal, 1 equal installments'),
  interestCalculationPeriodType: code(interestCalculationPeriodTypes, '0 daily, 1 same as repayment period'),
  allowPartialPeriodInterestCalcualtion: v.nullish(v.boolean()),
  daysInYearType: code(daysInYearTypes, '1 actual, 360, 364, 365'),
  daysInMonthType: code(daysInMonthTypes, '1 actual, 30'),
  graceOnPrincipalPayment: v.nullish(integer(0, productLimits.numberOfRepayments)),
  graceOnInterestPayment: v.nullish(integer(0, productLimits.numberOfRepayments)),
  transactionProcessingStrategyCode: v.picklist(
    transactionProcessingStrategyCodes,
    `must be one of ${transactionProcessingStrategyCodes.join(', ')}.`,
  ),
  paymentAllocation: v.nullish(
    v.pipe(v.array(paymentAllocationRule), v.minLength(1, 'must not be empty.'), v.maxLength(13)),
  ),
  charges: v.optional(v.pipe(v.array(v.strictObject({ id })), v.maxLength(50, 'at most 50 charges.')), []),
  /**
   * The charge added to a loan whose payment is returned for insufficient funds (NACHA R01, R09): a flat,
   * active penalty of a specified due date (chargeTimeType 2) in the product's currency.
   */
  nsfChargeId: v.nullish(id),
  lmsConfig: v.nullish(lmsConfigBody),
  /** Fineract's down payment (rules: domain/lending/products.ts `downPaymentErrors`). */
  enableDownPayment: v.optional(v.boolean(), false),
  /** Percent of the disbursed principal, 1–100, at most 6 fraction digits; required with `enableDownPayment`. */
  disbursedAmountPercentageForDownPayment: v.nullish(decimal),
  /** Record the down payment with the funding (only with `enableDownPayment`); absent = false. */
  enableAutoRepaymentForDownPayment: v.nullish(v.boolean()),
  /** The tenant's delinquency bucket that classifies the product's loans (docs/lending.md "Delinquency configuration"). */
  delinquencyBucketId: v.nullish(id),
  /** Days after a due date before an installment counts as delinquent; absent = 0. */
  graceOnArrearsAgeing: v.nullish(integer(0, maximumDelinquencyDays)),
  /** Classify overdue installments by their own days too; absent = false. */
  enableInstallmentLevelDelinquency: v.nullish(v.boolean()),
  /** Delinquent days at which close of business charges a loan off, ≥ 1; absent or null = never automatically. */
  chargeOffDaysPastDue: v.nullish(integer(1, maximumDelinquencyDays)),
  /** Interest recalculation is not supported: only `false` is accepted. */
  isInterestRecalculationEnabled: v.optional(
    v.literal(false, 'must be false: interest recalculation is not supported.'),
  ),
  ...fineractHints,
});

// Responses (for the OpenAPI document).
const decimalString = v.pipe(v.string(), v.description('decimal string'));
export const createdChargeResponse = v.object({ resourceId: v.number(), chargeId: v.number() });
export const chargeResponse = v.object({
  id: v.number(),
  name: v.string(),
  currency: v.object({ code: v.string(), digitsAfterDecimal: v.number() }),
  amount: v.pipe(
    v.string(),
    v.description('flat: money with the currency digits; percentage: the percent without trailing zeros'),
  ),
  chargeAppliesTo: v.number(),
  chargeTimeType: v.number(),
  chargeCalculationType: v.number(),
  penalty: v.boolean(),
  active: v.boolean(),
});
export const chargeListResponse = v.array(chargeResponse);

export const createdLoanProductResponse = v.object({ resourceId: v.number(), productId: v.number() });
const allocationRuleResponse = v.object({
  transactionType: v.string(),
  paymentAllocationOrder: v.array(v.object({ paymentAllocationRule: v.string(), order: v.number() })),
  futureInstallmentAllocationRule: v.string(),
});
export const loanProductResponse = v.object({
  id: v.number(),
  name: v.string(),
  shortName: v.string(),
  status: v.literal('loanProduct.active'),
  currency: v.object({ code: v.string(), digitsAfterDecimal: v.number(), inMultiplesOf: v.number() }),
  installmentAmountInMultiplesOf: v.nullable(v.number()),
  principal: decimalString,
  minPrincipal: v.nullable(decimalString),
  maxPrincipal: v.nullable(decimalString),
  numberOfRepayments: v.number(),
  minNumberOfRepayments: v.nullable(v.number()),
  maxNumberOfRepayments: v.nullable(v.number()),
  interestRatePerPeriod: v.pipe(
    v.number(),
    v.description('nominal rate in percent per interestRateFrequencyType'),
  ),
  minInterestRatePerPeriod: v.nullable(v.number()),
  maxInterestRatePerPeriod: v.nullable(v.number()),
  repaymentEvery: v.number(),
  repaymentFrequencyType: v.number(),
  interestRateFrequencyType: v.number(),
  interestType: v.number(),
  amortizationType: v.number(),
  interestCalculationPeriodType: v.number(),
  allowPartialPeriodInterestCalcualtion: v.boolean(),
  daysInYearType: v.number(),
  daysInMonthType: v.number(),
  graceOnPrincipalPayment: v.number(),
  graceOnInterestPayment: v.number(),
  transactionProcessingStrategyCode: v.string(),
  paymentAllocation: v.nullable(v.array(allocationRuleResponse)),
  nsfChargeId: v.nullable(v.number()),
  charges: v.array(chargeResponse),
  lmsConfig: v.object({
    productClass: v.nullable(v.string()),
    aprEnabled: v.boolean(),
    aprRounding: v.nullable(v.string()),
    aprTolerancePolicy: v.nullable(v.string()),
    statementEnabled: v.boolean(),
    statementLeadDays: v.number(),
  }),
  configurationStatus: v.string(),
  enableDownPayment: v.boolean(),
  disbursedAmountPercentageForDownPayment: v.pipe(
    v.nullable(v.number()),
    v.description('percent of the disbursed principal due at disbursement; null without a down payment'),
  ),
  enableAutoRepaymentForDownPayment: v.boolean(),
  delinquencyBucketId: v.nullable(v.number()),
  graceOnArrearsAgeing: v.number(),
  enableInstallmentLevelDelinquency: v.boolean(),
  chargeOffDaysPastDue: v.nullable(v.number()),
});
export const loanProductListResponse = v.array(loanProductResponse);

/**
 * The charge definition of a parsed `POST /v1/charges` body (or a boarded `charge` line, the same body): the
 * operation's fields, without the body's formatting fields (`locale`, `dateFormat`, `chargePaymentMode`). Shared by
 * the route and boarding so that both hand `createCharge` the same input.
 */
export function chargeDefinitionOf(body: v.InferOutput<typeof createChargeBody>): ChargeDefinition {
  return {
    name: body.name,
    currencyCode: body.currencyCode,
    amount: body.amount,
    chargeAppliesTo: body.chargeAppliesTo,
    chargeTimeType: body.chargeTimeType,
    chargeCalculationType: body.chargeCalculationType,
    penalty: body.penalty,
    active: body.active,
  };
}

/**
 * The loan-product definition of a parsed `POST /v1/loanproducts` body (or a boarded `loanProduct` line), with
 * Fineract's defaults for what the body leaves out: `inMultiplesOf` 0, grace 0, no partial-period interest, bounds,
 * `installmentAmountInMultiplesOf`, `paymentAllocation` and `lmsConfig` null, no down payment (its percentage and
 * automatic repayment null: given or not matters to `downPaymentErrors`), no delinquency bucket, grace 0, no
 * installment-level delinquency, no automatic charge-off. The attached charges are not part of
 * it: the route takes them by id, boarding by source reference. Shared by the route and boarding.
 */
export function loanProductDefinitionOf(
  body: Omit<v.InferOutput<typeof createLoanProductBody>, 'charges' | 'nsfChargeId'>,
): LoanProductDefinition {
  return {
    name: body.name,
    shortName: body.shortName,
    currencyCode: body.currencyCode,
    digitsAfterDecimal: body.digitsAfterDecimal,
    inMultiplesOf: body.inMultiplesOf ?? 0,
    installmentAmountInMultiplesOf: body.installmentAmountInMultiplesOf ?? null,
    principal: body.principal,
    minPrincipal: body.minPrincipal ?? null,
    maxPrincipal: body.maxPrincipal ?? null,
    numberOfRepayments: body.numberOfRepayments,
    minNumberOfRepayments: body.minNumberOfRepayments ?? null,
    maxNumberOfRepayments: body.maxNumberOfRepayments ?? null,
    interestRatePerPeriod: body.interestRatePerPeriod,
    minInterestRatePerPeriod: body.minInterestRatePerPeriod ?? null,
    maxInterestRatePerPeriod: body.maxInterestRatePerPeriod ?? null,
    repaymentEvery: body.repaymentEvery,
    repaymentFrequencyType: body.repaymentFrequencyType,
    interestRateFrequencyType: body.interestRateFrequencyType,
    interestType: body.interestType,
    amortizationType: body.amortizationType,
    interestCalculationPeriodType: body.interestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion: body.allowPartialPeriodInterestCalcualtion ?? false,
    daysInYearType: body.daysInYearType,
    daysInMonthType: body.daysInMonthType,
    graceOnPrincipalPayment: body.graceOnPrincipalPayment ?? 0,
    graceOnInterestPayment: body.graceOnInterestPayment ?? 0,
    transactionProcessingStrategyCode: body.transactionProcessingStrategyCode,
    paymentAllocation: body.paymentAllocation ?? null,
    lmsConfig: body.lmsConfig ?? null,
    enableDownPayment: body.enableDownPayment,
    disbursedAmountPercentageForDownPayment: body.disbursedAmountPercentageForDownPayment ?? null,
    enableAutoRepaymentForDownPayment: body.enableAutoRepaymentForDownPayment ?? null,
    delinquencyBucketId: body.delinquencyBucketId ?? null,
    graceOnArrearsAgeing: body.graceOnArrearsAgeing ?? 0,
    enableInstallmentLevelDelinquency: body.enableInstallmentLevelDelinquency ?? false,
    chargeOffDaysPastDue: body.chargeOffDaysPastDue ?? null,
  };
}
