/**
 * Contact points of customers: e-mail addresses are trimmed, lower-cased and checked;
 * phone numbers are parsed with libphonenumber-js (Google's libphonenumber metadata, full "max"
 * set so validity is checked against real numbering plans) and normalized to E.164, with `US` as
 * the default region for numbers written without a country code.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import * as v from 'valibot';
import { maxChars } from '../validation/text-length';

export const contactTypes = ['EMAIL', 'PHONE'] as const;
export type ContactType = (typeof contactTypes)[number];

/** Region assumed for phone numbers written without `+` and a country code. */
export const defaultPhoneRegion = 'US';

const emailSchema = v.pipe(v.string(), ...maxChars(254, 'must be at most 254 characters.'), v.email());

/** The lower-cased, trimmed e-mail address, or null when it is not a valid address. */
export function normalizeEmail(value: string): string | null {
  const normalized = value.trim().toLowerCase();
  return v.is(emailSchema, normalized) ? normalized : null;
}

/**
 * The E.164 form (`+14155552671`) of a phone number written in any common notation, or null
 * when it is not a valid number (unknown country code, wrong length, unassigned range).
 * Extensions are dropped: E.164 has none.
 */
export function normalizePhone(value: string): string | null {
  const parsed = parsePhoneNumberFromString(value.trim(), { defaultCountry: defaultPhoneRegion });
  return parsed?.isValid() ? parsed.number : null;
}

/** The normalized value of a contact point (what search matches), or null when it is invalid. */
export function normalizeContactValue(contactType: ContactType, value: string): string | null {
  return contactType === 'EMAIL' ? normalizeEmail(value) : normalizePhone(value);
}
