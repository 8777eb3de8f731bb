/**
 * Field checks shared by the loan application, its schedule and its approval: each reports a broken rule as a
 * field error named after the parameter, with the code `validation.msg.loan.<parameter>.<rule>` (Apache Fineract
 * `LoanApplicationValidator` codes), and returns whether the value is acceptable.
 */

import { type FieldError, fieldError } from '../../errors';
import { parseDecimalToMinor } from '../../money';
import { moneyDigits } from '../decimal-text';
import { decimalRule, type Fail } from '../products';

/** A `Fail` that appends a field error with the code `validation.msg.loan.<parameter>.<rule>`. */
export function collector(errors: FieldError[]): Fail {
  return (parameterName, value, message, rule) =>
    errors.push(
      fieldError(
        parameterName,
        value,
        message,
        `validation.msg.loan.${parameterName.replace(/\[\d+\]/g, '')}.${rule}`,
      ),
    );
}

/** Minor units of a money text at `digits`, or null (with a field error) when it is not acceptable. */
export function moneyOf(
  value: string,
  name: string,
  digits: number,
  fail: Fail,
  options: { positive: boolean },
): bigint | null {
  const limits = { positive: options.positive, ...moneyDigits, currencyDigits: digits };
  return decimalRule(value, name, limits, fail) ? parseDecimalToMinor(value, digits) : null;
}

/** Reports `value` outside the product's [`min`, `max`] (null = unbounded), compared by `compare`. */
export function inRange<T>(
  name: string,
  value: T,
  min: T | null,
  max: T | null,
  compare: (a: T, b: T) => number,
  fail: Fail,
): void {
  if ((min !== null && compare(value, min) < 0) || (max !== null && compare(value, max) > 0)) {
    fail(
      name,
      value,
      `${name} must be between ${min === null ? 'no minimum' : String(min)} and ${max === null ? 'no maximum' : String(max)} (the product's bounds).`,
      'is.not.within.min.max.range',
    );
  }
}

/** Whether `value` is an integer in [`min`, `max`]; reports it when not. */
export function integerOk(
  value: unknown,
  name: string,
  min: number,
  max: number,
  fail: Fail,
): value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(name, value, `${name} must be an integer from ${min} to ${max}.`, 'out.of.range');
    return false;
  }
  return true;
}

/** Whether `value` is one of the `allowed` codes (`meaning` lists them for the message); reports it when not. */
export function codeOk<T extends number>(
  value: unknown,
  name: string,
  allowed: readonly T[],
  meaning: string,
  fail: Fail,
): value is T {
  if (!allowed.includes(value as T)) {
    fail(name, value, `${name} must be one of: ${meaning}.`, 'is.not.one.of.expected.enumerations');
    return false;
  }
  return true;
}
