/**
 * The shapes of a loan's terms: what an application sends (`LoanApplication`, its charges), what it is
 * checked against (`LoanProductForTerms`, `LoanChargeDefinition`), and what a resolved application keeps
 * (`LoanTerms`, `LoanCharge`, `ResolvedLoanApplication`, `Resolution`). Source: docs/lending.md "Lending core"
 * (`POST /v1/loans`), Apache Fineract's loan application body. Amounts are decimal strings in these shapes;
 * dates ISO `YYYY-MM-DD`.
 */

import type { FieldError } from '../../errors';
import type { DelinquencySettings } from '../delinquency-ranges';
import type { ConfigurationStatus, LmsConfig } from '../products';
import type {
  AmortizationType,
  ChargeCalculationType,
  ChargeTimeType,
  DaysInMonthType,
  DaysInYearType,
  InterestCalculationPeriodType,
  InterestRateFrequencyType,
  InterestType,
  PeriodFrequencyType,
  Schedule,
  ScheduleInput,
} from '../schedule';

// ---- inputs ---------------------------------------------------------------------------------------------------

/** One charge of an application: a tenant charge definition by id, optionally with its own amount and due date. */
export interface LoanChargeInput {
  chargeId: number;
  /** Decimal string > 0: flat money in the loan currency, or the percent of a percentage charge; absent = the definition's. */
  amount?: string | null;
  /** Date of a specified-due-date charge (ISO, or per `dateFormat`); required for those, refused for others. */
  dueDate?: string | null;
}

/** The loan-creation body (docs/lending.md "Lending core", "Loan creation body fields", plus Fineract's graces). */
export interface LoanApplication {
  clientId: number;
  productId: number;
  /** Fineract `loanType`; only `individual` loans exist here. */
  loanType: string;
  /** Decimal string > 0 in the product currency. */
  principal: string;
  /** Term in `loanTermFrequencyType` units; must be `numberOfRepayments × repaymentEvery`. */
  loanTermFrequency: number;
  /** 0 days, 1 weeks, 2 months, 3 years; must equal `repaymentFrequencyType`. */
  loanTermFrequencyType: number;
  numberOfRepayments: number;
  repaymentEvery: number;
  /** 0 days, 1 weeks, 2 months, 3 years. */
  repaymentFrequencyType: number;
  /** Nominal rate in percent per the product's `interestRateFrequencyType`, decimal string ≥ 0. */
  interestRatePerPeriod: string;
  /** 0 declining balance, 1 flat. */
  interestType: number;
  /** 0 daily, 1 same as repayment period. */
  interestCalculationPeriodType: number;
  /** 0 equal principal, 1 equal installments. */
  amortizationType: number;
  transactionProcessingStrategyCode: string;
  /** ISO date (or per `dateFormat`). */
  expectedDisbursementDate: string;
  /** ISO date (or per `dateFormat`). */
  submittedOnDate: string;
  /** First due date (ISO or per `dateFormat`), after the disbursement; absent = one period after it. */
  repaymentsStartingFromDate?: string | null;
  /** Installments without principal at the start; absent = 0. */
  graceOnPrincipalPayment?: number | null;
  /** Installments without interest due at the start; absent = 0. */
  graceOnInterestPayment?: number | null;
  /** Absent = the product's. */
  allowPartialPeriodInterestCalcualtion?: boolean | null;
  /** Source-system key; unique per tenant (checked by the operation). */
  externalId?: string | null;
  /** Java date pattern of non-ISO dates (see the module note). */
  dateFormat?: string | null;
  /** Locale of month names: absent or `en…`. */
  locale?: string | null;
  charges?: LoanChargeInput[] | null;
}

/** What the terms need of a product (a structural subset of db/queries/lending/products.ts `ProductForLoan`). */
export interface LoanProductForTerms {
  productId: number;
  configurationStatus: ConfigurationStatus;
  lmsConfig: LmsConfig;
  terms: Omit<ScheduleInput, 'expectedDisbursementDate' | 'repaymentsStartingFromDate' | 'charges'> & {
    currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
    installmentAmountInMultiplesOf?: number | null;
  };
  /** Null = unbounded. Money with the currency's digits, rates in percent. */
  bounds: {
    minPrincipal: string | null;
    maxPrincipal: string | null;
    minNumberOfRepayments: number | null;
    maxNumberOfRepayments: number | null;
    minInterestRatePerPeriod: string | null;
    maxInterestRatePerPeriod: string | null;
  };
  transactionProcessingStrategyCode: string;
  /** Fineract `enableAutoRepaymentForDownPayment` (absent = false). */
  enableAutoRepaymentForDownPayment?: boolean;
  /** The product's delinquency settings (absent = `defaultDelinquencySettings`). */
  delinquency?: DelinquencySettings;
}

/** A charge definition of the tenant, as db/queries reads it (`ProductChargeForLoan` fits). */
export interface LoanChargeDefinition {
  chargeId: number;
  name: string;
  currencyCode: string;
  active: boolean;
  chargeTimeType: ChargeTimeType;
  chargeCalculationType: ChargeCalculationType;
  /** Flat: money with the currency's digits; percentage: the percent. */
  amount: string;
  penalty: boolean;
}

// ---- outputs --------------------------------------------------------------------------------------------------

/** A charge of a loan as the loan keeps it. */
export interface LoanCharge {
  chargeId: number;
  /** The definition's name (shown in the disclosure's itemization). */
  name: string;
  chargeTimeType: ChargeTimeType;
  chargeCalculationType: ChargeCalculationType;
  /** Flat: money with the loan currency's digits; percentage: the percent as given. */
  amount: string;
  penalty: boolean;
  /** ISO date of a specified-due-date charge, else null. */
  dueDate: string | null;
}

/**
 * The terms a loan keeps (`loans.terms`, version 1): everything its schedule is built from except the principal
 * and the disbursement date, which are columns of the loan (`scheduleInputOf` puts them together).
 */
export interface LoanTerms {
  version: 1;
  loanType: 'individual';
  loanTermFrequency: number;
  loanTermFrequencyType: PeriodFrequencyType;
  numberOfRepayments: number;
  repaymentEvery: number;
  repaymentFrequencyType: PeriodFrequencyType;
  /** Decimal string, percent per `interestRateFrequencyType`. */
  interestRatePerPeriod: string;
  interestRateFrequencyType: InterestRateFrequencyType;
  interestType: InterestType;
  amortizationType: AmortizationType;
  interestCalculationPeriodType: InterestCalculationPeriodType;
  allowPartialPeriodInterestCalcualtion: boolean;
  daysInYearType: DaysInYearType;
  daysInMonthType: DaysInMonthType;
  graceOnPrincipalPayment: number;
  graceOnInterestPayment: number;
  /** ISO date or null. */
  repaymentsStartingFromDate: string | null;
  installmentAmountInMultiplesOf: number | null;
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  transactionProcessingStrategyCode: string;
  charges: LoanCharge[];
  /**
   * The product's down payment, copied at submission (absent in terms stored before down payments: none):
   * `enableDownPayment`, the percent of the principal (decimal string) and whether the funding records it.
   */
  enableDownPayment?: boolean;
  disbursedAmountPercentageForDownPayment?: string | null;
  enableAutoRepaymentForDownPayment?: boolean;
  /**
   * The product's delinquency settings, copied at submission (absent in terms stored before them: read as
   * domain/lending/delinquency.ts `defaultDelinquencySettings`).
   */
  delinquency?: DelinquencySettings;
}

/** An accepted application: the loan's columns, its terms and the schedule they give. */
export interface ResolvedLoanApplication {
  clientId: number;
  productId: number;
  /** Decimal string with the currency's digits. */
  principal: string;
  /** ISO dates. */
  submittedOnDate: string;
  expectedDisbursementDate: string;
  externalId: string | null;
  terms: LoanTerms;
  schedule: Schedule;
}

export type Resolution<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };
