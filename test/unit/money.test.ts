/**
 * Decimal strings ↔ Dinero<bigint> (domain/money.ts).
 *
 * Oracles: ISO 4217 minor units as dinero.js lists them (USD 2, JPY 0, KWD 3), with MGA and MRU at 2 digits
 * (docs/design.md §5) although dinero.js models them as base-5 currencies; round trips; and the negative space of
 * malformed strings and excess precision.
 */
import { type Dinero, dinero, toDecimal, toSnapshot } from 'dinero.js/bigint';
import { MGA as dineroMGA, MRU as dineroMRU, USD } from 'dinero.js/bigint/currencies';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyFor,
  formatMinor,
  formatMoney,
  fromMoneyPayload,
  minorUnitDigits,
  parseDecimalToMinor,
  parseMoney,
  toMoneyPayload,
} from '../../domain/money';

const amountOf = (money: Dinero<bigint>): bigint => toSnapshot(money).amount;

describe('parseMoney / formatMoney', () => {
  it('USD: 2 digits, minor units are cents', () => {
    const money = parseMoney('12.34', 'USD');
    expect(amountOf(money)).toBe(1234n);
    expect(toSnapshot(money).currency).toEqual(USD);
    expect(formatMoney(money)).toBe('12.34');
    expect(formatMoney(parseMoney('12', 'USD'))).toBe('12.00');
    expect(formatMoney(parseMoney('0.5', 'USD'))).toBe('0.50');
    expect(formatMoney(parseMoney('-0.05', 'USD'))).toBe('-0.05');
    expect(formatMoney(parseMoney('0', 'USD'))).toBe('0.00');
  });

  it('JPY: 0 digits', () => {
    expect(minorUnitDigits('JPY')).toBe(0);
    const money = parseMoney('1000', 'JPY');
    expect(amountOf(money)).toBe(1000n);
    expect(formatMoney(money)).toBe('1000');
    expect(() => parseMoney('1000.5', 'JPY')).toThrow(RangeError);
    expect(() => parseMoney('1000.0', 'JPY')).toThrow(RangeError);
  });

  it('KWD: 3 digits', () => {
    expect(amountOf(parseMoney('1.234', 'KWD'))).toBe(1234n);
    expect(formatMoney(parseMoney('1.2', 'KWD'))).toBe('1.200');
    expect(() => parseMoney('1.2345', 'KWD')).toThrow(RangeError);
  });

  it('MGA and MRU: 2 decimal digits (docs/design.md §5), not dinero.js’s base-5 subunits', () => {
    // dinero.js describes them as 1 unit = 5 subunits, which no decimal string can express
    expect(dineroMGA).toEqual({ code: 'MGA', base: 5n, exponent: 1n });
    expect(dineroMRU).toEqual({ code: 'MRU', base: 5n, exponent: 1n });
    for (const code of ['MGA', 'MRU']) {
      expect(currencyFor(code)).toEqual({ code, base: 10n, exponent: 2n });
      expect(minorUnitDigits(code)).toBe(2);
      const money = parseMoney('10.25', code);
      expect(amountOf(money)).toBe(1025n);
      expect(formatMoney(money)).toBe('10.25');
      expect(toDecimal(money)).toBe('10.25');
      expect(() => parseMoney('10.255', code)).toThrow(RangeError);
    }
  });

  it('rejects excess precision, also when it is only zeros — unless trailing zeros are allowed', () => {
    expect(() => parseMoney('12.345', 'USD')).toThrow(/more than 2 fraction digits/);
    expect(() => parseMoney('12.340', 'USD')).toThrow(RangeError);
    // numeric(19,6) read back from PostgreSQL
    expect(formatMoney(parseMoney('12.340000', 'USD', { allowTrailingZeros: true }))).toBe('12.34');
    expect(formatMoney(parseMoney('1000.000000', 'JPY', { allowTrailingZeros: true }))).toBe('1000');
    expect(() => parseMoney('12.340001', 'USD', { allowTrailingZeros: true })).toThrow(RangeError);
  });

  it('rejects malformed amounts', () => {
    for (const bad of [
      '',
      ' 1',
      '1 ',
      '+1',
      '1.',
      '.5',
      '01',
      '-01.5',
      '1e3',
      '1,000',
      '1_000',
      '--1',
      'NaN',
      '0x10',
      '١٢',
    ]) {
      expect(() => parseMoney(bad, 'USD'), JSON.stringify(bad)).toThrow(RangeError);
    }
  });

  it('rejects unknown currencies', () => {
    expect(() => parseMoney('1.00', 'ABC')).toThrow(RangeError);
    expect(() => parseMoney('1.00', 'usd')).toThrow(RangeError);
  });

  it('formats a Dinero at a larger scale only when the extra digits are zeros', () => {
    expect(formatMoney(dinero({ amount: 12340n, currency: USD, scale: 3n }))).toBe('12.34');
    expect(() => formatMoney(dinero({ amount: 12345n, currency: USD, scale: 3n }))).toThrow(RangeError);
    expect(formatMoney(dinero({ amount: 5n, currency: USD, scale: 1n }))).toBe('0.50');
  });

  it('payloads round-trip', () => {
    const payload = toMoneyPayload(parseMoney('99.90', 'EUR'));
    expect(payload).toEqual({ amount: '99.90', currency: 'EUR' });
    expect(formatMoney(fromMoneyPayload(payload))).toBe('99.90');
    expect(JSON.parse(JSON.stringify(payload))).toEqual(payload);
  });

  it('round-trips every amount in every currency (property)', () => {
    const codes = ['USD', 'EUR', 'JPY', 'KWD', 'CLF', 'MGA', 'MRU', 'XOF', 'BHD'];
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.constantFrom(...codes),
        (minor, code) => {
          const digits = minorUnitDigits(code);
          const text = formatMinor(minor, digits);
          const money = parseMoney(text, code);
          expect(amountOf(money)).toBe(minor);
          expect(formatMoney(money)).toBe(text);
        },
      ),
    );
  });

  it('rejects one digit too many, whatever it is (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom('USD', 'JPY', 'KWD'),
        (minor, extra, code) => {
          const digits = minorUnitDigits(code);
          const text = formatMinor(minor, digits);
          const tooPrecise = `${text}${digits === 0 ? '.' : ''}${extra}`;
          expect(() => parseMoney(tooPrecise, code)).toThrow(RangeError);
          expect(() => parseMoney(tooPrecise, code, { allowTrailingZeros: true })).toThrow(RangeError);
        },
      ),
    );
  });
});

describe('parseDecimalToMinor / formatMinor', () => {
  it('scales decimal strings to integers of 10^-scale', () => {
    expect(parseDecimalToMinor('12.5', 2)).toBe(1250n);
    expect(parseDecimalToMinor('12.5', 1)).toBe(125n);
    expect(parseDecimalToMinor('7', 0)).toBe(7n);
    expect(parseDecimalToMinor('-0.001', 6)).toBe(-1000n);
    expect(formatMinor(1250n, 2)).toBe('12.50');
    expect(formatMinor(5n, 3)).toBe('0.005');
    expect(formatMinor(-5n, 2)).toBe('-0.05');
    expect(formatMinor(0n, 0)).toBe('0');
  });

  it('rejects invalid scales', () => {
    expect(() => parseDecimalToMinor('1', -1)).toThrow(RangeError);
    expect(() => parseDecimalToMinor('1', 1.5)).toThrow(RangeError);
    expect(() => formatMinor(1n, -1)).toThrow(RangeError);
  });

  it('never goes through a float: 20-digit amounts survive', () => {
    expect(parseDecimalToMinor('12345678901234567890.12', 2)).toBe(1234567890123456789012n);
    expect(formatMinor(1234567890123456789012n, 2)).toBe('12345678901234567890.12');
    expect(parseDecimalToMinor('0.1', 2) + parseDecimalToMinor('0.2', 2)).toBe(parseDecimalToMinor('0.3', 2));
  });
});

describe('parseDecimalToMinor: the short fast path agrees with the general rule', () => {
  // The general rule, as the module note states it: an optional minus, no superfluous leading zero, digits beyond
  // the scale refused unless they are zeros and allowed.
  const pattern = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?$/;
  const reference = (amount: string, scale: number, allowTrailingZeros: boolean): bigint | 'error' => {
    const match = pattern.exec(amount);
    if (!match) return 'error';
    let fraction = match[3] ?? '';
    if (fraction.length > scale) {
      if (!allowTrailingZeros || /[^0]/.test(fraction.slice(scale))) return 'error';
      fraction = fraction.slice(0, scale);
    }
    return (match[1] === '-' ? -1n : 1n) * BigInt((match[2] ?? '0') + fraction.padEnd(scale, '0'));
  };
  const outcome = (amount: string, scale: number, allowTrailingZeros: boolean): bigint | 'error' => {
    try {
      return parseDecimalToMinor(amount, scale, { allowTrailingZeros });
    } catch (err) {
      expect(err).toBeInstanceOf(RangeError);
      return 'error';
    }
  };

  it('on edge cases and many random strings, for scales 0 to 6, with and without trailing zeros', () => {
    const edges = [
      '0',
      '00',
      '05',
      '0.5',
      '.5',
      '5.',
      '-0',
      '-1.25',
      '+1',
      '1e3',
      ' 1',
      '1 ',
      '',
      '.',
      '0.000000',
      '999999999999999',
      '9999999999999999',
      '1234567890123.45',
      '12345678901234.56',
      '1.2345670',
      '7.10',
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const alphabet = '0123456789000.-';
    const random = Array.from({ length: 4000 }, () =>
      Array.from({ length: 1 + (next() % 20) }, () => alphabet[next() % alphabet.length]).join(''),
    );
    let parsed = 0;
    for (const amount of [...edges, ...random])
      for (let scale = 0; scale <= 6; scale++)
        for (const allow of [false, true]) {
          const expected = reference(amount, scale, allow);
          if (expected !== 'error') parsed++;
          expect(outcome(amount, scale, allow), `${JSON.stringify(amount)} at scale ${scale}`).toBe(expected);
        }
    expect(parsed).toBeGreaterThan(1000);
  });
});
