/**
 * Bodies of the hardship admin routes shared by the API tests that need a program to offer
 * (test/api/hardship-offers.test.ts, hardship-offer-process.test.ts, security-matrix.test.ts) and by the fault
 * benchmark's `worker-servicing` scenario (bench/fault.ts); docs/servicing.md "Hardship policies", docs/processes.md P5 §1.
 */

/**
 * `PUT /v1/servicing/admin/hardship-policies/guardrails`: loans of 2+ installments, any number of hardship cases,
 * no verified contact needed, offers valid ≤ 72 h, documents due ≤ 240 h, up to 6 deferred payments.
 */
export const deferralGuardrails = {
  minimumLoanAgeInstallments: 2,
  maximumActiveHardshipCasesPerLoan: 1000,
  requireVerifiedContactForOffer: false,
  requireWorkflowConfirmedEvidence: true,
  prohibitPrincipalForgiveness: true,
  prohibitRateChange: true,
  specialistConditions: ['BANKRUPTCY'],
  offerValidityHoursMaximum: 72,
  documentDeadlineHoursMaximum: 240,
  maximumDeferredPayments: 6,
  reevaluateOnMaterialLoanDrift: true,
};

/**
 * A deferral program version's summary: 1 installment straight through, up to 3 with the approval of
 * `humanApprovalPermission`, offers valid 48 h, USD monthly loans, evidence `requiredEvidenceCode` (`NONE`: none).
 */
export function deferralProgramSummary(
  options: { requiredEvidenceCode?: string; humanApprovalPermission?: string } = {},
) {
  return {
    reliefType: 'PAYMENT_DEFERRAL',
    straightThroughMaximum: 1,
    humanApprovalMaximum: 3,
    humanApprovalPermission: options.humanApprovalPermission ?? 'APPROVE_LOAN',
    requiredEvidenceCode: options.requiredEvidenceCode ?? 'HARDSHIP_STATEMENT',
    offerValidityHours: 48,
    scope: {
      productClasses: [],
      jurisdictions: [],
      currencies: ['USD'],
      repaymentFrequencies: ['MONTHLY'],
      requiredNativeCapability: 'SCHEDULE_RESHAPE',
    },
    workflow: { caseType: 'HARDSHIP', workflowKey: 'hardship-offer' },
  };
}

/** `POST /v1/servicing/admin/hardship-programs` of a deferral program `programCode` in effect since 2020-01-01. */
export function deferralProgramBody(
  programCode: string,
  options: { displayName?: string; requiredEvidenceCode?: string; humanApprovalPermission?: string } = {},
) {
  return {
    programCode,
    displayName: options.displayName ?? 'Deferral',
    hardshipReasonCode: 'JOB_LOSS',
    description: 'Up to three installments moved to the end of the term.',
    effectiveFrom: '2020-01-01',
    summary: deferralProgramSummary(options),
  };
}
