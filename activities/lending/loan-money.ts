/**
 * What the money operations of a loan share (record-external funding and payment): the content digest that
 * decides whether a reused `externalRecordRef` is a replay or a conflict, and the checks of amounts and dates sent
 * by callers that are not the HTTP edge (workflows, boarding). The loan row lock that serializes every money event
 * of one loan is db/queries/lending/loans.ts `lockLoanForMoney` (taken first, then the borrower's customer row).
 */
import canonicalize from 'canonicalize';
import { isCalendarDate } from '../../domain/customers/customer';
import { validationError } from '../../domain/errors';
import { sha256Hex } from '../../domain/hash';
import { currencyFor, formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../domain/money';

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of `content`: the stored `content_digest` of a funding or payment.
 * Two requests with the same `externalRecordRef` are the same record when their digests are equal.
 */
export function contentDigestOf(content: Record<string, unknown>): string {
  return sha256Hex(canonicalize(content) ?? '');
}

/**
 * `amount` (decimal string) in `currency` as minor units and as the canonical decimal string with exactly the
 * currency's digits. 400 naming `currency` for an unknown ISO 4217 code, naming `amount` for a malformed amount,
 * one with more fraction digits than the currency has, one not above zero or one that does not fit `numeric(19,6)`.
 */
export function moneyOfInput(amount: string, currency: string): { minor: bigint; text: string } {
  try {
    currencyFor(currency);
  } catch {
    throw validationError('currency', currency, 'currency must be an ISO 4217 currency code.');
  }
  const digits = minorUnitDigits(currency);
  let minor: bigint;
  try {
    minor = parseDecimalToMinor(amount, digits);
  } catch {
    throw validationError(
      'amount',
      amount,
      `amount must be a decimal string with at most ${digits} fraction digits for ${currency}.`,
    );
  }
  if (minor <= 0n) throw validationError('amount', amount, 'amount must be greater than zero.');
  if (minor >= 10n ** BigInt(13 + digits)) {
    throw validationError('amount', amount, 'amount must be below 10000000000000.');
  }
  return { minor, text: formatMinor(minor, digits) };
}

/** 400 naming `parameterName` unless `value` is an ISO calendar date `YYYY-MM-DD`. */
export function assertIsoDate(parameterName: string, value: string): void {
  if (!isCalendarDate(value)) {
    throw validationError(
      parameterName,
      value,
      `${parameterName} must be an ISO calendar date (YYYY-MM-DD).`,
    );
  }
}

/** The UTC calendar date of an instant (`YYYY-MM-DD`). */
export function utcDateOf(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}
