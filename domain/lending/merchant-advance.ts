/**
 * Merchant cash advances: a purchase of future receivables repaid by a holdback of the merchant's sales
 * (docs/processes.md P6 "Merchant advances"; docs/lending.md "Merchant advances"). Pure and
 * deterministic: money through domain/money.ts (dinero.js, bigint minor units), dates through domain/calendar.ts.
 *
 * Rules decided here (the spec leaves them open):
 * - holdback rate: a decimal string in (0, 1] with at most 4 fraction digits (`"0.1"`, `"0.0825"`, `"1"`);
 * - remittance periods are closed ISO date ranges `[periodStart, periodEnd]`: DAILY → one day
 *   (`periodEnd = periodStart`), WEEKLY → seven days (`periodEnd = periodStart + 6`); any start day is allowed, but
 *   the periods of one advance never overlap (checked by the operations against stored periods);
 * - calculated remittance = reported sales × holdback rate, rounded HALF_EVEN (banker's rounding, IEEE 754
 *   roundTiesToEven) to the currency's ISO 4217 minor unit: 1000.05 × 0.1 = 100.005 → 100.00, 1000.15 × 0.1 =
 *   100.015 → 100.02;
 * - reconciliation per period: difference = calculated − posted; `matched` when every difference is zero.
 *
 * Ledger (domain/lending/ledger.ts conventions: balanced entries, minor units, reversals swap every line):
 * - the advance: Dr MERCHANT_ADVANCE_RECEIVABLE purchased / Cr EXTERNAL_CLEARING advance / Cr
 *   MERCHANT_DEFERRED_REVENUE (purchased − advance; omitted when zero). The discount stays deferred: recognising
 *   it as income over the remittances is not done yet;
 * - a remittance: Dr EXTERNAL_CLEARING amount / Cr MERCHANT_ADVANCE_RECEIVABLE amount;
 * - a returned remittance: the reversal of its posting (every line swapped), value-dated like the original.
 * Transaction refs: `merchant-advance/<advanceId>`, `merchant-advance/<advanceId>/remittance/<remittanceId>` and
 * `…/remittance/<remittanceId>/reversal`.
 */
import { halfEven, multiply, toSnapshot, transformScale } from 'dinero.js/bigint';
import { addDays, daysBetween, isIsoDate } from '../calendar';
import { formatMinor, formatMoney, minorUnitDigits, parseDecimalToMinor, parseMoney } from '../money';
import { type AccountType, assertBalanced, type ChartAccount, defaultChartOfAccounts } from './ledger';

/** How often the merchant remits: one day or seven days of sales per period. */
export const remittanceFrequencies = ['DAILY', 'WEEKLY'] as const;
export type RemittanceFrequency = (typeof remittanceFrequencies)[number];

/** Status of one remittance: POSTED to the ledger, or RETURNED (its posting reversed). */
export const merchantRemittanceStatuses = ['POSTED', 'RETURNED'] as const;
export type MerchantRemittanceStatus = (typeof merchantRemittanceStatuses)[number];

/** Fraction digits a holdback rate may carry. */
export const holdbackRateScale = 4;

/** Holdback rate pattern: `0.xxxx` (at most 4 digits) or `1`, `1.0…`. */
const HOLDBACK_PATTERN = /^(0(\.[0-9]{1,4})?|1(\.0{1,4})?)$/;

/**
 * The holdback rate as an integer count of 10^-4 (`"0.1"` → 1000n, `"1"` → 10000n), or null when `rate` is not a
 * decimal string in (0, 1] with at most 4 fraction digits.
 */
export function holdbackRateBasisPoints(rate: string): bigint | null {
  if (!HOLDBACK_PATTERN.test(rate)) return null;
  const units = parseDecimalToMinor(rate, holdbackRateScale);
  return units > 0n && units <= 10n ** BigInt(holdbackRateScale) ? units : null;
}

/** The canonical text of a holdback rate with 4 digits (`"0.1"` → `"0.1000"`); RangeError when invalid. */
export function formatHoldbackRate(rate: string): string {
  const units = holdbackRateBasisPoints(rate);
  if (units === null) throw new RangeError(`invalid holdback rate: ${rate}`);
  const digits = units.toString().padStart(holdbackRateScale + 1, '0');
  return `${digits.slice(0, -holdbackRateScale)}.${digits.slice(-holdbackRateScale)}`;
}

/**
 * `sales` × `holdbackRate` rounded HALF_EVEN to `currency`'s minor unit, as a decimal string with the currency's
 * digits. `sales` a decimal string with at most the currency's digits (trailing zeros beyond are accepted, as read
 * back from `numeric(19,6)`); RangeError for a bad amount, currency or rate.
 */
export function calculatedRemittance(sales: string, holdbackRate: string, currency: string): string {
  const units = holdbackRateBasisPoints(holdbackRate);
  if (units === null) throw new RangeError(`invalid holdback rate: ${holdbackRate}`);
  const money = parseMoney(sales, currency, { allowTrailingZeros: true });
  const product = multiply(money, { amount: units, scale: BigInt(holdbackRateScale) });
  const exponent = toSnapshot(money).currency.exponent;
  return formatMoney(transformScale(product, exponent, halfEven));
}

/** The `periodEnd` a period starting at `periodStart` must have under `frequency`. */
export function periodEndOf(periodStart: string, frequency: RemittanceFrequency): string {
  return addDays(periodStart, frequency === 'DAILY' ? 0 : 6);
}

/**
 * Why `[periodStart, periodEnd]` is not a period of an advance remitting `frequency`, naming the field, or null
 * when it is one (ISO dates, end ≥ start, one day for DAILY, seven days for WEEKLY).
 */
export function periodProblem(
  periodStart: string,
  periodEnd: string,
  frequency: RemittanceFrequency,
): { parameterName: 'periodStart' | 'periodEnd'; message: string } | null {
  if (!isIsoDate(periodStart)) {
    return {
      parameterName: 'periodStart',
      message: 'periodStart must be an ISO calendar date (YYYY-MM-DD).',
    };
  }
  if (!isIsoDate(periodEnd)) {
    return { parameterName: 'periodEnd', message: 'periodEnd must be an ISO calendar date (YYYY-MM-DD).' };
  }
  if (daysBetween(periodStart, periodEnd) < 0) {
    return { parameterName: 'periodEnd', message: 'periodEnd must not be before periodStart.' };
  }
  const expected = periodEndOf(periodStart, frequency);
  if (periodEnd !== expected) {
    return {
      parameterName: 'periodEnd',
      message:
        frequency === 'DAILY'
          ? `A DAILY advance reports one day per period: periodEnd must equal periodStart (${expected}).`
          : `A WEEKLY advance reports seven days per period: periodEnd must be periodStart + 6 days (${expected}).`,
    };
  }
  return null;
}

/** True when the closed date ranges overlap. */
export function periodsOverlap(
  a: { periodStart: string; periodEnd: string },
  b: { periodStart: string; periodEnd: string },
): boolean {
  return a.periodStart <= b.periodEnd && b.periodStart <= a.periodEnd;
}

/** One period's inputs: reported sales (null when none) and the remittances recorded for it. */
export interface ReconciliationPeriodInput {
  periodStart: string;
  periodEnd: string;
  /** Decimal string, or null when no sales were reported for the period. */
  reportedSales: string | null;
  remittances: { amount: string; status: MerchantRemittanceStatus }[];
}

/** One row of the reconciliation (docs/lending.md "Merchant advances"); money as decimal strings. */
export interface ReconciliationPeriod {
  periodStart: string;
  periodEnd: string;
  reportedSales: string;
  calculatedRemittance: string;
  settledRemittance: string;
  postedRemittance: string;
  difference: string;
}

/**
 * The reconciliation of an advance: per period (ordered by start, then end) reported sales, the calculated
 * remittance (HALF_EVEN), the settled and the posted remittance (remittances recorded as external are settled
 * when recorded; RETURNED ones count for neither), and difference = calculated − posted; `matched` when every
 * difference is zero (an advance without periods is matched). Amounts with the currency's digits.
 */
export function reconcile(
  periods: readonly ReconciliationPeriodInput[],
  holdbackRate: string,
  currency: string,
): { status: 'matched' | 'unmatched'; periods: ReconciliationPeriod[] } {
  const digits = minorUnitDigits(currency);
  const minor = (amount: string) => parseDecimalToMinor(amount, digits, { allowTrailingZeros: true });
  const text = (value: bigint) => formatMinor(value, digits);
  const rows = [...periods]
    .sort((a, b) => compare(a.periodStart, b.periodStart) || compare(a.periodEnd, b.periodEnd))
    .map((period) => {
      const sales = minor(period.reportedSales ?? '0');
      const calculated = minor(calculatedRemittance(text(sales), holdbackRate, currency));
      const posted = period.remittances
        .filter((r) => r.status === 'POSTED')
        .reduce((sum, r) => sum + minor(r.amount), 0n);
      return {
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        reportedSales: text(sales),
        calculatedRemittance: text(calculated),
        settledRemittance: text(posted),
        postedRemittance: text(posted),
        difference: text(calculated - posted),
      };
    });
  const matched = rows.every((row) => minor(row.difference) === 0n);
  return { status: matched ? 'matched' : 'unmatched', periods: rows };
}

// code-unit order: ISO dates compare as text
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Accounts a merchant advance posts to besides EXTERNAL_CLEARING of the default chart. */
export const merchantAdvanceAccounts: readonly ChartAccount[] = [
  {
    code: 'MERCHANT_ADVANCE_RECEIVABLE' as ChartAccount['code'],
    name: 'Purchased merchant receivables',
    accountType: 'ASSET' satisfies AccountType,
    normalBalance: 'DEBIT',
  },
  {
    code: 'MERCHANT_DEFERRED_REVENUE' as ChartAccount['code'],
    name: 'Deferred merchant advance discount',
    accountType: 'LIABILITY' satisfies AccountType,
    normalBalance: 'CREDIT',
  },
];

/** The chart merchant-advance entries are checked against: the default chart plus `merchantAdvanceAccounts`. */
export const merchantAdvanceChart: readonly ChartAccount[] = [
  ...defaultChartOfAccounts,
  ...merchantAdvanceAccounts,
];

/** One line of a merchant-advance entry (minor units; exactly one side above zero). */
export interface MerchantPostingLine {
  accountCode: string;
  debitMinor: bigint;
  creditMinor: bigint;
}

/** A balanced entry: its ref and lines (every line in `currency`). */
export interface MerchantPosting {
  transactionRef: string;
  currency: string;
  lines: MerchantPostingLine[];
}

/** `merchant-advance/<advanceId>`: the advance's ref and the prefix of its remittances' refs. */
export function advanceTransactionRef(advanceId: string): string {
  return `merchant-advance/${advanceId}`;
}

/** `merchant-advance/<advanceId>/remittance/<remittanceId>` (and `…/reversal` for its reversal). */
export function remittanceTransactionRef(advanceId: string, remittanceId: string, reversal = false): string {
  return `${advanceTransactionRef(advanceId)}/remittance/${remittanceId}${reversal ? '/reversal' : ''}`;
}

function checked(posting: MerchantPosting): MerchantPosting {
  assertBalanced(
    {
      currency: posting.currency,
      lines: posting.lines.map((line) => ({
        ...line,
        accountCode: line.accountCode as ChartAccount['code'],
      })),
    },
    merchantAdvanceChart,
  );
  return posting;
}

/**
 * Posting of an advance (amounts as decimal strings in `currency`): Dr MERCHANT_ADVANCE_RECEIVABLE purchased /
 * Cr EXTERNAL_CLEARING advance / Cr MERCHANT_DEFERRED_REVENUE purchased − advance. RangeError when purchased <
 * advance or an amount is bad.
 */
export function advancePosting(
  advanceId: string,
  amounts: { advanceAmount: string; purchasedAmount: string; currency: string },
): MerchantPosting {
  const digits = minorUnitDigits(amounts.currency);
  const advance = parseDecimalToMinor(amounts.advanceAmount, digits, { allowTrailingZeros: true });
  const purchased = parseDecimalToMinor(amounts.purchasedAmount, digits, { allowTrailingZeros: true });
  if (purchased < advance) throw new RangeError('purchasedAmount is below advanceAmount');
  const lines: MerchantPostingLine[] = [
    { accountCode: 'MERCHANT_ADVANCE_RECEIVABLE', debitMinor: purchased, creditMinor: 0n },
    { accountCode: 'EXTERNAL_CLEARING', debitMinor: 0n, creditMinor: advance },
  ];
  if (purchased > advance) {
    lines.push({
      accountCode: 'MERCHANT_DEFERRED_REVENUE',
      debitMinor: 0n,
      creditMinor: purchased - advance,
    });
  }
  return checked({ transactionRef: advanceTransactionRef(advanceId), currency: amounts.currency, lines });
}

/** Posting of a remittance: Dr EXTERNAL_CLEARING amount / Cr MERCHANT_ADVANCE_RECEIVABLE amount. */
export function remittancePosting(
  advanceId: string,
  remittanceId: string,
  amount: string,
  currency: string,
): MerchantPosting {
  const minor = parseDecimalToMinor(amount, minorUnitDigits(currency), { allowTrailingZeros: true });
  return checked({
    transactionRef: remittanceTransactionRef(advanceId, remittanceId),
    currency,
    lines: [
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: minor, creditMinor: 0n },
      { accountCode: 'MERCHANT_ADVANCE_RECEIVABLE', debitMinor: 0n, creditMinor: minor },
    ],
  });
}

/** The reversal of a remittance's posting: every line of `remittancePosting` swapped, in the same order. */
export function remittanceReversal(
  advanceId: string,
  remittanceId: string,
  amount: string,
  currency: string,
): MerchantPosting {
  const posting = remittancePosting(advanceId, remittanceId, amount, currency);
  return checked({
    transactionRef: remittanceTransactionRef(advanceId, remittanceId, true),
    currency,
    lines: posting.lines.map((line) => ({
      accountCode: line.accountCode,
      debitMinor: line.creditMinor,
      creditMinor: line.debitMinor,
    })),
  });
}
