/**
 * Read queries of charge definitions and loan products (OpenAPI `GET /v1/loanproducts`), and `getProductForLoan`, the read the loans code builds schedules from.
 * Each runs in a tenant-scoped read transaction (row-level security), or in the caller's transaction for the
 * `read…(tx, …)` variants. Stored `numeric` values come back as decimal strings with 6 (money) or 8 (rates)
 * fraction digits; they are re-rendered exactly (never through a float), except `interestRatePerPeriod` and its
 * bounds in the API view, which the spec types as numbers.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import {
  chargeCalculationTypes,
  chargeTimeTypes,
  overdueInstallmentChargeTimeType,
} from '../../../domain/lending/charges';
import { fixDecimalText, trimDecimalText } from '../../../domain/lending/decimal-text';
import type { DelinquencySettings } from '../../../domain/lending/delinquency-ranges';
import type {
  ConfigurationStatus,
  LmsConfig,
  LoanProductSettings,
  PaymentAllocationRule,
} from '../../../domain/lending/products';
import {
  amortizationTypes,
  daysInMonthTypes,
  daysInYearTypes,
  interestCalculationPeriodTypes,
  interestRateFrequencyTypes,
  interestTypes,
  normalizeLmsConfig,
  repaymentFrequencyTypes,
} from '../../../domain/lending/products';
import type {
  ChargeCalculationType,
  ChargeTimeType,
  ScheduleCharge,
  ScheduleInput,
} from '../../../domain/lending/schedule';
import { minorUnitDigits } from '../../../domain/money';
import type { Db } from '../../client';
import { charges, loanProductCharges, loanProducts } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

type ChargeRow = typeof charges.$inferSelect;
type ProductRow = typeof loanProducts.$inferSelect;

/** A charge definition as the API shows it (`GET /v1/charges`, `GET /v1/charges/{chargeId}`, product charges). */
export interface ChargeView {
  id: number;
  name: string;
  currency: { code: string; digitsAfterDecimal: number };
  /** Flat: money with exactly the currency's digits (`"25.00"`); percentage: the percent, no trailing zeros. */
  amount: string;
  chargeAppliesTo: number;
  chargeTimeType: number;
  chargeCalculationType: number;
  penalty: boolean;
  active: boolean;
}

function chargeView(row: ChargeRow): ChargeView {
  const digits = minorUnitDigits(row.currencyCode);
  return {
    id: row.id,
    name: row.name,
    currency: { code: row.currencyCode, digitsAfterDecimal: digits },
    amount: chargeAmountText(row, digits),
    chargeAppliesTo: row.chargeAppliesTo,
    chargeTimeType: row.chargeTimeType,
    chargeCalculationType: row.chargeCalculationType,
    penalty: row.penalty,
    active: row.active,
  };
}

/**
 * The stored `amount` of a charge definition as text: a flat charge as money with `currencyDigits` (`"25.00"`),
 * a percentage as the percent without trailing zeros (`"1.5"`). Also used by db/queries/lending/loans.ts.
 */
export function chargeAmountText(
  row: Pick<ChargeRow, 'amount' | 'chargeCalculationType'>,
  currencyDigits: number,
): string {
  return row.chargeCalculationType === 1
    ? fixDecimalText(row.amount, currencyDigits)
    : trimDecimalText(row.amount);
}

/** The tenant's charge definition `chargeId`, or null (absent or another tenant's). */
export async function getCharge(db: Db, tenantId: string, chargeId: number): Promise<ChargeView | null> {
  const [row] = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(charges)
      .where(and(eq(charges.tenantId, tenantId), eq(charges.id, chargeId))),
  );
  return row ? chargeView(row) : null;
}

/** Every charge definition of the tenant, oldest first (Fineract's `GET /charges` is unpaged too). */
export async function listCharges(db: Db, tenantId: string): Promise<ChargeView[]> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx.select().from(charges).where(eq(charges.tenantId, tenantId)).orderBy(asc(charges.id)),
  );
  return rows.map(chargeView);
}

/** A loan product as the API shows it (OpenAPI `GET /v1/loanproducts`, plus the calculation settings and charges). */
export interface LoanProductView extends LoanProductSettings {
  id: number;
  name: string;
  shortName: string;
  status: 'loanProduct.active';
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  /** The charge added to a loan when a payment is returned for insufficient funds (R01, R09), or null. */
  nsfChargeId: number | null;
  installmentAmountInMultiplesOf: number | null;
  /** Decimal strings with the currency's digits. */
  principal: string;
  minPrincipal: string | null;
  maxPrincipal: string | null;
  /** Nominal rate in percent per `interestRateFrequencyType` (a JSON number, OpenAPI `GET /v1/loanproducts`). */
  interestRatePerPeriod: number;
  minInterestRatePerPeriod: number | null;
  maxInterestRatePerPeriod: number | null;
  /** The advanced strategy's rules (null for other strategies). */
  paymentAllocation: PaymentAllocationRule[] | null;
  charges: ChargeView[];
  lmsConfig: LmsConfig;
  configurationStatus: ConfigurationStatus;
  /** Fineract's down payment; the percent as a JSON number (display only), null without a down payment. */
  enableDownPayment: boolean;
  disbursedAmountPercentageForDownPayment: number | null;
  enableAutoRepaymentForDownPayment: boolean;
  /** Delinquency settings (docs/lending.md "Delinquency configuration"): bucket id or null, days. */
  delinquencyBucketId: number | null;
  graceOnArrearsAgeing: number;
  enableInstallmentLevelDelinquency: boolean;
  chargeOffDaysPastDue: number | null;
}

/** A rate read back from `numeric(19,8)` as the JSON number the spec shows; display only, never arithmetic. */
function rateNumber(value: string): number {
  return Number(trimDecimalText(value));
}

function productView(row: ProductRow, attached: ChargeView[]): LoanProductView {
  const digits = row.digitsAfterDecimal;
  const money = (value: string | null) => (value === null ? null : fixDecimalText(value, digits));
  return {
    id: row.id,
    name: row.name,
    shortName: row.shortName,
    status: 'loanProduct.active',
    currency: { code: row.currencyCode, digitsAfterDecimal: digits, inMultiplesOf: row.inMultiplesOf },
    installmentAmountInMultiplesOf: row.installmentAmountInMultiplesOf,
    principal: fixDecimalText(row.principal, digits),
    minPrincipal: money(row.minPrincipal),
    maxPrincipal: money(row.maxPrincipal),
    numberOfRepayments: row.numberOfRepayments,
    minNumberOfRepayments: row.minNumberOfRepayments,
    maxNumberOfRepayments: row.maxNumberOfRepayments,
    interestRatePerPeriod: rateNumber(row.interestRatePerPeriod),
    minInterestRatePerPeriod:
      row.minInterestRatePerPeriod === null ? null : rateNumber(row.minInterestRatePerPeriod),
    maxInterestRatePerPeriod:
      row.maxInterestRatePerPeriod === null ? null : rateNumber(row.maxInterestRatePerPeriod),
    repaymentEvery: row.repaymentEvery,
    repaymentFrequencyType: row.repaymentFrequencyType,
    interestRateFrequencyType: row.interestRateFrequencyType,
    interestType: row.interestType,
    amortizationType: row.amortizationType,
    interestCalculationPeriodType: row.interestCalculationPeriodType,
    allowPartialPeriodInterestCalcualtion: row.allowPartialPeriodInterestCalcualtion,
    daysInYearType: row.daysInYearType,
    daysInMonthType: row.daysInMonthType,
    graceOnPrincipalPayment: row.graceOnPrincipalPayment,
    graceOnInterestPayment: row.graceOnInterestPayment,
    transactionProcessingStrategyCode: row.transactionProcessingStrategyCode,
    paymentAllocation: (row.paymentAllocation as PaymentAllocationRule[] | null) ?? null,
    nsfChargeId: row.nsfChargeId,
    charges: attached,
    lmsConfig: normalizeLmsConfig(row.lmsConfig as Partial<LmsConfig>),
    configurationStatus: row.configurationStatus as ConfigurationStatus,
    enableDownPayment: row.enableDownPayment,
    disbursedAmountPercentageForDownPayment:
      row.disbursedAmountPercentageForDownPayment === null
        ? null
        : rateNumber(row.disbursedAmountPercentageForDownPayment),
    enableAutoRepaymentForDownPayment: row.enableAutoRepaymentForDownPayment,
    delinquencyBucketId: row.delinquencyBucketId,
    graceOnArrearsAgeing: row.graceOnArrearsAgeing,
    enableInstallmentLevelDelinquency: row.enableInstallmentLevelDelinquency,
    chargeOffDaysPastDue: row.chargeOffDaysPastDue,
  };
}

/** The charge rows attached to each of `productIds`, in one query, ordered by charge id. */
async function attachedCharges(
  tx: Tx,
  tenantId: string,
  productIds: number[],
): Promise<Map<number, ChargeRow[]>> {
  const byProduct = new Map<number, ChargeRow[]>();
  if (productIds.length === 0) return byProduct;
  const rows = await tx
    .select({ productId: loanProductCharges.productId, charge: charges })
    .from(loanProductCharges)
    .innerJoin(
      charges,
      and(eq(charges.tenantId, loanProductCharges.tenantId), eq(charges.id, loanProductCharges.chargeId)),
    )
    .where(and(eq(loanProductCharges.tenantId, tenantId), inArray(loanProductCharges.productId, productIds)))
    .orderBy(asc(loanProductCharges.productId), asc(charges.id));
  for (const { productId, charge } of rows) {
    const list = byProduct.get(productId) ?? [];
    list.push(charge);
    byProduct.set(productId, list);
  }
  return byProduct;
}

/** The tenant's loan product `productId` with its charges, or null (absent or another tenant's). */
export async function getLoanProduct(
  db: Db,
  tenantId: string,
  productId: number,
): Promise<LoanProductView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [row] = await tx
      .select()
      .from(loanProducts)
      .where(and(eq(loanProducts.tenantId, tenantId), eq(loanProducts.id, productId)));
    if (!row) return null;
    const attached = await attachedCharges(tx, tenantId, [row.id]);
    return productView(row, (attached.get(row.id) ?? []).map(chargeView));
  });
}

/** Every loan product of the tenant with its charges, oldest first, in two queries (spec: an unpaged array). */
export async function listLoanProducts(db: Db, tenantId: string): Promise<LoanProductView[]> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const rows = await tx
      .select()
      .from(loanProducts)
      .where(eq(loanProducts.tenantId, tenantId))
      .orderBy(asc(loanProducts.id));
    const attached = await attachedCharges(
      tx,
      tenantId,
      rows.map((r) => r.id),
    );
    return rows.map((row) => productView(row, (attached.get(row.id) ?? []).map(chargeView)));
  });
}

// ---- the read for loans -------------------------------------------------------------------------------------

/**
 * A product's calculation settings in domain/lending/schedule.ts's names, codes and representations: a loan's
 * `ScheduleInput` is these terms (with the application's principal, repayments and rate where it overrides the
 * defaults within `bounds`) plus `expectedDisbursementDate`, `repaymentsStartingFromDate` and `charges`.
 */
export type ProductScheduleTerms = Omit<
  ScheduleInput,
  'expectedDisbursementDate' | 'repaymentsStartingFromDate' | 'charges'
> & {
  currency: { code: string; digitsAfterDecimal: number; inMultiplesOf: number };
  graceOnPrincipalPayment: number;
  graceOnInterestPayment: number;
  installmentAmountInMultiplesOf: number | null;
};

/**
 * A charge definition attached to a product, as a `ScheduleCharge` without its loan-specific `dueDate`
 * (required by the schedule for `chargeTimeType` 2, given by the loan application) plus its identity.
 * `amount` is money with the currency's digits for a flat charge, the percent (no trailing zeros) otherwise.
 */
export interface ProductChargeForLoan extends Omit<ScheduleCharge, 'dueDate'> {
  chargeId: number;
  name: string;
  currencyCode: string;
  active: boolean;
  chargeTimeType: ChargeTimeType;
  chargeCalculationType: ChargeCalculationType;
  amount: string;
  penalty: boolean;
  /** Charge definitions carry no caps here (Fineract's minCap/maxCap are not supported). */
  minCap: null;
  maxCap: null;
}

/** What the loans code needs of a product: its schedule terms, bounds, strategy, charges and lmsConfig. */
export interface ProductForLoan {
  productId: number;
  name: string;
  shortName: string;
  status: 'loanProduct.active';
  /** Loan approval requires `CONFIGURED` (see domain/lending/products.ts `ConfigurationStatus`). */
  configurationStatus: ConfigurationStatus;
  lmsConfig: LmsConfig;
  terms: ProductScheduleTerms;
  /** Bounds of the application's overrides; null = unbounded. Money as decimal strings, rates in percent. */
  bounds: {
    minPrincipal: string | null;
    maxPrincipal: string | null;
    minNumberOfRepayments: number | null;
    maxNumberOfRepayments: number | null;
    minInterestRatePerPeriod: string | null;
    maxInterestRatePerPeriod: string | null;
  };
  transactionProcessingStrategyCode: string;
  /** The advanced strategy's allocation rules (docs/design.md §5 default when none were given); null otherwise. */
  paymentAllocation: PaymentAllocationRule[] | null;
  /** Attached charge definitions, ordered by id. */
  charges: ProductChargeForLoan[];
  /** Record the down payment with the funding (Fineract `enableAutoRepaymentForDownPayment`). */
  enableAutoRepaymentForDownPayment: boolean;
  /** The delinquency settings a loan copies into its terms (docs/lending.md "Delinquency configuration"). */
  delinquency: DelinquencySettings;
}

/**
 * The tenant's product `productId` in the shape the loans code builds a `ScheduleInput` from (see
 * `ProductForLoan`), or null when the tenant has no such product. Runs in its own tenant read transaction; use
 * `readProductForLoan` inside an operation's transaction.
 */
export async function getProductForLoan(
  db: Db,
  tenantId: string,
  productId: number,
): Promise<ProductForLoan | null> {
  return withTenantTransaction(db, tenantId, (tx) => readProductForLoan(tx, tenantId, productId));
}

/**
 * `getProductForLoan` inside the caller's tenant transaction `tx` (e.g. a loan-creation operation reading the
 * product it validates the application against). Throws an Error when a stored code is outside the supported
 * set (data written around the operations).
 */
export async function readProductForLoan(
  tx: Tx,
  tenantId: string,
  productId: number,
): Promise<ProductForLoan | null> {
  const [row] = await tx
    .select()
    .from(loanProducts)
    .where(and(eq(loanProducts.tenantId, tenantId), eq(loanProducts.id, productId)));
  if (!row) return null;
  const attached = (await attachedCharges(tx, tenantId, [row.id])).get(row.id) ?? [];
  const digits = row.digitsAfterDecimal;
  const money = (value: string | null) => (value === null ? null : fixDecimalText(value, digits));
  const rate = (value: string | null) => (value === null ? null : trimDecimalText(value));
  return {
    productId: row.id,
    name: row.name,
    shortName: row.shortName,
    status: 'loanProduct.active',
    configurationStatus: row.configurationStatus as ConfigurationStatus,
    lmsConfig: normalizeLmsConfig(row.lmsConfig as Partial<LmsConfig>),
    terms: {
      principal: fixDecimalText(row.principal, digits),
      numberOfRepayments: row.numberOfRepayments,
      repaymentEvery: row.repaymentEvery,
      repaymentFrequencyType: storedCode(
        row.repaymentFrequencyType,
        repaymentFrequencyTypes,
        'repaymentFrequencyType',
      ),
      interestRatePerPeriod: trimDecimalText(row.interestRatePerPeriod),
      interestRateFrequencyType: storedCode(
        row.interestRateFrequencyType,
        interestRateFrequencyTypes,
        'interestRateFrequencyType',
      ),
      interestType: storedCode(row.interestType, interestTypes, 'interestType'),
      amortizationType: storedCode(row.amortizationType, amortizationTypes, 'amortizationType'),
      interestCalculationPeriodType: storedCode(
        row.interestCalculationPeriodType,
        interestCalculationPeriodTypes,
        'interestCalculationPeriodType',
      ),
      allowPartialPeriodInterestCalcualtion: row.allowPartialPeriodInterestCalcualtion,
      daysInYearType: storedCode(row.daysInYearType, daysInYearTypes, 'daysInYearType'),
      daysInMonthType: storedCode(row.daysInMonthType, daysInMonthTypes, 'daysInMonthType'),
      graceOnPrincipalPayment: row.graceOnPrincipalPayment,
      graceOnInterestPayment: row.graceOnInterestPayment,
      currency: { code: row.currencyCode, digitsAfterDecimal: digits, inMultiplesOf: row.inMultiplesOf },
      installmentAmountInMultiplesOf: row.installmentAmountInMultiplesOf,
      enableDownPayment: row.enableDownPayment,
      disbursedAmountPercentageForDownPayment:
        row.disbursedAmountPercentageForDownPayment === null
          ? null
          : trimDecimalText(row.disbursedAmountPercentageForDownPayment),
    },
    enableAutoRepaymentForDownPayment: row.enableAutoRepaymentForDownPayment,
    delinquency: {
      delinquencyBucketId: row.delinquencyBucketId,
      graceOnArrearsAgeing: row.graceOnArrearsAgeing,
      enableInstallmentLevelDelinquency: row.enableInstallmentLevelDelinquency,
      chargeOffDaysPastDue: row.chargeOffDaysPastDue,
    },
    bounds: {
      minPrincipal: money(row.minPrincipal),
      maxPrincipal: money(row.maxPrincipal),
      minNumberOfRepayments: row.minNumberOfRepayments,
      maxNumberOfRepayments: row.maxNumberOfRepayments,
      minInterestRatePerPeriod: rate(row.minInterestRatePerPeriod),
      maxInterestRatePerPeriod: rate(row.maxInterestRatePerPeriod),
    },
    transactionProcessingStrategyCode: row.transactionProcessingStrategyCode,
    paymentAllocation: (row.paymentAllocation as PaymentAllocationRule[] | null) ?? null,
    // Overdue-installment charges never enter a schedule: close of business assesses them (domain/lending/charges.ts).
    charges: attached
      .filter((charge) => charge.chargeTimeType !== overdueInstallmentChargeTimeType)
      .map((charge) => ({
        chargeId: charge.id,
        name: charge.name,
        currencyCode: charge.currencyCode,
        active: charge.active,
        chargeTimeType: storedCode(
          charge.chargeTimeType,
          chargeTimeTypes,
          `charge ${charge.id} chargeTimeType`,
        ),
        chargeCalculationType: storedCode(
          charge.chargeCalculationType,
          chargeCalculationTypes,
          `charge ${charge.id} chargeCalculationType`,
        ),
        amount: chargeAmountText(charge, minorUnitDigits(charge.currencyCode)),
        penalty: charge.penalty,
        minCap: null,
        maxCap: null,
      })),
  };
}

/** A stored code narrowed to its supported values (the operations only write those). */
function storedCode<T extends number>(value: number, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly number[]).includes(value))
    throw new Error(`stored ${name} ${value} is not supported`);
  return value as T;
}
