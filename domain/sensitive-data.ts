/**
 * Detection of government identifiers and account or card numbers in free text that must never
 * carry them (spec § Lending core writes, Boarding rules: "Never place government identifiers or
 * account numbers in externalId, externalRecordRef, rationale, idempotency keys or notes").
 *
 * What counts, in the order `findSensitiveData` reports it:
 * - `SSN_OR_ITIN`: `123-45-6789` or `123 45 6789` (SSA / IRS layout; ITINs share it).
 * - `EIN`: `12-3456789` (IRS employer identification number layout).
 * - `IBAN`: a country code with a known IBAN length whose ISO 7064 MOD 97-10 check passes
 *   (ISO 13616), compact or in groups separated by single spaces, in either case.
 * - `CARD_NUMBER`: 13 to 19 digits passing the Luhn check (ISO/IEC 7812), contiguous or in groups
 *   of 3 to 8 digits separated by one kind of separator (space or dash).
 * - `ABA_ROUTING_NUMBER`: 9 digits with a Federal Reserve prefix and the ABA 3-7-1 checksum.
 * - `NINE_DIGIT_NUMBER`: any other 9-digit run (an SSN, ITIN or EIN written without dashes).
 * - `LONG_DIGIT_RUN`: any other run of 8 or more consecutive digits (account numbers).
 *
 * Not counted, so that ordinary references keep working: digit runs shorter than 8 (`ORD-2024-001`),
 * canonical UUIDs, and digit runs inside hexadecimal tokens of 16 or more characters (digests and
 * random ids such as a dashless UUID), where 8 digits in a row occur by chance.
 * Input is NFKC-normalized first, so full-width digits count as digits.
 *
 * Pure: no Node modules, usable in the API, operations and workflows.
 */
import * as v from 'valibot';
import { DomainError, fieldError } from './errors';

/** What `findSensitiveData` found. */
export type SensitiveDataKind =
  | 'SSN_OR_ITIN'
  | 'EIN'
  | 'IBAN'
  | 'CARD_NUMBER'
  | 'ABA_ROUTING_NUMBER'
  | 'NINE_DIGIT_NUMBER'
  | 'LONG_DIGIT_RUN';

/** Human wording of each kind, for error messages (never the value itself). */
export const sensitiveDataLabels: Record<SensitiveDataKind, string> = {
  SSN_OR_ITIN: 'a US SSN or ITIN',
  EIN: 'a US EIN',
  IBAN: 'an IBAN',
  CARD_NUMBER: 'a card number',
  ABA_ROUTING_NUMBER: 'an ABA routing number',
  NINE_DIGIT_NUMBER: 'a 9-digit government identifier',
  LONG_DIGIT_RUN: 'an account number (8 or more consecutive digits)',
};

/**
 * IBAN length per country (SWIFT IBAN Registry). Only these countries are recognised, and only at
 * their exact length, which keeps random alphanumeric tokens from passing by chance.
 */
const ibanLengths: Record<string, number> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DJ27 DK18 ' +
    'DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HN28 HR21 HU28 IE22 IL23 ' +
    'IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 ' +
    'MT31 MU30 NI28 NL18 NO15 OM23 PK24 PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 ' +
    'SK24 SM27 SO23 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30'
  )
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ssnPattern = /(?<![0-9])(?<![0-9][ -])[0-9]{3}([ -])[0-9]{2}\1[0-9]{4}(?![ -]?[0-9])/;
const einPattern = /(?<![0-9])(?<![0-9][ -])[0-9]{2}-[0-9]{7}(?![ -]?[0-9])/;
/** Digit groups joined by one kind of separator: candidates for formatted card numbers. */
const groupedDigitsPattern = /(?<![0-9])[0-9]{3,8}(?:([ -])[0-9]{3,8})(?:\1[0-9]{3,8}){0,4}(?![0-9])/g;
const digitRunPattern = /[0-9]{8,}/g;
const alphanumeric = /[A-Za-z0-9]/;
const hexToken = /^(?:[0-9a-f]{16,}|[0-9A-F]{16,})$/;

/** True when `digits` (ASCII digits only) passes the Luhn check (ISO/IEC 7812-1 Annex B). */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * True when 9 ASCII digits form an ABA routing transit number: a Federal Reserve prefix (00–12,
 * 21–32, 61–72, 80) and 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
 */
export function isAbaRoutingNumber(digits: string): boolean {
  if (!/^[0-9]{9}$/.test(digits)) return false;
  const prefix = Number(digits.slice(0, 2));
  const prefixOk =
    prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
  const d = [...digits].map(Number) as number[];
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return prefixOk && sum % 10 === 0;
}

/** True when `compact` (upper case, no spaces) is a valid IBAN of a registered country and length. */
export function isIban(compact: string): boolean {
  const length = ibanLengths[compact.slice(0, 2)];
  if (length === undefined || compact.length !== length) return false;
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

/** An IBAN starting at a token boundary, compact or grouped by single spaces. */
function containsIban(upper: string): boolean {
  for (let start = 0; start < upper.length - 14; start++) {
    if (start > 0 && alphanumeric.test(upper[start - 1]!)) continue;
    const length = ibanLengths[upper.slice(start, start + 2)];
    if (length === undefined || !/^[0-9]{2}$/.test(upper.slice(start + 2, start + 4))) continue;
    let compact = '';
    let i = start;
    while (i < upper.length && compact.length < length) {
      const ch = upper[i]!;
      if (alphanumeric.test(ch)) compact += ch;
      else if (!(ch === ' ' && alphanumeric.test(upper[i + 1] ?? '') && compact.length > 0)) break;
      i++;
    }
    const atBoundary = i >= upper.length || !alphanumeric.test(upper[i]!);
    if (compact.length === length && atBoundary && isIban(compact)) return true;
  }
  return false;
}

/** A formatted card number: contiguous groups totalling 13–19 digits that pass Luhn. */
function containsGroupedCard(text: string): boolean {
  for (const match of text.matchAll(groupedDigitsPattern)) {
    const groups = match[0].split(/[ -]/);
    for (let from = 0; from < groups.length; from++) {
      let digits = '';
      for (let to = from; to < groups.length; to++) {
        digits += groups[to];
        if (digits.length > 19) break;
        if (digits.length >= 13 && passesLuhn(digits)) return true;
      }
    }
  }
  return false;
}

/** The maximal alphanumeric token around `[start, end)` of `text`. */
function tokenAround(text: string, start: number, end: number): string {
  let from = start;
  let to = end;
  while (from > 0 && alphanumeric.test(text[from - 1]!)) from--;
  while (to < text.length && alphanumeric.test(text[to]!)) to++;
  return text.slice(from, to);
}

/** The most specific kind among the standalone runs of 8 or more digits, or null. */
function classifyDigitRuns(text: string): SensitiveDataKind | null {
  let found: SensitiveDataKind | null = null;
  const rank: SensitiveDataKind[] = [
    'CARD_NUMBER',
    'ABA_ROUTING_NUMBER',
    'NINE_DIGIT_NUMBER',
    'LONG_DIGIT_RUN',
  ];
  for (const match of text.matchAll(digitRunPattern)) {
    const run = match[0];
    const token = tokenAround(text, match.index, match.index + run.length);
    if (hexToken.test(token) && /[a-f]/i.test(token)) continue;
    let kind: SensitiveDataKind = 'LONG_DIGIT_RUN';
    if (run.length >= 13 && run.length <= 19 && passesLuhn(run)) kind = 'CARD_NUMBER';
    else if (run.length === 9) kind = isAbaRoutingNumber(run) ? 'ABA_ROUTING_NUMBER' : 'NINE_DIGIT_NUMBER';
    if (found === null || rank.indexOf(kind) < rank.indexOf(found)) found = kind;
  }
  return found;
}

/**
 * The kind of government identifier or account/card number that `text` appears to contain, or
 * null when it contains none (see the module comment for the rules). Never returns the match.
 */
export function findSensitiveData(text: string): SensitiveDataKind | null {
  const normalized = text.normalize('NFKC').replace(uuidPattern, ' ');
  if (ssnPattern.test(normalized)) return 'SSN_OR_ITIN';
  if (einPattern.test(normalized)) return 'EIN';
  if (containsIban(normalized.toUpperCase())) return 'IBAN';
  if (containsGroupedCard(normalized)) return 'CARD_NUMBER';
  return classifyDigitRuns(normalized);
}

/** The message of a rejection: says what was found, never echoes the value. */
export function sensitiveDataMessage(kind: SensitiveDataKind): string {
  return `must not contain a government identifier or account number; it looks like it contains ${sensitiveDataLabels[kind]}.`;
}

/**
 * Valibot action for schemas: fails a string that contains sensitive data, with a message naming
 * the kind found (and not the value).
 */
export function noSensitiveData() {
  return v.check<string, (issue: v.CheckIssue<string>) => string>(
    (input) => findSensitiveData(input) === null,
    (issue) => sensitiveDataMessage(findSensitiveData(String(issue.input)) ?? 'LONG_DIGIT_RUN'),
  );
}

/**
 * Throws a 400 `validation.msg.validation.errors.exist` naming `parameterName` (with a null
 * `value`, so the offending text is not echoed) when `text` contains sensitive data.
 */
export function assertNoSensitiveData(parameterName: string, text: string | null | undefined): void {
  if (text === null || text === undefined) return;
  const kind = findSensitiveData(text);
  if (kind === null) return;
  const message = `${parameterName} ${sensitiveDataMessage(kind)}`;
  throw new DomainError('validation.msg.validation.errors.exist', message, {
    errors: [fieldError(parameterName, null, message)],
  });
}
