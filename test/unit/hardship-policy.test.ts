/**
 * The hardship guardrail rules (domain/hardship/policy.ts; docs/processes.md P5): which guardrail a
 * program version breaks, the terms' own consistency, the derived rule count and the version in effect on a day.
 */
import { describe, expect, it } from 'vitest';
import {
  activeVersionOn,
  guardrailsView,
  guardrailViolations,
  type HardshipGuardrailSettings,
  type HardshipProgramTerms,
  programSummaryOf,
  programTermsProblems,
  reliefUnitOf,
  ruleCountOf,
} from '../../domain/hardship/policy';

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
    jurisdictions: [],
    currencies: ['USD'],
    repaymentFrequencies: [],
    requiredNativeCapability: 'SCHEDULE_RESHAPE',
  },
  workflow: { caseType: 'HARDSHIP', workflowKey: 'hardship-offer' },
};

const broken = (over: Partial<HardshipProgramTerms>, rails = guardrails) =>
  guardrailViolations(rails, { ...terms, ...over }).map((v) => [v.guardrail, v.parameterName]);

describe('guardrailViolations', () => {
  it('accepts terms at the limits', () => {
    expect(guardrailViolations(guardrails, terms)).toEqual([]);
  });

  it('names offerValidityHoursMaximum when the offer stays open longer', () => {
    expect(broken({ offerValidityHours: 73 })).toEqual([
      ['offerValidityHoursMaximum', 'summary.offerValidityHours'],
    ]);
  });

  it('names maximumDeferredPayments for deferral and forbearance above it, not for other reliefs', () => {
    expect(broken({ humanApprovalMaximum: 4 })).toEqual([
      ['maximumDeferredPayments', 'summary.humanApprovalMaximum'],
    ]);
    expect(broken({ reliefType: 'FORBEARANCE', humanApprovalMaximum: 4 })).toEqual([
      ['maximumDeferredPayments', 'summary.humanApprovalMaximum'],
    ]);
    expect(broken({ reliefType: 'REDUCED_PAYMENT', humanApprovalMaximum: 12 })).toEqual([]);
    expect(broken({ reliefType: 'FEE_WAIVER', humanApprovalMaximum: 500 })).toEqual([]);
  });

  it('names the prohibitions of principal forgiveness and rate change only while they are set', () => {
    expect(broken({ reliefType: 'PRINCIPAL_FORGIVENESS', humanApprovalMaximum: 500 })).toEqual([
      ['prohibitPrincipalForgiveness', 'summary.reliefType'],
    ]);
    expect(broken({ reliefType: 'RATE_REDUCTION', humanApprovalMaximum: 200 })).toEqual([
      ['prohibitRateChange', 'summary.reliefType'],
    ]);
    const permissive = { ...guardrails, prohibitPrincipalForgiveness: false, prohibitRateChange: false };
    expect(broken({ reliefType: 'PRINCIPAL_FORGIVENESS' }, permissive)).toEqual([]);
    expect(broken({ reliefType: 'RATE_REDUCTION' }, permissive)).toEqual([]);
  });

  it('lists every broken guardrail at once', () => {
    expect(broken({ offerValidityHours: 100, humanApprovalMaximum: 9 }).map(([g]) => g)).toEqual([
      'offerValidityHoursMaximum',
      'maximumDeferredPayments',
    ]);
  });
});

describe('program terms', () => {
  it('keeps the straight-through band inside the approval band', () => {
    expect(programTermsProblems({ straightThroughMaximum: 3, humanApprovalMaximum: 3 })).toEqual([]);
    expect(
      programTermsProblems({ straightThroughMaximum: 4, humanApprovalMaximum: 3 }).map(
        (p) => p.parameterName,
      ),
    ).toEqual(['summary.straightThroughMaximum']);
  });

  it('counts one rule per restricted scope list, the capability, the two bands and the evidence', () => {
    expect(ruleCountOf(terms)).toBe(2 + 1 + 2 + 1);
    const open = { ...terms, scope: { ...terms.scope, productClasses: [], currencies: [] } };
    expect(ruleCountOf(open)).toBe(4);
    expect(programSummaryOf(terms)).toEqual({ ...terms, ruleCount: 6 });
    expect(Object.keys(programSummaryOf(terms))).toEqual([
      'reliefType',
      'straightThroughMaximum',
      'humanApprovalMaximum',
      'humanApprovalPermission',
      'requiredEvidenceCode',
      'offerValidityHours',
      'ruleCount',
      'scope',
      'workflow',
    ]);
  });

  it('counts each relief in its own unit', () => {
    expect(reliefUnitOf('PAYMENT_DEFERRAL')).toBe('INSTALLMENTS');
    expect(reliefUnitOf('REDUCED_PAYMENT')).toBe('INSTALLMENTS');
    expect(reliefUnitOf('FEE_WAIVER')).toBe('CURRENCY_UNITS');
    expect(reliefUnitOf('PRINCIPAL_FORGIVENESS')).toBe('CURRENCY_UNITS');
    expect(reliefUnitOf('RATE_REDUCTION')).toBe('BASIS_POINTS');
  });
});

describe('guardrailsView', () => {
  it('puts guardrailVersion first and specialist conditions in the canonical order', () => {
    const view = guardrailsView(4, guardrails);
    expect(Object.keys(view)[0]).toBe('guardrailVersion');
    expect(view.guardrailVersion).toBe(4);
    expect(view.specialistConditions).toEqual(['BANKRUPTCY', 'LEGAL_HOLD']);
  });
});

describe('activeVersionOn', () => {
  const versions = [
    { version: 2, effectiveFrom: '2026-03-01', effectiveTo: null },
    { version: 1, effectiveFrom: '2026-01-01', effectiveTo: '2026-02-28' },
  ];
  it('is the latest version that has started', () => {
    expect(activeVersionOn(versions, '2026-02-28')?.version).toBe(1);
    expect(activeVersionOn(versions, '2026-03-01')?.version).toBe(2);
  });
  it('is version 1 before any has started, null without versions', () => {
    expect(activeVersionOn(versions, '2025-12-31')?.version).toBe(1);
    expect(activeVersionOn([], '2026-01-01')).toBeNull();
  });
});
