/**
 * Request bodies of the lending routes that several API test files send unchanged (OpenAPI `POST /v1/loanproducts`, `POST /v1/loans`): a USD personal-loan product of a covered consumer class and a loan
 * application on it. Amounts and rates are as the wire takes them (decimal strings or numbers, percent a year).
 */

/** `lmsConfig` of a covered consumer product with the APR disclosure and statements 21 days ahead. */
export const consumerConfig = {
  productClass: 'COVERED_CONSUMER',
  aprEnabled: true,
  aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
  aprTolerancePolicy: 'REGULAR',
  statementEnabled: true,
  statementLeadDays: 21,
};

/** `POST /v1/loanproducts`: 5,000.00 USD (1,000–20,000), 12 monthly repayments (6–36), 12 % a year (5–30). */
export const personalLoanProductBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Personal loan',
  shortName: 'PL1',
  currencyCode: 'USD',
  digitsAfterDecimal: 2,
  inMultiplesOf: 0,
  principal: '5000',
  minPrincipal: '1000',
  maxPrincipal: '20000',
  numberOfRepayments: 12,
  minNumberOfRepayments: 6,
  maxNumberOfRepayments: 36,
  interestRatePerPeriod: 12,
  minInterestRatePerPeriod: 5,
  maxInterestRatePerPeriod: 30,
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRateFrequencyType: 3,
  interestType: 0,
  amortizationType: 1,
  interestCalculationPeriodType: 1,
  daysInYearType: 1,
  daysInMonthType: 1,
  transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
  lmsConfig: consumerConfig,
  locale: 'en',
  ...overrides,
});

/**
 * `POST /v1/loans` for `clientId` on the product `productId`: 5,000 over 12 monthly repayments at 12 % a year,
 * submitted 2025-03-10, disbursement expected 2025-03-15 (ISO dates, no `dateFormat` unless overridden).
 */
export const personalLoanBody = (
  ids: { clientId: number; productId: number },
  overrides: Record<string, unknown> = {},
) => ({
  clientId: ids.clientId,
  productId: ids.productId,
  loanType: 'individual',
  principal: 5000,
  loanTermFrequency: 12,
  loanTermFrequencyType: 2,
  numberOfRepayments: 12,
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRatePerPeriod: 12,
  interestType: 0,
  interestCalculationPeriodType: 1,
  amortizationType: 1,
  transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
  expectedDisbursementDate: '2025-03-15',
  submittedOnDate: '2025-03-10',
  locale: 'en',
  ...overrides,
});
