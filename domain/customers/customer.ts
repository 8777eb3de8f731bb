/**
 * Customer aggregate rules that need no database: date-of-birth plausibility and
 * the enumerations of instruments and restrictions (docs/design.md §5 Holds).
 */

/** Payment instrument types: a bank account or a debit card, both held in a vault. */
export const instrumentTypes = ['BANK_ACCOUNT', 'DEBIT_CARD'] as const;
export type InstrumentType = (typeof instrumentTypes)[number];

/** Restriction (hold) types, docs/design.md §5 Holds. */
export const restrictionTypes = [
  'PAYMENT_HOLD',
  'COLLECTIONS_HOLD',
  'COMMUNICATION_HOLD',
  'SCRA_MLA_PROTECTED',
  'DISBURSEMENT_HOLD',
] as const;
export type RestrictionType = (typeof restrictionTypes)[number];

/** Restriction states (docs/design.md §5 Holds). */
export type RestrictionStatus = 'ACTIVE' | 'RELEASED' | 'EXPIRED';

/** Earliest accepted date of birth. */
export const earliestDateOfBirth = '1900-01-01';

/** True when `date` is a real calendar date written `YYYY-MM-DD` (no 2023-02-31). */
export function isCalendarDate(date: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(date)) return false;
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

/**
 * The latest calendar date in force anywhere at `now`: the date at UTC+14 (Line Islands).
 * A date of birth after it is in the future for everyone.
 */
export function latestDateInForce(now: Date): string {
  return new Date(now.getTime() + 14 * 3600_000).toISOString().slice(0, 10);
}

/**
 * Why a date of birth is not acceptable at `now`, or null: it must be a real calendar date, not
 * before 1900-01-01 and not in the future in any time zone.
 */
export function dateOfBirthProblem(date: string, now: Date): string | null {
  if (!isCalendarDate(date)) return 'dateOfBirth must be a calendar date written YYYY-MM-DD.';
  if (date < earliestDateOfBirth) return `dateOfBirth must not be before ${earliestDateOfBirth}.`;
  if (date > latestDateInForce(now)) return 'dateOfBirth must not be in the future.';
  return null;
}

/**
 * The status a restriction has at `at`: a stored ACTIVE restriction whose `expiresAt` has
 * passed is EXPIRED.
 */
export function restrictionStatusAt(
  stored: RestrictionStatus,
  expiresAt: Date | null,
  at: Date,
): RestrictionStatus {
  if (stored === 'ACTIVE' && expiresAt !== null && expiresAt.getTime() <= at.getTime()) return 'EXPIRED';
  return stored;
}
