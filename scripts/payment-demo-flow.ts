/**
 * The payment-intent part of `npm run demo` (issue 7; DESIGN-processes P1), over HTTP as an integrator would:
 * on a loan boarded by the lending flow with its last installment still owed, a payment intent from the
 * borrower's verified instrument (ACH, value-dated today) → SUBMITTED by its durable process → settled by the
 * sandbox simulation → POSTED to the ledger → returned R01 by the simulation → RETURNED, the posting reversed.
 * Needs a sandbox service (`SERVICE_ENVIRONMENT=sandbox`, the default) with a worker on the `lending` queue.
 * Throws when a step answers other than expected.
 */
import { clientRequest, type DemoCredential, demoClient, type Exchange } from './http-client';
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
  const session = demoClient(
    baseUrl,
    credential,
    'lending:read lending:write',
    'borrower.portal',
    onExchange,
  );
  const send = async (method: string, path: string, body: unknown, expected: number): Promise<JsonBody> => {
    // The client gives each POST its own Idempotency-Key and retries 429/503 under it.
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
  const loanPath = `/v1/loans/${lending.loanId}`;
  const totalOf = async () =>
    (await send('GET', `${loanPath}/summary`, undefined, 200)).balances.totalOutstanding as string;
  const before = await totalOf();
  const lastInstallment = (lending.schedule.periods as JsonBody[])
    .filter((p) => typeof p.period === 'number')
    .at(-1)!;
  const created = await send(
    'POST',
    `${loanPath}/payments`,
    {
      instrumentId: lending.instrumentId,
      amount: lastInstallment.totalDueForPeriod,
      currency: 'USD',
      rail: 'ACH',
      effectiveDate: new Date().toISOString().slice(0, 10),
      source: 'borrower-portal',
    },
    201,
  );
  const paymentId = created.paymentId as number;
  const paymentPath = `${loanPath}/payments/${paymentId}`;
  // The process submits it to the rail at once (value-dated today).
  for (let attempt = 0; ; attempt++) {
    const response = await clientRequest(session, 'GET', paymentPath, undefined);
    const body = (await response.json()) as JsonBody;
    if (body.status === 'SUBMITTED') {
      onExchange({
        method: 'GET',
        path: paymentPath,
        requestBody: undefined,
        status: response.status,
        responseBody: body,
      });
      break;
    }
    if (attempt >= 150)
      throw new Error(`payment ${paymentId} was not submitted within 15 s: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await send('POST', `/v1/sandbox/payments/${paymentId}/settle`, {}, 200);
  const posted = await totalOf();
  await send('POST', `/v1/sandbox/payments/${paymentId}/return`, { returnCode: 'R01' }, 200);
  const returned = await totalOf();
  const payment = await send('GET', paymentPath, undefined, 200);
  if (payment.status !== 'RETURNED')
    throw new Error(`payment ${paymentId} is ${payment.status}, not RETURNED`);
  return {
    loanId: lending.loanId,
    paymentId,
    workflowId: `payment-intent/${credential.tenant}/${paymentId}`,
    payment,
    outstanding: { before, posted, returned },
  };
}
