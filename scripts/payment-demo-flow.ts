/**
 * The payment-intent part of `npm run demo` (docs/processes.md P1), over HTTP as an integrator would,
 * with typed calls of the client (client/): on a loan boarded by the lending flow with its last installment
 * still owed, a payment intent from the borrower's verified instrument (ACH, value-dated today) → SUBMITTED by
 * its durable process → settled by the sandbox simulation → POSTED to the ledger → returned R01 by the
 * simulation → RETURNED, the posting reversed.
 * Needs a sandbox service (`SERVICE_ENVIRONMENT=sandbox`, the default) with a worker on the `lending` queue.
 * Throws when a step answers other than expected.
 */
import { type DemoCredential, demoClient, type Exchange, reportedCall } from './http-client';
import { runLendingDemoFlow } from './lending-demo-flow';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field
type JsonBody = Record<string, any>;

export interface PaymentDemoResult {
  loanId: number;
  paymentId: number;
  /** `payment-intent/<tenant>/<paymentId>`: where to find the process in the Temporal UI. */
  workflowId: string;
  /** The payment after the return, with its history. */
  payment: JsonBody;
  /** The summary's `totalOutstanding` before the intent, once posted, and once returned. */
  outstanding: { before: string; posted: string; returned: string };
}

export async function runPaymentDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<PaymentDemoResult> {
  // A loan with eleven of its twelve installments paid in the boarded history: ACTIVE, one installment owed.
  const lending = await runLendingDemoFlow(baseUrl, credential, () => {}, { historyPayments: 11 });
  // Typed calls through the client: its token cached, an Idempotency-Key per POST, 429/503 retried under it.
  const client = demoClient(baseUrl, credential, 'lending:read lending:write', 'borrower.portal', onExchange);
  const loanId = String(lending.loanId);
  const loanPath = `/v1/loans/${loanId}`;
  const totalOf = async () =>
    (
      await reportedCall(
        onExchange,
        'GET',
        `${loanPath}/summary`,
        undefined,
        200,
        client.GET('/v1/loans/{loanId}/summary', { params: { path: { loanId } } }),
      )
    ).balances.totalOutstanding;
  const before = await totalOf();
  const lastInstallment = (lending.schedule.periods as JsonBody[])
    .filter((p) => typeof p.period === 'number')
    .at(-1)!;
  const intent = {
    instrumentId: lending.instrumentId,
    amount: String(lastInstallment.totalDueForPeriod),
    currency: 'USD' as const,
    rail: 'ACH' as const,
    effectiveDate: new Date().toISOString().slice(0, 10),
    source: 'borrower-portal',
  };
  const created = await reportedCall(
    onExchange,
    'POST',
    `${loanPath}/payments`,
    intent,
    201,
    client.POST('/v1/loans/{loanId}/payments', { params: { path: { loanId } }, body: intent }),
  );
  const paymentId = String(created.paymentId);
  const paymentPath = `${loanPath}/payments/${paymentId}`;
  const readPayment = () =>
    client.GET('/v1/loans/{loanId}/payments/{paymentId}', { params: { path: { loanId, paymentId } } });
  // The process submits it to the rail at once (value-dated today).
  for (let attempt = 0; ; attempt++) {
    const { data, response } = await readPayment();
    if (data?.status === 'SUBMITTED') {
      onExchange({ method: 'GET', path: paymentPath, status: response.status, responseBody: data });
      break;
    }
    if (attempt >= 150)
      throw new Error(`payment ${paymentId} was not submitted within 15 s: ${JSON.stringify(data)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const byPayment = { params: { path: { paymentId } } };
  await reportedCall(
    onExchange,
    'POST',
    `/v1/sandbox/payments/${paymentId}/settle`,
    {},
    200,
    client.POST('/v1/sandbox/payments/{paymentId}/settle', { ...byPayment, body: {} }),
  );
  const posted = await totalOf();
  const returnBody = { returnCode: 'R01' };
  await reportedCall(
    onExchange,
    'POST',
    `/v1/sandbox/payments/${paymentId}/return`,
    returnBody,
    200,
    client.POST('/v1/sandbox/payments/{paymentId}/return', { ...byPayment, body: returnBody }),
  );
  const returned = await totalOf();
  const payment = await reportedCall(onExchange, 'GET', paymentPath, undefined, 200, readPayment());
  if (payment.status !== 'RETURNED')
    throw new Error(`payment ${paymentId} is ${payment.status}, not RETURNED`);
  return {
    loanId: lending.loanId,
    paymentId: created.paymentId,
    workflowId: `payment-intent/${credential.tenant}/${paymentId}`,
    payment,
    outstanding: { before, posted, returned },
  };
}
