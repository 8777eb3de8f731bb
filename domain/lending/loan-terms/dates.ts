/**
 * Dates of a loan write: the latest calendar date anywhere (the bound of "not in the future" checks) and the
 * reading of a date sent as ISO or per Fineract's `dateFormat` / `locale`.
 *
 * Dates: ISO `YYYY-MM-DD` always. Fineract clients send `dateFormat` and `locale` with every write; a date that is
 * not ISO is read with `dateFormat` (Java `DateTimeFormatter` letters `d`, `dd`, `M`, `MM`, `MMM`, `MMMM`,
 * `yyyy` and the separators space, `-`, `/`, `.`, e.g. Fineract's usual `"dd MMMM yyyy"`), month names in English
 * only (`locale` absent or `en…`). Field errors name the parameter (`principal`, `charges[0].amount`).
 */

import { isIsoDate } from '../../calendar';

/**
 * The latest calendar date anywhere at instant `now`: the date at UTC+14 (Line Islands), ISO. "Not in the
 * future" checks compare with it, so no tenant's today is refused whatever its time zone.
 */
export function latestCalendarDate(now: Date): string {
  return new Date(now.getTime() + 14 * 3_600_000).toISOString().slice(0, 10);
}

const englishMonths = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * `text` as an ISO date: ISO as is; otherwise read with the Java pattern `dateFormat` (see the module note).
 * Returns null when it cannot be read (malformed, not a calendar date, an unsupported pattern, or month names
 * with a non-English `locale`).
 */
export function parseLoanDate(
  text: string,
  dateFormat?: string | null,
  locale?: string | null,
): string | null {
  if (isIsoDate(text)) return text;
  if (!dateFormat) return null;
  const fields: ('d' | 'M' | 'MMM' | 'MMMM' | 'y')[] = [];
  let pattern = '';
  for (const token of dateFormat.match(/d{1,2}|M{1,4}|y{4}|[ \-/.,]|./g) ?? []) {
    if (/^d{1,2}$/.test(token)) {
      pattern += token.length === 2 ? '(\\d{2})' : '(\\d{1,2})';
      fields.push('d');
    } else if (token === 'M' || token === 'MM') {
      pattern += token.length === 2 ? '(\\d{2})' : '(\\d{1,2})';
      fields.push('M');
    } else if (token === 'MMM' || token === 'MMMM') {
      pattern += '([A-Za-z]{3,9})';
      fields.push(token);
    } else if (token === 'yyyy') {
      pattern += '(\\d{4})';
      fields.push('y');
    } else if (/^[ \-/.,]$/.test(token)) {
      pattern += `\\${token}`;
    } else {
      return null;
    }
  }
  const match = new RegExp(`^${pattern}$`).exec(text.trim());
  if (!match) return null;
  let year = Number.NaN;
  let month = Number.NaN;
  let day = Number.NaN;
  for (const [index, field] of fields.entries()) {
    const part = match[index + 1] ?? '';
    if (field === 'd') day = Number(part);
    else if (field === 'M') month = Number(part);
    else if (field === 'y') year = Number(part);
    else {
      if (locale && !/^en([-_]|$)/i.test(locale)) return null;
      const name = part.toLowerCase();
      const found = englishMonths.findIndex((m) => (field === 'MMMM' ? m === name : m.slice(0, 3) === name));
      if (found < 0) return null;
      month = found + 1;
    }
  }
  const iso = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return isIsoDate(iso) ? iso : null;
}
