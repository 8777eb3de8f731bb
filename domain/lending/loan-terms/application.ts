/**
 * A loan application (OpenAPI `POST /v1/loans` and `POST /v1/loans?command=
 * calculateLoanSchedule`, "same body as loan creation") checked against its product and turned into
 * the terms the loan keeps and its schedule (schedule-input.ts). Pure: no clock (callers pass the latest
 * acceptable date), no I/O (callers pass the product and the tenant's charge definitions).
 *
 * Rules (Apache Fineract `LoanApplicationValidator` / `LoanScheduleValidator`, commit 4198b0bc, and docs/design.md §5
 * codes):
 * - `loanTermFrequencyType` must equal `repaymentFrequencyType`
 *   (`validation.msg.loan.loanTermFrequencyType.not.the.same.as.repaymentFrequencyType`), and
 *   `loanTermFrequency` must equal `numberOfRepayments × repaymentEvery` (`…loanTermFrequency.less.than.
 *   repayment.structure.suggests` / `…greater.than…`);
 * - `principal` > 0 with at most the product currency's digits (a multiple of `inMultiplesOf` for a currency
 *   without fraction digits), `numberOfRepayments` and `interestRatePerPeriod` within the product's min/max
 *   (`validation.msg.loan.<field>.is.not.within.min.max.range`); graces shorter than `numberOfRepayments`;
 * - the loan is in the product's currency (there is no currency field: Fineract takes it from the product);
 * - `charges[i]`: any active loan charge definition of the tenant in the loan currency, attached to the product
 *   or not (Fineract `LoanChargeAssembler.fromParsedJson` loads the charge by id; product charges are only the
 *   template a client copies). `amount` overrides the definition's (flat: money in the loan currency;
 *   percentage: the percent), `dueDate` is required for (and only for) a specified-due-date charge and not
 *   before the disbursement. When `charges` is absent the loan has no charges, as in Fineract;
 * - `expectedDisbursementDate` ≥ `submittedOnDate`; `submittedOnDate` not in the future; a
 *   `repaymentsStartingFromDate` after the disbursement.
 *
 * What a loan may set itself and what it takes from its product (decided here; Fineract's default, where every
 * "configurable attribute" of a product may be overridden, except where noted):
 * - the loan's own: principal, numberOfRepayments, repaymentEvery, repaymentFrequencyType,
 *   interestRatePerPeriod, interestType, amortizationType, interestCalculationPeriodType, the two graces
 *   (absent = 0, as in Fineract's application), `allowPartialPeriodInterestCalcualtion` (absent = the product's),
 *   `repaymentsStartingFromDate`;
 * - the product's: currency and its `inMultiplesOf`, `installmentAmountInMultiplesOf`,
 *   `interestRateFrequencyType`, `daysInYearType`, `daysInMonthType`, the down payment (`enableDownPayment`,
 *   `disbursedAmountPercentageForDownPayment`, `enableAutoRepaymentForDownPayment`) (Fineract's loan body has
 *   none of them);
 * - `transactionProcessingStrategyCode` is the loan's own within Fineract's rule (`loanStrategyErrors`): a product
 *   of `advanced-payment-allocation-strategy` (Fineract's progressive schedule) keeps it for its loans, and another
 *   product's loan may take any supported strategy but that one (a cumulative schedule never with it);
 * - a product with statements (`lmsConfig.statementEnabled`) keeps its lead time shorter than the loan's
 *   repayment period (docs/design.md §5 Statements), so a loan may not shorten the period below it.
 *
 * Dates: ISO or per `dateFormat` (dates.ts). Field errors name the parameter (`principal`, `charges[0].amount`).
 */

import { type FieldError, fieldError } from '../../errors';
import { formatMinor } from '../../money';
import {
  compareDecimalText,
  decimalShape,
  isZeroDecimalText,
  moneyDigits,
  rateDigits,
} from '../decimal-text';
import {
  advancedPaymentAllocationStrategy,
  amortizationTypes,
  interestCalculationPeriodTypes,
  interestTypes,
  minimumRepaymentPeriodDays,
  productLimits,
  repaymentFrequencyTypes,
  transactionProcessingStrategyCodes,
} from '../products';
import type {
  AmortizationType,
  InterestCalculationPeriodType,
  InterestType,
  PeriodFrequencyType,
} from '../schedule';
import { parseLoanDate } from './dates';
import { codeOk, collector, inRange, integerOk, moneyOf } from './field-checks';
import { scheduleOf } from './schedule-input';
import type {
  LoanApplication,
  LoanCharge,
  LoanChargeDefinition,
  LoanProductForTerms,
  LoanTerms,
  Resolution,
  ResolvedLoanApplication,
} from './types';

/**
 * Checks `application` against `product` and the tenant's `chargeDefinitions` (those of the ids the application
 * names that exist; a missing id is reported) and, when every rule holds, returns the loan's columns, terms and
 * schedule. `latestDate` (ISO) is the latest acceptable `submittedOnDate` (`latestCalendarDate(now)`). Every
 * broken rule is reported, each as a field error naming its parameter (module note).
 */
export function resolveLoanApplication(
  application: LoanApplication,
  product: LoanProductForTerms,
  chargeDefinitions: ReadonlyMap<number, LoanChargeDefinition>,
  latestDate: string,
): Resolution<ResolvedLoanApplication> {
  const errors: FieldError[] = [];
  const fail = collector(errors);
  const { currency } = product.terms;
  const digits = currency.digitsAfterDecimal;
  const { dateFormat, locale } = application;

  const date = (value: string | null | undefined, name: string): string | null => {
    if (value === null || value === undefined) return null;
    const iso = parseLoanDate(value, dateFormat, locale);
    if (iso === null) {
      fail(
        name,
        value,
        `${name} must be an ISO date (YYYY-MM-DD) or a date in dateFormat ${dateFormat ? JSON.stringify(dateFormat) : '(none given)'} with English month names.`,
        'invalid.date.format',
      );
    }
    return iso;
  };

  if (application.loanType !== 'individual') {
    fail(
      'loanType',
      application.loanType,
      'loanType must be "individual".',
      'is.not.one.of.expected.enumerations',
    );
  }

  // term structure
  const n = application.numberOfRepayments;
  const every = application.repaymentEvery;
  const nOk = integerOk(n, 'numberOfRepayments', 1, productLimits.numberOfRepayments, fail);
  const everyOk = integerOk(every, 'repaymentEvery', 1, productLimits.repaymentEvery, fail);
  const frequencyOk = codeOk(
    application.repaymentFrequencyType,
    'repaymentFrequencyType',
    repaymentFrequencyTypes,
    '0 days, 1 weeks, 2 months, 3 years',
    fail,
  );
  const termTypeOk = codeOk(
    application.loanTermFrequencyType,
    'loanTermFrequencyType',
    repaymentFrequencyTypes,
    '0 days, 1 weeks, 2 months, 3 years',
    fail,
  );
  const termOk = integerOk(
    application.loanTermFrequency,
    'loanTermFrequency',
    1,
    productLimits.numberOfRepayments * productLimits.repaymentEvery,
    fail,
  );
  if (termTypeOk && frequencyOk && application.loanTermFrequencyType !== application.repaymentFrequencyType) {
    fail(
      'loanTermFrequencyType',
      application.loanTermFrequencyType,
      'The parameters loanTermFrequencyType and repaymentFrequencyType must be the same.',
      'not.the.same.as.repaymentFrequencyType',
    );
  } else if (termOk && nOk && everyOk && application.loanTermFrequency !== n * every) {
    const shorter = application.loanTermFrequency < n * every;
    fail(
      'loanTermFrequency',
      application.loanTermFrequency,
      `loanTermFrequency (${application.loanTermFrequency}) must equal numberOfRepayments × repaymentEvery (${n * every}).`,
      shorter ? 'less.than.repayment.structure.suggests' : 'greater.than.repayment.structure.suggests',
    );
  }
  if (nOk) {
    inRange(
      'numberOfRepayments',
      n,
      product.bounds.minNumberOfRepayments,
      product.bounds.maxNumberOfRepayments,
      (a, b) => a - b,
      fail,
    );
  }

  // codes the loan sets itself
  const interestTypeOk = codeOk(
    application.interestType,
    'interestType',
    interestTypes,
    '0 declining balance, 1 flat',
    fail,
  );
  const amortizationOk = codeOk(
    application.amortizationType,
    'amortizationType',
    amortizationTypes,
    '0 equal principal, 1 equal installments',
    fail,
  );
  const calculationOk = codeOk(
    application.interestCalculationPeriodType,
    'interestCalculationPeriodType',
    interestCalculationPeriodTypes,
    '0 daily, 1 same as repayment period',
    fail,
  );
  errors.push(
    ...loanStrategyErrors(
      application.transactionProcessingStrategyCode,
      product.transactionProcessingStrategyCode,
    ),
  );
  const lms = product.lmsConfig;
  if (lms.statementEnabled && nOk && everyOk && frequencyOk) {
    const periodDays = minimumRepaymentPeriodDays(every, application.repaymentFrequencyType);
    if (lms.statementLeadDays >= periodDays) {
      fail(
        'repaymentEvery',
        every,
        `The repayment period (${periodDays} days at the shortest) must be longer than the product's statement lead time (${lms.statementLeadDays} days).`,
        'shorter.than.statement.lead.days',
      );
    }
  }

  // graces
  const graces: Record<'graceOnPrincipalPayment' | 'graceOnInterestPayment', number> = {
    graceOnPrincipalPayment: 0,
    graceOnInterestPayment: 0,
  };
  for (const name of ['graceOnPrincipalPayment', 'graceOnInterestPayment'] as const) {
    const grace = application[name] ?? 0;
    if (!integerOk(grace, name, 0, productLimits.numberOfRepayments, fail)) continue;
    graces[name] = grace;
    if (nOk && grace >= n) {
      fail(
        name,
        grace,
        `${name} must be less than numberOfRepayments (${n}).`,
        'mustBeLessThan.numberOfRepayments',
      );
    }
  }

  // principal and rate
  const principalMinor = moneyOf(application.principal, 'principal', digits, fail, { positive: true });
  if (principalMinor !== null) {
    inRange(
      'principal',
      application.principal,
      product.bounds.minPrincipal,
      product.bounds.maxPrincipal,
      compareDecimalText,
      fail,
    );
    if (
      digits === 0 &&
      currency.inMultiplesOf > 0 &&
      principalMinor % BigInt(currency.inMultiplesOf) !== 0n
    ) {
      fail(
        'principal',
        application.principal,
        `principal must be a multiple of ${currency.inMultiplesOf} (the currency's inMultiplesOf).`,
        'not.in.multiples',
      );
    }
  }
  const rate = application.interestRatePerPeriod;
  const rateShape = decimalShape(rate);
  if (
    !rateShape ||
    rateShape.integerDigits > rateDigits.integer ||
    rateShape.fractionDigits > rateDigits.fraction
  ) {
    fail(
      'interestRatePerPeriod',
      rate,
      `interestRatePerPeriod must be a non-negative decimal with at most ${rateDigits.fraction} fraction digits.`,
      'invalid.decimal',
    );
  } else {
    inRange(
      'interestRatePerPeriod',
      rate,
      product.bounds.minInterestRatePerPeriod,
      product.bounds.maxInterestRatePerPeriod,
      compareDecimalText,
      fail,
    );
  }

  // dates
  const submittedOnDate = date(application.submittedOnDate, 'submittedOnDate');
  const expectedDisbursementDate = date(application.expectedDisbursementDate, 'expectedDisbursementDate');
  const repaymentsStartingFromDate = date(
    application.repaymentsStartingFromDate,
    'repaymentsStartingFromDate',
  );
  if (submittedOnDate !== null && submittedOnDate > latestDate) {
    fail(
      'submittedOnDate',
      application.submittedOnDate,
      'submittedOnDate cannot be in the future.',
      'cannot.be.a.future.date',
    );
  }
  if (
    submittedOnDate !== null &&
    expectedDisbursementDate !== null &&
    expectedDisbursementDate < submittedOnDate
  ) {
    fail(
      'expectedDisbursementDate',
      application.expectedDisbursementDate,
      `expectedDisbursementDate must not be before submittedOnDate (${submittedOnDate}).`,
      'cannot.be.before.submittedOnDate',
    );
  }
  if (
    expectedDisbursementDate !== null &&
    repaymentsStartingFromDate !== null &&
    repaymentsStartingFromDate <= expectedDisbursementDate
  ) {
    fail(
      'repaymentsStartingFromDate',
      application.repaymentsStartingFromDate,
      `repaymentsStartingFromDate must be after expectedDisbursementDate (${expectedDisbursementDate}).`,
      'cannot.be.before.expected.disbursement.date',
    );
  }

  // charges
  const charges: LoanCharge[] = [];
  for (const [index, input] of (application.charges ?? []).entries()) {
    const at = `charges[${index}]`;
    const definition = chargeDefinitions.get(input.chargeId);
    if (!definition) {
      fail(`${at}.chargeId`, input.chargeId, `Charge ${input.chargeId} was not found.`, 'not.found');
      continue;
    }
    if (!definition.active) {
      fail(`${at}.chargeId`, input.chargeId, `Charge ${input.chargeId} is not active.`, 'inactive');
      continue;
    }
    if (definition.currencyCode !== currency.code) {
      fail(
        `${at}.chargeId`,
        input.chargeId,
        `Charge ${input.chargeId} is in ${definition.currencyCode}; the loan is in ${currency.code}.`,
        'currency.mismatch',
      );
      continue;
    }
    const flat = definition.chargeCalculationType === 1;
    let amount = definition.amount;
    if (input.amount !== null && input.amount !== undefined) {
      if (flat) {
        const minor = moneyOf(input.amount, `${at}.amount`, digits, fail, { positive: true });
        if (minor === null) continue;
        amount = formatMinor(minor, digits);
      } else {
        const shape = decimalShape(input.amount);
        if (!shape || isZeroDecimalText(input.amount) || shape.fractionDigits > moneyDigits.fraction) {
          fail(
            `${at}.amount`,
            input.amount,
            `${at}.amount (a percentage) must be greater than zero with at most ${moneyDigits.fraction} fraction digits.`,
            'invalid.decimal',
          );
          continue;
        }
        amount = input.amount;
      }
    }
    let dueDate: string | null = null;
    if (definition.chargeTimeType === 2) {
      if (input.dueDate === null || input.dueDate === undefined) {
        fail(
          `${at}.dueDate`,
          null,
          `${at}.dueDate is required for a specified-due-date charge.`,
          'cannot.be.blank',
        );
        continue;
      }
      dueDate = date(input.dueDate, `${at}.dueDate`);
      if (dueDate === null) continue;
      if (expectedDisbursementDate !== null && dueDate < expectedDisbursementDate) {
        fail(
          `${at}.dueDate`,
          input.dueDate,
          `${at}.dueDate must not be before expectedDisbursementDate (${expectedDisbursementDate}).`,
          'cannot.be.before.expected.disbursement.date',
        );
        continue;
      }
    } else if (input.dueDate !== null && input.dueDate !== undefined) {
      fail(
        `${at}.dueDate`,
        input.dueDate,
        `${at}.dueDate is only for specified-due-date charges (chargeTimeType 2).`,
        'not.allowed',
      );
      continue;
    }
    charges.push({
      chargeId: definition.chargeId,
      name: definition.name,
      chargeTimeType: definition.chargeTimeType,
      chargeCalculationType: definition.chargeCalculationType,
      amount,
      penalty: definition.penalty,
      dueDate,
    });
  }

  if (
    errors.length > 0 ||
    principalMinor === null ||
    submittedOnDate === null ||
    expectedDisbursementDate === null ||
    !frequencyOk ||
    !interestTypeOk ||
    !amortizationOk ||
    !calculationOk
  ) {
    return { ok: false, errors };
  }

  const terms: LoanTerms = {
    version: 1,
    loanType: 'individual',
    loanTermFrequency: application.loanTermFrequency,
    loanTermFrequencyType: application.loanTermFrequencyType as PeriodFrequencyType,
    numberOfRepayments: n,
    repaymentEvery: every,
    repaymentFrequencyType: application.repaymentFrequencyType as PeriodFrequencyType,
    interestRatePerPeriod: rate,
    interestRateFrequencyType: product.terms.interestRateFrequencyType,
    interestType: application.interestType as InterestType,
    amortizationType: application.amortizationType as AmortizationType,
    interestCalculationPeriodType: application.interestCalculationPeriodType as InterestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion:
      application.allowPartialPeriodInterestCalcualtion ??
      product.terms.allowPartialPeriodInterestCalcualtion,
    daysInYearType: product.terms.daysInYearType,
    daysInMonthType: product.terms.daysInMonthType,
    graceOnPrincipalPayment: graces.graceOnPrincipalPayment,
    graceOnInterestPayment: graces.graceOnInterestPayment,
    repaymentsStartingFromDate,
    installmentAmountInMultiplesOf: product.terms.installmentAmountInMultiplesOf ?? null,
    currency: {
      code: currency.code,
      digitsAfterDecimal: digits,
      inMultiplesOf: currency.inMultiplesOf,
    },
    transactionProcessingStrategyCode: application.transactionProcessingStrategyCode,
    charges,
    ...(product.terms.enableDownPayment
      ? {
          enableDownPayment: true,
          disbursedAmountPercentageForDownPayment:
            product.terms.disbursedAmountPercentageForDownPayment ?? null,
          enableAutoRepaymentForDownPayment: product.enableAutoRepaymentForDownPayment ?? false,
        }
      : {}),
    ...(product.delinquency ? { delinquency: { ...product.delinquency } } : {}),
  };
  const principal = formatMinor(principalMinor, digits);
  const scheduled = scheduleOf(terms, principal, expectedDisbursementDate);
  if (!scheduled.ok) return scheduled;
  return {
    ok: true,
    value: {
      clientId: application.clientId,
      productId: product.productId,
      principal,
      submittedOnDate,
      expectedDisbursementDate,
      externalId: application.externalId ?? null,
      terms,
      schedule: scheduled.value,
    },
  };
}

/**
 * Why a loan of a product of strategy `productStrategy` may not name `loanStrategy` (empty when it may), as Shape A
 * field errors naming `transactionProcessingStrategyCode` (Apache Fineract
 * `LoanApplicationValidator.validateTransactionProcessingStrategy`). This engine's products of
 * `advanced-payment-allocation-strategy` stand for Fineract's progressive schedule and the others for its cumulative
 * one, so: a strategy this engine has no allocation for (domain/lending/products.ts
 * `transactionProcessingStrategyCodes`) → `validation.msg.loan.transactionProcessingStrategyCode.is.not.supported`;
 * the advanced strategy on a product without it → `strategy.cannot.be.advanced.payment.allocation.if.not.configured`;
 * another strategy on an advanced (progressive) product →
 * `error.msg.loan.repayment.strategy.can.not.be.different.than.advanced.payment.allocation`.
 */
export function loanStrategyErrors(loanStrategy: string, productStrategy: string): FieldError[] {
  const name = 'transactionProcessingStrategyCode';
  if (!(transactionProcessingStrategyCodes as readonly string[]).includes(loanStrategy)) {
    return [
      fieldError(
        name,
        loanStrategy,
        `transactionProcessingStrategyCode must be one of ${transactionProcessingStrategyCodes.join(', ')}.`,
        'validation.msg.loan.transactionProcessingStrategyCode.is.not.supported',
      ),
    ];
  }
  if (loanStrategy === productStrategy) return [];
  if (loanStrategy === advancedPaymentAllocationStrategy) {
    return [
      fieldError(
        name,
        loanStrategy,
        "Loan transaction processing strategy cannot be Advanced Payment Allocation Strategy if it's not configured on loan product.",
        'strategy.cannot.be.advanced.payment.allocation.if.not.configured',
      ),
    ];
  }
  if (productStrategy === advancedPaymentAllocationStrategy) {
    return [
      fieldError(
        name,
        loanStrategy,
        'Loan repayment strategy can not be different than Advanced Payment Allocation.',
        'error.msg.loan.repayment.strategy.can.not.be.different.than.advanced.payment.allocation',
      ),
    ];
  }
  return [];
}
