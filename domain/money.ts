/**
 * Money: decimal strings on the wire, `Dinero<bigint>` in code, scaled by the currency's ISO 4217 minor unit
 * (docs/design.md §3, docs/conventions.md §8). This module is the only place that creates Dinero objects from strings or turns them
 * back into strings; nothing here goes through a JavaScript float or `Intl`.
 *
 * Minor units come from `dinero.js/bigint/currencies` (ISO 4217). dinero.js describes MGA and MRU as
 * non-decimal currencies (`base: 5n, exponent: 1n`: 1 ariary = 5 iraimbilanja), which `toDecimal` cannot
 * render; ISO 4217 lists both with minor unit 2, and docs/design.md §5 fixes them at 2 decimal digits, so they are
 * replaced here by decimal currencies `{ base: 10n, exponent: 2n }`.
 *
 * Decimal strings: an optional `-`, then `0` or digits without a leading zero, then optionally `.` and at
 * least one digit (`"12"`, `"12.5"`, `"-0.05"`). No `+`, exponent, whitespace, thousands separators or bare
 * `"."`. More fraction digits than the scale allows → RangeError, except that trailing zeros beyond the scale
 * are accepted when the caller asks for it (`allowTrailingZeros`, e.g. for `numeric(19,6)` values read back
 * from PostgreSQL, which always carry 6 digits).
 */
import { type Dinero, type DineroCurrency, dinero, toSnapshot } from 'dinero.js/bigint';
import * as isoCurrencies from 'dinero.js/bigint/currencies';

/** An amount of money in code: integer minor units with the currency attached. */
export type Money = Dinero<bigint>;

/** The shape of money across Temporal and HTTP boundaries (docs/conventions.md §8). */
export interface MoneyPayload {
  /** Decimal string with exactly the currency's minor-unit digits, e.g. `"12.50"`, `"1000"` (JPY). */
  amount: string;
  /** ISO 4217 alphabetic code, e.g. `"USD"`. */
  currency: string;
}

export interface ParseOptions {
  /** Accept fraction digits beyond the scale when they are all zeros (`"5.000000"` for USD). Default false. */
  allowTrailingZeros?: boolean;
}

const DECIMAL_PATTERN = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?$/;

/** ISO 4217 currencies that dinero.js models as non-decimal and docs/design.md §5 treats as 2-digit decimal. */
const DECIMAL_OVERRIDES: Readonly<Record<string, DineroCurrency<bigint>>> = {
  MGA: { code: 'MGA', base: 10n, exponent: 2n },
  MRU: { code: 'MRU', base: 10n, exponent: 2n },
};

const currencies = new Map<string, DineroCurrency<bigint>>();
for (const currency of Object.values(isoCurrencies) as DineroCurrency<bigint>[]) {
  currencies.set(currency.code, DECIMAL_OVERRIDES[currency.code] ?? currency);
}

/** Every ISO 4217 code `currencyFor` knows, sorted (the OpenAPI document lists them as the `currency` enum). */
export const currencyCodes: readonly string[] = [...currencies.keys()].sort();

/** The decimal ISO 4217 currency for `code`; RangeError for an unknown code. */
export function currencyFor(code: string): DineroCurrency<bigint> {
  const currency = currencies.get(code);
  if (!currency) throw new RangeError(`unknown ISO 4217 currency: ${code}`);
  return currency;
}

/** Digits after the decimal point of `code` (USD 2, JPY 0, KWD 3, MGA 2). */
export function minorUnitDigits(code: string): number {
  return Number(currencyFor(code).exponent);
}

/**
 * Parses a decimal string into an integer number of units of 10^-`scale` (`"12.5"`, 2 → `1250n`).
 * RangeError when the string is malformed or has more fraction digits than `scale` (see the module note).
 */
export function parseDecimalToMinor(amount: string, scale: number, options: ParseOptions = {}): bigint {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`invalid scale: ${scale}`);
  const fast = shortDecimalToMinor(amount, scale, options.allowTrailingZeros === true);
  if (fast !== null) return fast;
  const match = DECIMAL_PATTERN.exec(amount);
  if (!match) throw new RangeError(`not a decimal amount: ${JSON.stringify(amount)}`);
  const sign = match[1] === '-' ? -1n : 1n;
  const whole = match[2] ?? '0';
  let fraction = match[3] ?? '';
  if (fraction.length > scale) {
    const excess = fraction.slice(scale);
    if (!options.allowTrailingZeros || /[^0]/.test(excess)) {
      throw new RangeError(`${amount} has more than ${scale} fraction digits`);
    }
    fraction = fraction.slice(0, scale);
  }
  return sign * BigInt(whole + fraction.padEnd(scale, '0'));
}

/**
 * The fast path of `parseDecimalToMinor` for what the database and most requests send: a non-negative decimal of at
 * most 15 significant digits once scaled (so exact as a double), without a superfluous leading zero, whose digits
 * beyond `scale` (if allowed at all) are zeros. Null for anything else: the general path then parses it or raises.
 * The loan summary parses a few hundred stored amounts per read; `BigInt` of a string costs several times more
 * than of a small integer.
 */
function shortDecimalToMinor(amount: string, scale: number, allowTrailingZeros: boolean): bigint | null {
  const length = amount.length;
  if (length === 0 || length > 32) return null;
  let value = 0;
  let digits = 0;
  let i = 0;
  for (; i < length; i++) {
    const c = amount.charCodeAt(i);
    if (c === 46) break; // '.'
    if (c < 48 || c > 57) return null;
    if (i === 1 && value === 0) return null; // "05": the general path refuses it
    value = value * 10 + (c - 48);
    digits++;
  }
  if (digits === 0) return null;
  let fraction = 0;
  if (i < length) {
    i++; // past '.'
    if (i === length) return null; // "12.": the general path refuses it
    for (; i < length; i++) {
      const c = amount.charCodeAt(i);
      if (c < 48 || c > 57) return null;
      if (fraction < scale) {
        value = value * 10 + (c - 48);
        fraction++;
        digits++;
      } else if (c !== 48 || !allowTrailingZeros) return null;
    }
  }
  for (; fraction < scale; fraction++) {
    value *= 10;
    digits++;
  }
  return digits <= 15 ? BigInt(value) : null;
}

/** Renders `minor` units of 10^-`scale` as a decimal string with exactly `scale` fraction digits. */
export function formatMinor(minor: bigint, scale: number): string {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`invalid scale: ${scale}`);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const text = scale === 0 ? whole : `${whole}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** `"12.50"` in `USD` → Dinero of 1250 cents. RangeError for an unknown currency or excess precision. */
export function parseMoney(amount: string, currencyCode: string, options: ParseOptions = {}): Money {
  const currency = currencyFor(currencyCode);
  const minor = parseDecimalToMinor(amount, Number(currency.exponent), options);
  return dinero({ amount: minor, currency });
}

/**
 * The decimal string of `money` with exactly its currency's minor-unit digits. A Dinero at a larger scale is
 * accepted only when the extra digits are zeros (no silent rounding); RangeError otherwise.
 */
export function formatMoney(money: Money): string {
  const { amount, currency, scale } = toSnapshot(money);
  const exponent = Number(currency.exponent);
  const extra = Number(scale) - exponent;
  if (extra === 0) return formatMinor(amount, exponent);
  if (extra < 0) return formatMinor(amount * 10n ** BigInt(-extra), exponent);
  const factor = 10n ** BigInt(extra);
  if (amount % factor !== 0n) {
    throw new RangeError(`${currency.code} amount at scale ${scale} is not representable in minor units`);
  }
  return formatMinor(amount / factor, exponent);
}

/** `money` as the plain `{ amount, currency }` payload. */
export function toMoneyPayload(money: Money): MoneyPayload {
  return { amount: formatMoney(money), currency: toSnapshot(money).currency.code };
}

/** Inverse of `toMoneyPayload`; same errors as `parseMoney`. */
export function fromMoneyPayload(payload: MoneyPayload, options: ParseOptions = {}): Money {
  return parseMoney(payload.amount, payload.currency, options);
}
