/**
 * Money fields shared by the request and response schemas of every context (their routes' schemas are under
 * `domain/<context>/schemas/`, e.g. lending/schemas/fundings.ts, payments/schemas/recorded-payments.ts). Amounts are
 * decimal strings (never JSON numbers) with at most the currency's ISO 4217 minor-unit digits (docs/design.md §5
 * Currencies: more → 400 on `amount`). Free text such as `externalRecordRef`, `recipientRef`, `reason` and
 * `rationale` must not carry a government identifier or account number (docs/lending.md "Lending core";
 * domain/sensitive-data.ts); a route never echoes their value in an error (`redactedMoneyFields`).
 */
import * as v from 'valibot';
import { currencyCodes, currencyFor, minorUnitDigits } from '../money';
import { noSensitiveData } from '../sensitive-data';
import { maxChars, minChars } from './text-length';

/** Body fields whose value an error must not repeat (they may hold what `noSensitiveData` refuses). */
export const redactedMoneyFields = ['externalRecordRef', 'recipientRef', 'reason', 'rationale'] as const;

const knownCurrency = (code: string): boolean => {
  try {
    currencyFor(code);
    return true;
  } catch {
    return false;
  }
};

export const currency = v.pipe(
  v.string('currency must be a string.'),
  v.check(
    (code) => /^[A-Z]{3}$/.test(code) && knownCurrency(code),
    'currency must be an ISO 4217 currency code (three upper-case letters).',
  ),
  // The OpenAPI document states the rule the check applies: one of the known codes (found by `npm run fuzz`).
  v.metadata({ enum: currencyCodes }),
);

/** JSON Schema pattern of a decimal string > 0 below 10^13: what `amount`'s regex and "greater than zero" accept. */
export const positiveAmountPattern = '^(0\\.[0-9]*[1-9][0-9]*|[1-9][0-9]{0,12}(\\.[0-9]+)?)$';

/** A decimal string > 0 below 10^13 (the range of `numeric(19,6)`); its digits are checked against `currency`. */
export const amount = v.pipe(
  v.string('amount must be a decimal string such as "125.00".'),
  v.regex(
    /^(0|[1-9][0-9]{0,12})(\.[0-9]+)?$/,
    'amount must be a decimal string such as "125.00" (no sign, exponent or separators, below 10000000000000).',
  ),
  v.check((value) => /[1-9]/.test(value), 'amount must be greater than zero.'),
  // The OpenAPI document's pattern holds both rules: the form and "greater than zero" (found by `npm run fuzz`).
  v.metadata({ pattern: positiveAmountPattern }),
);

/** Free text that must not carry identifiers or account numbers; messages never repeat the value. */
export const guardedText = (name: string, max: number) =>
  v.pipe(
    v.string(`${name} must be a string.`),
    v.trim(),
    ...minChars(1, `${name} must not be empty.`),
    ...maxChars(max, `${name} must be at most ${max} characters.`),
    noSensitiveData(),
  );

/**
 * True when `amount` has at most the fraction digits of `currency`. Valibot runs this even when `currency` failed
 * its own checks (those are validations, not type failures), so an unknown currency passes here: it is reported
 * on `currency`.
 */
export const fitsCurrency = (input: { amount: string; currency: string }): boolean =>
  !knownCurrency(input.currency) ||
  (input.amount.split('.')[1]?.length ?? 0) <= minorUnitDigits(input.currency);

export const fitsCurrencyMessage = (issue: { input: unknown }): string => {
  const { currency } = issue.input as { currency: string };
  return `amount has more fraction digits than ${currency} allows (${minorUnitDigits(currency)}).`;
};

export const decimalText = v.pipe(v.string(), v.description('Decimal string with the currency digits.'));
export const dateText = v.pipe(v.string(), v.description('ISO calendar date.'));
export const instantText = v.pipe(v.string(), v.description('ISO 8601 instant (UTC).'));

export const allocationAmounts = v.object({
  principal: decimalText,
  interest: decimalText,
  fee: decimalText,
  penalty: decimalText,
  overpayment: decimalText,
});
