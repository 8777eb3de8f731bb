/**
 * Reference fields of request bodies: the caller's keys and pointers (`customerRef`, `contactPointRef`,
 * `externalId`, `externalRecordRef`, `sourceRef`, `recipientRef`, `authorizationRef`, `evidenceRef`,
 * `providerTokenRef`, `storageRef`, `verificationSource`, …) and the short settings written as text (`locale`,
 * `dateFormat`). A reference is stored in clear in several tables, in workflow histories and in Temporal search
 * attributes (`CustomerRef`), so it gets a strict format instead of free text (docs/lending.md "Lending core": "Never place
 * government identifiers or account numbers in externalId, externalRecordRef, rationale, idempotency keys or
 * notes"; docs/design.md §3: government identifiers and account data are accepted once and stored encrypted):
 *
 * - `refField(max)`: 1 to `max` of `A–Z a–z 0–9 . _ : -`, starting with a letter or digit (`cus_abc`, `CUST-001`,
 *   `IMPORT-run-PMT-7`, `urn:x:1`), e.g. the database-minted `cus_…` and `cp_…` refs.
 * - `locatorRef(max)`: the same characters and `/`, for refs that point somewhere (`s3://docs/agreement.pdf`,
 *   `channel-event/gw/evt-stop`).
 *
 * Both also refuse what domain/sensitive-data.ts `findSensitiveData` finds (`cus_536-22-8417` fits the characters
 * but is an SSN). One issue per field, whose message never repeats the value; the OpenAPI document states the
 * pattern and the length.
 */
import * as v from 'valibot';
import { findSensitiveData, sensitiveDataMessage } from '../sensitive-data';

const refCharacters = 'A-Za-z0-9._:\\-';
const refPattern = (slash: boolean, max: number) =>
  `^[A-Za-z0-9][${refCharacters}${slash ? '/' : ''}]{0,${max - 1}}$`;

/** The message of a ref that breaks its format or carries an identifier (never the value itself). */
function refMessage(input: string, slash: boolean, max: number): string {
  const kind = findSensitiveData(input);
  if (kind !== null) return sensitiveDataMessage(kind);
  const allowed = slash ? 'A–Z a–z 0–9 . _ : - /' : 'A–Z a–z 0–9 . _ : -';
  return `must be 1 to ${max} of ${allowed}, starting with a letter or digit (a reference, not free text).`;
}

function reference(max: number, slash: boolean) {
  const pattern = new RegExp(refPattern(slash, max));
  return v.pipe(
    v.string('must be a string.'),
    v.check<string, (issue: v.CheckIssue<string>) => string>(
      (input) => pattern.test(input) && findSensitiveData(input) === null,
      (issue) => refMessage(String(issue.input), slash, max),
    ),
    v.metadata({ pattern: refPattern(slash, max), minLength: 1, maxLength: max }),
  );
}

/** An opaque reference (module note): 1 to `max` of `A–Z a–z 0–9 . _ : -`, never an identifier. */
export const refField = (max: number) => reference(max, false);

/** A reference that may hold `/` (a URI or a path, module note), never an identifier. */
export const locatorRef = (max: number) => reference(max, true);

/**
 * A locale as Fineract's `locale` field takes it (`en`, `en_US`, `fr-CA`; BCP 47 / Java `Locale` form): a 2–3
 * letter language, then up to three subtags of 2–8 letters or digits joined by `_` or `-`.
 */
export const localeField = v.pipe(
  v.string('must be a string.'),
  v.regex(
    /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8}){0,3}$/,
    'must be a locale such as en, en_US or fr-CA (a language, then region or variant subtags).',
  ),
);

/**
 * A date format as Fineract's `dateFormat` field takes it (Java `DateTimeFormatter` letters: `dd MMMM yyyy`,
 * `yyyy-MM-dd`): pattern letters, spaces and the punctuation `- / . , : '`, at most 35 characters.
 */
export const dateFormatField = v.pipe(
  v.string('must be a string.'),
  v.regex(
    /^[A-Za-z][A-Za-z '\-/.,:]{0,34}$/,
    "must be a date pattern such as 'dd MMMM yyyy' or 'yyyy-MM-dd' (pattern letters, spaces and - / . , : ').",
  ),
);
