/**
 * Hardship assistance policies (docs/servicing.md "Hardship policies"; docs/processes.md P5 first bullet):
 * the tenant's common guardrails, the summary of a program version, and the pure rules that decide whether a
 * program version stays within the guardrails. Reused by the admin operations (refusing a program that breaks the
 * ACTIVE guardrails, computing `portfolioValid`) and later by the hardship-offer workflow.
 *
 * Units: hours for `offerValidityHours*` and `documentDeadlineHoursMaximum`; installments for
 * `minimumLoanAgeInstallments` and `maximumDeferredPayments`; relief sizes (`straightThroughMaximum`,
 * `humanApprovalMaximum`) in the relief's own unit (see `reliefUnitOf`).
 */

/** Conditions that route a hardship request to a specialist instead of an automated offer (spec values seen). */
export const specialistConditions = [
  'BANKRUPTCY',
  'LITIGATION',
  'FRAUD_INVESTIGATION',
  'DECEASED',
  'LEGAL_HOLD',
  'RECOVERY_PLACEMENT',
] as const;
export type SpecialistCondition = (typeof specialistConditions)[number];

/** Relief types of docs/processes.md P5. */
export const reliefTypes = [
  'PAYMENT_DEFERRAL',
  'FORBEARANCE',
  'REDUCED_PAYMENT',
  'FEE_WAIVER',
  'RATE_REDUCTION',
  'PRINCIPAL_FORGIVENESS',
] as const;
export type ReliefType = (typeof reliefTypes)[number];

/** Program states: ACTIVE (spec value seen) until retired. */
export const hardshipProgramStates = ['ACTIVE', 'RETIRED'] as const;
export type HardshipProgramState = (typeof hardshipProgramStates)[number];

/**
 * The unit a relief's size is counted in (docs/processes.md P5): installments for deferral, forbearance and
 * reduced payment; whole currency units for fee waiver and forgiveness; basis points for a rate reduction.
 */
export function reliefUnitOf(reliefType: ReliefType): 'INSTALLMENTS' | 'CURRENCY_UNITS' | 'BASIS_POINTS' {
  switch (reliefType) {
    case 'PAYMENT_DEFERRAL':
    case 'FORBEARANCE':
    case 'REDUCED_PAYMENT':
      return 'INSTALLMENTS';
    case 'FEE_WAIVER':
    case 'PRINCIPAL_FORGIVENESS':
      return 'CURRENCY_UNITS';
    case 'RATE_REDUCTION':
      return 'BASIS_POINTS';
  }
}

/** The guardrails as a tenant sets them (everything of the spec's `guardrails` object but `guardrailVersion`). */
export interface HardshipGuardrailSettings {
  minimumLoanAgeInstallments: number;
  maximumActiveHardshipCasesPerLoan: number;
  requireVerifiedContactForOffer: boolean;
  requireWorkflowConfirmedEvidence: boolean;
  prohibitPrincipalForgiveness: boolean;
  prohibitRateChange: boolean;
  specialistConditions: SpecialistCondition[];
  /** Hours. */
  offerValidityHoursMaximum: number;
  /** Hours. */
  documentDeadlineHoursMaximum: number;
  /** Installments a deferral or forbearance may cover at most. */
  maximumDeferredPayments: number;
  reevaluateOnMaterialLoanDrift: boolean;
}

/** The spec's `commonGuardrails.guardrails`: the settings with `guardrailVersion` (= the guardrails version). */
export interface HardshipGuardrails extends HardshipGuardrailSettings {
  guardrailVersion: number;
}

/** Field order of the spec's guardrails object (answers rebuild it in this order). */
export function guardrailsView(version: number, settings: HardshipGuardrailSettings): HardshipGuardrails {
  return {
    guardrailVersion: version,
    minimumLoanAgeInstallments: settings.minimumLoanAgeInstallments,
    maximumActiveHardshipCasesPerLoan: settings.maximumActiveHardshipCasesPerLoan,
    requireVerifiedContactForOffer: settings.requireVerifiedContactForOffer,
    requireWorkflowConfirmedEvidence: settings.requireWorkflowConfirmedEvidence,
    prohibitPrincipalForgiveness: settings.prohibitPrincipalForgiveness,
    prohibitRateChange: settings.prohibitRateChange,
    specialistConditions: specialistConditions.filter((c) => settings.specialistConditions.includes(c)),
    offerValidityHoursMaximum: settings.offerValidityHoursMaximum,
    documentDeadlineHoursMaximum: settings.documentDeadlineHoursMaximum,
    maximumDeferredPayments: settings.maximumDeferredPayments,
    reevaluateOnMaterialLoanDrift: settings.reevaluateOnMaterialLoanDrift,
  };
}

/** Where a program applies; an empty list means any value. */
export interface HardshipProgramScope {
  productClasses: string[];
  jurisdictions: string[];
  currencies: string[];
  repaymentFrequencies: string[];
  requiredNativeCapability: string;
}

/** The case the program's offers are worked in and the process that works them. */
export interface HardshipProgramWorkflow {
  caseType: string;
  workflowKey: string;
}

/** A program version's terms as the admin sends them (the spec's `summary` without the derived `ruleCount`). */
export interface HardshipProgramTerms {
  reliefType: ReliefType;
  /** Relief size (relief's unit) up to which an offer is made without a person. */
  straightThroughMaximum: number;
  /** Relief size (relief's unit) up to which a person holding `humanApprovalPermission` may approve. */
  humanApprovalMaximum: number;
  /** A permission name of domain/auth.ts. */
  humanApprovalPermission: string;
  requiredEvidenceCode: string;
  /** Hours an offer stays open. */
  offerValidityHours: number;
  scope: HardshipProgramScope;
  workflow: HardshipProgramWorkflow;
}

/** The spec's program `summary`. */
export interface HardshipProgramSummary extends Omit<HardshipProgramTerms, 'scope' | 'workflow'> {
  ruleCount: number;
  scope: HardshipProgramScope;
  workflow: HardshipProgramWorkflow;
}

/**
 * Number of eligibility and routing rules a version applies (the spec's `ruleCount`): one per restricted scope
 * dimension (a non-empty product-class, jurisdiction, currency or repayment-frequency list, and the required
 * native capability), plus the two size bands (straight-through, human approval) and the evidence requirement.
 */
export function ruleCountOf(terms: HardshipProgramTerms): number {
  const lists = [
    terms.scope.productClasses,
    terms.scope.jurisdictions,
    terms.scope.currencies,
    terms.scope.repaymentFrequencies,
  ].filter((list) => list.length > 0).length;
  return lists + 1 + 2 + 1;
}

/** The spec's summary in its field order. */
export function programSummaryOf(terms: HardshipProgramTerms): HardshipProgramSummary {
  return {
    reliefType: terms.reliefType,
    straightThroughMaximum: terms.straightThroughMaximum,
    humanApprovalMaximum: terms.humanApprovalMaximum,
    humanApprovalPermission: terms.humanApprovalPermission,
    requiredEvidenceCode: terms.requiredEvidenceCode,
    offerValidityHours: terms.offerValidityHours,
    ruleCount: ruleCountOf(terms),
    scope: {
      productClasses: [...terms.scope.productClasses],
      jurisdictions: [...terms.scope.jurisdictions],
      currencies: [...terms.scope.currencies],
      repaymentFrequencies: [...terms.scope.repaymentFrequencies],
      requiredNativeCapability: terms.scope.requiredNativeCapability,
    },
    workflow: { caseType: terms.workflow.caseType, workflowKey: terms.workflow.workflowKey },
  };
}

/** One broken guardrail: which guardrail, which input breaks it, why. */
export interface GuardrailViolation {
  /** The guardrail's field name in the spec's `guardrails` object, e.g. `offerValidityHoursMaximum`. */
  guardrail: keyof HardshipGuardrailSettings;
  /** Dotted path of the program input that breaks it, e.g. `summary.offerValidityHours`. */
  parameterName: string;
  value: unknown;
  message: string;
}

/**
 * The native capabilities of every loan this engine services; a program's `scope.requiredNativeCapability` must be
 * one of them (docs/servicing.md "Hardship policies", Program `scope`): `SCHEDULE_RESHAPE`, the engine reshapes the loan's
 * own schedule (domain/hardship/relief.ts). Grows as the engine gains capabilities. A program that requires any
 * other capability could never make an offer (every offer would be INELIGIBLE), so the program routes refuse it
 * and the overview's `portfolioValid` is false while one stored before that rule is ACTIVE.
 */
export const nativeLoanCapabilities = ['SCHEDULE_RESHAPE'] as const;

/** A capability this engine has (`nativeLoanCapabilities`). */
export type NativeLoanCapability = (typeof nativeLoanCapabilities)[number];

/**
 * Whether a program's `requiredNativeCapability` is one this engine supports (`nativeLoanCapabilities`), or empty
 * (no capability required, as domain/hardship/offer.ts reads an empty value).
 */
export function isSupportedNativeCapability(capability: string): boolean {
  return capability === '' || (nativeLoanCapabilities as readonly string[]).includes(capability);
}

/**
 * The guardrails a program version breaks (docs/processes.md P5), empty when it satisfies them all:
 * - `offerValidityHours` above `offerValidityHoursMaximum`;
 * - a PAYMENT_DEFERRAL or FORBEARANCE whose `humanApprovalMaximum` (installments; the largest relief the program
 *   can grant) is above `maximumDeferredPayments`;
 * - PRINCIPAL_FORGIVENESS while `prohibitPrincipalForgiveness`; RATE_REDUCTION while `prohibitRateChange`.
 */
export function guardrailViolations(
  guardrails: HardshipGuardrailSettings,
  terms: Pick<HardshipProgramTerms, 'reliefType' | 'humanApprovalMaximum' | 'offerValidityHours'>,
): GuardrailViolation[] {
  const found: GuardrailViolation[] = [];
  if (terms.offerValidityHours > guardrails.offerValidityHoursMaximum) {
    found.push({
      guardrail: 'offerValidityHoursMaximum',
      parameterName: 'summary.offerValidityHours',
      value: terms.offerValidityHours,
      message: `summary.offerValidityHours ${terms.offerValidityHours} is above the guardrail offerValidityHoursMaximum (${guardrails.offerValidityHoursMaximum} hours).`,
    });
  }
  if (
    (terms.reliefType === 'PAYMENT_DEFERRAL' || terms.reliefType === 'FORBEARANCE') &&
    terms.humanApprovalMaximum > guardrails.maximumDeferredPayments
  ) {
    found.push({
      guardrail: 'maximumDeferredPayments',
      parameterName: 'summary.humanApprovalMaximum',
      value: terms.humanApprovalMaximum,
      message: `summary.humanApprovalMaximum ${terms.humanApprovalMaximum} installments of ${terms.reliefType} is above the guardrail maximumDeferredPayments (${guardrails.maximumDeferredPayments}).`,
    });
  }
  if (terms.reliefType === 'PRINCIPAL_FORGIVENESS' && guardrails.prohibitPrincipalForgiveness) {
    found.push({
      guardrail: 'prohibitPrincipalForgiveness',
      parameterName: 'summary.reliefType',
      value: terms.reliefType,
      message:
        'summary.reliefType PRINCIPAL_FORGIVENESS is prohibited by the guardrail prohibitPrincipalForgiveness.',
    });
  }
  if (terms.reliefType === 'RATE_REDUCTION' && guardrails.prohibitRateChange) {
    found.push({
      guardrail: 'prohibitRateChange',
      parameterName: 'summary.reliefType',
      value: terms.reliefType,
      message: 'summary.reliefType RATE_REDUCTION is prohibited by the guardrail prohibitRateChange.',
    });
  }
  return found;
}

/** One problem of a version's own terms (not of the guardrails). */
export interface TermsProblem {
  parameterName: string;
  value: unknown;
  message: string;
}

/**
 * Problems of a version's terms on their own: `straightThroughMaximum` must not exceed `humanApprovalMaximum`
 * (the straight-through band lies inside the approval band).
 */
export function programTermsProblems(
  terms: Pick<HardshipProgramTerms, 'straightThroughMaximum' | 'humanApprovalMaximum'>,
): TermsProblem[] {
  if (terms.straightThroughMaximum > terms.humanApprovalMaximum) {
    return [
      {
        parameterName: 'summary.straightThroughMaximum',
        value: terms.straightThroughMaximum,
        message: `summary.straightThroughMaximum ${terms.straightThroughMaximum} must not exceed summary.humanApprovalMaximum ${terms.humanApprovalMaximum}.`,
      },
    ];
  }
  return [];
}

/** A version's dates: in effect from `effectiveFrom` through `effectiveTo` (inclusive; null = open-ended). */
export interface EffectivePeriod {
  version: number;
  effectiveFrom: string;
  effectiveTo: string | null;
}

/**
 * The version in effect on `today` (ISO date): the latest version whose `effectiveFrom` is on or before today;
 * when none has started yet, the first version (the one that will). Null for no versions. `versions` in any order.
 */
export function activeVersionOn<T extends EffectivePeriod>(versions: readonly T[], today: string): T | null {
  const sorted = [...versions].sort((a, b) => a.version - b.version);
  let active: T | null = null;
  for (const v of sorted) if (v.effectiveFrom <= today) active = v;
  return active ?? sorted[0] ?? null;
}
