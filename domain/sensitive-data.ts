/**
 * Detection of government identifiers and account or card numbers in free text that must never
 * carry them (docs/lending.md "Lending core": "Never place government identifiers or
 * account numbers in externalId, externalRecordRef, rationale, idempotency keys or notes").
 *
 * Normalization first (`normalizeForMatching`): Unicode NFKC (full-width digits and marks become ASCII),
 * every format or invisible character removed (zero-width space and joiners, word joiner, BOM, soft
 * hyphen, bidi controls), every dash read as `-`, dot-like marks (`·`, `•`) as `.`, slash-like marks
 * as `/`. UUIDs, hexadecimal tokens of 16 or more characters (digests, random ids) and clock times
 * (`10:30`, `10:30:00.123456`) are set aside.
 *
 * The text is then read as digit chains: digit groups joined by runs of separators (spaces, dots,
 * dashes, slashes, underscores, in any mix). What counts, in the order `findSensitiveData` reports it:
 * - `SSN_OR_ITIN`: groups of 3, 2 and 4 digits in a row (`123-45-6789`, `123.45.6789`, `123 / 45_6789`).
 * - `EIN`: groups of 2 and 7 digits (`12-3456789`).
 * - `IBAN`: a country code with a known IBAN length whose ISO 7064 MOD 97-10 check passes
 *   (ISO 13616), compact or grouped by separators, in either case.
 * Then, with the separators between the remaining adjacent groups counted as nothing:
 * - `CARD_NUMBER`: 13 to 19 digits (whole groups) passing the Luhn check (ISO/IEC 7812),
 *   e.g. `4111.1111.1111.1111`.
 * - `ABA_ROUTING_NUMBER`: 9 digits with a Federal Reserve prefix and the ABA 3-7-1 checksum.
 * - `NINE_DIGIT_NUMBER`: any other 9 digits (an SSN, ITIN or EIN written another way).
 * - `LONG_DIGIT_RUN`: 8 or more digits (account numbers), e.g. `1234 5678`.
 *
 * Ordinary amounts, dates and phone numbers are taken out of a chain before those last four rules, so
 * that `paid 1,234.56 on 2026-01-05` passes: a date is three groups joined by one `-`, `/` or `.`
 * (`2026-01-05`, `05/01/2026`, `01.05.2026`, `05/01/26`) with a plausible year (1800–2199), month and
 * day; an amount is `<digits>.<1 or 2 digits>` set off by spaces or the ends of the chain (`250.00
 * 300.00`; commas are not separators, so `1,234.56` never joins); a phone number is a whole chain of
 * 3-3-4 digits (optionally after a `1`) with single separators (`+1 415-555-2671`, `415 555 2671`).
 * Anything else stays a number: `INV 2024 0001` (8 digits) is refused, `ORD-2024-001` (7) passes.
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
/** A clock time `h:mm`, `hh:mm:ss` or `hh:mm:ss.fraction` (up to nanoseconds), set aside like a date. */
const timePattern = /(?<![0-9])[0-9]{1,2}:[0-5][0-9](?::[0-5][0-9](?:[.,][0-9]{1,9})?)?(?![0-9])/g;
/**
 * Invisible characters removed before matching: every format character (General Category Cf: zero-width space,
 * zero-width (non-)joiner, word joiner, BOM, soft hyphen, bidirectional controls, …) and every default-ignorable
 * code point (Unicode's "invisible unless supported": also the combining grapheme joiner, Hangul fillers,
 * variation selectors, Mongolian free variation selectors).
 */
const invisibleCharacters = /\p{Cf}|\p{Default_Ignorable_Code_Point}/gu;
/** Dash punctuation (Pd) and the minus sign, read as `-`. */
const dashCharacters = /[\p{Pd}\u2212]/gu;
/** Dot-like marks read as `.`; slash-like marks read as `/`. */
const dotCharacters = /[\u00B7\u2022\u2219\u22C5\u30FB]/gu;
const slashCharacters = /[\u2044\u2215\u29F8]/gu;
/** A run of digit groups joined by separator runs (spaces, dots, dashes, slashes, underscores). */
const digitChainPattern = /[0-9]+(?:[ .\-/_]+[0-9]+)*/g;
const separatorRun = /[ .\-/_]+/g;
const alphanumericToken = /[A-Za-z0-9]+/g;
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

/**
 * The text as the rules read it: NFKC (full-width and compatibility forms become ASCII digits, dots, slashes),
 * invisible characters removed, every dash read as `-`, dot-like and slash-like marks as `.` and `/`, and every
 * white space as one space each. Exported for tests.
 */
export function normalizeForMatching(text: string): string {
  return text
    .normalize('NFKC')
    .replace(invisibleCharacters, '')
    .replace(dashCharacters, '-')
    .replace(dotCharacters, '.')
    .replace(slashCharacters, '/')
    .replace(/\s/gu, ' ');
}

/** One run of digit groups and the separator runs between them (`separators[i]` joins groups i and i + 1). */
interface DigitChain {
  groups: string[];
  separators: string[];
}

function digitChains(text: string): DigitChain[] {
  return [...text.matchAll(digitChainPattern)].map((match) => ({
    groups: match[0].split(separatorRun),
    separators: match[0].match(separatorRun) ?? [],
  }));
}

/** True when the groups `from`, `from + 1`, … of `chain` have exactly the digit counts `lengths`. */
function hasShapeAt(chain: DigitChain, from: number, lengths: readonly number[]): boolean {
  return lengths.every((length, k) => chain.groups[from + k]?.length === length);
}

/** A US SSN or ITIN (3-2-4 digits) or EIN (2-7 digits), whatever separates the groups (module note). */
function structuredIdentifier(chains: DigitChain[]): SensitiveDataKind | null {
  for (const kind of ['SSN_OR_ITIN', 'EIN'] as const) {
    const lengths = kind === 'SSN_OR_ITIN' ? [3, 2, 4] : [2, 7];
    for (const chain of chains) {
      for (let i = 0; i + lengths.length <= chain.groups.length; i++) {
        if (hasShapeAt(chain, i, lengths)) return kind;
      }
    }
  }
  return null;
}

const inRange = (digits: string, low: number, high: number): boolean => {
  const value = Number(digits);
  return value >= low && value <= high;
};

/** True when groups i..i+2 (same single separator `-`, `/` or `.`) form a calendar date (module note). */
function isDateAt(chain: DigitChain, i: number): boolean {
  const [a, b, c] = [chain.groups[i], chain.groups[i + 1], chain.groups[i + 2]];
  const [s1, s2] = [chain.separators[i], chain.separators[i + 1]];
  if (a === undefined || b === undefined || c === undefined || s1 !== s2) return false;
  if (s1 !== '-' && s1 !== '/' && s1 !== '.') return false;
  const short = (g: string) => g.length >= 1 && g.length <= 2;
  if (a.length === 4 && short(b) && short(c))
    return inRange(a, 1800, 2199) && inRange(b, 1, 12) && inRange(c, 1, 31);
  if (short(a) && short(b) && (c.length === 4 || (c.length === 2 && s1 === '/'))) {
    const dayMonth = (inRange(a, 1, 31) && inRange(b, 1, 12)) || (inRange(a, 1, 12) && inRange(b, 1, 31));
    return dayMonth && (c.length === 2 || inRange(c, 1800, 2199));
  }
  return false;
}

/** A separator run that ends a number in prose: it holds a space (`" "`, `" - "`). */
const isWordBreak = (separator: string | undefined): boolean =>
  separator === undefined || separator.includes(' ');

/** True when groups i, i+1 are a decimal amount: `<digits>.<1–2 digits>` standing apart (module note). */
function isAmountAt(chain: DigitChain, i: number): boolean {
  const fraction = chain.groups[i + 1];
  return (
    fraction !== undefined &&
    fraction.length <= 2 &&
    chain.separators[i] === '.' &&
    isWordBreak(chain.separators[i - 1]) &&
    isWordBreak(chain.separators[i + 1])
  );
}

/** True when the whole chain is a North American phone number: [1] 3-3-4 digits, single separators. */
function isPhoneNumber(chain: DigitChain): boolean {
  const groups = chain.groups[0] === '1' && chain.groups.length === 4 ? chain.groups.slice(1) : chain.groups;
  const separators = chain.groups.length === 4 ? chain.separators.slice(1) : chain.separators;
  return (
    groups.length === 3 &&
    hasShapeAt({ groups, separators }, 0, [3, 3, 4]) &&
    separators.every((separator) => separator.length === 1 && separator !== '_' && separator !== '/')
  );
}

/**
 * The chain with its dates, decimal amounts and phone numbers taken out, as runs of the remaining adjacent
 * groups (each run read as one number: its separators count as nothing).
 */
function numberRuns(chain: DigitChain): string[][] {
  const ordinary = new Set<number>();
  if (isPhoneNumber(chain)) return [];
  for (let i = 0; i < chain.groups.length; i++) {
    if (isDateAt(chain, i)) for (const k of [i, i + 1, i + 2]) ordinary.add(k);
    if (isAmountAt(chain, i)) for (const k of [i, i + 1]) ordinary.add(k);
  }
  const runs: string[][] = [];
  let current: string[] = [];
  chain.groups.forEach((group, i) => {
    if (ordinary.has(i)) {
      if (current.length > 0) runs.push(current);
      current = [];
    } else current.push(group);
  });
  if (current.length > 0) runs.push(current);
  return runs;
}

/** The most specific kind among card numbers, 9-digit numbers and runs of 8 or more digits in `runs`. */
function classifyNumberRuns(runs: string[][]): SensitiveDataKind | null {
  const rank: SensitiveDataKind[] = [
    'CARD_NUMBER',
    'ABA_ROUTING_NUMBER',
    'NINE_DIGIT_NUMBER',
    'LONG_DIGIT_RUN',
  ];
  let found: SensitiveDataKind | null = null;
  const note = (kind: SensitiveDataKind) => {
    if (found === null || rank.indexOf(kind) < rank.indexOf(found)) found = kind;
  };
  for (const groups of runs) {
    if (groups.join('').length >= 8) note('LONG_DIGIT_RUN');
    for (let from = 0; from < groups.length; from++) {
      let digits = '';
      for (let to = from; to < groups.length && digits.length <= 19; to++) {
        digits += groups[to];
        if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) note('CARD_NUMBER');
        if (digits.length === 9)
          note(isAbaRoutingNumber(digits) ? 'ABA_ROUTING_NUMBER' : 'NINE_DIGIT_NUMBER');
      }
    }
  }
  return found;
}

/** `text` with every hexadecimal token of 16 or more characters (digests, random ids) replaced by `#`. */
function withoutHexTokens(text: string): string {
  return text.replace(alphanumericToken, (token) =>
    hexToken.test(token) && /[a-f]/i.test(token) ? '#' : token,
  );
}

/**
 * The kind of government identifier or account/card number that `text` appears to contain, or
 * null when it contains none (see the module comment for the rules). Never returns the match.
 */
export function findSensitiveData(text: string): SensitiveDataKind | null {
  const normalized = normalizeForMatching(text).replace(uuidPattern, '#');
  const ibanView = normalized.toUpperCase().replace(/(?<=[A-Z0-9])[ .\-/_]+(?=[A-Z0-9])/g, ' ');
  const chains = digitChains(withoutHexTokens(normalized).replace(timePattern, '#'));
  const structured = structuredIdentifier(chains);
  if (structured !== null) return structured;
  if (containsIban(ibanView)) return 'IBAN';
  return classifyNumberRuns(chains.flatMap(numberRuns));
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
