/**
 * Government identifiers of customers (docs/lending.md "Lending core": "complete identifier value
 * supplied once; reads return only a normalized mask"; docs/design.md §3 Data rules): the accepted types,
 * their normalization and format rules, and the mask that is the only form ever returned.
 *
 * Format sources: SSN — SSA, "SSN randomization" (area 000, 666 and 900–999, group 00 and serial
 * 0000 are never assigned); ITIN — IRS Publication 1915 (9 digits starting with 9, fourth and fifth
 * digits 50–65, 70–88, 90–92 or 94–99); EIN — IRS "How EINs are assigned and valid EIN prefixes".
 *
 * Messages never contain the value (it must not be echoed in errors or logs).
 */

/** Accepted identifier types. SSN, ITIN and EIN are US taxpayer numbers. */
export const identifierTypes = ['SSN', 'ITIN', 'EIN', 'PASSPORT', 'NATIONAL_ID', 'DRIVERS_LICENSE'] as const;
export type IdentifierType = (typeof identifierTypes)[number];

const usTaxpayerTypes: ReadonlySet<IdentifierType> = new Set(['SSN', 'ITIN', 'EIN']);

/** EIN prefixes the IRS assigns (campus and internet/SS-4 prefixes). */
const einPrefixes = new Set(
  [
    [1, 6],
    [10, 16],
    [20, 27],
    [30, 39],
    [40, 48],
    [50, 59],
    [60, 68],
    [71, 77],
    [80, 88],
    [90, 95],
    [98, 99],
  ].flatMap(([from, to]) =>
    Array.from({ length: to! - from! + 1 }, (_, i) => String(from! + i).padStart(2, '0')),
  ),
);

/** A normalized identifier: what is encrypted, digested and masked. */
export interface NormalizedIdentifier {
  /** Digits only for SSN, ITIN and EIN; upper-case letters and digits otherwise. */
  normalized: string;
  /** The only form ever returned, e.g. `***-**-6789`. */
  mask: string;
  /** ISO 3166-1 alpha-2; `US` for SSN, ITIN and EIN; null when not given for other types. */
  issuingCountry: string | null;
}

export type IdentifierCheck = { ok: true; identifier: NormalizedIdentifier } | { ok: false; message: string };

function inRanges(value: number, ranges: [number, number][]): boolean {
  return ranges.some(([from, to]) => value >= from && value <= to);
}

function taxpayerNumberProblem(type: IdentifierType, digits: string): string | null {
  if (!/^[0-9]{9}$/.test(digits))
    return `${type} must be 9 digits, written with or without dashes or spaces.`;
  const area = Number(digits.slice(0, 3));
  const group = Number(digits.slice(3, 5));
  const serial = Number(digits.slice(5));
  if (type === 'SSN') {
    if (area === 0 || area === 666 || area >= 900 || group === 0 || serial === 0)
      return 'SSN is not a number the SSA assigns (area 000, 666 or 900–999, group 00 or serial 0000).';
    return null;
  }
  if (type === 'ITIN') {
    if (
      digits[0] !== '9' ||
      !inRanges(group, [
        [50, 65],
        [70, 88],
        [90, 92],
        [94, 99],
      ])
    )
      return 'ITIN is not a number the IRS assigns (it starts with 9 and its fourth and fifth digits are 50–65, 70–88, 90–92 or 94–99).';
    return null;
  }
  if (!einPrefixes.has(digits.slice(0, 2))) return 'EIN does not start with a prefix the IRS assigns.';
  return null;
}

/** The mask of a normalized identifier: the last four digits of a taxpayer number, otherwise fewer. */
export function maskIdentifier(type: IdentifierType, normalized: string): string {
  if (type === 'SSN' || type === 'ITIN') return `***-**-${normalized.slice(-4)}`;
  if (type === 'EIN') return `**-***${normalized.slice(-4)}`;
  // Short document numbers reveal fewer characters; the mask's length never reveals theirs.
  return `****${normalized.slice(normalized.length >= 8 ? -4 : -2)}`;
}

/**
 * Normalizes and checks an identifier value: SSN, ITIN and EIN become 9 digits (dashes and
 * spaces dropped) checked against their issuers' rules and are always issued by `US`; passports,
 * national ids and driver's licences become 4 to 20 upper-case letters and digits. `issuingCountry`
 * is expected to be a valid alpha-2 code already (the schema checks it).
 */
export function normalizeIdentifier(
  type: IdentifierType,
  value: string,
  issuingCountry?: string | null,
): IdentifierCheck {
  const compact = value.normalize('NFKC').replace(/[\s-]/g, '').toUpperCase();
  if (usTaxpayerTypes.has(type)) {
    if (issuingCountry && issuingCountry !== 'US')
      return { ok: false, message: `issuingCountry of a ${type} must be US.` };
    const problem = taxpayerNumberProblem(type, compact);
    if (problem) return { ok: false, message: problem };
    return {
      ok: true,
      identifier: { normalized: compact, mask: maskIdentifier(type, compact), issuingCountry: 'US' },
    };
  }
  if (!/^[A-Z0-9]{4,20}$/.test(compact))
    return {
      ok: false,
      message: `${type} must be 4 to 20 letters or digits (spaces and dashes are ignored).`,
    };
  return {
    ok: true,
    identifier: {
      normalized: compact,
      mask: maskIdentifier(type, compact),
      issuingCountry: issuingCountry ?? null,
    },
  };
}

/**
 * The text whose keyed digest makes an identifier unique per tenant: type, issuing country and
 * normalized value (a passport number is only unique within its issuing country).
 */
export function identifierDigestInput(type: IdentifierType, identifier: NormalizedIdentifier): string {
  return `${type}|${identifier.issuingCountry ?? ''}|${identifier.normalized}`;
}
