/**
 * Rail rules (domain/payments/rails.ts): settlement timelines on Federal Reserve business days, NACHA return
 * windows by code (2 banking days, 60 calendar days), the check return window, rails without returns, and
 * the effectiveDate bounds of a new intent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addFederalReserveBusinessDays, isFederalReserveBusinessDay } from '../../domain/calendar';
import { DomainError } from '../../domain/errors';
import {
  acceptsReturn,
  assertEffectiveDateAllowed,
  earliestEffectiveDateOf,
  expectedSettlementOf,
  isInstantRail,
  isKnownReturnCode,
  isRail,
  latestEffectiveDateOf,
  paymentRails,
  type Rail,
  railAcceptsInstrumentType,
  railAcceptsReturns,
  returnCodesOf,
  returnDeadlineOf,
  returnWindowEndOf,
  submissionDateOf,
} from '../../domain/payments/rails';

const bankReturnCodes = ['R01', 'R02', 'R03', 'R04', 'R08', 'R09', 'R16', 'R20'];
const unauthorizedCodes = ['R05', 'R07', 'R10', 'R11'];

describe('rails', () => {
  it('are exactly the six of docs/design.md §5', () => {
    expect(paymentRails).toEqual(['ACH', 'DEBIT_CARD', 'RTP', 'FEDNOW', 'WIRE', 'CHECK']);
    expect(isRail('ACH')).toBe(true);
    expect(isRail('ach')).toBe(false);
    expect(isRail('SEPA')).toBe(false);
    expect(isRail(1)).toBe(false);
  });
});

describe('settlement timing', () => {
  it('ACH and card settle the business day after the processing day', () => {
    for (const rail of ['ACH', 'DEBIT_CARD'] as const) {
      expect(expectedSettlementOf(rail, '2026-11-23')).toBe('2026-11-24'); // Monday → Tuesday
      expect(expectedSettlementOf(rail, '2026-11-20')).toBe('2026-11-23'); // Friday → Monday
      expect(expectedSettlementOf(rail, '2026-11-21')).toBe('2026-11-24'); // Saturday: sent Monday, settles Tuesday
      expect(expectedSettlementOf(rail, '2026-11-25')).toBe('2026-11-27'); // over Thanksgiving
      expect(expectedSettlementOf(rail, '2026-12-24')).toBe('2026-12-28'); // over Christmas
    }
    expect(isInstantRail('ACH')).toBe(false);
  });

  it('RTP and FedNow settle the same calendar day, weekends and holidays included', () => {
    for (const rail of ['RTP', 'FEDNOW'] as const) {
      expect(isInstantRail(rail)).toBe(true);
      expect(expectedSettlementOf(rail, '2026-11-21')).toBe('2026-11-21');
      expect(expectedSettlementOf(rail, '2026-12-25')).toBe('2026-12-25');
    }
  });

  it('wire settles the same business day, or the next one', () => {
    expect(expectedSettlementOf('WIRE', '2026-11-23')).toBe('2026-11-23');
    expect(expectedSettlementOf('WIRE', '2026-11-22')).toBe('2026-11-23');
    expect(expectedSettlementOf('WIRE', '2026-11-26')).toBe('2026-11-27');
    expect(isInstantRail('WIRE')).toBe(false);
  });

  it('a check clears two business days after the banking day of deposit', () => {
    expect(expectedSettlementOf('CHECK', '2026-11-23')).toBe('2026-11-25'); // Monday → Wednesday
    expect(expectedSettlementOf('CHECK', '2026-11-21')).toBe('2026-11-25'); // Saturday counts as Monday
    expect(expectedSettlementOf('CHECK', '2026-11-25')).toBe('2026-11-30'); // over Thanksgiving
  });

  it('every non-instant settlement is a business day on or after submission (property)', () => {
    const date = fc.integer({ min: 0, max: 365 * 20 }).map((n) => addDays('2015-01-01', n));
    fc.assert(
      fc.property(date, fc.constantFrom(...paymentRails), (submittedOn, rail) => {
        const settledOn = expectedSettlementOf(rail, submittedOn);
        expect(settledOn >= submittedOn).toBe(true);
        if (!isInstantRail(rail)) expect(isFederalReserveBusinessDay(settledOn)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a date that is not one', () => {
    expect(() => expectedSettlementOf('ACH', '2026-11-31')).toThrow(RangeError);
    expect(() => expectedSettlementOf('SEPA' as Rail, '2026-11-23')).toThrow(RangeError);
  });
});

describe('submission date', () => {
  it('sends ACH the business day before the effective date, never before today', () => {
    expect(submissionDateOf('ACH', '2026-12-01', '2026-11-23')).toBe('2026-11-30');
    expect(submissionDateOf('ACH', '2026-11-30', '2026-11-23')).toBe('2026-11-27'); // Monday → Friday
    expect(submissionDateOf('ACH', '2026-11-27', '2026-11-23')).toBe('2026-11-25'); // over Thanksgiving
    expect(submissionDateOf('ACH', '2026-11-23', '2026-11-23')).toBe('2026-11-23');
    expect(expectedSettlementOf('ACH', submissionDateOf('ACH', '2026-12-01', '2026-11-23'))).toBe(
      '2026-12-01',
    );
  });

  it('sends the other rails on the effective date, or today', () => {
    expect(submissionDateOf('RTP', '2026-12-05', '2026-11-23')).toBe('2026-12-05');
    expect(submissionDateOf('DEBIT_CARD', '2026-12-01', '2026-11-23')).toBe('2026-12-01');
    expect(submissionDateOf('WIRE', '2026-12-01', '2026-11-23')).toBe('2026-12-01');
    expect(submissionDateOf('CHECK', '2026-11-18', '2026-11-23')).toBe('2026-11-23');
  });
});

describe('return codes and windows', () => {
  const settledOn = '2026-11-24'; // a Tuesday of Thanksgiving week (Thursday 26 closed)

  it('ACH bank returns: accepted through the second business day after settlement', () => {
    expect(returnDeadlineOf('ACH', 'R01', settledOn)).toBe('2026-11-27'); // Wed 25, (Thu 26 closed), Fri 27
    for (const code of bankReturnCodes) {
      const deadline = addFederalReserveBusinessDays(settledOn, 2);
      expect(returnDeadlineOf('ACH', code, settledOn), code).toBe(deadline);
      expect(acceptsReturn('ACH', code, settledOn, settledOn), code).toBe(true);
      expect(acceptsReturn('ACH', code, settledOn, deadline), code).toBe(true);
      expect(acceptsReturn('ACH', code, settledOn, addFederalReserveBusinessDays(settledOn, 3)), code).toBe(
        false,
      );
    }
  });

  it('R01 at settlement + 2 business days is accepted, at + 3 refused (a plain week)', () => {
    expect(acceptsReturn('ACH', 'R01', '2026-11-16', '2026-11-18')).toBe(true);
    expect(acceptsReturn('ACH', 'R01', '2026-11-16', '2026-11-19')).toBe(false);
    // Over a weekend: settled Thursday, deadline Monday.
    expect(acceptsReturn('ACH', 'R01', '2026-11-19', '2026-11-23')).toBe(true);
    expect(acceptsReturn('ACH', 'R01', '2026-11-19', '2026-11-24')).toBe(false);
  });

  it('ACH unauthorized returns: accepted through day 60 after settlement, refused on day 61', () => {
    for (const code of unauthorizedCodes) {
      expect(returnDeadlineOf('ACH', code, settledOn), code).toBe(addDays(settledOn, 60));
      expect(acceptsReturn('ACH', code, settledOn, addDays(settledOn, 59)), code).toBe(true);
      expect(acceptsReturn('ACH', code, settledOn, addDays(settledOn, 60)), code).toBe(true);
      expect(acceptsReturn('ACH', code, settledOn, addDays(settledOn, 61)), code).toBe(false);
    }
    expect(acceptsReturn('ACH', 'R10', '2026-11-24', '2027-01-22')).toBe(true); // day 59
    expect(acceptsReturn('ACH', 'R10', '2026-11-24', '2027-01-23')).toBe(true); // day 60
    expect(acceptsReturn('ACH', 'R10', '2026-11-24', '2027-01-24')).toBe(false); // day 61
  });

  it('R29 (non-consumer unauthorized) follows NACHA: two banking days', () => {
    expect(returnDeadlineOf('ACH', 'R29', '2026-11-16')).toBe('2026-11-18');
    expect(acceptsReturn('ACH', 'R29', '2026-11-16', '2026-11-19')).toBe(false);
  });

  it('refuses a return dated before settlement', () => {
    expect(acceptsReturn('ACH', 'R01', settledOn, '2026-11-23')).toBe(false);
    expect(acceptsReturn('ACH', 'R10', settledOn, '2026-11-23')).toBe(false);
  });

  it('refuses unknown codes and codes of another rail', () => {
    for (const code of ['R06', 'R99', 'r01', 'R1', '', 'A']) {
      expect(isKnownReturnCode('ACH', code), code).toBe(false);
      expect(returnDeadlineOf('ACH', code, settledOn), code).toBeNull();
      expect(acceptsReturn('ACH', code, settledOn, settledOn), code).toBe(false);
    }
    expect(isKnownReturnCode('CHECK', 'R01')).toBe(false);
    expect(acceptsReturn('CHECK', 'R01', settledOn, settledOn)).toBe(false);
    expect(isKnownReturnCode('CHECK', 'A')).toBe(true);
    expect(isKnownReturnCode('CHECK', 'U')).toBe(false);
  });

  it('card, RTP, FedNow and wire accept no returns at all', () => {
    for (const rail of ['DEBIT_CARD', 'RTP', 'FEDNOW', 'WIRE'] as const) {
      expect(railAcceptsReturns(rail), rail).toBe(false);
      expect(returnCodesOf(rail), rail).toEqual([]);
      expect(returnWindowEndOf(rail, settledOn), rail).toBeNull();
      for (const code of ['R01', 'R10', 'A']) {
        expect(isKnownReturnCode(rail, code)).toBe(false);
        expect(acceptsReturn(rail, code, settledOn, settledOn)).toBe(false);
      }
    }
  });

  it('a check return is accepted through five business days after settlement', () => {
    expect(railAcceptsReturns('CHECK')).toBe(true);
    expect(returnDeadlineOf('CHECK', 'A', '2026-11-16')).toBe('2026-11-23');
    expect(acceptsReturn('CHECK', 'A', '2026-11-16', '2026-11-23')).toBe(true);
    expect(acceptsReturn('CHECK', 'A', '2026-11-16', '2026-11-24')).toBe(false);
    expect(returnWindowEndOf('CHECK', '2026-11-16')).toBe('2026-11-23');
  });

  it('the return window ends with the latest code deadline', () => {
    expect(railAcceptsReturns('ACH')).toBe(true);
    expect(returnWindowEndOf('ACH', settledOn)).toBe('2027-01-23');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 365 * 10 }), (n) => {
        const settled = addDays('2020-01-01', n);
        const end = returnWindowEndOf('ACH', settled) as string;
        for (const { code } of returnCodesOf('ACH')) {
          expect((returnDeadlineOf('ACH', code, settled) as string) <= end).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('effectiveDate bounds', () => {
  const today = '2026-11-23'; // Monday

  it('ACH, card, RTP, FedNow, wire: from today to 30 days ahead', () => {
    for (const rail of ['ACH', 'DEBIT_CARD', 'RTP', 'FEDNOW', 'WIRE'] as const) {
      expect(earliestEffectiveDateOf(rail, today), rail).toBe(today);
      expect(latestEffectiveDateOf(rail, today), rail).toBe('2026-12-23');
      expect(() => assertEffectiveDateAllowed(rail, today, today)).not.toThrow();
      expect(() => assertEffectiveDateAllowed(rail, '2026-12-23', today)).not.toThrow();
    }
  });

  it('CHECK: up to five business days back, never ahead', () => {
    expect(earliestEffectiveDateOf('CHECK', today)).toBe('2026-11-16');
    expect(earliestEffectiveDateOf('CHECK', '2026-11-30')).toBe('2026-11-20'); // Thanksgiving skipped
    expect(latestEffectiveDateOf('CHECK', today)).toBe(today);
    expect(() => assertEffectiveDateAllowed('CHECK', '2026-11-16', today)).not.toThrow();
  });

  it('refuses a date outside the bounds with a 400 naming effectiveDate', () => {
    const cases: [Rail, string][] = [
      ['ACH', '2026-11-22'],
      ['RTP', '2026-11-20'],
      ['WIRE', '2026-12-24'],
      ['CHECK', '2026-11-13'],
      ['CHECK', '2026-11-24'],
    ];
    for (const [rail, effectiveDate] of cases) {
      let error: unknown;
      try {
        assertEffectiveDateAllowed(rail, effectiveDate, today);
      } catch (err) {
        error = err;
      }
      expect(error, `${rail} ${effectiveDate}`).toBeInstanceOf(DomainError);
      const domainError = error as DomainError;
      expect(domainError.status).toBe(400);
      expect(domainError.errors[0]?.parameterName).toBe('effectiveDate');
      expect(domainError.errors[0]?.userMessageGlobalisationCode).toBe(
        'validation.msg.payment.effectiveDate.not.allowed.for.rail',
      );
      expect(domainError.errors[0]?.args[0]).toBe(rail);
    }
  });

  it('refuses a malformed effectiveDate with a 400, and a malformed today as a bug', () => {
    expect(() => assertEffectiveDateAllowed('ACH', '2026-11-31', today)).toThrow(DomainError);
    expect(() => earliestEffectiveDateOf('ACH', 'today')).toThrow(RangeError);
  });
});

describe('instruments', () => {
  it('a debit card pays on the card rail only, a bank account on every other rail', () => {
    expect(railAcceptsInstrumentType('DEBIT_CARD', 'DEBIT_CARD')).toBe(true);
    expect(railAcceptsInstrumentType('DEBIT_CARD', 'BANK_ACCOUNT')).toBe(false);
    for (const rail of ['ACH', 'RTP', 'FEDNOW', 'WIRE', 'CHECK'] as const) {
      expect(railAcceptsInstrumentType(rail, 'BANK_ACCOUNT'), rail).toBe(true);
      expect(railAcceptsInstrumentType(rail, 'DEBIT_CARD'), rail).toBe(false);
    }
  });
});
