/**
 * Hardship offer eligibility and routing (domain/hardship/offer.ts; docs/processes.md P5 third bullet): every
 * ineligibility reason, both specialist reasons, and the three size routes at and past their limits, per unit.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors';
import {
  type HardshipLoanFacts,
  type HardshipOfferProgram,
  type HardshipOfferRequest,
  hardshipOfferTermsHash,
  type IneligibilityReasonCode,
  ineligibilityReasonCodes,
  type RequestedRelief,
  repaymentFrequencyName,
  requestedReliefJson,
  routeHardshipOffer,
} from '../../domain/hardship/offer';
import type { HardshipGuardrailSettings, HardshipProgramTerms } from '../../domain/hardship/policy';

const guardrails: HardshipGuardrailSettings = {
  minimumLoanAgeInstallments: 3,
  maximumActiveHardshipCasesPerLoan: 1,
  requireVerifiedContactForOffer: true,
  requireWorkflowConfirmedEvidence: true,
  prohibitPrincipalForgiveness: true,
  prohibitRateChange: true,
  specialistConditions: ['LEGAL_HOLD', 'BANKRUPTCY'],
  offerValidityHoursMaximum: 72,
  documentDeadlineHoursMaximum: 240,
  maximumDeferredPayments: 3,
  reevaluateOnMaterialLoanDrift: true,
};

const terms: HardshipProgramTerms = {
  reliefType: 'PAYMENT_DEFERRAL',
  straightThroughMaximum: 1,
  humanApprovalMaximum: 3,
  humanApprovalPermission: 'APPROVE_LOAN',
  requiredEvidenceCode: 'HARDSHIP_STATEMENT',
  offerValidityHours: 72,
  scope: {
    productClasses: ['CONSUMER_INSTALLMENT'],
    jurisdictions: ['US-CA'],
    currencies: ['USD'],
    repaymentFrequencies: ['MONTHLY'],
    requiredNativeCapability: 'SCHEDULE_RESHAPE',
  },
  workflow: { caseType: 'HARDSHIP', workflowKey: 'hardship-offer' },
};

const program: HardshipOfferProgram = {
  programCode: 'DEFER-3',
  state: 'ACTIVE',
  hardshipReasonCode: 'JOB_LOSS',
  version: 2,
  terms,
};

const loan: HardshipLoanFacts = {
  productClass: 'CONSUMER_INSTALLMENT',
  jurisdiction: 'US-CA',
  currency: 'USD',
  repaymentFrequency: 'MONTHLY',
  nativeCapabilities: ['SCHEDULE_RESHAPE'],
  installmentsSinceFirstDue: 3,
  activeHardshipCaseCount: 1,
  verifiedContactPresent: true,
  conditions: [],
  activeRestrictionTypes: [],
};

const deferral = (installmentCount: number): RequestedRelief => ({
  reliefType: 'PAYMENT_DEFERRAL',
  params: { installmentCount },
});
const request = (requestedRelief = deferral(1)): HardshipOfferRequest => ({
  hardshipReasonCode: 'JOB_LOSS',
  requestedRelief,
});

const codesOf = (route: ReturnType<typeof routeHardshipOffer>) =>
  'reasons' in route ? route.reasons.map((r) => r.code) : [];

describe('routeHardshipOffer: size routing', () => {
  it('offers straight through up to straightThroughMaximum, asks approval up to humanApprovalMaximum', () => {
    expect(routeHardshipOffer(guardrails, program, loan, request(deferral(1)))).toEqual({
      status: 'OFFERED',
      reliefSize: 1,
      reliefUnit: 'INSTALLMENTS',
    });
    expect(routeHardshipOffer(guardrails, program, loan, request(deferral(2))).status).toBe(
      'PENDING_APPROVAL',
    );
    expect(routeHardshipOffer(guardrails, program, loan, request(deferral(3))).status).toBe(
      'PENDING_APPROVAL',
    );
  });

  it('refers a relief above humanApprovalMaximum that the guardrails allow', () => {
    const loose = { ...guardrails, maximumDeferredPayments: 12 };
    expect(routeHardshipOffer(loose, program, loan, request(deferral(4)))).toEqual({
      status: 'REFERRED',
      reliefSize: 4,
      reliefUnit: 'INSTALLMENTS',
    });
  });

  it('sizes money reliefs in whole currency units, rounded up', () => {
    const waiver: HardshipOfferProgram = {
      ...program,
      terms: { ...terms, reliefType: 'FEE_WAIVER', straightThroughMaximum: 50, humanApprovalMaximum: 200 },
    };
    const ask = (maximumWaiverMinor: bigint) =>
      routeHardshipOffer(
        guardrails,
        waiver,
        loan,
        request({
          reliefType: 'FEE_WAIVER',
          params: { fromDate: '2026-01-01', toDate: '2026-03-31', maximumWaiverMinor },
        }),
      );
    expect(ask(5000n)).toEqual({ status: 'OFFERED', reliefSize: 50, reliefUnit: 'CURRENCY_UNITS' });
    expect(ask(5001n)).toEqual({ status: 'PENDING_APPROVAL', reliefSize: 51, reliefUnit: 'CURRENCY_UNITS' });
    expect(ask(20000n).status).toBe('PENDING_APPROVAL');
    expect(ask(20001n)).toEqual({ status: 'REFERRED', reliefSize: 201, reliefUnit: 'CURRENCY_UNITS' });
  });

  it('sizes a rate reduction in basis points', () => {
    const rate: HardshipOfferProgram = {
      ...program,
      terms: {
        ...terms,
        reliefType: 'RATE_REDUCTION',
        straightThroughMaximum: 100,
        humanApprovalMaximum: 300,
      },
    };
    const loose = { ...guardrails, prohibitRateChange: false };
    const ask = (reducedRateBasisPoints: number) =>
      routeHardshipOffer(
        loose,
        rate,
        loan,
        request({
          reliefType: 'RATE_REDUCTION',
          params: { currentRateBasisPoints: 1200, reducedRateBasisPoints },
        }),
      );
    expect(ask(1100)).toEqual({ status: 'OFFERED', reliefSize: 100, reliefUnit: 'BASIS_POINTS' });
    expect(ask(900).status).toBe('PENDING_APPROVAL');
    expect(ask(899)).toEqual({ status: 'REFERRED', reliefSize: 301, reliefUnit: 'BASIS_POINTS' });
  });

  it('admits a subdivision when the program names its country, not the reverse', () => {
    const country: HardshipOfferProgram = {
      ...program,
      terms: { ...terms, scope: { ...terms.scope, jurisdictions: ['US'] } },
    };
    expect(routeHardshipOffer(guardrails, country, loan, request()).status).toBe('OFFERED');
    expect(routeHardshipOffer(guardrails, program, { ...loan, jurisdiction: 'US' }, request()).status).toBe(
      'INELIGIBLE',
    );
    expect(
      routeHardshipOffer(guardrails, country, { ...loan, jurisdiction: 'USX-1' }, request()).status,
    ).toBe('INELIGIBLE');
  });

  it('names repayment frequencies', () => {
    expect(repaymentFrequencyName(1, 2)).toBe('MONTHLY');
    expect(repaymentFrequencyName(2, 1)).toBe('BIWEEKLY');
    expect(repaymentFrequencyName(1, 3)).toBe('ANNUALLY');
    expect(repaymentFrequencyName(5, 0)).toBe('EVERY_5_DAYS');
  });

  it('treats an empty scope list and an empty capability as "any"', () => {
    const open: HardshipOfferProgram = {
      ...program,
      terms: {
        ...terms,
        scope: {
          productClasses: [],
          jurisdictions: [],
          currencies: [],
          repaymentFrequencies: [],
          requiredNativeCapability: '',
        },
      },
    };
    const other = {
      ...loan,
      productClass: 'AUTO',
      jurisdiction: 'GB',
      currency: 'EUR',
      nativeCapabilities: [],
    };
    expect(routeHardshipOffer(guardrails, open, other, request()).status).toBe('OFFERED');
  });
});

describe('routeHardshipOffer: ineligibility reasons', () => {
  const cases: [IneligibilityReasonCode, () => ReturnType<typeof routeHardshipOffer>][] = [
    [
      'PROGRAM_RETIRED',
      () => routeHardshipOffer(guardrails, { ...program, state: 'RETIRED' }, loan, request()),
    ],
    [
      'HARDSHIP_REASON_MISMATCH',
      () => routeHardshipOffer(guardrails, program, loan, { ...request(), hardshipReasonCode: 'MEDICAL' }),
    ],
    [
      'RELIEF_TYPE_MISMATCH',
      () =>
        routeHardshipOffer(
          guardrails,
          program,
          loan,
          request({
            reliefType: 'FORBEARANCE',
            params: { installmentCount: 1, paymentReductionBasisPoints: 5000 },
          }),
        ),
    ],
    [
      'PRODUCT_CLASS_NOT_IN_SCOPE',
      () => routeHardshipOffer(guardrails, program, { ...loan, productClass: 'AUTO' }, request()),
    ],
    [
      'JURISDICTION_NOT_IN_SCOPE',
      () => routeHardshipOffer(guardrails, program, { ...loan, jurisdiction: 'GB' }, request()),
    ],
    [
      'CURRENCY_NOT_IN_SCOPE',
      () => routeHardshipOffer(guardrails, program, { ...loan, currency: 'EUR' }, request()),
    ],
    [
      'REPAYMENT_FREQUENCY_NOT_IN_SCOPE',
      () => routeHardshipOffer(guardrails, program, { ...loan, repaymentFrequency: 'WEEKLY' }, request()),
    ],
    [
      'NATIVE_CAPABILITY_MISSING',
      () => routeHardshipOffer(guardrails, program, { ...loan, nativeCapabilities: ['OTHER'] }, request()),
    ],
    [
      'MINIMUM_LOAN_AGE_NOT_MET',
      () => routeHardshipOffer(guardrails, program, { ...loan, installmentsSinceFirstDue: 2 }, request()),
    ],
    [
      'ACTIVE_HARDSHIP_CASES_ABOVE_MAXIMUM',
      () => routeHardshipOffer(guardrails, program, { ...loan, activeHardshipCaseCount: 2 }, request()),
    ],
    [
      'VERIFIED_CONTACT_REQUIRED',
      () => routeHardshipOffer(guardrails, program, { ...loan, verifiedContactPresent: false }, request()),
    ],
    [
      'PRINCIPAL_FORGIVENESS_PROHIBITED',
      () =>
        routeHardshipOffer(
          guardrails,
          { ...program, terms: { ...terms, reliefType: 'PRINCIPAL_FORGIVENESS' } },
          loan,
          request({ reliefType: 'PRINCIPAL_FORGIVENESS', params: { amountMinor: 100n } }),
        ),
    ],
    [
      'RATE_CHANGE_PROHIBITED',
      () =>
        routeHardshipOffer(
          guardrails,
          { ...program, terms: { ...terms, reliefType: 'RATE_REDUCTION' } },
          loan,
          request({
            reliefType: 'RATE_REDUCTION',
            params: { currentRateBasisPoints: 1200, reducedRateBasisPoints: 1199 },
          }),
        ),
    ],
    [
      'DEFERRED_PAYMENTS_ABOVE_MAXIMUM',
      () => routeHardshipOffer(guardrails, program, loan, request(deferral(4))),
    ],
  ];

  it('covers every reason code', () => {
    expect(cases.map(([code]) => code)).toEqual([...ineligibilityReasonCodes]);
  });

  for (const [code, run] of cases) {
    it(`${code} alone makes the request INELIGIBLE with that one reason and a message`, () => {
      const route = run();
      expect(route.status).toBe('INELIGIBLE');
      expect(codesOf(route)).toEqual([code]);
      expect('reasons' in route && route.reasons[0]?.message.length).toBeGreaterThan(10);
    });
  }

  it('reports every failed rule, in the fixed order', () => {
    const route = routeHardshipOffer(
      guardrails,
      program,
      { ...loan, currency: 'EUR', installmentsSinceFirstDue: 0, verifiedContactPresent: false },
      request(),
    );
    expect(codesOf(route)).toEqual([
      'CURRENCY_NOT_IN_SCOPE',
      'MINIMUM_LOAN_AGE_NOT_MET',
      'VERIFIED_CONTACT_REQUIRED',
    ]);
  });

  it('does not ask for a verified contact when the guardrails do not', () => {
    const loose = { ...guardrails, requireVerifiedContactForOffer: false };
    expect(
      routeHardshipOffer(loose, program, { ...loan, verifiedContactPresent: false }, request()).status,
    ).toBe('OFFERED');
  });
});

describe('routeHardshipOffer: specialist', () => {
  it('routes a listed specialist condition to a specialist, one reason per condition', () => {
    const route = routeHardshipOffer(
      guardrails,
      program,
      { ...loan, conditions: ['BANKRUPTCY', 'LEGAL_HOLD'] },
      request(),
    );
    expect(route.status).toBe('SPECIALIST');
    expect(codesOf(route)).toEqual(['SPECIALIST_CONDITION', 'SPECIALIST_CONDITION']);
  });

  it('ignores a condition the guardrails do not list', () => {
    expect(
      routeHardshipOffer(guardrails, program, { ...loan, conditions: ['DECEASED'] }, request()).status,
    ).toBe('OFFERED');
  });

  it('routes an active SCRA_MLA_PROTECTED restriction to a specialist even when otherwise ineligible', () => {
    const route = routeHardshipOffer(
      guardrails,
      { ...program, state: 'RETIRED' },
      { ...loan, activeRestrictionTypes: ['PAYMENT_HOLD', 'SCRA_MLA_PROTECTED'] },
      request(),
    );
    expect(route.status).toBe('SPECIALIST');
    expect(codesOf(route)).toEqual(['SCRA_MLA_PROTECTED']);
  });

  it('does not route other restrictions to a specialist', () => {
    expect(
      routeHardshipOffer(
        guardrails,
        program,
        { ...loan, activeRestrictionTypes: ['PAYMENT_HOLD'] },
        request(),
      ).status,
    ).toBe('OFFERED');
  });
});

describe('routeHardshipOffer: malformed relief', () => {
  it('raises the 400 of the relief parameter checks', () => {
    try {
      routeHardshipOffer(guardrails, program, loan, request(deferral(0)));
      expect.unreachable('a zero installment count must be refused');
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('validation.msg.validation.errors.exist');
    }
  });
});

describe('requestedReliefJson and hardshipOfferTermsHash', () => {
  const terms = {
    offerId: 7,
    caseId: 3,
    loanId: 5,
    programCode: 'WAIVE-FEES',
    programVersion: 1,
    guardrailsVersion: 2,
    hardshipReasonCode: 'JOB_LOSS',
    requestedRelief: requestedReliefJson({
      reliefType: 'FEE_WAIVER',
      params: { fromDate: '2026-01-01', toDate: '2026-03-31', maximumWaiverMinor: 12345n },
    }),
  };

  it('writes money amounts as decimal strings of minor units', () => {
    expect(terms.requestedRelief).toEqual({
      reliefType: 'FEE_WAIVER',
      params: { fromDate: '2026-01-01', toDate: '2026-03-31', maximumWaiverMinor: '12345' },
    });
  });

  it('hashes the canonical terms: key order does not matter, every term does', () => {
    const hash = hardshipOfferTermsHash(terms);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(terms).reverse()) as typeof terms;
    expect(hardshipOfferTermsHash(reordered)).toBe(hash);
    expect(hardshipOfferTermsHash({ ...terms, guardrailsVersion: 3 })).not.toBe(hash);
    expect(
      hardshipOfferTermsHash({
        ...terms,
        requestedRelief: {
          ...terms.requestedRelief,
          params: { ...terms.requestedRelief.params, maximumWaiverMinor: '12346' },
        },
      }),
    ).not.toBe(hash);
  });
});
