/**
 * The servicing part of `npm run demo` (issue 8; DESIGN-processes P4), over HTTP as a servicing integration would:
 * on a loan boarded by the lending flow with its last installment still owed,
 * 1. a COLLECTIONS case type with custom fields (one answered at creation, one required before close) is
 *    published, a case is opened for the borrower (`customerRef`) and a form entry answers its fields;
 * 2. a promise to pay is taken; its durable process (`promise/<tenant>/<promiseId>`) watches the loan;
 * 3. the payment is recorded (record-external) → the process resolves the promise `KEPT` (effect `PROMISE_KEPT`);
 * 4. evidence is attached and an AI session produces a next-action recommendation citing it (Shape B route,
 *    no tenant header);
 * 5. the borrower withdraws SMS permission on their phone, effective now (`COMPLETED`);
 * 6. the ON_CLOSE answer is filled in (form history shows the change) and the case closes with `PROMISE_KEPT`.
 * Needs the running service with workers on the `servicing` and `lending` queues. Throws when a step answers other
 * than expected (or the promise is not KEPT within 30 s).
 */
import { clientRequest, type DemoCredential, demoClient, type Exchange } from './http-client';
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
  const session = demoClient(
    baseUrl,
    credential,
    'servicing:read servicing:write lending:read lending:write',
    'demo.agent',
    onExchange,
  );
  const send = async (method: string, path: string, body: unknown, expected: number): Promise<JsonBody> => {
    const response = await clientRequest(session, method, path, body);
    const responseBody = (await response.json()) as JsonBody;
    onExchange({ method, path, requestBody: body, status: response.status, responseBody });
    if (response.status !== expected) {
      throw new Error(
        `${method} ${path} answered ${response.status}, expected ${expected}: ${JSON.stringify(responseBody)}`,
      );
    }
    return responseBody;
  };

  const customer = await send('GET', `/v1/customers/${lending.customerId}`, undefined, 200);
  const customerRef = customer.customerRef as string;
  const phone = (customer.contactPoints as JsonBody[]).find((cp) => cp.contactType === 'PHONE');
  if (!phone) throw new Error('the lending demo customer has no phone contact point');

  // 1. Case type, custom fields, case and form entry.
  const caseTypeCode = 'COLLECTIONS';
  const caseTypes = await send('GET', '/v1/servicing/admin/case-types?limit=200', undefined, 200);
  if (!(caseTypes.items as JsonBody[]).some((t) => t.caseTypeCode === caseTypeCode)) {
    await send('POST', '/v1/servicing/admin/case-types', { caseTypeCode, displayName: 'Collections' }, 201);
  }
  const publication = await send(
    'PUT',
    `/v1/servicing/admin/case-types/${caseTypeCode}/field-definitions`,
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
    },
    201,
  );
  const today = new Date().toISOString().slice(0, 10);
  const kase = await send(
    'POST',
    '/v1/servicing/cases',
    { customerRef, caseTypeCode, summary: 'Borrower behind on the last installment' },
    201,
  );
  const caseId = kase.caseId as number;
  const entry = await send(
    'POST',
    '/v1/form-entries',
    {
      caseId,
      publicationId: publication.publicationId,
      answers: { contactDate: today, hardshipReason: 'MEDICAL' },
    },
    201,
  );
  const entryId = entry.entryId as number;

  // 2. Promise to pay, in two days.
  const promisedDate = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const promised = await send(
    'POST',
    '/v1/servicing/promises',
    { caseId, loanId: lending.loanId, amount: '100.00', currency: 'USD', promisedDate, channel: 'PHONE' },
    201,
  );
  const promiseId = promised.promiseId as number;

  // 3. The payment arrives through the borrower's bank: recorded as external, value-dated today.
  await send(
    'POST',
    `/v1/loans/${lending.loanId}/payments/record-external`,
    {
      amount: '100.00',
      currency: 'USD',
      effectiveDate: today,
      externalRecordRef: `PTP-${lending.runId}`,
      source: 'BANK_TRANSFER',
      rationale: 'Promised payment received by bank transfer',
    },
    201,
  );
  let promise: JsonBody = promised;
  for (let attempt = 0; promise.status !== 'KEPT'; attempt++) {
    if (attempt >= 300)
      throw new Error(`promise ${promiseId} not KEPT within 30 s: ${JSON.stringify(promise)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await clientRequest(session, 'GET', `/v1/servicing/promises/${promiseId}`, undefined);
    promise = (await response.json()) as JsonBody;
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
  const evidence = await send(
    'POST',
    '/v1/servicing/evidence',
    {
      caseId,
      evidenceType: 'PAYMENT_CONFIRMATION',
      description: 'Bank transfer confirmation for the promised amount',
    },
    201,
  );
  const aiSession = await send(
    'POST',
    '/v1/servicing/ai-sessions',
    { caseId, customerRef, purpose: 'COLLECTIONS_ASSIST' },
    201,
  );
  const aiOutput = await send(
    'POST',
    `/v1/servicing/ai-sessions/${aiSession.aiSessionId}/outputs`,
    {
      type: 'next_action_recommendation',
      content:
        'The promised amount was received; close the case as PROMISE_KEPT and resume regular servicing.',
      citations: [
        { fact: 'Promised payment received by bank transfer', evidenceId: String(evidence.evidenceId) },
      ],
      confidence: 'high',
    },
    201,
  );

  // 5. SMS permission withdrawn on the borrower's phone, effective now.
  const consent = await send(
    'POST',
    `/v1/servicing/cases/${caseId}/contact-consent-updates`,
    {
      customerRef,
      operation: 'UPDATE_SMS_PERMISSION',
      contactPointRef: phone.contactPointRef,
      canReceiveSms: false,
      effectiveAt: new Date().toISOString(),
      reason: 'Borrower asked for calls only',
    },
    200,
  );

  // 6. The ON_CLOSE answer, then the close grounded in the kept promise.
  await send(
    'PATCH',
    `/v1/form-entries/${entryId}`,
    { answers: { resolutionNote: 'Paid the promised amount by bank transfer' }, reason: 'Closing the case' },
    200,
  );
  const history = await send('GET', `/v1/form-entries/${entryId}/history`, undefined, 200);
  await send(
    'POST',
    `/v1/servicing/cases/${caseId}/close`,
    { outcomeCode: 'PROMISE_KEPT', closureReason: 'Promise to pay kept' },
    200,
  );
  const effects = await send('GET', `/v1/servicing/cases/${caseId}/effects?limit=100`, undefined, 200);
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
