/**
 * Decimal strings as the lending core stores them exactly (docs/design.md §3): money in `numeric(19,6)`, nominal rates in
 * `numeric(19,8)` (db/schema/lending/lending.ts). These helpers only inspect and re-render text; nothing here goes through
 * a JavaScript float, and comparisons are exact (bigint at a common scale).
 *
 * Accepted text: `0` or digits without a leading zero, optionally `.` and at least one digit (`"12"`, `"0.5"`,
 * `"1250.00"`). No sign, exponent, whitespace or thousands separator (the same grammar as domain/money.ts,
 * without the minus sign: every amount and rate of a charge or product is ≥ 0).
 */

/** Storage limits of `numeric(19,6)`: money amounts and charge percentages. */
export const moneyDigits = { integer: 13, fraction: 6 } as const;
/** Storage limits of `numeric(19,8)`: nominal interest rates in percent. */
export const rateDigits = { integer: 11, fraction: 8 } as const;

const NON_NEGATIVE_DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/** Integer and fraction digits of a non-negative decimal string, or null when `text` is not one. */
export function decimalShape(text: string): { integerDigits: number; fractionDigits: number } | null {
  const match = NON_NEGATIVE_DECIMAL.exec(text);
  if (!match) return null;
  return { integerDigits: (match[1] ?? '').length, fractionDigits: (match[2] ?? '').length };
}

/** True for a syntactically valid non-negative decimal string (see the module note). */
export function isDecimalText(text: string): boolean {
  return NON_NEGATIVE_DECIMAL.test(text);
}

/**
 * The decimal string of a JSON number as the client wrote it (`12` → `"12"`, `0.5` → `"0.5"`): JavaScript's
 * shortest round-trip rendering. Numbers that render with an exponent (`1e21`, `1e-7`), NaN or infinities give a
 * string that `isDecimalText` rejects, so they are refused rather than rounded.
 */
export function decimalTextOfNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'NaN';
}

/** Exact comparison of two valid decimal strings: -1, 0 or 1. */
export function compareDecimalText(a: string, b: string): -1 | 0 | 1 {
  const scale = Math.max(decimalShape(a)?.fractionDigits ?? 0, decimalShape(b)?.fractionDigits ?? 0);
  const left = scaled(a, scale);
  const right = scaled(b, scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** True when a valid decimal string is zero. */
export function isZeroDecimalText(text: string): boolean {
  return /^0(?:\.0+)?$/.test(text);
}

/** A valid decimal string without trailing fraction zeros (`"1.500000"` → `"1.5"`, `"25.000000"` → `"25"`). */
export function trimDecimalText(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * A valid decimal string rendered with exactly `digits` fraction digits (`"25.000000"`, 2 → `"25.00"`). Only
 * zeros may be dropped; RangeError when a non-zero digit would be lost.
 */
export function fixDecimalText(text: string, digits: number): string {
  const [whole = '0', fraction = ''] = text.split('.');
  const kept = fraction.slice(0, digits);
  if (/[^0]/.test(fraction.slice(digits)))
    throw new RangeError(`${text} has more than ${digits} fraction digits`);
  return digits === 0 ? whole : `${whole}.${kept.padEnd(digits, '0')}`;
}

function scaled(text: string, scale: number): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(scale, '0'));
}
