/**
 * The security matrix (docs/design.md §4 "Scopes and permissions"): every bearer-authenticated operation of
 * `GET /v1/openapi.json`, read from the document itself so that a new route is covered the day it is added:
 * - **tenancy**: every operation with an id in its path, called by another tenant with the owner's real ids (and a
 *   body that passes validation, so the answer is about the id), answers 404 in Shape A; afterwards every tenant
 *   table holds exactly the owner's rows it held before (a digest of each table's rows, read under the owner's
 *   row-level security), and the intruder's business tables are unchanged too;
 * - **scope**: every operation called with a token holding every scope but its own answers 403 in Shape A;
 * - **permission**: every operation called by a client holding every permission but its own (the one the document
 *   names; for hardship approve/reject, the program version's `humanApprovalPermission`) answers 403 in Shape A.
 * The 403 checks send the owner's ids and valid bodies too, and run before the digest is taken again, so "nothing
 * changed" covers them as well.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  deferralGuardrails,
  deferralProgramBody,
  deferralProgramSummary,
} from '../../scripts/hardship-bodies';
import { approvedLoan } from '../activities/ledger-fixtures';
import { stageBatch } from '../support/boarding';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  testSecrets,
  uniqueTenant,
} from '../support/context';
import { createSubscriptionFixture, newSigningSecret } from '../support/webhooks';
import {
  addEvidence,
  basic,
  type Json,
  logInteraction,
  openCase,
  openPrivacyRequest,
  tokenRequest,
} from './helpers';
import { fundedLoan, paymentInstrument, paymentTestRef } from './payment-fixtures';

const allScopes = ['servicing:read', 'servicing:write', 'lending:read', 'lending:write', 'actions:approve'];

interface Operation {
  method: string;
  /** The OpenAPI path, `{name}` placeholders. */
  path: string;
  scope: string;
  /** The fixed permission the document names, or null when it is named by a resource (hardship approvals). */
  permission: string | null;
  params: string[];
  /** A query string the operation needs (`?command=…`), or ''. */
  query: string;
}

let ctx: TestContext;
let owner: Credential;
let intruder: Credential;
let operations: Operation[];
/** The owner's resources, by the path parameter that names them. */
const ids: Record<string, string | number> = {};
/** A body that passes validation, per `METHOD path` of a mutation (absent: `{}`). */
const bodies: Record<string, unknown> = {};
/** The permission a program version names for approving its offers (fixture). */
const approvalPermission = 'APPROVE_LOAN';

const ref = (prefix: string) => paymentTestRef(prefix);
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  owner = await credentialFor(ctx, uniqueTenant('mx-own'), { scopes: allScopes });
  intruder = await credentialFor(ctx, uniqueTenant('mx-int'), { scopes: allScopes });
  const document = (await (await ctx.app.request('/v1/openapi.json')).json()) as {
    paths: Record<string, Record<string, { security?: Record<string, string[]>[]; description?: string }>>;
  };
  operations = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const scope = op.security?.find((s) => s.oauth2)?.oauth2?.[0];
      if (!scope) continue; // token endpoint, health, gateway- or voice-token-signed callbacks
      // The description ends with "Scope `<scope>`, permission `<PERMISSION>`." (api/openapi.ts `doc`).
      const permission = /Scope `[^`]+`, permission `([A-Z_]+)`/.exec(op.description ?? '')?.[1] ?? null;
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const query =
        method !== 'post'
          ? ''
          : path === '/v1/loans/{loanId}'
            ? '?command=approve'
            : path === '/v1/loans/{loanId}/charges/{loanChargeId}'
              ? '?command=waive'
              : path === '/v1/loans/{loanId}/transactions'
                ? '?command=charge-off'
                : '';
      operations.push({ method: method.toUpperCase(), path, scope, permission, params, query });
    }
  }
  // The schedule preview is the same route with its own scope and permission (api/routes/lending/loans.ts).
  operations.push({
    method: 'POST',
    path: '/v1/loans',
    scope: 'lending:read',
    permission: 'CALCULATE_LOANSCHEDULE',
    params: [],
    query: '?command=calculateLoanSchedule',
  });
  await buildOwnerResources();
}, 120_000);
afterAll(async () => ctx?.close());

/** Fails with the answer when `res` is not `status`; answers the body. */
function expectStatus(res: { status: number; body: Json }, status: number, what: string): Json {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** One of each resource kind in the owner's tenant, through the public routes where they exist. */
async function buildOwnerResources(): Promise<void> {
  const o = owner;
  const post = async (path: string, body: unknown, status = 201, headers: Record<string, string> = {}) =>
    expectStatus(await call(ctx, o, 'POST', path, body, headers), status, `POST ${path}`);

  // Servicing: case, interaction, evidence, privacy request (with its review task), documents.
  ids.caseId = await openCase(ctx, o, { summary: 'Matrix case' });
  ids.interactionId = await logInteraction(ctx, o, ids.caseId as number);
  ids.evidenceId = await addEvidence(ctx, o, ids.caseId as number);
  const privacy = await openPrivacyRequest(ctx, o);
  ids.requestId = privacy.requestId;
  ids.taskId = privacy.reviewTaskId;
  ids.documentId = (
    await post('/v1/documents', { title: 'Loan agreement', documentType: 'LOAN_AGREEMENT' })
  ).documentId;

  // A loan with history, its borrower with contact points, an instrument, a restriction, a payment intent.
  const loan = await fundedLoan(ctx, o);
  ids.loanId = loan.loanId;
  ids.customerId = loan.customerId;
  ids.instrumentId = await paymentInstrument(ctx, o, loan.customerId);
  ids.restrictionId = (
    await post(`/v1/customers/${loan.customerId}/restrictions`, {
      restrictionType: 'COMMUNICATION_HOLD',
      reason: 'Asked for no calls this week',
    })
  ).restrictionId;
  ids.paymentId = (
    await post(`/v1/loans/${loan.loanId}/payments`, {
      instrumentId: ids.instrumentId,
      amount: '1.00',
      currency: 'USD',
      rail: 'ACH',
      effectiveDate: new Date().toISOString().slice(0, 10),
      source: 'BORROWER_PORTAL',
    })
  ).paymentId;
  const customer = expectStatus(
    await call(ctx, o, 'GET', `/v1/customers/${loan.customerId}`),
    200,
    'customer',
  );
  const contact = await post('/v1/customers', {
    firstName: 'Cora',
    lastName: 'Matrix',
    contactPoints: [
      { contactType: 'EMAIL', value: 'cora.matrix@example.com' },
      { contactType: 'PHONE', value: '(415) 555-2671' },
    ],
  });
  const contactRead = expectStatus(
    await call(ctx, o, 'GET', `/v1/customers/${contact.customerId}`),
    200,
    'contact',
  );
  const phoneRef = contactRead.contactPoints.find((cp: Json) => cp.contactType === 'PHONE').contactPointRef;
  const contactCase = await openCase(ctx, o, {
    customerRef: contact.customerRef,
    summary: 'Contact preferences',
  });
  ids.updateId = (
    await post(
      `/v1/servicing/cases/${contactCase}/contact-consent-updates`,
      {
        customerRef: contact.customerRef,
        operation: 'UPDATE_SMS_PERMISSION',
        contactPointRef: phoneRef,
        canReceiveSms: false,
        effectiveAt: new Date(Date.now() - 60_000).toISOString(),
        reason: 'Customer asked to stop text messages',
      },
      200,
    )
  ).resourceId;
  // The consent update's path names its own case.
  ids.consentCaseId = contactCase;

  // Lending catalogue: a charge and a product.
  ids.chargeId = (
    await post('/v1/charges', {
      name: 'Origination fee',
      currencyCode: 'USD',
      amount: '25',
      chargeAppliesTo: 1,
      chargeTimeType: 1,
      chargeCalculationType: 1,
    })
  ).chargeId;
  ids.productId = loan.productId;
  // Delinquency configuration: a range and a bucket of it.
  ids.rangeId = (
    await post('/v1/delinquency/ranges', {
      classification: 'Matrix 1-30',
      minimumAgeDays: 1,
      maximumAgeDays: 30,
    })
  ).resourceId;
  ids.bucketId = (
    await post('/v1/delinquency/buckets', { name: 'Matrix bucket', ranges: [ids.rangeId] })
  ).resourceId;
  // A close-of-business run of an ended day (its workflow is not run here: no worker).
  ids.runId = (await post('/v1/cob/runs', { businessDate: '2025-01-01' }, 202)).runId;
  // A specified-due-date fee added to the loan (its loanChargeId).
  ids.dueDateChargeId = (
    await post('/v1/charges', {
      name: 'Snooze fee',
      currencyCode: 'USD',
      amount: '5',
      chargeAppliesTo: 1,
      chargeTimeType: 2,
      chargeCalculationType: 1,
    })
  ).chargeId;
  ids.loanChargeId = (
    await post(`/v1/loans/${loan.loanId}/charges`, {
      chargeId: ids.dueDateChargeId,
      dueDate: new Date().toISOString().slice(0, 10),
    })
  ).resourceId;

  // Statement and reconciliation exception (made by the processes' own operations: no route creates them).
  const statementLoan = await approvedLoan(ctx, o.tenant, {
    lmsConfig: {
      productClass: 'COMMERCIAL',
      aprEnabled: false,
      statementEnabled: true,
      statementLeadDays: 21,
    },
  });
  await post(`/v1/loans/${statementLoan.loanId}/fundings/record-external`, {
    amount: '300.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: ref('fund'),
    reason: 'Disbursed by the originating bank',
  });
  const statement = await ctx.activities.generateStatement({
    tenantId: o.tenant,
    loanId: statementLoan.loanId,
    dueDate: '2025-02-01',
  });
  ids.statementId = statement.statement.statementId;
  ids.statementLoanId = statementLoan.loanId;
  const exception = await ctx.activities.openReconciliationException({
    tenantId: o.tenant,
    exceptionType: 'SETTLED_NOT_POSTED',
    targetType: 'PAYMENT_INTENT',
    targetRef: ref('pay'),
    detail: {
      providerRef: `sbx-${ref('pay')}`,
      reason: 'AMOUNT_MISMATCH',
      settledAmount: '99.50',
      currency: 'USD',
    },
  });
  ids.exceptionId = exception.exception.exceptionId;

  // Merchant advance and a remittance.
  const merchant = await post('/v1/customers', { firstName: 'Mara', lastName: 'Merchant' });
  const advance = await post('/v1/merchant-advances', {
    customerId: merchant.customerId,
    advanceAmount: '10000.00',
    purchasedAmount: '12500.00',
    holdbackRate: '0.1',
    currency: 'USD',
    remittanceFrequency: 'DAILY',
  });
  ids.advanceId = advance.advanceId;
  ids.remittanceId = (
    await post(`/v1/merchant-advances/${advance.advanceId}/remittances/record-external`, {
      periodStart: '2025-03-01',
      periodEnd: '2025-03-01',
      amount: '100.00',
      externalRecordRef: ref('rem'),
      effectiveDate: '2025-03-01',
    })
  ).remittanceId;

  // Case type with published fields and a form entry.
  const caseTypeCode = `MX_${Date.now().toString(36).toUpperCase()}`;
  ids.caseTypeCode = caseTypeCode;
  await post('/v1/servicing/admin/case-types', { caseTypeCode, displayName: 'Matrix type' });
  const fieldDefinitions = {
    sections: [
      {
        key: 'applicant',
        label: 'Applicant',
        fields: [{ key: 'reason', label: 'Reason', type: 'TEXT', requiredAt: 'ON_CREATE' }],
      },
    ],
  };
  const publication = expectStatus(
    await call(ctx, o, 'PUT', `/v1/servicing/admin/case-types/${caseTypeCode}/field-definitions`, {
      fieldDefinitions,
    }),
    201,
    'publish',
  );
  const typedCase = await openCase(ctx, o, { caseTypeCode });
  ids.entryId = (
    await post('/v1/form-entries', {
      caseId: typedCase,
      publicationId: publication.publicationId,
      answers: { reason: 'Lost job' },
    })
  ).entryId;

  // Hardship: guardrails, a program, an offer on the loan (all three installments are due).
  await expectStatus(
    await call(ctx, o, 'PUT', '/v1/servicing/admin/hardship-policies/guardrails', deferralGuardrails),
    200,
    'guardrails',
  );
  const programSummary = deferralProgramSummary({ humanApprovalPermission: approvalPermission });
  ids.programCode = `MXDEFER${Date.now().toString(36).toUpperCase()}`.replace(/[0-9]/g, 'X');
  await post(
    '/v1/servicing/admin/hardship-programs',
    deferralProgramBody(ids.programCode, { humanApprovalPermission: approvalPermission }),
  );
  const hardshipCase = await openCase(ctx, o, {
    caseTypeCode: 'HARDSHIP',
    summary: 'Job loss',
    customerRef: customer.customerRef,
  });
  ids.offerId = (
    await post(
      '/v1/servicing/hardship-offers',
      {
        caseId: hardshipCase,
        loanId: loan.loanId,
        programCode: ids.programCode,
        hardshipReasonCode: 'JOB_LOSS',
        requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 2 } },
      },
      201,
      { 'service-actor': 'agent.maker' },
    )
  ).offerId;

  // Webhook subscription (written directly: the route refuses loopback receivers in production rules).
  ids.subscriptionId = await createSubscriptionFixture(ctx.db, testSecrets.dataEncryptionKey, {
    tenantId: o.tenant,
    url: 'https://receiver.example.com/hooks',
    secrets: [{ secret: newSigningSecret() }],
  });

  // Voice: a workflow version (activated) and a dispatch on it.
  const workflowId = `wf-mx-${Date.now().toString(36)}`;
  ids.workflowId = workflowId;
  ids.version = 1;
  await post(`/v1/servicing/voice-provider/control/api/v1/workflow-versions/${workflowId}`, {
    label: 'First cut',
    definition: {
      id: workflowId,
      name: 'Payment reminder',
      outbound: true,
      nodes: [
        { id: 'start', type: 'start', label: 'Start' },
        { id: 'greet', type: 'say', label: 'Greeting' },
        { id: 'bye', type: 'hangup', label: 'Goodbye' },
      ],
      edges: [
        { from: 'start', to: 'greet', on: 'next' },
        { from: 'greet', to: 'bye', on: 'next' },
      ],
    },
  });
  await post(
    `/v1/servicing/voice-provider/control/api/v1/workflow-versions/${workflowId}/1/activate`,
    undefined,
    200,
  );
  ids.dispatchId = (
    await post('/v1/servicing/voice-dispatches', {
      caseId: contactCase,
      workflowId,
      contactPointRef: phoneRef,
    })
  ).dispatchId;

  // AI session and one output.
  const aiCase = await openCase(ctx, o, { customerRef: 'cus_ai', summary: 'Call' });
  ids.aiSessionId = (
    await post('/v1/servicing/ai-sessions', {
      caseId: aiCase,
      customerRef: 'cus_ai',
      purpose: 'Assist the agent on an inbound call',
    })
  ).aiSessionId;
  const aiOutput = {
    type: 'next_action_recommendation',
    content: 'Offer a payment plan; the customer confirmed a new job starting next month.',
    citations: [],
    confidence: 'high',
  };
  ids.outputId = (await post(`/v1/servicing/ai-sessions/${ids.aiSessionId}/outputs`, aiOutput)).outputId;

  // Promise to pay and a boarding batch.
  ids.promiseId = (
    await post('/v1/servicing/promises', {
      caseId: hardshipCase,
      loanId: loan.loanId,
      amount: '10.00',
      currency: 'USD',
      promisedDate: new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10),
      channel: 'PHONE',
    })
  ).promiseId;
  ids.batchId = await stageBatch(ctx.db, o.tenant, ['{"not":"a line"}']);

  // Bodies that pass validation, for every mutation with an id in its path.
  const today = new Date().toISOString().slice(0, 10);
  Object.assign(bodies, {
    [key('post', '/v1/servicing/cases/{caseId}/close')]: { outcomeCode: 'RESOLVED', closureReason: 'Done' },
    [key('post', '/v1/servicing/cases/{caseId}/contact-consent-updates')]: {
      customerRef: contact.customerRef,
      operation: 'UPDATE_SMS_PERMISSION',
      contactPointRef: phoneRef,
      canReceiveSms: true,
      effectiveAt: new Date(Date.now() - 30_000).toISOString(),
      reason: 'Customer asked to receive texts again',
    },
    [key('post', '/v1/servicing/tasks/{taskId}/complete')]: { note: 'Reviewed' },
    [key('post', '/v1/servicing/privacy-requests/{requestId}/fulfill')]: {
      outcome: 'FULFILLED',
      outcomeReason: 'Deleted',
      evidenceIds: [ids.evidenceId],
    },
    [key('put', '/v1/servicing/documents/{documentId}')]: {
      title: 'Agreement v2',
      reason: 'Corrected title',
    },
    [key('put', '/v1/servicing/admin/case-types/{caseTypeCode}/field-definitions')]: { fieldDefinitions },
    [key('post', '/v1/servicing/admin/hardship-programs/{programCode}/versions')]: {
      effectiveFrom: '2030-01-01',
      summary: programSummary,
    },
    [key('post', '/v1/servicing/admin/hardship-programs/{programCode}/retire')]: {},
    [key('patch', '/v1/form-entries/{entryId}')]: { answers: { reason: 'Illness' }, reason: 'Corrected' },
    [key('patch', '/v1/servicing/webhook-subscriptions/{subscriptionId}')]: { description: 'renamed' },
    [key('post', '/v1/servicing/webhook-subscriptions/{subscriptionId}/rotate-secret')]: {
      overlapSeconds: 60,
    },
    [key('post', '/v1/servicing/voice-provider/control/api/v1/workflow-versions/{workflowId}')]: {
      label: 'Second cut',
      definition: {
        id: workflowId,
        name: 'Payment reminder',
        outbound: true,
        nodes: [
          { id: 'start', type: 'start', label: 'Start' },
          { id: 'bye', type: 'hangup', label: 'Goodbye' },
        ],
        edges: [{ from: 'start', to: 'bye', on: 'next' }],
      },
    },
    [key('post', '/v1/servicing/ai-sessions/{aiSessionId}/outputs')]: aiOutput,
    [key('post', '/v1/customers/{customerId}/identifiers')]: {
      identifierType: 'PASSPORT',
      value: 'XK-PASS-A',
    },
    [key('post', '/v1/customers/{customerId}/consents')]: {
      consentType: 'MARKETING_EMAIL',
      granted: true,
      captureMethod: 'WEB_FORM',
      evidenceRef: 'form-a',
      capturedAt: new Date(Date.now() - 60_000).toISOString(),
    },
    [key('post', '/v1/customers/{customerId}/payment-instruments')]: {
      instrumentType: 'BANK_ACCOUNT',
      providerTokenRef: `tok_${ref('bank').replace(/-/g, '_')}`,
      lastFour: '6789',
    },
    [key('post', '/v1/customers/{customerId}/payment-instruments/{instrumentId}/verification')]: {
      verificationSource: 'PLAID',
    },
    [key('post', '/v1/customers/{customerId}/restrictions')]: {
      restrictionType: 'COMMUNICATION_HOLD',
      reason: 'Asked for no calls',
    },
    [key('post', '/v1/customers/{customerId}/restrictions/{restrictionId}/release')]: { reason: 'Lifted' },
    [key('post', '/v1/loans/{loanId}')]: { approvedOnDate: '2025-01-01', approvedLoanAmount: '300.00' },
    [key('post', '/v1/loans/{loanId}/parties')]: { customerId: ids.customerId, role: 'GUARANTOR' },
    [key('post', '/v1/loans/{loanId}/delinquency-actions')]: {
      action: 'pause',
      startDate: '2025-02-01',
      endDate: '2025-02-10',
    },
    [key('post', '/v1/loans/{loanId}/charges')]: {
      chargeId: ids.dueDateChargeId,
      dueDate: new Date().toISOString().slice(0, 10),
    },
    [key('post', '/v1/loans/{loanId}/transactions')]: {
      transactionDate: new Date().toISOString().slice(0, 10),
      reason: 'Uncollectible',
    },
    [key('post', '/v1/loans/{loanId}/fundings/record-external')]: {
      amount: '1.00',
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: ref('fund'),
      reason: 'Disbursed',
    },
    [key('post', '/v1/loans/{loanId}/payments/record-external')]: {
      amount: '1.00',
      currency: 'USD',
      effectiveDate: '2025-02-01',
      externalRecordRef: ref('pay'),
      source: 'IMPORT',
    },
    [key('post', '/v1/loans/{loanId}/payments')]: {
      instrumentId: ids.instrumentId,
      amount: '1.00',
      currency: 'USD',
      rail: 'ACH',
      effectiveDate: today,
      source: 'BORROWER_PORTAL',
    },
    [key('post', '/v1/loans/{loanId}/payments/{paymentId}/cancel')]: { reason: 'Changed mind' },
    [key('post', '/v1/loans/{loanId}/autopay')]: {
      instrumentId: ids.instrumentId,
      authorizationRef: 'auth-a',
      rail: 'ACH',
      amountType: 'INSTALLMENT_DUE',
      daysBeforeDue: 3,
    },
    [key('post', '/v1/sandbox/payments/{paymentId}/settle')]: {},
    [key('post', '/v1/sandbox/payments/{paymentId}/return')]: { returnCode: 'R01' },
    [key('post', '/v1/sandbox/payments/{paymentId}/fail')]: { reason: 'Rail down' },
    [key('post', '/v1/merchant-advances/{advanceId}/reported-sales')]: {
      periodStart: '2025-03-02',
      periodEnd: '2025-03-02',
      amount: '500.00',
      sourceRef: ref('pos'),
    },
    [key('post', '/v1/merchant-advances/{advanceId}/remittances/record-external')]: {
      periodStart: '2025-03-02',
      periodEnd: '2025-03-02',
      amount: '50.00',
      externalRecordRef: ref('rem'),
      effectiveDate: '2025-03-02',
    },
    [key('post', '/v1/merchant-advances/{advanceId}/remittances/{remittanceId}/return')]: {
      returnCode: 'R01',
      reason: 'Returned by the bank',
    },
    [key('post', '/v1/recon-exceptions/{exceptionId}/resolve')]: {
      resolution: 'DISMISS',
      reason: 'Duplicate',
    },
  });
  // An autopay enrolment on the loan, so that its read has something to answer.
  await post(`/v1/loans/${loan.loanId}/autopay`, bodies[key('post', '/v1/loans/{loanId}/autopay')]);
}

/** The concrete path of `op` with the owner's ids (the consent update and statements name their own parents). */
function concretePath(op: Operation): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    let value = ids[name];
    if (name === 'caseId' && op.path.includes('/contact-consent-updates/')) value = ids.consentCaseId;
    if (name === 'loanId' && op.path.includes('/statements')) value = ids.statementLoanId;
    if (value === undefined) throw new Error(`no fixture for {${name}} of ${op.path}`);
    return encodeURIComponent(String(value));
  });
}

/** Operations that must be conditional (428 without `If-Match`, docs/integrating.md "The API"). */
const conditional = new Set([key('patch', '/v1/servicing/webhook-subscriptions/{subscriptionId}')]);

/**
 * Operations whose path id is a name the caller chooses for a new resource of its own tenant, not a reference:
 * another tenant using the same name creates its own (voice workflow ids, docs/servicing.md "Voice-provider control surface").
 */
const namesANewResource = new Set([
  key('post', '/v1/servicing/voice-provider/control/api/v1/workflow-versions/{workflowId}'),
]);

/** Sends `op` as `cred` with the owner's ids, its valid body and a fresh Idempotency-Key on mutations. */
async function send(op: Operation, cred: Credential) {
  const mutation = op.method !== 'GET';
  const body = mutation ? (bodies[key(op.method, op.path)] ?? {}) : undefined;
  return call(ctx, cred, op.method, `${concretePath(op)}${op.query}`, body, {
    'service-actor': 'agent.checker',
    ...(mutation ? { 'idempotency-key': ref('mx') } : {}),
    ...(conditional.has(key(op.method, op.path)) ? { 'if-match': '"1"' } : {}),
  });
}

/**
 * A digest per tenant table (every table under row-level security) of `tenant`'s rows. The platform's credential
 * tables (clients, secrets, tokens) are not under row-level security and are left out: the matrix creates clients.
 */
async function digestOf(tenant: string): Promise<Record<string, string>> {
  return withTenantTransaction(ctx.db, tenant, async (tx) => {
    const tables = (await tx.execute(
      sql`select c.table_name from information_schema.columns c
          join pg_class k on k.relname = c.table_name and k.relnamespace = 'public'::regnamespace
          where c.table_schema = 'public' and c.column_name = 'tenant_id' and k.relrowsecurity
          order by c.table_name`,
    )) as unknown as { table_name: string }[];
    const digest: Record<string, string> = {};
    for (const { table_name } of tables) {
      const [row] = (await tx.execute(
        sql.raw(
          `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${table_name}" t where t.tenant_id = '${tenant.replace(/'/g, "''")}'`,
        ),
      )) as unknown as { n: number; h: string }[];
      digest[table_name] = `${row?.n}:${row?.h}`;
    }
    return digest;
  });
}

/** What a refused request may still write: the caller's own idempotency record (see the last test). */
const bookkeeping = /^idempotency_keys$/;

describe('the security matrix over every bearer-authenticated operation of the document', () => {
  let ownerBefore: Record<string, string>;
  let intruderBefore: Record<string, string>;

  beforeAll(async () => {
    // Start intents of the fixtures' processes are marked started by the API's buffer after the requests
    // (api/start-marks.ts): written now, so the digests compare only what the matrix's requests did.
    await ctx.startMarks.flush();
    ownerBefore = await digestOf(owner.tenant);
    intruderBefore = await digestOf(intruder.tenant);
  });

  it('reads every operation: 100+, each with its scope, and every path parameter has an owner fixture', () => {
    expect(operations.length).toBeGreaterThan(100);
    for (const op of operations) expect(() => concretePath(op), op.path).not.toThrow();
    expect(ownerBefore.cases).toMatch(/^[1-9]/);
  });

  it('the fixtures are real: the owner reads every resource the matrix names (200)', async () => {
    const wrong: string[] = [];
    for (const op of operations.filter((o) => o.method === 'GET' && o.params.length > 0)) {
      const res = await ctx.app.request(`${concretePath(op)}${op.query}`, {
        headers: { authorization: `Bearer ${owner.token}`, 'service-tenant': owner.tenant },
      });
      if (res.status !== 200)
        wrong.push(`GET ${op.path} → ${res.status} ${(await res.text()).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("another tenant's id → 404 in Shape A, for every operation with an id in its path", async () => {
    const wrong: string[] = [];
    const withIds = operations.filter(
      (op) => op.params.length > 0 && !namesANewResource.has(key(op.method, op.path)),
    );
    expect(withIds.length).toBeGreaterThan(60);
    for (const op of withIds) {
      const res = await send(op, intruder);
      const shapeA = res.body && typeof res.body === 'object' && 'userMessageGlobalisationCode' in res.body;
      const problem = res.body && typeof res.body === 'object' && 'type' in res.body && 'status' in res.body;
      if (res.status !== 404 || !(shapeA || (problem && op.path.includes('/ai-sessions/'))))
        wrong.push(`${op.method} ${op.path} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a body naming another tenant's resource → 404 in Shape A, and nothing is created", async () => {
    const caseId = ids.caseId;
    const loanId = ids.loanId;
    const references: [path: string, body: Json][] = [
      [
        '/v1/servicing/interactions',
        { customerRef: 'cus_1', caseId, channel: 'EMAIL', direction: 'INBOUND', summary: 'x' },
      ],
      ['/v1/servicing/evidence', { caseId, evidenceType: 'DELETION_CONFIRMATION', description: 'x' }],
      [
        '/v1/servicing/privacy-requests',
        {
          customerRef: 'cus_1',
          requestType: 'DELETION',
          regime: 'CCPA_CPRA',
          summary: 'x',
          caseId,
          sourceInteractionId: ids.interactionId,
        },
      ],
      [
        '/v1/servicing/promises',
        { caseId, loanId, amount: '10.00', currency: 'USD', promisedDate: '2099-01-01', channel: 'PHONE' },
      ],
      ['/v1/servicing/ai-sessions', { caseId, customerRef: 'cus_ai', purpose: 'Assist' }],
      ['/v1/servicing/voice-dispatches', { caseId, workflowId: ids.workflowId, contactPointRef: 'cp_x' }],
      [
        '/v1/merchant-advances',
        {
          customerId: ids.customerId,
          advanceAmount: '100.00',
          purchasedAmount: '125.00',
          holdbackRate: '0.1',
          currency: 'USD',
          remittanceFrequency: 'DAILY',
        },
      ],
      [
        '/v1/servicing/hardship-offers',
        {
          caseId,
          loanId,
          programCode: ids.programCode,
          hardshipReasonCode: 'JOB_LOSS',
          requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 1 } },
        },
      ],
    ];
    const wrong: string[] = [];
    for (const [path, body] of references) {
      const res = await call(ctx, intruder, 'POST', path, body, {
        'idempotency-key': ref('mx'),
        'service-actor': 'agent.maker',
      });
      if (res.status !== 404)
        wrong.push(`POST ${path} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a token without the scope of an operation → 403, for every operation', async () => {
    const tokens = new Map<string, Credential>();
    for (const scope of allScopes) {
      const others = allScopes.filter((s) => s !== scope).join(' ');
      const token = expectStatus(
        await tokenRequest(ctx, {
          authorization: basic(owner.clientId, owner.clientSecret),
          body: `grant_type=client_credentials&scope=${encodeURIComponent(others)}`,
        }),
        200,
        `token without ${scope}`,
      );
      expect(token.scope.split(' ')).not.toContain(scope);
      tokens.set(scope, { ...owner, token: token.access_token });
    }
    const wrong: string[] = [];
    for (const op of operations) {
      const res = await send(op, tokens.get(op.scope)!);
      if (res.status !== 403) wrong.push(`${op.method} ${op.path} → ${res.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a client without the permission of an operation → 403, for every operation', async () => {
    const named = [...new Set(operations.map((op) => op.permission).filter((p): p is string => p !== null))];
    expect(named.length).toBeGreaterThan(50);
    const every = [...named, approvalPermission];
    const lacking = new Map<string, Credential>();
    // Permissions that also grant another's operations: RUN_COB reads runs too (api/routes/lending/cob-runs.ts).
    const alsoGrantedBy: Record<string, string[]> = { READ_COB: ['RUN_COB'] };
    const credentialLacking = async (permission: string) => {
      let cred = lacking.get(permission);
      if (!cred) {
        const withheld = [permission, ...(alsoGrantedBy[permission] ?? [])];
        cred = await credentialFor(ctx, owner.tenant, {
          scopes: allScopes,
          permissions: every.filter((p) => !withheld.includes(p)),
        });
        lacking.set(permission, cred);
      }
      return cred;
    };
    const wrong: string[] = [];
    for (const op of operations) {
      const permission = op.permission ?? approvalPermission;
      const res = await send(op, await credentialLacking(permission));
      const shapeA = res.body?.userMessageGlobalisationCode === 'error.msg.not.authorized';
      const problem = res.body?.code === 'forbidden' && op.path.includes('/ai-sessions/');
      if (res.status !== 403 || !(shapeA || problem))
        wrong.push(
          `${op.method} ${op.path} (${permission}) → ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`,
        );
    }
    expect(wrong).toEqual([]);
  });

  it("nothing changed: the owner's rows are exactly as before, and the intruder's business rows too", async () => {
    // Idempotency records are the caller's own request log: a refusal decided inside the operation (the hardship
    // approval's program-named permission) is kept for replay like any answer; none may record an accepted change.
    const kept = (await withTenantTransaction(ctx.db, owner.tenant, (tx) =>
      tx.execute(
        sql`select route_template, response_status from idempotency_keys where tenant_id = ${owner.tenant}`,
      ),
    )) as unknown as { route_template: string; response_status: number | null }[];
    expect(kept.filter((row) => row.response_status === null || row.response_status < 400)).toEqual([]);
    await ctx.startMarks.flush();
    const ownerAfter = await digestOf(owner.tenant);
    const ownerChanged = Object.keys(ownerAfter).filter(
      (table) => !bookkeeping.test(table) && ownerAfter[table] !== ownerBefore[table],
    );
    expect(ownerChanged).toEqual([]);
    expect(Object.keys(ownerAfter).sort()).toEqual(Object.keys(ownerBefore).sort());
    const intruderAfter = await digestOf(intruder.tenant);
    const changed = Object.keys(intruderAfter).filter(
      (table) => !bookkeeping.test(table) && intruderAfter[table] !== intruderBefore[table],
    );
    expect(changed).toEqual([]);
  });
});
