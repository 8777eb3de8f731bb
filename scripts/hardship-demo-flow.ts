/**
 * The hardship part of `npm run demo` (docs/processes.md P5), over HTTP as a servicer would do it:
 * 1. a delinquent loan: boarded by the lending flow about four months ago with only its first payment recorded,
 *    so installments are past due and eight are still ahead;
 * 2. the admin sets the common guardrails (a new version) and publishes a deferral program (up to 1 installment
 *    straight through, up to 3 with a second person's approval holding `APPROVE_HARDSHIPOFFER`; evidence
 *    `HARDSHIP_STATEMENT` due within the guardrails' document deadline);
 * 3. an agent (maker `demo.agent`) opens a HARDSHIP case for the borrower and requests a deferral of 2 installments:
 *    above the straight-through maximum → `PENDING_APPROVAL` (its process `hardship-offer/<tenant>/<offerId>`);
 * 4. a second person (`demo.supervisor`, another client with scope `actions:approve`) approves → `APPROVED`;
 * 5. the borrower accepts → `AWAITING_DOCUMENTS`; the signed statement is added as evidence → the process confirms
 *    it and applies the deferral → `APPLIED`: the loan's new schedule (version 2) has the two next installments
 *    moved to the end, the total due unchanged.
 * Every call is a typed call of the client (client/). Needs the running service with workers on the `servicing` and
 * `lending` queues. Throws when a step answers other than expected (or the offer is not APPLIED within 30 s).
 */
import { randomBytes } from 'node:crypto';
import {
  type DemoCredential,
  demoClient,
  type Exchange,
  type RequestBodyOf,
  reportingTo,
} from './http-client';
import { installmentsOf, runLendingDemoFlow } from './lending-demo-flow';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field
type JsonBody = Record<string, any>;

export interface HardshipDemoResult {
  loanId: number;
  caseId: number;
  offerId: number;
  programCode: string;
  /** `hardship-offer/<tenant>/<offerId>`: the offer's process in the Temporal UI. */
  workflowId: string;
  /** The statuses the offer went through, in order. */
  statuses: string[];
  /** The offer as read at the end (APPLIED, with its decision trail and application). */
  offer: JsonBody;
  /** Installments of the schedule before and after: `{number, dueDate, totalDue}` (totals in currency units). */
  scheduleBefore: { installmentNumber: number; dueDate: string; totalDue: string }[];
  scheduleAfter: { installmentNumber: number; dueDate: string; totalDue: string }[];
}

const letters = (n: number) => [...randomBytes(n)].map((b) => String.fromCharCode(97 + (b % 26))).join('');

/** ISO date `months` months before today (UTC), on day min(today's day, 28). */
function monthsAgo(months: number, today = new Date()): string {
  const day = Math.min(today.getUTCDate(), 28);
  return new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - months, day))
    .toISOString()
    .slice(0, 10);
}

/**
 * Runs the flow (module note). `checker` is a second client of the same tenant with scope `actions:approve` and
 * the permission `APPROVE_HARDSHIPOFFER` (the demo creates it); `onExchange` sees every request and response.
 */
export async function runHardshipDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  checker: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<HardshipDemoResult> {
  // 1. A delinquent loan: disbursed four months ago, only the first installment paid.
  const lending = await runLendingDemoFlow(baseUrl, credential, () => {}, {
    historyPayments: 1,
    disbursementDate: monthsAgo(4),
  });
  const agent = demoClient(
    baseUrl,
    credential,
    'servicing:read servicing:write lending:read lending:write',
    'demo.agent',
    onExchange,
  );
  const supervisor = demoClient(
    baseUrl,
    checker,
    'servicing:read actions:approve',
    'demo.supervisor',
    onExchange,
  );
  const reported = reportingTo(onExchange);
  const loanId = String(lending.loanId);
  const scheduleOf = async () => {
    const loan = await reported(
      'GET',
      `/v1/loans/${loanId}?associations=repaymentSchedule`,
      undefined,
      200,
      agent.GET('/v1/loans/{loanId}', {
        params: { path: { loanId }, query: { associations: 'repaymentSchedule' } },
      }),
    );
    return installmentsOf(loan).map((p) => ({
      installmentNumber: p.period,
      dueDate: p.dueDate,
      totalDue: p.totalDueForPeriod,
    }));
  };

  // 2. Guardrails and a deferral program.
  const guardrailsBody: RequestBodyOf<'/v1/servicing/admin/hardship-policies/guardrails', 'put'> = {
    minimumLoanAgeInstallments: 2,
    maximumActiveHardshipCasesPerLoan: 100,
    requireVerifiedContactForOffer: false,
    requireWorkflowConfirmedEvidence: true,
    prohibitPrincipalForgiveness: true,
    prohibitRateChange: true,
    specialistConditions: ['BANKRUPTCY', 'LITIGATION'],
    offerValidityHoursMaximum: 72,
    documentDeadlineHoursMaximum: 240,
    maximumDeferredPayments: 6,
    reevaluateOnMaterialLoanDrift: true,
  };
  await reported(
    'PUT',
    '/v1/servicing/admin/hardship-policies/guardrails',
    guardrailsBody,
    200,
    agent.PUT('/v1/servicing/admin/hardship-policies/guardrails', { body: guardrailsBody }),
  );
  const programCode = `DEFER_${letters(6).toUpperCase()}`;
  const programBody: RequestBodyOf<'/v1/servicing/admin/hardship-programs', 'post'> = {
    programCode,
    displayName: 'Job-loss payment deferral',
    hardshipReasonCode: 'JOB_LOSS',
    description: 'Up to three monthly installments moved to the end of the term.',
    effectiveFrom: '2020-01-01',
    summary: {
      reliefType: 'PAYMENT_DEFERRAL',
      straightThroughMaximum: 1,
      humanApprovalMaximum: 3,
      humanApprovalPermission: 'APPROVE_HARDSHIPOFFER',
      requiredEvidenceCode: 'HARDSHIP_STATEMENT',
      offerValidityHours: 48,
      scope: {
        productClasses: [],
        jurisdictions: [],
        currencies: ['USD'],
        repaymentFrequencies: ['MONTHLY'],
        requiredNativeCapability: 'SCHEDULE_RESHAPE',
      },
      workflow: { caseType: 'HARDSHIP', workflowKey: 'hardship-offer' },
    },
  };
  await reported(
    'POST',
    '/v1/servicing/admin/hardship-programs',
    programBody,
    201,
    agent.POST('/v1/servicing/admin/hardship-programs', { body: programBody }),
  );

  // 3. The case and the request: 2 installments, above the straight-through maximum.
  const customerId = String(lending.customerId);
  const customer = await reported(
    'GET',
    `/v1/customers/${customerId}`,
    undefined,
    200,
    agent.GET('/v1/customers/{customerId}', { params: { path: { customerId } } }),
  );
  const caseBody = {
    caseTypeCode: 'HARDSHIP',
    summary: 'Lost job; asks to defer two payments',
    customerRef: customer.customerRef,
  };
  const opened = await reported(
    'POST',
    '/v1/servicing/cases',
    caseBody,
    201,
    agent.POST('/v1/servicing/cases', { body: caseBody }),
  );
  const caseId = opened.caseId;
  const scheduleBefore = await scheduleOf();
  const offerBody: RequestBodyOf<'/v1/servicing/hardship-offers', 'post'> = {
    caseId,
    loanId: lending.loanId,
    programCode,
    hardshipReasonCode: 'JOB_LOSS',
    requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 2 } },
  };
  const created = await reported(
    'POST',
    '/v1/servicing/hardship-offers',
    offerBody,
    201,
    agent.POST('/v1/servicing/hardship-offers', { body: offerBody }),
  );
  const offerId = created.offerId;
  const byOffer = { params: { path: { offerId: String(offerId) } } };
  const statuses: string[] = [created.status];
  if (created.status !== 'PENDING_APPROVAL') {
    throw new Error(`a deferral of 2 installments should need approval, got ${created.status}`);
  }

  // 4. A second person approves (maker-checker).
  const approved = await reported(
    'POST',
    `/v1/servicing/hardship-offers/${offerId}/approve`,
    undefined,
    200,
    supervisor.POST('/v1/servicing/hardship-offers/{offerId}/approve', byOffer),
  );
  statuses.push(approved.status);

  // 5. The borrower accepts; the signed statement arrives; the process applies the deferral.
  const accepted = await reported(
    'POST',
    `/v1/servicing/hardship-offers/${offerId}/accept`,
    undefined,
    200,
    agent.POST('/v1/servicing/hardship-offers/{offerId}/accept', byOffer),
  );
  statuses.push(accepted.status);
  const evidenceBody = {
    caseId,
    evidenceType: 'HARDSHIP_STATEMENT',
    description: 'Signed hardship statement with termination letter',
  };
  await reported(
    'POST',
    '/v1/servicing/evidence',
    evidenceBody,
    201,
    agent.POST('/v1/servicing/evidence', { body: evidenceBody }),
  );
  const deadline = Date.now() + 30_000;
  const readOffer = () => agent.GET('/v1/servicing/hardship-offers/{offerId}', byOffer);
  let offer: JsonBody = await reported(
    'GET',
    `/v1/servicing/hardship-offers/${offerId}`,
    undefined,
    200,
    readOffer(),
  );
  while (offer.status !== 'APPLIED' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const { data, error } = await readOffer();
    offer = data ?? error;
  }
  onExchange({
    method: 'GET',
    path: `/v1/servicing/hardship-offers/${offerId}`,
    status: 200,
    responseBody: offer,
  });
  if (offer.status !== 'APPLIED') throw new Error(`hardship offer ${offerId} is ${offer.status} after 30 s`);
  statuses.push(offer.status);
  const scheduleAfter = await scheduleOf();
  return {
    loanId: lending.loanId,
    caseId,
    offerId,
    programCode,
    workflowId: `hardship-offer/${credential.tenant}/${offerId}`,
    statuses,
    offer,
    scheduleBefore,
    scheduleAfter,
  };
}
