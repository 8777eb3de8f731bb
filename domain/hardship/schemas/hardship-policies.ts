/**
 * Request and response schemas of the hardship policy administration (docs/servicing.md "Hardship policies"; docs/processes.md P5 first bullet). Bodies are strict (an unknown field is a 400); free text is
 * `guardedText` (an identifier or account number in it is a 400, the value not echoed). Counts and hours are
 * non-negative integers (hours for offer validity and document deadlines; installments for loan age and
 * deferred payments; relief sizes in the relief's unit, domain `reliefUnitOf`). The rules that relate a program
 * to the guardrails live in domain/hardship/policy.ts.
 */
import * as v from 'valibot';
import { permissions } from '../../auth';
import { isoDate } from '../../validation/dates';
import { guardedText } from '../../validation/fields';
import { hardshipProgramStates, nativeLoanCapabilities, reliefTypes, specialistConditions } from '../policy';

const countMax = 100_000_000;
const count = (unit: string) =>
  v.pipe(
    v.number(),
    v.integer(`must be an integer (${unit}).`),
    v.minValue(0, `must not be negative (${unit}).`),
    v.maxValue(countMax, `must be at most ${countMax} (${unit}).`),
  );
const positive = (unit: string) => v.pipe(count(unit), v.minValue(1, `must be at least 1 (${unit}).`));

/** Upper-case codes such as `JOB_LOSS`, `HARDSHIP_DOCS`, `MONTHLY`: 1–64 of A–Z 0–9 _ starting with a letter. */
const codePattern = /^[A-Z][A-Z0-9_]{0,63}$/;
const code = v.pipe(v.string(), v.regex(codePattern, 'must be 1–64 of A–Z 0–9 _ starting with a letter.'));
const codeList = <T extends string>(item: v.GenericSchema<string, T>) =>
  v.pipe(
    v.array(item),
    v.maxLength(100, 'must hold at most 100 values.'),
    v.check((list) => new Set(list).size === list.length, 'must not repeat a value.'),
  );

export const programCodeParam = v.strictObject({ programCode: code });

export const hardshipGuardrailsBody = v.strictObject({
  minimumLoanAgeInstallments: count('installments'),
  maximumActiveHardshipCasesPerLoan: positive('cases'),
  requireVerifiedContactForOffer: v.boolean(),
  requireWorkflowConfirmedEvidence: v.boolean(),
  prohibitPrincipalForgiveness: v.boolean(),
  prohibitRateChange: v.boolean(),
  specialistConditions: codeList(v.picklist(specialistConditions)),
  offerValidityHoursMaximum: positive('hours'),
  documentDeadlineHoursMaximum: positive('hours'),
  maximumDeferredPayments: count('installments'),
  reevaluateOnMaterialLoanDrift: v.boolean(),
});

const grantablePermissions = permissions as readonly string[];

const programTerms = v.strictObject({
  reliefType: v.picklist(reliefTypes),
  straightThroughMaximum: count("the relief's unit"),
  humanApprovalMaximum: count("the relief's unit"),
  humanApprovalPermission: v.pipe(
    v.string(),
    v.check((p) => grantablePermissions.includes(p), 'must be a known permission name, e.g. APPROVE_LOAN.'),
  ),
  requiredEvidenceCode: code,
  offerValidityHours: positive('hours'),
  scope: v.strictObject({
    productClasses: codeList(code),
    jurisdictions: codeList(
      v.pipe(
        v.string(),
        v.regex(
          /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/,
          'must be an ISO 3166-1 alpha-2 country, or ISO 3166-2 subdivision.',
        ),
      ),
    ),
    currencies: codeList(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code.'))),
    repaymentFrequencies: codeList(code),
    requiredNativeCapability: v.picklist(
      nativeLoanCapabilities,
      `must be a native capability this engine supports: ${nativeLoanCapabilities.join(', ')}.`,
    ),
  }),
  workflow: v.strictObject({
    caseType: code,
    workflowKey: v.pipe(
      v.string(),
      v.regex(
        /^[a-z][a-z0-9-]{0,63}$/,
        'must be 1–64 of a–z 0–9 - starting with a letter, e.g. hardship-offer.',
      ),
    ),
  }),
});

export const createHardshipProgramBody = v.strictObject({
  programCode: code,
  displayName: guardedText(200),
  hardshipReasonCode: code,
  description: guardedText(2000),
  effectiveFrom: isoDate(),
  summary: programTerms,
});

export const createHardshipProgramVersionBody = v.strictObject({
  effectiveFrom: isoDate(),
  summary: programTerms,
});

export const retireHardshipProgramBody = v.strictObject({
  effectiveTo: v.optional(isoDate()),
});

const guardrailsResponse = v.object({
  guardrailVersion: v.number(),
  minimumLoanAgeInstallments: v.number(),
  maximumActiveHardshipCasesPerLoan: v.number(),
  requireVerifiedContactForOffer: v.boolean(),
  requireWorkflowConfirmedEvidence: v.boolean(),
  prohibitPrincipalForgiveness: v.boolean(),
  prohibitRateChange: v.boolean(),
  specialistConditions: v.array(v.picklist(specialistConditions)),
  offerValidityHoursMaximum: v.pipe(v.number(), v.description('hours')),
  documentDeadlineHoursMaximum: v.pipe(v.number(), v.description('hours')),
  maximumDeferredPayments: v.pipe(v.number(), v.description('installments')),
  reevaluateOnMaterialLoanDrift: v.boolean(),
});

/** The spec's `commonGuardrails`. */
export const commonGuardrailsResponse = v.object({
  version: v.number(),
  activatedAt: v.pipe(v.string(), v.description('ISO 8601 instant')),
  guardrails: guardrailsResponse,
});

/** The spec's program (overview item; also the answer of the program writes). */
export const hardshipProgramResponse = v.object({
  programCode: v.string(),
  displayName: v.string(),
  hardshipReasonCode: v.string(),
  description: v.string(),
  state: v.picklist(hardshipProgramStates),
  activeVersion: v.number(),
  effectiveFrom: v.pipe(v.string(), v.description('ISO date')),
  effectiveTo: v.nullable(v.pipe(v.string(), v.description('ISO date, inclusive'))),
  versionCount: v.number(),
  summary: v.object({
    reliefType: v.picklist(reliefTypes),
    straightThroughMaximum: v.number(),
    humanApprovalMaximum: v.number(),
    humanApprovalPermission: v.string(),
    requiredEvidenceCode: v.string(),
    offerValidityHours: v.number(),
    ruleCount: v.number(),
    scope: v.object({
      productClasses: v.array(v.string()),
      jurisdictions: v.array(v.string()),
      currencies: v.array(v.string()),
      repaymentFrequencies: v.array(v.string()),
      requiredNativeCapability: v.string(),
    }),
    workflow: v.object({ caseType: v.string(), workflowKey: v.string() }),
  }),
});

/** The spec's hardship policy overview. */
export const hardshipPolicyOverviewResponse = v.object({
  commonGuardrails: commonGuardrailsResponse,
  programs: v.array(hardshipProgramResponse),
  portfolioValid: v.boolean(),
});
