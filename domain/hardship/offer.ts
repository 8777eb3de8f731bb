/**
 * Hardship offer eligibility and routing (docs/processes.md P5 third bullet): given the tenant's
 * active guardrails, the program with its version in effect, facts about the loan and the requested relief, the
 * route a new offer takes. Pure and deterministic: no clock, no I/O, no float.
 *
 * Order of the rules (each documented on `routeHardshipOffer`):
 * 1. Specialist: a specialist condition the guardrails list (`guardrails.specialistConditions`) that the loan has,
 *    or an active `SCRA_MLA_PROTECTED` restriction (docs/design.md §5 Holds) → `SPECIALIST`: a person
 *    looks at the request (a specialist task), whatever else holds. Checked first, so a protected borrower is
 *    never declined by a machine.
 * 2. Eligibility: every failed rule gives one reason (all are reported, in a fixed order) → `INELIGIBLE`.
 * 3. Size of the relief in its own unit (`reliefSize` of domain/hardship/relief.ts: installments for deferral,
 *    forbearance and reduced payment; whole currency units for fee waiver and forgiveness; basis points for a
 *    rate reduction): ≤ `straightThroughMaximum` → `OFFERED`; ≤ `humanApprovalMaximum` → `PENDING_APPROVAL`;
 *    above → `REFERRED`.
 *
 * Errors: malformed relief parameters → the `DomainError` of `reliefSize` (400 `validation.msg.validation.errors.exist`
 * naming the parameter; the parameter names are prefixed `requestedRelief.` by the caller when it wishes).
 */

import canonicalize from 'canonicalize';
import { sha256Hex } from '../hash';
import type { HardshipGuardrailSettings, HardshipProgramState, HardshipProgramTerms } from './policy';
import { reliefUnitOf } from './policy';
import { type ReliefParamsByType, type ReliefType, reliefSize } from './relief';

/** A requested relief: its type and that type's parameters (domain/hardship/relief.ts). */
export type RequestedRelief = {
  [T in ReliefType]: { reliefType: T; params: ReliefParamsByType[T] };
}[ReliefType];

/** The program as an offer reads it: its code, state, reason code and the version in effect with its terms. */
export interface HardshipOfferProgram {
  programCode: string;
  state: HardshipProgramState;
  /** The hardship reason the program serves (spec program `hardshipReasonCode`). */
  hardshipReasonCode: string;
  version: number;
  terms: HardshipProgramTerms;
}

/** What the routing needs to know of the loan and its borrower, gathered by the caller at the time of the request. */
export interface HardshipLoanFacts {
  productClass: string;
  /**
   * Jurisdiction of the loan: ISO 3166-1 alpha-2 country (`US`) or ISO 3166-2 subdivision (`US-CA`). A program's
   * jurisdiction list admits the loan when it names the jurisdiction or, for a subdivision, its country.
   */
  jurisdiction: string;
  /** ISO 4217 code of the loan; money reliefs are sized in its whole units. */
  currency: string;
  /** Repayment frequency name as programs list it (e.g. `MONTHLY`). */
  repaymentFrequency: string;
  /** Native capabilities of the loan's product (the program's `requiredNativeCapability` must be among them). */
  nativeCapabilities: readonly string[];
  /** Loan age: installments whose due date has passed since the first due date (integer ≥ 0). */
  installmentsSinceFirstDue: number;
  /** Hardship cases of the loan that are not closed, the request's own case included (integer ≥ 0). */
  activeHardshipCaseCount: number;
  /** Whether the borrower has a verified contact point (phone or e-mail). */
  verifiedContactPresent: boolean;
  /** Conditions on the loan or borrower (e.g. `BANKRUPTCY`); only those the guardrails list route to a specialist. */
  conditions: readonly string[];
  /** Types of the restrictions active on the loan or borrower (docs/design.md §5 Holds). */
  activeRestrictionTypes: readonly string[];
}

/** The native capabilities of every loan this engine services (domain/hardship/policy.ts). */
export { nativeLoanCapabilities } from './policy';

/** The request: the reason the borrower gives and the relief asked for. */
export interface HardshipOfferRequest {
  hardshipReasonCode: string;
  requestedRelief: RequestedRelief;
}

/** Codes of the reasons a request is ineligible, in the order they are checked. */
export const ineligibilityReasonCodes = [
  'PROGRAM_RETIRED',
  'HARDSHIP_REASON_MISMATCH',
  'RELIEF_TYPE_MISMATCH',
  'PRODUCT_CLASS_NOT_IN_SCOPE',
  'JURISDICTION_NOT_IN_SCOPE',
  'CURRENCY_NOT_IN_SCOPE',
  'REPAYMENT_FREQUENCY_NOT_IN_SCOPE',
  'NATIVE_CAPABILITY_MISSING',
  'MINIMUM_LOAN_AGE_NOT_MET',
  'ACTIVE_HARDSHIP_CASES_ABOVE_MAXIMUM',
  'VERIFIED_CONTACT_REQUIRED',
  'PRINCIPAL_FORGIVENESS_PROHIBITED',
  'RATE_CHANGE_PROHIBITED',
  'DEFERRED_PAYMENTS_ABOVE_MAXIMUM',
] as const;
export type IneligibilityReasonCode = (typeof ineligibilityReasonCodes)[number];

/** Codes of the reasons a request goes to a specialist. */
export const specialistReasonCodes = ['SPECIALIST_CONDITION', 'SCRA_MLA_PROTECTED'] as const;
export type SpecialistReasonCode = (typeof specialistReasonCodes)[number];

/** One reason of a route: a stable code and a sentence for people. */
export interface HardshipOfferReason<C extends string = string> {
  code: C;
  message: string;
}

/** The statuses an offer starts in (docs/processes.md P5). */
export const initialHardshipOfferStatuses = [
  'INELIGIBLE',
  'SPECIALIST',
  'OFFERED',
  'PENDING_APPROVAL',
  'REFERRED',
] as const;
export type InitialHardshipOfferStatus = (typeof initialHardshipOfferStatuses)[number];

/** The route of a request. */
export type HardshipOfferRoute =
  | { status: 'INELIGIBLE'; reasons: HardshipOfferReason<IneligibilityReasonCode>[] }
  | { status: 'SPECIALIST'; reasons: HardshipOfferReason<SpecialistReasonCode>[] }
  | {
      status: 'OFFERED' | 'PENDING_APPROVAL' | 'REFERRED';
      /** Size of the relief in `reliefUnit`. */
      reliefSize: number;
      reliefUnit: 'INSTALLMENTS' | 'CURRENCY_UNITS' | 'BASIS_POINTS';
    };

/** Whether `value` is allowed by a scope list (an empty list allows any value). */
function inScope(list: readonly string[], value: string): boolean {
  return list.length === 0 || list.includes(value);
}

/** Whether a jurisdiction list admits `jurisdiction`: by name, or a subdivision (`US-CA`) by its country (`US`). */
function jurisdictionInScope(list: readonly string[], jurisdiction: string): boolean {
  return (
    inScope(list, jurisdiction) ||
    (jurisdiction.includes('-') && list.includes(jurisdiction.split('-')[0] ?? ''))
  );
}

/**
 * The name of a repayment frequency as program scopes list it, from Fineract's `repaymentEvery` and
 * `repaymentFrequencyType` (0 days, 1 weeks, 2 months, 3 years): DAILY, WEEKLY, BIWEEKLY, MONTHLY, QUARTERLY,
 * SEMIANNUALLY, ANNUALLY; any other combination `EVERY_<n>_<DAYS|WEEKS|MONTHS|YEARS>`.
 */
export function repaymentFrequencyName(repaymentEvery: number, repaymentFrequencyType: number): string {
  const named: Record<string, string> = {
    '1/0': 'DAILY',
    '1/1': 'WEEKLY',
    '2/1': 'BIWEEKLY',
    '1/2': 'MONTHLY',
    '3/2': 'QUARTERLY',
    '6/2': 'SEMIANNUALLY',
    '1/3': 'ANNUALLY',
  };
  const units =
    ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'][repaymentFrequencyType] ?? `TYPE_${repaymentFrequencyType}`;
  return named[`${repaymentEvery}/${repaymentFrequencyType}`] ?? `EVERY_${repaymentEvery}_${units}`;
}

/**
 * Routes a hardship request (docs/processes.md P5 third bullet; module note for the order).
 *
 * Specialist reasons: `SPECIALIST_CONDITION` (one per condition of `loan.conditions` that
 * `guardrails.specialistConditions` lists), `SCRA_MLA_PROTECTED` (an active restriction of that type).
 *
 * Ineligibility reasons, in this order: the program is `RETIRED`; the request's `hardshipReasonCode` is not the
 * program's; the relief type is not the version's; product class, jurisdiction, currency or repayment frequency
 * outside the version's non-empty scope lists; the version's `requiredNativeCapability` (when non-empty) not
 * among the loan's; `installmentsSinceFirstDue` below `minimumLoanAgeInstallments`; `activeHardshipCaseCount`
 * above `maximumActiveHardshipCasesPerLoan`; no verified contact while `requireVerifiedContactForOffer`;
 * principal forgiveness while `prohibitPrincipalForgiveness`; a rate reduction while `prohibitRateChange`; a
 * deferral or forbearance of more installments than `maximumDeferredPayments` (a guardrail is a hard limit, not a
 * matter for approval).
 *
 * Otherwise the size routing of the module note. Errors: the relief's parameter checks (`reliefSize`), also when
 * the request is ineligible for other reasons (a malformed request is a bad request first).
 */
export function routeHardshipOffer(
  guardrails: HardshipGuardrailSettings,
  program: HardshipOfferProgram,
  loan: HardshipLoanFacts,
  request: HardshipOfferRequest,
): HardshipOfferRoute {
  const relief = request.requestedRelief;
  const size = reliefSize(relief.reliefType, relief.params as never, loan.currency);

  const specialist: HardshipOfferReason<SpecialistReasonCode>[] = [];
  for (const condition of guardrails.specialistConditions) {
    if (loan.conditions.includes(condition)) {
      specialist.push({
        code: 'SPECIALIST_CONDITION',
        message: `The loan has the specialist condition ${condition}; a specialist handles the request.`,
      });
    }
  }
  if (loan.activeRestrictionTypes.includes('SCRA_MLA_PROTECTED')) {
    specialist.push({
      code: 'SCRA_MLA_PROTECTED',
      message:
        'The borrower is protected (active SCRA_MLA_PROTECTED restriction); a specialist handles the request.',
    });
  }
  if (specialist.length > 0) return { status: 'SPECIALIST', reasons: specialist };

  const terms = program.terms;
  const reasons: HardshipOfferReason<IneligibilityReasonCode>[] = [];
  const fail = (code: IneligibilityReasonCode, message: string) => reasons.push({ code, message });
  if (program.state === 'RETIRED') fail('PROGRAM_RETIRED', `Program ${program.programCode} is retired.`);
  if (request.hardshipReasonCode !== program.hardshipReasonCode) {
    fail(
      'HARDSHIP_REASON_MISMATCH',
      `Hardship reason ${request.hardshipReasonCode} is not the reason of program ${program.programCode} (${program.hardshipReasonCode}).`,
    );
  }
  if (relief.reliefType !== terms.reliefType) {
    fail(
      'RELIEF_TYPE_MISMATCH',
      `Relief ${relief.reliefType} is not the relief of program ${program.programCode} version ${program.version} (${terms.reliefType}).`,
    );
  }
  const scopeChecks: [IneligibilityReasonCode, string, readonly string[], string, boolean][] = [
    [
      'PRODUCT_CLASS_NOT_IN_SCOPE',
      'product class',
      terms.scope.productClasses,
      loan.productClass,
      inScope(terms.scope.productClasses, loan.productClass),
    ],
    [
      'JURISDICTION_NOT_IN_SCOPE',
      'jurisdiction',
      terms.scope.jurisdictions,
      loan.jurisdiction,
      jurisdictionInScope(terms.scope.jurisdictions, loan.jurisdiction),
    ],
    [
      'CURRENCY_NOT_IN_SCOPE',
      'currency',
      terms.scope.currencies,
      loan.currency,
      inScope(terms.scope.currencies, loan.currency),
    ],
    [
      'REPAYMENT_FREQUENCY_NOT_IN_SCOPE',
      'repayment frequency',
      terms.scope.repaymentFrequencies,
      loan.repaymentFrequency,
      inScope(terms.scope.repaymentFrequencies, loan.repaymentFrequency),
    ],
  ];
  for (const [code, label, list, value, admitted] of scopeChecks) {
    if (!admitted) {
      fail(code, `The loan's ${label} ${value || '(none)'} is not among the program's (${list.join(', ')}).`);
    }
  }
  const capability = terms.scope.requiredNativeCapability;
  if (capability !== '' && !loan.nativeCapabilities.includes(capability)) {
    fail('NATIVE_CAPABILITY_MISSING', `The loan's product lacks the native capability ${capability}.`);
  }
  if (loan.installmentsSinceFirstDue < guardrails.minimumLoanAgeInstallments) {
    fail(
      'MINIMUM_LOAN_AGE_NOT_MET',
      `The loan is ${loan.installmentsSinceFirstDue} installments old; at least ${guardrails.minimumLoanAgeInstallments} are required.`,
    );
  }
  if (loan.activeHardshipCaseCount > guardrails.maximumActiveHardshipCasesPerLoan) {
    fail(
      'ACTIVE_HARDSHIP_CASES_ABOVE_MAXIMUM',
      `The loan has ${loan.activeHardshipCaseCount} active hardship cases; at most ${guardrails.maximumActiveHardshipCasesPerLoan} are allowed.`,
    );
  }
  if (guardrails.requireVerifiedContactForOffer && !loan.verifiedContactPresent) {
    fail('VERIFIED_CONTACT_REQUIRED', 'The borrower has no verified contact; an offer requires one.');
  }
  if (relief.reliefType === 'PRINCIPAL_FORGIVENESS' && guardrails.prohibitPrincipalForgiveness) {
    fail('PRINCIPAL_FORGIVENESS_PROHIBITED', 'Principal forgiveness is prohibited by the guardrails.');
  }
  if (relief.reliefType === 'RATE_REDUCTION' && guardrails.prohibitRateChange) {
    fail('RATE_CHANGE_PROHIBITED', 'A rate change is prohibited by the guardrails.');
  }
  if (
    (relief.reliefType === 'PAYMENT_DEFERRAL' || relief.reliefType === 'FORBEARANCE') &&
    size > guardrails.maximumDeferredPayments
  ) {
    fail(
      'DEFERRED_PAYMENTS_ABOVE_MAXIMUM',
      `${size} installments of ${relief.reliefType} are above the guardrail maximumDeferredPayments (${guardrails.maximumDeferredPayments}).`,
    );
  }
  if (reasons.length > 0) return { status: 'INELIGIBLE', reasons };

  const reliefUnit = reliefUnitOf(relief.reliefType);
  if (size <= terms.straightThroughMaximum) return { status: 'OFFERED', reliefSize: size, reliefUnit };
  if (size <= terms.humanApprovalMaximum) return { status: 'PENDING_APPROVAL', reliefSize: size, reliefUnit };
  return { status: 'REFERRED', reliefSize: size, reliefUnit };
}

/**
 * Every status of an offer (docs/processes.md P5): the initial routes, then `APPROVED` / `REJECTED` (the checker's
 * decision on a PENDING_APPROVAL offer; an approved offer is open to the borrower like an OFFERED one), `EXPIRED`
 * (not accepted within `offerValidityHours`), and the acceptance statuses `AWAITING_DOCUMENTS`, `LAPSED`, `APPLIED`.
 */
export const hardshipOfferStatuses = [
  ...initialHardshipOfferStatuses,
  'APPROVED',
  'REJECTED',
  'EXPIRED',
  'AWAITING_DOCUMENTS',
  'LAPSED',
  'APPLIED',
] as const;
export type HardshipOfferStatus = (typeof hardshipOfferStatuses)[number];

/** A checker's decision (docs/servicing.md "Hardship offers"). */
export const hardshipOfferDecisions = ['APPROVED', 'REJECTED'] as const;
export type HardshipOfferDecision = (typeof hardshipOfferDecisions)[number];

/**
 * A requested relief as JSON (stored and answered): the parameters with money amounts (`…Minor`, bigint) as
 * decimal strings of minor units, everything else as is.
 */
export interface RequestedReliefJson {
  reliefType: ReliefType;
  params: Record<string, string | number>;
}

/** `relief` as JSON (`RequestedReliefJson`), keys in the parameters' own order. */
export function requestedReliefJson(relief: RequestedRelief): RequestedReliefJson {
  const params: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(relief.params)) {
    params[key] = typeof value === 'bigint' ? value.toString() : (value as string | number);
  }
  return { reliefType: relief.reliefType, params };
}

/**
 * The stored relief back as the domain's `RequestedRelief`: parameters named `…Minor` from their decimal strings
 * to bigint minor units, the rest as stored. Inverse of `requestedReliefJson` for what it wrote.
 */
export function requestedReliefOf(json: RequestedReliefJson): RequestedRelief {
  const params: Record<string, string | number | bigint> = {};
  for (const [key, value] of Object.entries(json.params)) {
    params[key] = key.endsWith('Minor') && typeof value === 'string' ? BigInt(value) : value;
  }
  return { reliefType: json.reliefType, params } as unknown as RequestedRelief;
}

/** The terms of an offer a checker decides on: what the approval record's request hash covers. */
export interface HardshipOfferTerms {
  offerId: number;
  caseId: number;
  loanId: number;
  programCode: string;
  programVersion: number;
  guardrailsVersion: number;
  hardshipReasonCode: string;
  requestedRelief: RequestedReliefJson;
}

/**
 * The request hash of an approval record (docs/servicing.md "Hardship offers"): lower-case hex SHA-256 of the RFC 8785
 * canonical JSON of the offer's terms, so the record proves which terms the checker decided on.
 */
export function hardshipOfferTermsHash(terms: HardshipOfferTerms): string {
  return sha256Hex(canonicalize(terms) ?? '');
}
