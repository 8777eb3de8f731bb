/**
 * The one schema family for dates and instants sent to the API: every calendar date and timestamp
 * input is bounded to 1900-01-01..2199-12-31, so no value reaches the operations that their calendar arithmetic,
 * PostgreSQL's `date`/`timestamptz` or JavaScript's `Date` cannot carry through a schedule, a summary or an APR
 * (9999-12-31 used to be stored, then every read of the loan answered 500). Out of range → 400 Shape A naming the
 * field. The lower bound is the one dates of birth already had (domain/customers/customer.ts
 * `earliestDateOfBirth`); the upper bound leaves room for a 40-year term starting 150 years from now. Dates are
 * ISO 8601 calendar dates (docs/integrating.md "The API": dates are ISO 8601 calendar dates); Fineract-style loan dates may
 * also come in the body's `dateFormat` and are bounded after being read with it (`loanDatesInRange`).
 */
import * as v from 'valibot';
import { earliestDateOfBirth, isCalendarDate } from '../customers/customer';
import { parseLoanDate } from '../lending/loan-terms/dates';

/** Earliest accepted calendar date (ISO). */
export const earliestInputDate = earliestDateOfBirth;
/** Latest accepted calendar date (ISO). */
export const latestInputDate = '2199-12-31';

/** True when the ISO calendar date `date` lies within the accepted range. */
export function isDateInRange(date: string): boolean {
  return date >= earliestInputDate && date <= latestInputDate;
}

/** The sentence for a date or instant out of range. */
export const dateRangeRule = `must be from ${earliestInputDate} to ${latestInputDate}.`;

/**
 * An ISO calendar date `YYYY-MM-DD` within the accepted range. `name` prefixes the messages when given (the
 * money schemas name their field in the message; others leave it to the error's `parameterName`).
 */
export const isoDate = (name?: string) => {
  const prefix = name ? `${name} ` : '';
  return v.pipe(
    v.string(`${prefix}must be an ISO calendar date (YYYY-MM-DD).`),
    v.check(isCalendarDate, `${prefix}must be an ISO calendar date (YYYY-MM-DD).`),
    v.check(isDateInRange, `${prefix}${dateRangeRule}`),
    // The OpenAPI document states what the checks apply (found by `npm run fuzz`: dates documented as bare strings).
    v.metadata({ format: 'date', pattern: isoDateInRangePattern }),
  );
};

/** The form and range of `isoDate` as a JSON Schema pattern (the calendar's day count is `format: date`). */
export const isoDateInRangePattern = '^(19[0-9]{2}|2[01][0-9]{2})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$';

/** An ISO 8601 timestamp with a zone offset or Z, whose UTC date lies within the accepted range. */
export const isoInstant = () =>
  v.pipe(
    v.string(),
    v.isoTimestamp('must be an ISO 8601 timestamp with a zone offset or Z.'),
    v.check((text) => {
      const ms = Date.parse(text);
      return !Number.isNaN(ms) && isDateInRange(new Date(ms).toISOString().slice(0, 10));
    }, dateRangeRule),
  );

/** Where a loan body holds dates: top-level field names, and per-item fields of arrays (`charges[].dueDate`). */
export interface LoanDateFields {
  fields: readonly string[];
  items?: Readonly<Record<string, readonly string[]>>;
}

type PathItem = {
  type: 'object';
  origin: 'value';
  input: Record<string, unknown>;
  key: string;
  value: unknown;
};
type ArrayPathItem = { type: 'array'; origin: 'value'; input: unknown[]; key: number; value: unknown };

/**
 * Bounds the dates of a Fineract-style loan body (ISO, or in the body's `dateFormat`/`locale`, read as the
 * operation reads them: domain/lending/loan-terms/dates.ts `parseLoanDate`): a readable date out of range → an issue on
 * its field (e.g. `charges[0].dueDate`). An unreadable date is left to the operation, which names it.
 */
export function loanDatesInRange<T extends Record<string, unknown>>(where: LoanDateFields) {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const body = dataset.value;
    const dateFormat = typeof body.dateFormat === 'string' ? body.dateFormat : null;
    const locale = typeof body.locale === 'string' ? body.locale : null;
    const check = (value: unknown, path: (PathItem | ArrayPathItem)[]) => {
      if (typeof value !== 'string') return;
      const iso = parseLoanDate(value, dateFormat, locale);
      if (iso !== null && !isDateInRange(iso)) {
        addIssue({ message: `${dateRangeRule.replace(/\.$/, '')} (read as ${iso}).`, path: path as never });
      }
    };
    for (const field of where.fields) {
      check(body[field], [{ type: 'object', origin: 'value', input: body, key: field, value: body[field] }]);
    }
    for (const [arrayField, itemFields] of Object.entries(where.items ?? {})) {
      const items = body[arrayField];
      if (!Array.isArray(items)) continue;
      for (const [index, item] of items.entries()) {
        if (item === null || typeof item !== 'object') continue;
        const record = item as Record<string, unknown>;
        for (const field of itemFields) {
          check(record[field], [
            { type: 'object', origin: 'value', input: body, key: arrayField, value: items },
            { type: 'array', origin: 'value', input: items, key: index, value: item },
            { type: 'object', origin: 'value', input: record, key: field, value: record[field] },
          ]);
        }
      }
    }
  });
}
