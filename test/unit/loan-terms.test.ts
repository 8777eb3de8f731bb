/**
 * Loan applications against their product (domain/lending/loan-terms/).
 *
 * Oracles:
 * - Published: every case of test/vectors/fineract-schedules.json, given as a loan application on a
 *   product with the case's settings, resolves to exactly the schedule domain/lending/schedule.ts gives for the case's
 *   inputs (which unit/schedule.test.ts checks against Fineract's asserted rows).
 * - Fineract's rules and codes (`LoanApplicationValidator`, `LoanScheduleValidator`, commit 4198b0bc): each
 *   broken rule is a field error naming its parameter with Fineract's code where it has one.
 * - Hand-checked: a 12-month USD loan with a 100.00 origination fee: amount financed 4900.00, and the
 *   disclosure's prepaid finance charges; two disbursement charges split 50.00 + 25.00.
 * - Negative space: dates that are not dates, non-English month names, amounts above the principal, approvals
 *   before submission or in the future, a disclosure that cannot be produced (each reason).
 */
import { readFileSync } from 'node:fs';
import Decimal from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { loanStrategyErrors, resolveLoanApplication } from '../../domain/lending/loan-terms/application';
import { resolveApproval } from '../../domain/lending/loan-terms/approval';
import { loanAprDisclosure, prepaidFinanceChargesOf } from '../../domain/lending/loan-terms/apr-disclosure';
import { latestCalendarDate, parseLoanDate } from '../../domain/lending/loan-terms/dates';
import { scheduleInputOf } from '../../domain/lending/loan-terms/schedule-input';
import type {
  LoanApplication,
  LoanChargeDefinition,
  LoanProductForTerms,
} from '../../domain/lending/loan-terms/types';
import { generateSchedule, type ScheduleInput } from '../../domain/lending/schedule';

const consumerConfig = {
  productClass: 'COVERED_CONSUMER',
  aprEnabled: true,
  aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
  aprTolerancePolicy: 'REGULAR',
  statementEnabled: true,
  statementLeadDays: 21,
};

function productOf(overrides: Partial<LoanProductForTerms> = {}): LoanProductForTerms {
  return {
    productId: 7,
    configurationStatus: 'CONFIGURED',
    lmsConfig: { ...consumerConfig },
    terms: {
      principal: '5000.00',
      numberOfRepayments: 12,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: '12',
      interestRateFrequencyType: 3,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      allowPartialPeriodInterestCalcualtion: false,
      daysInYearType: 1,
      daysInMonthType: 1,
      graceOnPrincipalPayment: 0,
      graceOnInterestPayment: 0,
      currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
      installmentAmountInMultiplesOf: null,
    },
    bounds: {
      minPrincipal: '1000.00',
      maxPrincipal: '20000.00',
      minNumberOfRepayments: 6,
      maxNumberOfRepayments: 36,
      minInterestRatePerPeriod: '5',
      maxInterestRatePerPeriod: '30',
    },
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    ...overrides,
  };
}

function applicationOf(overrides: Partial<LoanApplication> = {}): LoanApplication {
  return {
    clientId: 1,
    productId: 7,
    loanType: 'individual',
    principal: '5000',
    loanTermFrequency: 12,
    loanTermFrequencyType: 2,
    numberOfRepayments: 12,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: '12',
    interestType: 0,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    expectedDisbursementDate: '2024-01-15',
    submittedOnDate: '2024-01-10',
    ...overrides,
  };
}

const charge = (overrides: Partial<LoanChargeDefinition> = {}): LoanChargeDefinition => ({
  chargeId: 11,
  name: 'Origination fee',
  currencyCode: 'USD',
  active: true,
  chargeTimeType: 1,
  chargeCalculationType: 1,
  amount: '100.00',
  penalty: false,
  ...overrides,
});

const noCharges = new Map<number, LoanChargeDefinition>();
const latest = '2026-11-21';

function resolve(
  overrides: Partial<LoanApplication> = {},
  product = productOf(),
  definitions: ReadonlyMap<number, LoanChargeDefinition> = noCharges,
) {
  return resolveLoanApplication(applicationOf(overrides), product, definitions, latest);
}

/** The field errors of a rejected application, as [parameterName, code]. */
function errorsOf(result: ReturnType<typeof resolve>): [string, string][] {
  if (result.ok) throw new Error('expected the application to be rejected');
  return result.errors.map((e) => [e.parameterName, e.userMessageGlobalisationCode]);
}

describe('resolveLoanApplication', () => {
  it('accepts an application and gives its columns, terms (the product’s where the loan has none) and schedule', () => {
    const result = resolve();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const loan = result.value;
    expect(loan).toMatchObject({
      clientId: 1,
      productId: 7,
      principal: '5000.00',
      submittedOnDate: '2024-01-10',
      expectedDisbursementDate: '2024-01-15',
      externalId: null,
    });
    expect(loan.terms).toEqual({
      version: 1,
      loanType: 'individual',
      loanTermFrequency: 12,
      loanTermFrequencyType: 2,
      numberOfRepayments: 12,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: '12',
      interestRateFrequencyType: 3,
      interestType: 0,
      amortizationType: 1,
      interestCalculationPeriodType: 1,
      allowPartialPeriodInterestCalcualtion: false,
      daysInYearType: 1,
      daysInMonthType: 1,
      graceOnPrincipalPayment: 0,
      graceOnInterestPayment: 0,
      repaymentsStartingFromDate: null,
      installmentAmountInMultiplesOf: null,
      currency: { code: 'USD', digitsAfterDecimal: 2, inMultiplesOf: 0 },
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      charges: [],
    });
    expect(loan.schedule).toEqual(generateSchedule(scheduleInputOf(loan.terms, '5000.00', '2024-01-15')));
    expect(loan.schedule.periods).toHaveLength(13);
    expect(loan.schedule.periods[1]).toMatchObject({ period: 1, dueDate: '2024-02-15' });
  });

  it('lets the loan set its own rate, repayments, frequency, methods, graces and first due date', () => {
    const result = resolve(
      {
        principal: '2500.5',
        numberOfRepayments: 26,
        loanTermFrequency: 52,
        loanTermFrequencyType: 1,
        repaymentEvery: 2,
        repaymentFrequencyType: 1,
        interestRatePerPeriod: '7.25',
        interestType: 1,
        amortizationType: 0,
        interestCalculationPeriodType: 0,
        graceOnPrincipalPayment: 2,
        graceOnInterestPayment: 1,
        allowPartialPeriodInterestCalcualtion: true,
        repaymentsStartingFromDate: '2024-02-01',
        externalId: 'app-77',
      },
      productOf({ lmsConfig: { ...consumerConfig, statementEnabled: false } }),
    );
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.value.principal).toBe('2500.50');
    expect(result.value.externalId).toBe('app-77');
    expect(result.value.terms).toMatchObject({
      numberOfRepayments: 26,
      repaymentEvery: 2,
      repaymentFrequencyType: 1,
      interestRatePerPeriod: '7.25',
      interestType: 1,
      amortizationType: 0,
      interestCalculationPeriodType: 0,
      graceOnPrincipalPayment: 2,
      graceOnInterestPayment: 1,
      allowPartialPeriodInterestCalcualtion: true,
      repaymentsStartingFromDate: '2024-02-01',
      interestRateFrequencyType: 3,
    });
    expect(result.value.schedule.periods[1]).toMatchObject({ dueDate: '2024-02-01', principalDue: '0.00' });
  });

  it.each([
    [
      'a term type other than the repayment type',
      { loanTermFrequencyType: 1 },
      [
        [
          'loanTermFrequencyType',
          'validation.msg.loan.loanTermFrequencyType.not.the.same.as.repaymentFrequencyType',
        ],
      ],
    ],
    [
      'a term shorter than repayments × every',
      { loanTermFrequency: 11 },
      [['loanTermFrequency', 'validation.msg.loan.loanTermFrequency.less.than.repayment.structure.suggests']],
    ],
    [
      'a term longer than repayments × every',
      { loanTermFrequency: 24 },
      [
        [
          'loanTermFrequency',
          'validation.msg.loan.loanTermFrequency.greater.than.repayment.structure.suggests',
        ],
      ],
    ],
    [
      'a principal below the product minimum',
      { principal: '999.99' },
      [['principal', 'validation.msg.loan.principal.is.not.within.min.max.range']],
    ],
    [
      'a principal above the product maximum',
      { principal: '20000.01' },
      [['principal', 'validation.msg.loan.principal.is.not.within.min.max.range']],
    ],
    [
      'a principal with three decimals in USD',
      { principal: '5000.001' },
      [['principal', 'validation.msg.loan.principal.too.many.fraction.digits']],
    ],
    [
      'a zero principal',
      { principal: '0.00' },
      [['principal', 'validation.msg.loan.principal.not.greater.than.zero']],
    ],
    [
      'repayments above the product maximum',
      { numberOfRepayments: 37, loanTermFrequency: 37 },
      [['numberOfRepayments', 'validation.msg.loan.numberOfRepayments.is.not.within.min.max.range']],
    ],
    [
      'a rate below the product minimum',
      { interestRatePerPeriod: '4.99' },
      [['interestRatePerPeriod', 'validation.msg.loan.interestRatePerPeriod.is.not.within.min.max.range']],
    ],
    [
      'a rate with nine decimals',
      { interestRatePerPeriod: '12.123456789' },
      [['interestRatePerPeriod', 'validation.msg.loan.interestRatePerPeriod.invalid.decimal']],
    ],
    [
      'another repayment strategy on an advanced (progressive) product',
      { transactionProcessingStrategyCode: 'mifos-standard-strategy' },
      [
        [
          'transactionProcessingStrategyCode',
          'error.msg.loan.repayment.strategy.can.not.be.different.than.advanced.payment.allocation',
        ],
      ],
    ],
    [
      'a repayment strategy without an allocation here',
      { transactionProcessingStrategyCode: 'rbi-india-strategy' },
      [
        [
          'transactionProcessingStrategyCode',
          'validation.msg.loan.transactionProcessingStrategyCode.is.not.supported',
        ],
      ],
    ],
    [
      'a principal grace as long as the loan',
      { graceOnPrincipalPayment: 12 },
      [
        [
          'graceOnPrincipalPayment',
          'validation.msg.loan.graceOnPrincipalPayment.mustBeLessThan.numberOfRepayments',
        ],
      ],
    ],
    [
      'a disbursement before the submission',
      { expectedDisbursementDate: '2024-01-09' },
      [
        [
          'expectedDisbursementDate',
          'validation.msg.loan.expectedDisbursementDate.cannot.be.before.submittedOnDate',
        ],
      ],
    ],
    [
      'a submission in the future',
      { submittedOnDate: '2026-11-22', expectedDisbursementDate: '2026-12-01' },
      [['submittedOnDate', 'validation.msg.loan.submittedOnDate.cannot.be.a.future.date']],
    ],
    [
      'a first due date on the disbursement date',
      { repaymentsStartingFromDate: '2024-01-15' },
      [
        [
          'repaymentsStartingFromDate',
          'validation.msg.loan.repaymentsStartingFromDate.cannot.be.before.expected.disbursement.date',
        ],
      ],
    ],
    [
      'a date that is not a date',
      { submittedOnDate: '2024-02-30' },
      [['submittedOnDate', 'validation.msg.loan.submittedOnDate.invalid.date.format']],
    ],
    [
      'weekly repayments on a product with a 21-day statement lead time',
      { repaymentFrequencyType: 1, loanTermFrequencyType: 1 },
      [['repaymentEvery', 'validation.msg.loan.repaymentEvery.shorter.than.statement.lead.days']],
    ],
    [
      'a group loan',
      { loanType: 'group' },
      [['loanType', 'validation.msg.loan.loanType.is.not.one.of.expected.enumerations']],
    ],
  ] as [string, Partial<LoanApplication>, [string, string][]][])(
    'rejects %s, naming the parameter',
    (_label, overrides, expected) => {
      expect(errorsOf(resolve(overrides))).toEqual(expected);
    },
  );

  it('reports every broken rule at once', () => {
    const names = errorsOf(
      resolve({ principal: '50', numberOfRepayments: 3, loanTermFrequency: 3, interestRatePerPeriod: '31' }),
    ).map(([name]) => name);
    expect(names).toEqual(['numberOfRepayments', 'principal', 'interestRatePerPeriod']);
  });

  it('allows weekly repayments when the product sends no statements', () => {
    const product = productOf({ lmsConfig: { ...consumerConfig, statementEnabled: false } });
    const result = resolve({ repaymentFrequencyType: 1, loanTermFrequencyType: 1 }, product);
    expect(result.ok).toBe(true);
  });

  it('requires a principal in multiples of inMultiplesOf for a currency without fraction digits', () => {
    const base = productOf();
    const product = productOf({
      terms: { ...base.terms, currency: { code: 'JPY', digitsAfterDecimal: 0, inMultiplesOf: 100 } },
      bounds: { ...base.bounds, minPrincipal: null, maxPrincipal: null },
    });
    expect(errorsOf(resolve({ principal: '5050' }, product))).toEqual([
      ['principal', 'validation.msg.loan.principal.not.in.multiples'],
    ]);
    expect(errorsOf(resolve({ principal: '5000.5' }, product))).toEqual([
      ['principal', 'validation.msg.loan.principal.too.many.fraction.digits'],
    ]);
    expect(resolve({ principal: '5000' }, product).ok).toBe(true);
  });
});

describe('loanStrategyErrors (Fineract LoanApplicationValidator.validateTransactionProcessingStrategy)', () => {
  const advanced = 'advanced-payment-allocation-strategy';
  const mifos = 'mifos-standard-strategy';
  const duePenalty = 'due-penalty-interest-principal-fee-in-advance-penalty-interest-principal-fee-strategy';
  const codes = (loan: string, product: string) =>
    loanStrategyErrors(loan, product).map((e) => e.userMessageGlobalisationCode);
  it('a loan of a cumulative product chooses any strategy but the advanced one', () => {
    expect(codes(duePenalty, mifos)).toEqual([]);
    expect(codes(mifos, duePenalty)).toEqual([]);
    expect(codes(mifos, mifos)).toEqual([]);
    expect(codes(advanced, mifos)).toEqual([
      'strategy.cannot.be.advanced.payment.allocation.if.not.configured',
    ]);
  });
  it('a loan of an advanced (progressive) product keeps the advanced strategy', () => {
    expect(codes(advanced, advanced)).toEqual([]);
    expect(codes(duePenalty, advanced)).toEqual([
      'error.msg.loan.repayment.strategy.can.not.be.different.than.advanced.payment.allocation',
    ]);
  });
  it('a strategy without an allocation here is refused', () => {
    expect(codes('creocore-strategy', mifos)).toEqual([
      'validation.msg.loan.transactionProcessingStrategyCode.is.not.supported',
    ]);
  });
});

describe('resolveLoanApplication — charges', () => {
  const definitions = new Map<number, LoanChargeDefinition>([
    [11, charge()],
    [12, charge({ chargeId: 12, name: 'Late file fee', chargeTimeType: 2, amount: '15.00' })],
    [
      13,
      charge({
        chargeId: 13,
        name: 'Servicing %',
        chargeTimeType: 8,
        chargeCalculationType: 2,
        amount: '0.5',
      }),
    ],
    [14, charge({ chargeId: 14, active: false })],
    [15, charge({ chargeId: 15, currencyCode: 'EUR' })],
  ]);

  it('takes any active charge of the tenant in the loan currency, with the definition’s or its own amount', () => {
    const result = resolve(
      {
        charges: [
          { chargeId: 11, amount: '80' },
          { chargeId: 12, dueDate: '2024-03-20' },
          { chargeId: 13, amount: '0.25' },
        ],
      },
      productOf(),
      definitions,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.terms.charges).toEqual([
      {
        chargeId: 11,
        name: 'Origination fee',
        chargeTimeType: 1,
        chargeCalculationType: 1,
        amount: '80.00',
        penalty: false,
        dueDate: null,
      },
      {
        chargeId: 12,
        name: 'Late file fee',
        chargeTimeType: 2,
        chargeCalculationType: 1,
        amount: '15.00',
        penalty: false,
        dueDate: '2024-03-20',
      },
      {
        chargeId: 13,
        name: 'Servicing %',
        chargeTimeType: 8,
        chargeCalculationType: 2,
        amount: '0.25',
        penalty: false,
        dueDate: null,
      },
    ]);
    const [disbursement, first, , third] = result.value.schedule.periods;
    expect(disbursement.feeChargesDue).toBe('80.00');
    // 0.25 % of the first installment's principal is charged with it; the 15.00 falls in the third (Mar 15–Apr 15)
    expect(Number(first?.feeChargesDue)).toBeGreaterThan(0);
    expect(Number(third?.feeChargesDue) - Number(first?.feeChargesDue)).toBeGreaterThan(14);
  });

  it.each([
    [
      'an unknown charge',
      [{ chargeId: 99 }],
      'charges[0].chargeId',
      'validation.msg.loan.charges.chargeId.not.found',
    ],
    [
      'an inactive charge',
      [{ chargeId: 14 }],
      'charges[0].chargeId',
      'validation.msg.loan.charges.chargeId.inactive',
    ],
    [
      'a charge in another currency',
      [{ chargeId: 15 }],
      'charges[0].chargeId',
      'validation.msg.loan.charges.chargeId.currency.mismatch',
    ],
    [
      'a flat amount with three decimals',
      [{ chargeId: 11 }, { chargeId: 11, amount: '1.005' }],
      'charges[1].amount',
      'validation.msg.loan.charges.amount.too.many.fraction.digits',
    ],
    [
      'a zero amount',
      [{ chargeId: 11, amount: '0' }],
      'charges[0].amount',
      'validation.msg.loan.charges.amount.not.greater.than.zero',
    ],
    [
      'a specified-due-date charge without its date',
      [{ chargeId: 12 }],
      'charges[0].dueDate',
      'validation.msg.loan.charges.dueDate.cannot.be.blank',
    ],
    [
      'a due date on a disbursement charge',
      [{ chargeId: 11, dueDate: '2024-03-01' }],
      'charges[0].dueDate',
      'validation.msg.loan.charges.dueDate.not.allowed',
    ],
    [
      'a due date before the disbursement',
      [{ chargeId: 12, dueDate: '2024-01-14' }],
      'charges[0].dueDate',
      'validation.msg.loan.charges.dueDate.cannot.be.before.expected.disbursement.date',
    ],
    [
      'a due date after the last installment',
      [{ chargeId: 12, dueDate: '2025-06-01' }],
      'charges[0].dueDate',
      'validation.msg.loan.charges.dueDate.outside.repayment.schedule',
    ],
  ])('rejects %s naming %s', (_label, charges, parameterName, code) => {
    expect(errorsOf(resolve({ charges }, productOf(), definitions))).toEqual([[parameterName, code]]);
  });
});

describe('dates', () => {
  it.each([
    ['2024-01-15', undefined, undefined, '2024-01-15'],
    ['15 January 2024', 'dd MMMM yyyy', 'en', '2024-01-15'],
    ['05 march 2023', 'dd MMMM yyyy', 'en_GB', '2023-03-05'],
    ['5 Mar 2023', 'd MMM yyyy', undefined, '2023-03-05'],
    ['29/02/2024', 'dd/MM/yyyy', 'en', '2024-02-29'],
    ['2024-01-15', 'dd MMMM yyyy', 'en', '2024-01-15'],
    ['15 Januar 2024', 'dd MMMM yyyy', 'de', null],
    ['15 January 2024', 'dd MMMM yyyy', 'de', null],
    ['15 January 2024', undefined, undefined, null],
    ['29/02/2023', 'dd/MM/yyyy', 'en', null],
    ['31 April 2024', 'dd MMMM yyyy', 'en', null],
    ['15 Jan 2024', 'dd MMMM yyyy', 'en', null],
    ['15 January 2024', 'dd MMMM yyyy HH:mm', 'en', null],
    ['20240115', 'yyyyMMdd', 'en', '2024-01-15'],
  ])('parseLoanDate(%j, %j, %j) → %j', (text, format, locale, expected) => {
    expect(parseLoanDate(text, format, locale)).toBe(expected);
  });

  it('reads every date of an application with its dateFormat', () => {
    const result = resolve({
      dateFormat: 'dd MMMM yyyy',
      locale: 'en',
      submittedOnDate: '10 January 2024',
      expectedDisbursementDate: '15 January 2024',
      repaymentsStartingFromDate: '20 February 2024',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.submittedOnDate).toBe('2024-01-10');
    expect(result.value.terms.repaymentsStartingFromDate).toBe('2024-02-20');
  });

  it('takes the latest calendar date on Earth as “today”: UTC+14', () => {
    expect(latestCalendarDate(new Date('2026-11-21T09:59:59Z'))).toBe('2026-11-21');
    expect(latestCalendarDate(new Date('2026-11-21T10:00:00Z'))).toBe('2026-11-22');
  });
});

describe('resolveApproval', () => {
  const loan = {
    principal: '5000.00',
    digitsAfterDecimal: 2,
    submittedOnDate: '2024-01-10',
    expectedDisbursementDate: '2024-01-15',
  };

  it('approves the principal as is, or less, and a new disbursement date', () => {
    expect(
      resolveApproval({ approvedOnDate: '2024-01-12', approvedLoanAmount: '5000' }, loan, latest),
    ).toEqual({
      ok: true,
      value: {
        approvedOnDate: '2024-01-12',
        approvedPrincipal: '5000.00',
        expectedDisbursementDate: '2024-01-15',
        scheduleChanged: false,
      },
    });
    expect(
      resolveApproval(
        {
          approvedOnDate: '12 January 2024',
          approvedLoanAmount: '4000.5',
          dateFormat: 'dd MMMM yyyy',
          locale: 'en',
        },
        loan,
        latest,
      ),
    ).toMatchObject({ ok: true, value: { approvedPrincipal: '4000.50', scheduleChanged: true } });
    expect(
      resolveApproval(
        {
          approvedOnDate: '2024-01-12',
          approvedLoanAmount: '5000.00',
          expectedDisbursementDate: '2024-01-20',
        },
        loan,
        latest,
      ),
    ).toMatchObject({ ok: true, value: { expectedDisbursementDate: '2024-01-20', scheduleChanged: true } });
  });

  it.each([
    [
      'more than the principal',
      { approvedLoanAmount: '5000.01' },
      'approvedLoanAmount',
      'greater.than.applied.amount',
    ],
    ['zero', { approvedLoanAmount: '0' }, 'approvedLoanAmount', 'not.greater.than.zero'],
    ['three decimals', { approvedLoanAmount: '10.001' }, 'approvedLoanAmount', 'too.many.fraction.digits'],
    [
      'before the submission',
      { approvedOnDate: '2024-01-09' },
      'approvedOnDate',
      'cannot.be.before.submittal.date',
    ],
    ['in the future', { approvedOnDate: '2026-11-22' }, 'approvedOnDate', 'cannot.be.a.future.date'],
    ['not a date', { approvedOnDate: 'soon' }, 'approvedOnDate', 'invalid.date.format'],
    [
      'a disbursement before the submission',
      { expectedDisbursementDate: '2024-01-01' },
      'expectedDisbursementDate',
      'cannot.be.before.submittedOnDate',
    ],
  ])('refuses an approval %s', (_label, overrides, name, rule) => {
    const result = resolveApproval(
      { approvedOnDate: '2024-01-12', approvedLoanAmount: '5000', ...overrides },
      loan,
      latest,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.parameterName, e.userMessageGlobalisationCode])).toEqual([
      [name, `validation.msg.loan.${name}.${rule}`],
    ]);
  });

  it("refuses an amount outside the product's principal bounds, the rule the principal meets at creation", () => {
    const bounded = { ...loan, principalBounds: { minPrincipal: '1000.00', maxPrincipal: '6000.00' } };
    const below = resolveApproval(
      { approvedOnDate: '2024-01-12', approvedLoanAmount: '999.99' },
      bounded,
      latest,
    );
    expect(below.ok).toBe(false);
    if (below.ok) return;
    expect(below.errors.map((e) => [e.parameterName, e.userMessageGlobalisationCode])).toEqual([
      ['approvedLoanAmount', 'validation.msg.loan.approvedLoanAmount.is.not.within.min.max.range'],
    ]);
    expect(
      resolveApproval({ approvedOnDate: '2024-01-12', approvedLoanAmount: '1000' }, bounded, latest).ok,
    ).toBe(true);
    const unbounded = { ...loan, principalBounds: { minPrincipal: null, maxPrincipal: null } };
    expect(
      resolveApproval({ approvedOnDate: '2024-01-12', approvedLoanAmount: '1' }, unbounded, latest).ok,
    ).toBe(true);
  });
});

describe('the disclosure of a loan', () => {
  const definitions = new Map<number, LoanChargeDefinition>([
    [11, charge()],
    [16, charge({ chargeId: 16, name: 'Broker fee %', chargeCalculationType: 2, amount: '1' })],
    [17, charge({ chargeId: 17, name: 'Document fee', amount: '25.00' })],
    [18, charge({ chargeId: 18, name: 'Everything fee', amount: '5000.00' })],
  ]);
  const resolved = (overrides: Partial<LoanApplication>, product = productOf()) => {
    const result = resolve(overrides, product, definitions);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.value;
  };
  const disclose = (loan: ReturnType<typeof resolved>, product = productOf()) =>
    loanAprDisclosure(product, loan.terms, loan.principal, loan.expectedDisbursementDate, loan.schedule);

  it('treats the charges due at disbursement as prepaid finance charges: amount financed = 5000.00 − 100.00', () => {
    const loan = resolved({ charges: [{ chargeId: 11 }] });
    const result = disclose(loan);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.disclosure.amountFinanced).toBe('4900.00');
    expect(result.disclosure.itemization.prepaidFinanceCharges).toEqual([
      { name: 'Origination fee', amount: '100.00' },
    ]);
    // total of payments = the installments (the schedule's total less the 100.00 due at disbursement)
    const totalOfPayments = new Decimal(loan.schedule.totalRepaymentExpected).minus(100);
    expect(new Decimal(result.disclosure.totalOfPayments).eq(totalOfPayments)).toBe(true);
    expect(new Decimal(result.disclosure.financeCharge).eq(totalOfPayments.minus(4900))).toBe(true);
    // 12 % nominal with a 2 % fee: the APR is above the nominal rate
    expect(Number(result.disclosure.annualPercentageRate)).toBeGreaterThan(12);
    expect(result.disclosure.unitPeriod).toBe('MONTH');
  });

  it('names each of several disbursement charges with its own amount (1 % of 5000 = 50.00, and 25.00)', () => {
    const loan = resolved({ charges: [{ chargeId: 16 }, { chargeId: 17 }] });
    expect(loan.schedule.periods[0].feeChargesDue).toBe('75.00');
    expect(
      prepaidFinanceChargesOf(loan.terms, loan.principal, loan.expectedDisbursementDate, loan.schedule),
    ).toEqual([
      { name: 'Broker fee %', amount: '50.00' },
      { name: 'Document fee', amount: '25.00' },
    ]);
  });

  it('is unavailable when the product is not configured', () => {
    const product = productOf({ configurationStatus: 'MISSING_APR_SETTINGS' });
    expect(disclose(resolved({}, product), product)).toMatchObject({
      ok: false,
      reason: 'PRODUCT_NOT_CONFIGURED',
    });
  });

  it('is unavailable when the prepaid charges swallow the principal', () => {
    expect(disclose(resolved({ charges: [{ chargeId: 18 }] }))).toMatchObject({
      ok: false,
      reason: 'AMOUNT_FINANCED_NOT_POSITIVE',
    });
  });

  it('is unavailable for a repayment frequency without an Appendix J unit-period (every 5 days)', () => {
    const product = productOf({
      lmsConfig: { ...consumerConfig, statementEnabled: false },
      bounds: { ...productOf().bounds, maxNumberOfRepayments: null },
    });
    const loan = resolved(
      { repaymentEvery: 5, repaymentFrequencyType: 0, loanTermFrequencyType: 0, loanTermFrequency: 60 },
      product,
    );
    expect(disclose(loan, product)).toMatchObject({ ok: false, reason: 'UNSUPPORTED_REPAYMENT_FREQUENCY' });
  });
});

// ---- published vectors ---------------------------------------------------------------------------------------

interface VectorCase {
  id: string;
  inputs: ScheduleInput & {
    loanTermFrequency: number;
    loanTermFrequencyType: number;
    submittedOnDate: string;
    transactionProcessingStrategyCode: string;
  };
}
const vectors = JSON.parse(
  readFileSync(new URL('../vectors/fineract-schedules.json', import.meta.url), 'utf8'),
) as { cases: VectorCase[] };

describe('resolveLoanApplication — Fineract vectors (test/vectors/fineract-schedules.json)', () => {
  it.each(vectors.cases.map((c) => [c.id, c] as const))(
    '%s: the application on the case’s product gives the case’s schedule',
    (_id, { inputs }) => {
      const product = productOf({
        lmsConfig: { ...consumerConfig, statementEnabled: false },
        terms: {
          principal: inputs.principal,
          numberOfRepayments: inputs.numberOfRepayments,
          repaymentEvery: inputs.repaymentEvery,
          repaymentFrequencyType: inputs.repaymentFrequencyType,
          interestRatePerPeriod: inputs.interestRatePerPeriod,
          interestRateFrequencyType: inputs.interestRateFrequencyType,
          interestType: inputs.interestType,
          amortizationType: inputs.amortizationType,
          interestCalculationPeriodType: inputs.interestCalculationPeriodType,
          allowPartialPeriodInterestCalcualtion: inputs.allowPartialPeriodInterestCalcualtion,
          daysInYearType: inputs.daysInYearType,
          daysInMonthType: inputs.daysInMonthType,
          currency: { ...inputs.currency, inMultiplesOf: inputs.currency.inMultiplesOf ?? 0 },
          installmentAmountInMultiplesOf: inputs.installmentAmountInMultiplesOf ?? null,
        },
        bounds: {
          minPrincipal: null,
          maxPrincipal: null,
          minNumberOfRepayments: null,
          maxNumberOfRepayments: null,
          minInterestRatePerPeriod: null,
          maxInterestRatePerPeriod: null,
        },
        transactionProcessingStrategyCode: inputs.transactionProcessingStrategyCode,
      });
      const result = resolveLoanApplication(
        applicationOf({
          principal: inputs.principal,
          loanTermFrequency: inputs.loanTermFrequency,
          loanTermFrequencyType: inputs.loanTermFrequencyType,
          numberOfRepayments: inputs.numberOfRepayments,
          repaymentEvery: inputs.repaymentEvery,
          repaymentFrequencyType: inputs.repaymentFrequencyType,
          interestRatePerPeriod: inputs.interestRatePerPeriod,
          interestType: inputs.interestType,
          amortizationType: inputs.amortizationType,
          interestCalculationPeriodType: inputs.interestCalculationPeriodType,
          allowPartialPeriodInterestCalcualtion: inputs.allowPartialPeriodInterestCalcualtion,
          graceOnPrincipalPayment: inputs.graceOnPrincipalPayment,
          graceOnInterestPayment: inputs.graceOnInterestPayment,
          transactionProcessingStrategyCode: inputs.transactionProcessingStrategyCode,
          submittedOnDate: inputs.submittedOnDate,
          expectedDisbursementDate: inputs.expectedDisbursementDate,
        }),
        product,
        noCharges,
        latest,
      );
      expect(result.ok, JSON.stringify(result)).toBe(true);
      if (!result.ok) return;
      expect(result.value.schedule).toEqual(
        generateSchedule({ ...inputs, currency: { ...inputs.currency }, charges: [] }),
      );
    },
  );
});
