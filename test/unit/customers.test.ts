/**
 * Pure rules of the customers context: identifier normalization and masks (SSA, IRS Pub. 1915,
 * IRS EIN prefixes), phone and e-mail normalization (libphonenumber metadata), dates of birth,
 * search-query classification and the prefix range bound.
 */
import { describe, expect, it } from 'vitest';
import { normalizeEmail, normalizePhone } from '../../domain/customers/contact-points';
import { isCountryCode } from '../../domain/customers/country-codes';
import { dateOfBirthProblem, isCalendarDate, restrictionStatusAt } from '../../domain/customers/customer';
import { maskIdentifier, normalizeIdentifier } from '../../domain/customers/identifiers';
import { classifySearchQuery, foldName, prefixUpperBound, searchNameOf } from '../../domain/customers/search';

describe('normalizeIdentifier', () => {
  it('SSN: digits only, US, masked to the last four', () => {
    for (const written of ['123-45-6789', '123456789', '123 45 6789']) {
      expect(normalizeIdentifier('SSN', written)).toEqual({
        ok: true,
        identifier: { normalized: '123456789', mask: '***-**-6789', issuingCountry: 'US' },
      });
    }
  });

  it.each([
    '000-12-3456',
    '666-12-3456',
    '900-12-3456',
    '123-00-4567',
    '123-45-0000',
    '12-345-678',
    '1234567890',
  ])('SSN %s is refused without repeating it', (value) => {
    const check = normalizeIdentifier('SSN', value);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.message).not.toContain(value);
      expect(check.message).not.toContain(value.replace(/-/g, ''));
    }
  });

  it('ITIN starts with 9 and has an IRS group', () => {
    expect(normalizeIdentifier('ITIN', '912-70-1234')).toMatchObject({ ok: true });
    expect(normalizeIdentifier('ITIN', '912-93-1234').ok).toBe(false);
    expect(normalizeIdentifier('ITIN', '812-70-1234').ok).toBe(false);
  });

  it('EIN needs an assigned prefix and is masked **-***dddd', () => {
    expect(normalizeIdentifier('EIN', '12-3456789')).toEqual({
      ok: true,
      identifier: { normalized: '123456789', mask: '**-***6789', issuingCountry: 'US' },
    });
    expect(normalizeIdentifier('EIN', '07-3456789').ok).toBe(false);
  });

  it('US taxpayer numbers refuse another issuing country', () => {
    expect(normalizeIdentifier('SSN', '123-45-6789', 'GB').ok).toBe(false);
    expect(normalizeIdentifier('SSN', '123-45-6789', 'US').ok).toBe(true);
  });

  it('documents: upper-case alphanumerics, 4 to 20, short ones reveal fewer characters', () => {
    expect(normalizeIdentifier('PASSPORT', 'ab 12-34567', 'GB')).toEqual({
      ok: true,
      identifier: { normalized: 'AB1234567', mask: '****4567', issuingCountry: 'GB' },
    });
    expect(maskIdentifier('DRIVERS_LICENSE', 'D12345')).toBe('****45');
    expect(normalizeIdentifier('NATIONAL_ID', 'A#1').ok).toBe(false);
  });
});

describe('contact points', () => {
  it('phones become E.164, US by default', () => {
    expect(normalizePhone('(415) 555-2671')).toBe('+14155552671');
    expect(normalizePhone('+1 415 555 2671')).toBe('+14155552671');
    expect(normalizePhone('+44 20 7946 0958')).toBe('+442079460958');
    expect(normalizePhone('555-0100')).toBeNull();
    expect(normalizePhone('123')).toBeNull();
    expect(normalizePhone('not a phone')).toBeNull();
  });

  it('e-mails are trimmed, lower-cased and checked', () => {
    expect(normalizeEmail('  Ana.Lopez@Example.COM ')).toBe('ana.lopez@example.com');
    expect(normalizeEmail('ana@')).toBeNull();
    expect(normalizeEmail('two@@example.com')).toBeNull();
  });

  it('country codes are ISO 3166-1 alpha-2 in upper case', () => {
    expect(isCountryCode('US')).toBe(true);
    expect(isCountryCode('XK')).toBe(true);
    expect(isCountryCode('us')).toBe(false);
    expect(isCountryCode('UK')).toBe(false);
    expect(isCountryCode('EU')).toBe(false);
  });
});

describe('dates and restriction status', () => {
  const now = new Date('2026-03-10T12:00:00Z');

  it('calendar dates are real', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2023-02-31')).toBe(false);
    expect(isCalendarDate('20230101')).toBe(false);
  });

  it('a date of birth is not in the future anywhere, nor before 1900', () => {
    expect(dateOfBirthProblem('1980-05-01', now)).toBeNull();
    expect(dateOfBirthProblem('2026-03-11', now)).toBeNull();
    expect(dateOfBirthProblem('2026-03-12', now)).toContain('future');
    expect(dateOfBirthProblem('1899-12-31', now)).toContain('1900');
  });

  it('an ACTIVE restriction past expiresAt reads EXPIRED', () => {
    expect(restrictionStatusAt('ACTIVE', null, now)).toBe('ACTIVE');
    expect(restrictionStatusAt('ACTIVE', new Date('2026-03-10T12:00:00Z'), now)).toBe('EXPIRED');
    expect(restrictionStatusAt('ACTIVE', new Date('2026-03-10T12:00:01Z'), now)).toBe('ACTIVE');
    expect(restrictionStatusAt('RELEASED', new Date('2020-01-01T00:00:00Z'), now)).toBe('RELEASED');
  });
});

describe('search', () => {
  it('classifies e-mail, phone and name queries', () => {
    expect(classifySearchQuery('Ana@Example.com')).toEqual({ kind: 'EMAIL', value: 'ana@example.com' });
    expect(classifySearchQuery('(415) 555-2671')).toEqual({ kind: 'PHONE', value: '+14155552671' });
    expect(classifySearchQuery('  José   Lo ')).toEqual({ kind: 'NAME', prefix: 'jose lo' });
    expect(classifySearchQuery('555-12').kind).toBe('INVALID');
    expect(classifySearchQuery('ana@').kind).toBe('INVALID');
  });

  it('folds names without accents, case or extra spaces', () => {
    expect(foldName('  ÉLODIE   Müller ')).toBe('elodie muller');
    expect(searchNameOf('Ana', 'López')).toBe('ana lopez');
  });

  it('the upper bound is above every extension of the prefix and below the next prefix', () => {
    const upper = prefixUpperBound('ana l');
    expect(upper).toBe('ana m');
    for (const name of ['ana l', 'ana lopez', 'ana l\u{10FFFF}']) {
      expect(name >= 'ana l' && name < upper).toBe(true);
    }
    expect('ana m' < upper).toBe(false);
  });
});
