/**
 * The servicing part of `npm run demo` (docs/processes.md P4), over HTTP as a servicing integration would:
 * on a loan boarded by the lending flow with its last installment still owed,
 * 1. a COLLECTIONS case type with custom fields (one answered at creation, one required before close) is
 *    published, a case is opened for the borrower (`customerRef`) and a form entry answers its fields;
 * 2. a promise to pay is taken; its durable process (`promise/<tenant>/<promiseId>`) watches the loan;
 * 3. the payment is recorded (record-external) → the process resolves the promise `KEPT` (effect `PROMISE_KEPT`);
 * 4. evidence is attached and an AI session produces a next-action recommendation citing it (Shape B route,
 *    no tenant header);
 * 5. the borrower withdraws SMS permission on their phone, effective now (`COMPLETED`);
 * 6. the ON_CLOSE answer is filled in (form history shows the change) and the case closes with `PROMISE_KEPT`.
 * Every call is a typed call of the client (client/). Needs the running service with workers on the `servicing` and
 * `lending` queues. Throws when a step answers other than expected (or the promise is not KEPT within 30 s).
 */
import {
  type DemoCredential,
  demoClient,
  type Exchange,
  type RequestBodyOf,
  reportingTo,
} from './http-client';
import { runLendingDemoFlow } from './lending-demo-flow';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field
type JsonBody = Record<string, any>;

export interface ServicingDemoResult {
  loanId: number;
  customerRef: string;
  caseId: number;
  entryId: number;
  promiseId: number;
  /** `promise/<tenant>/<promiseId>`: where to find the promise's process in the Temporal UI. */
  promiseWorkflowId: string;
  /** The promise after the payment (status KEPT). */
  promise: JsonBody;
  /** The AI output's 201 body `{outputId, aiSessionId, status, reviewRequired}`. */
  aiOutput: JsonBody;
  /** The consent update's 200 body `{outcome, customerRef, resourceId}`. */
  consent: JsonBody;
  /** `GET /v1/form-entries/{entryId}/history` items. */
  formHistory: JsonBody[];
  /** The case's effects, oldest first. */
  effects: JsonBody[];
}

/** Runs the servicing flow; `onExchange` sees every request and response (the demo prints them). */
export async function runServicingDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<ServicingDemoResult> {
  // A loan with eleven of its twelve installments paid in the boarded history: ACTIVE, one installment owed.
  const lending = await runLendingDemoFlow(baseUrl, credential, () => {}, { historyPayments: 11 });
  // Typed calls through the client (client/): its token cached, an Idempotency-Key of its own per mutation,
  // 429/503 and a 409 in flight retried under that key.
  const client = demoClient(
    baseUrl,
    credential,
    'servicing:read servicing:write lending:read lending:write',
    'demo.agent',
    onExchange,
  );
  const reported = reportingTo(onExchange);

  const customerId = String(lending.customerId);
  const customer = await reported(
    'GET',
    `/v1/customers/${customerId}`,
    undefined,
    200,
    client.GET('/v1/customers/{customerId}', { params: { path: { customerId } } }),
  );
  const customerRef = customer.customerRef;
  const phone = customer.contactPoints.find((cp) => cp.contactType === 'PHONE');
  if (!phone) throw new Error('the lending demo customer has no phone contact point');

  // 1. Case type, custom fields, case and form entry.
  const caseTypeCode = 'COLLECTIONS';
  const caseTypes = await reported(
    'GET',
    '/v1/servicing/admin/case-types?limit=200',
    undefined,
    200,
    client.GET('/v1/servicing/admin/case-types', { params: { query: { limit: '200' } } }),
  );
  if (!caseTypes.items.some((t) => t.caseTypeCode === caseTypeCode)) {
    const caseTypeBody = { caseTypeCode, displayName: 'Collections' };
    await reported(
      'POST',
      '/v1/servicing/admin/case-types',
      caseTypeBody,
      201,
      client.POST('/v1/servicing/admin/case-types', { body: caseTypeBody }),
    );
  }
  const fieldsBody: RequestBodyOf<'/v1/servicing/admin/case-types/{caseTypeCode}/field-definitions', 'put'> =
    {
      fieldDefinitions: {
        sections: [
          {
            key: 'contact',
            label: 'Right-party contact',
            fields: [
              { key: 'contactDate', label: 'Date of contact', type: 'DATE', requiredAt: 'ON_CREATE' },
              {
                key: 'hardshipReason',
                label: 'Reason for the missed payment',
                type: 'ENUM',
                requiredAt: 'OPTIONAL',
                options: ['JOB_LOSS', 'MEDICAL', 'OTHER'],
              },
            ],
          },
          {
            key: 'resolution',
            label: 'Resolution',
            fields: [
              {
                key: 'resolutionNote',
                label: 'How the arrears were resolved',
                type: 'TEXT',
                requiredAt: 'ON_CLOSE',
              },
            ],
          },
        ],
      },
    };
  const publication = await reported(
    'PUT',
    `/v1/servicing/admin/case-types/${caseTypeCode}/field-definitions`,
    fieldsBody,
    201,
    client.PUT('/v1/servicing/admin/case-types/{caseTypeCode}/field-definitions', {
      body: fieldsBody,
      params: { path: { caseTypeCode } },
    }),
  );
  const today = new Date().toISOString().slice(0, 10);
  const caseBody = { customerRef, caseTypeCode, summary: 'Borrower behind on the last installment' };
  const kase = await reported(
    'POST',
    '/v1/servicing/cases',
    caseBody,
    201,
    client.POST('/v1/servicing/cases', { body: caseBody }),
  );
  const caseId = kase.caseId;
  const byCase = { path: { caseId: String(caseId) } };
  const entryBody = {
    caseId,
    publicationId: publication.publicationId,
    answers: { contactDate: today, hardshipReason: 'MEDICAL' },
  };
  const entry = await reported(
    'POST',
    '/v1/form-entries',
    entryBody,
    201,
    client.POST('/v1/form-entries', { body: entryBody }),
  );
  const entryId = entry.entryId;
  const byEntry = { path: { entryId: String(entryId) } };

  // 2. Promise to pay, in two days.
  const promisedDate = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const promiseBody: RequestBodyOf<'/v1/servicing/promises', 'post'> = {
    caseId,
    loanId: lending.loanId,
    amount: '100.00',
    currency: 'USD',
    promisedDate,
    channel: 'PHONE',
  };
  const promised = await reported(
    'POST',
    '/v1/servicing/promises',
    promiseBody,
    201,
    client.POST('/v1/servicing/promises', { body: promiseBody }),
  );
  const promiseId = promised.promiseId;

  // 3. The payment arrives through the borrower's bank: recorded as external, value-dated today.
  const paymentBody: RequestBodyOf<'/v1/loans/{loanId}/payments/record-external', 'post'> = {
    amount: '100.00',
    currency: 'USD',
    effectiveDate: today,
    externalRecordRef: `PTP-${lending.runId}`,
    source: 'BANK_TRANSFER',
    rationale: 'Promised payment received by bank transfer',
  };
  await reported(
    'POST',
    `/v1/loans/${lending.loanId}/payments/record-external`,
    paymentBody,
    201,
    client.POST('/v1/loans/{loanId}/payments/record-external', {
      body: paymentBody,
      params: { path: { loanId: String(lending.loanId) } },
    }),
  );
  let promise: JsonBody = promised;
  for (let attempt = 0; promise.status !== 'KEPT'; attempt++) {
    if (attempt >= 300)
      throw new Error(`promise ${promiseId} not KEPT within 30 s: ${JSON.stringify(promise)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { data, error } = await client.GET('/v1/servicing/promises/{promiseId}', {
      params: { path: { promiseId: String(promiseId) } },
    });
    promise = data ?? error;
  }
  onExchange({
    method: 'GET',
    path: `/v1/servicing/promises/${promiseId}`,
    requestBody: undefined,
    status: 200,
    responseBody: promise,
  });

  // 4. Evidence, and an AI recommendation citing it (the token selects the tenant there; the client's
  // Service-Tenant names the same tenant, which the route accepts).
  const evidenceBody = {
    caseId,
    evidenceType: 'PAYMENT_CONFIRMATION',
    description: 'Bank transfer confirmation for the promised amount',
  };
  const evidence = await reported(
    'POST',
    '/v1/servicing/evidence',
    evidenceBody,
    201,
    client.POST('/v1/servicing/evidence', { body: evidenceBody }),
  );
  const aiSessionBody = { caseId, customerRef, purpose: 'COLLECTIONS_ASSIST' };
  const aiSession = await reported(
    'POST',
    '/v1/servicing/ai-sessions',
    aiSessionBody,
    201,
    client.POST('/v1/servicing/ai-sessions', { body: aiSessionBody }),
  );
  const outputBody: RequestBodyOf<'/v1/servicing/ai-sessions/{aiSessionId}/outputs', 'post'> = {
    type: 'next_action_recommendation',
    content: 'The promised amount was received; close the case as PROMISE_KEPT and resume regular servicing.',
    citations: [
      { fact: 'Promised payment received by bank transfer', evidenceId: String(evidence.evidenceId) },
    ],
    confidence: 'high',
  };
  const aiOutput = await reported(
    'POST',
    `/v1/servicing/ai-sessions/${aiSession.aiSessionId}/outputs`,
    outputBody,
    201,
    client.POST('/v1/servicing/ai-sessions/{aiSessionId}/outputs', {
      body: outputBody,
      params: { path: { aiSessionId: aiSession.aiSessionId } },
    }),
  );

  // 5. SMS permission withdrawn on the borrower's phone, effective now.
  const consentBody: RequestBodyOf<'/v1/servicing/cases/{caseId}/contact-consent-updates', 'post'> = {
    customerRef,
    operation: 'UPDATE_SMS_PERMISSION',
    contactPointRef: phone.contactPointRef,
    canReceiveSms: false,
    effectiveAt: new Date().toISOString(),
    reason: 'Borrower asked for calls only',
  };
  const consent = await reported(
    'POST',
    `/v1/servicing/cases/${caseId}/contact-consent-updates`,
    consentBody,
    200,
    client.POST('/v1/servicing/cases/{caseId}/contact-consent-updates', {
      body: consentBody,
      params: byCase,
    }),
  );

  // 6. The ON_CLOSE answer, then the close grounded in the kept promise.
  const answersBody = {
    answers: { resolutionNote: 'Paid the promised amount by bank transfer' },
    reason: 'Closing the case',
  };
  await reported(
    'PATCH',
    `/v1/form-entries/${entryId}`,
    answersBody,
    200,
    client.PATCH('/v1/form-entries/{entryId}', { body: answersBody, params: byEntry }),
  );
  const history = await reported(
    'GET',
    `/v1/form-entries/${entryId}/history`,
    undefined,
    200,
    client.GET('/v1/form-entries/{entryId}/history', { params: byEntry }),
  );
  const closeBody = { outcomeCode: 'PROMISE_KEPT', closureReason: 'Promise to pay kept' };
  await reported(
    'POST',
    `/v1/servicing/cases/${caseId}/close`,
    closeBody,
    200,
    client.POST('/v1/servicing/cases/{caseId}/close', { body: closeBody, params: byCase }),
  );
  const effects = await reported(
    'GET',
    `/v1/servicing/cases/${caseId}/effects?limit=100`,
    undefined,
    200,
    client.GET('/v1/servicing/cases/{caseId}/effects', { params: { ...byCase, query: { limit: '100' } } }),
  );
  return {
    loanId: lending.loanId,
    customerRef,
    caseId,
    entryId,
    promiseId,
    promiseWorkflowId: `promise/${credential.tenant}/${promiseId}`,
    promise,
    aiOutput,
    consent,
    formHistory: history.items,
    effects: effects.items,
  };
}
