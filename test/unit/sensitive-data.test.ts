/**
 * Detection of government identifiers and account/card numbers in text that must not carry them
 * (docs/lending.md "Lending core"; domain/sensitive-data.ts). Published test numbers: Visa 4111 1111 1111
 * 1111 and Amex 3782 822463 10005 (card networks' test PANs), GB82 WEST 1234 5698 7654 32 and
 * DE89 3704 0044 0532 0130 00 (the IBAN registry's examples), 021000021 (a real ABA routing number).
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors';
import {
  assertNoSensitiveData,
  findSensitiveData,
  isAbaRoutingNumber,
  isIban,
  normalizeForMatching,
  noSensitiveData,
  passesLuhn,
} from '../../domain/sensitive-data';

describe('findSensitiveData: caught', () => {
  it.each([
    ['123-45-6789', 'SSN_OR_ITIN'],
    ['123 45 6789', 'SSN_OR_ITIN'],
    ['ssn is 078-05-1120 per file', 'SSN_OR_ITIN'],
    ['ORD-123-45-6789', 'SSN_OR_ITIN'],
    ['912-70-1234', 'SSN_OR_ITIN'],
    ['12-3456789', 'EIN'],
    ['GB82WEST12345698765432', 'IBAN'],
    ['GB82 WEST 1234 5698 7654 32', 'IBAN'],
    ['gb82west12345698765432', 'IBAN'],
    ['iban DE89370400440532013000.', 'IBAN'],
    ['DE89 3704 0044 0532 0130 00', 'IBAN'],
    ['NL91ABNA0417164300', 'IBAN'],
    ['4111 1111 1111 1111', 'CARD_NUMBER'],
    ['4111-1111-1111-1111', 'CARD_NUMBER'],
    ['4111111111111111', 'CARD_NUMBER'],
    ['card 3782 822463 10005 exp 12/27', 'CARD_NUMBER'],
    ['４１１１１１１１１１１１１１１１', 'CARD_NUMBER'],
    ['021000021', 'ABA_ROUTING_NUMBER'],
    ['routing 011000015', 'ABA_ROUTING_NUMBER'],
    ['123456789', 'NINE_DIGIT_NUMBER'],
    ['12345678', 'LONG_DIGIT_RUN'],
    ['ACCT12345678', 'LONG_DIGIT_RUN'],
    ['acct-000123456789012', 'LONG_DIGIT_RUN'],
    ['4111111111111112', 'LONG_DIGIT_RUN'],
    ['abc12345678', 'LONG_DIGIT_RUN'],
  ])('%s → %s', (text, kind) => {
    expect(findSensitiveData(text)).toBe(kind);
  });
});

describe('findSensitiveData: ordinary references pass', () => {
  it.each([
    'ORD-2024-001',
    'LN-000123',
    'cus_demo_m3xk9z2a',
    '2024-01-15',
    '2024-01-15T10:30:00Z',
    '1234567',
    '+1 415-555-2671',
    'call back on 415 555 2671',
    'Customer in hospital until March',
    'k-3f2a12345678bc90',
    '3f2a9c1e-8b7d-4a6f-9e0c-123456789012',
    '3f2a9c1e8b7d4a6f9e0c123456789012',
    'tok_1NXWjK2eZvKYlo2C0xq3h8Ab',
    '',
  ])('%j → null', (text) => {
    expect(findSensitiveData(text)).toBeNull();
  });
});

describe('findSensitiveData: separators and invisible characters do not hide a number', () => {
  const zwsp = '\u200B';
  it.each([
    ['123.45.6789', 'SSN_OR_ITIN'],
    ['SSN 123/45/6789', 'SSN_OR_ITIN'],
    ['123_45_6789', 'SSN_OR_ITIN'],
    ['123 . 45 . 6789', 'SSN_OR_ITIN'],
    ['123-45.6789', 'SSN_OR_ITIN'],
    ['123\u201345\u20136789', 'SSN_OR_ITIN'],
    ['１２３．４５．６７８９', 'SSN_OR_ITIN'],
    [`123${zwsp}-45-6789`, 'SSN_OR_ITIN'],
    ['123\u00B745\u00B76789', 'SSN_OR_ITIN'],
    ['paid 1,234.56 on 2026-01-05, ssn 123.45.6789', 'SSN_OR_ITIN'],
    ['12.3456789', 'EIN'],
    [`123${zwsp}45${zwsp}6789`, 'NINE_DIGIT_NUMBER'],
    ['123\u00AD456\u00AD789', 'NINE_DIGIT_NUMBER'],
    ['1\u20602\u20603\u20604\u20605\u20606\u20607\u20608\u20609', 'NINE_DIGIT_NUMBER'],
    ['ref 12345 6789', 'NINE_DIGIT_NUMBER'],
    ['4111.1111.1111.1111', 'CARD_NUMBER'],
    ['4111/1111/1111/1111', 'CARD_NUMBER'],
    ['4111_1111_1111_1111', 'CARD_NUMBER'],
    [`4111${zwsp}1111${zwsp}1111${zwsp}1111`, 'CARD_NUMBER'],
    ['4111 - 1111 - 1111 - 1111', 'CARD_NUMBER'],
    ['card 4111 1111 1111 1111 charged on 2026-01-05', 'CARD_NUMBER'],
    ['GB82-WEST-1234-5698-7654-32', 'IBAN'],
    ['1234.5678', 'LONG_DIGIT_RUN'],
    ['acct 1234 5678 9012', 'LONG_DIGIT_RUN'],
    ['INV 2024 0001', 'LONG_DIGIT_RUN'],
    ['4111 1111 1111 1112', 'LONG_DIGIT_RUN'],
    ['GB82 WEST 1234 5698 7654 33', 'LONG_DIGIT_RUN'],
  ])('%j → %s', (text, kind) => {
    expect(findSensitiveData(text)).toBe(kind);
  });

  it.each([
    'paid 1,234.56 on 2026-01-05',
    'paid 1234.56 on 2026-01-05 and 99.5 on 2026-02-05',
    'installments 250.00 250.00 250.00 250.00',
    'range 250.00 - 300.00',
    '2026-01-05 2026-02-05 2026-03-05',
    'due 05/01/2026, then 12.31.2025, then 01/02/27',
    'between 2026-01-05 and 2026-02-04, 3 payments of 250.00',
    'at 12:30 on 2026-01-05',
    'logged 2026-01-05 10:30:00.123456+00 and 2026-01-05T10:30:00.123456789Z',
    '2026-01-05T10:30:00.000Z',
    '$12,345,678.90 outstanding',
    'call back on 415.555.2671 or +1 415 555 2671',
    'Loan 12345, installment 3 of 12',
    'version 1.2.3',
    'ORD-2024-001',
    'rate 12.125 %',
  ])('%j → null', (text) => {
    expect(findSensitiveData(text)).toBeNull();
  });

  const separators = fc.constantFrom(' ', '.', '-', '/', '_', ' . ', '\u200B', '--', ' / ');
  const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));

  it('property: 3-2-4 digits with any separators are an SSN or ITIN', () => {
    fc.assert(
      fc.property(digits(3), digits(2), digits(4), separators, separators, (a, b, c, s1, s2) => {
        const kind = findSensitiveData(`note ${a}${s1}${b}${s2}${c} end`);
        expect(kind === 'SSN_OR_ITIN' || kind === 'NINE_DIGIT_NUMBER' || kind === 'ABA_ROUTING_NUMBER').toBe(
          true,
        );
      }),
    );
  });

  it('property: amounts with thousands commas and ISO dates pass', () => {
    const amount = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 99 }))
      .map(([units, cents]) => `${units.toLocaleString('en-US')}.${String(cents).padStart(2, '0')}`);
    const date = fc
      .date({
        min: new Date('1900-01-01T00:00:00Z'),
        max: new Date('2199-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(fc.array(fc.tuple(amount, date), { minLength: 1, maxLength: 4 }), (entries) => {
        const text = entries.map(([a, d]) => `paid ${a} on ${d}`).join(', ');
        expect(findSensitiveData(text)).toBeNull();
      }),
    );
  });

  it('normalizes NFKC, drops invisible characters, and reads dashes, dots and slashes alike', () => {
    expect(normalizeForMatching('１２３\u200B\u2060\uFEFF\u00AD４')).toBe('1234');
    expect(normalizeForMatching('a\u2013b\u2212c\u00B7d\u2215e\u00A0f\u3000g')).toBe('a-b-c.d/e f g');
  });
});

describe('checksums', () => {
  it('Luhn accepts valid PANs and rejects a changed digit', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('378282246310005')).toBe(true);
    expect(passesLuhn('4111111111111121')).toBe(false);
    expect(passesLuhn('')).toBe(false);
  });

  it('IBAN needs a registered country, its exact length and MOD 97-10', () => {
    expect(isIban('GB82WEST12345698765432')).toBe(true);
    expect(isIban('GB82WEST1234569876543')).toBe(false);
    expect(isIban('GB83WEST12345698765432')).toBe(false);
    expect(isIban('ZZ82WEST12345698765432')).toBe(false);
  });

  it('ABA needs a Federal Reserve prefix and the 3-7-1 checksum', () => {
    expect(isAbaRoutingNumber('021000021')).toBe(true);
    expect(isAbaRoutingNumber('021000022')).toBe(false);
    expect(isAbaRoutingNumber('991000021')).toBe(false);
    expect(isAbaRoutingNumber('02100002')).toBe(false);
  });
});

describe('schema action and assertion', () => {
  const schema = v.pipe(v.string(), noSensitiveData());

  it('the valibot action fails with the kind, never the value', () => {
    const result = v.safeParse(schema, 'ref 123-45-6789');
    expect(result.success).toBe(false);
    const message = result.issues?.[0]?.message ?? '';
    expect(message).toContain('SSN');
    expect(message).not.toContain('6789');
    expect(v.safeParse(schema, 'ORD-2024-001').success).toBe(true);
  });

  it('assertNoSensitiveData throws a 400 naming the parameter with a null value', () => {
    expect(() => assertNoSensitiveData('externalId', 'ORD-2024-001')).not.toThrow();
    expect(() => assertNoSensitiveData('externalId', null)).not.toThrow();
    let caught: unknown;
    try {
      assertNoSensitiveData('externalId', '4111 1111 1111 1111');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    const err = caught as DomainError;
    expect(err.code).toBe('validation.msg.validation.errors.exist');
    expect(err.errors).toHaveLength(1);
    expect(err.errors[0]).toMatchObject({ parameterName: 'externalId', value: null });
    expect(err.message).toContain('card number');
    expect(err.message).not.toContain('4111');
  });
});
