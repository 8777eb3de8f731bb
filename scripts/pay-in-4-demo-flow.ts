/**
 * The pay-in-4 part of `npm run demo` (docs/lending.md "Down payments", "Charges on an active loan", "NSF fee"),
 * over HTTP as an integrator would, with typed calls of the client (client/):
 *
 * two charge definitions (an NSF penalty and a snooze fee, both flat and due on a specified date) → a pay-in-4
 * product (25 % down payment repaid automatically with the funding, three installments two weeks apart, no
 * interest, the NSF penalty named by `nsfChargeId`) → a customer with a verified bank account → the loan for a
 * 400.00 purchase, approved and funded at checkout today (the funding also records the 100.00 DOWN_PAYMENT) →
 * three payment intents from the bank account (ACH), each settled by the sandbox; the second is returned R01
 * (insufficient funds), which adds the product's NSF fee to the loan dated the return day → a replacement
 * payment → a snooze fee added to the last installment at the borrower's request, then waived by an agent →
 * the loan's charges and its schedule read back.
 *
 * Needs a sandbox service (`SERVICE_ENVIRONMENT=sandbox`, the default) with a worker on the `lending` queue.
 * Throws when a step answers other than expected.
 */
import { randomBytes } from 'node:crypto';
import {
  type DemoCredential,
  demoClient,
  type Exchange,
  type RequestBodyOf,
  reportingTo,
} from './http-client';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field
type JsonBody = Record<string, any>;

/** What the flow leaves behind, for the demo's summary line and its test. */
export interface PayIn4DemoResult {
  loanId: number;
  /** The loan's status code once the flow ends, e.g. `loanStatusType.active`. */
  status: string;
  /** The down payment recorded with the funding: `{amount, externalId}`. */
  downPayment: { amount: string; externalId: string };
  /** The payment returned R01 and the NSF fee it added (`null` when none was added). */
  returned: { paymentId: number; nsfFee: { loanChargeId: number; amount: string; currency: string } | null };
  /** The snooze fee: added, then waived. */
  snoozeFee: { loanChargeId: number; amount: string; amountWaived: string; amountOutstanding: string };
  /** `GET /v1/loans/{loanId}/charges`: every charge of the loan. */
  charges: JsonBody[];
  /** The schedule's periods after the flow (disbursement row first). */
  periods: JsonBody[];
}

/** Letters only: refs and keys never carry digit runs that look like identifiers (domain/sensitive-data.ts). */
function letters(length: number): string {
  return [...randomBytes(length)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}

/** The UTC calendar date `days` days after `date` (ISO `YYYY-MM-DD`). */
function plusDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Runs the flow as `credential` (scopes `lending:read lending:write`) against `baseUrl`, reporting each request and
 * answer to `onExchange`. Money: decimal strings in USD.
 */
export async function runPayIn4DemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
): Promise<PayIn4DemoResult> {
  const client = demoClient(baseUrl, credential, 'lending:read lending:write', 'checkout.agent', onExchange);
  const reported = reportingTo(onExchange);
  const runId = letters(8);
  const key = (what: string) => ({ header: { 'Idempotency-Key': `payinfour-${runId}-${what}` } });
  const today = new Date().toISOString().slice(0, 10);

  // 1. the charge definitions: an NSF penalty and a snooze fee, each due on a date the servicer gives
  const chargeOf = (
    name: string,
    amount: string,
    penalty: boolean,
  ): RequestBodyOf<'/v1/charges', 'post'> => ({
    name: `${name} ${runId}`,
    currencyCode: 'USD',
    amount,
    chargeAppliesTo: 1,
    chargeTimeType: 2,
    chargeCalculationType: 1,
    chargePaymentMode: 0,
    penalty,
    active: true,
    locale: 'en',
  });
  const nsfBody = chargeOf('Returned payment fee', '15.00', true);
  const nsf = await reported(
    'POST',
    '/v1/charges',
    nsfBody,
    201,
    client.POST('/v1/charges', { body: nsfBody, params: key('nsf') }),
  );
  const snoozeBody = chargeOf('Snooze fee', '5.00', false);
  const snooze = await reported(
    'POST',
    '/v1/charges',
    snoozeBody,
    201,
    client.POST('/v1/charges', { body: snoozeBody, params: key('snooze') }),
  );

  // 2. the pay-in-4 product: 25 % at checkout, then three installments every 2 weeks, no interest
  const productBody: RequestBodyOf<'/v1/loanproducts', 'post'> = {
    name: `Pay in 4 ${runId}`,
    shortName: 'PIF',
    currencyCode: 'USD',
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    principal: '400.00',
    minPrincipal: '50.00',
    maxPrincipal: '1000.00',
    numberOfRepayments: 3,
    interestRatePerPeriod: 0,
    repaymentEvery: 2,
    repaymentFrequencyType: 1,
    interestRateFrequencyType: 3,
    interestType: 1,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    daysInYearType: 1,
    daysInMonthType: 1,
    transactionProcessingStrategyCode: 'mifos-standard-strategy',
    enableDownPayment: true,
    disbursedAmountPercentageForDownPayment: '25',
    enableAutoRepaymentForDownPayment: true,
    nsfChargeId: nsf.chargeId,
    lmsConfig: { productClass: 'COMMERCIAL', aprEnabled: false, statementEnabled: false },
    locale: 'en',
  };
  const product = await reported(
    'POST',
    '/v1/loanproducts',
    productBody,
    201,
    client.POST('/v1/loanproducts', { body: productBody, params: key('product') }),
  );

  // 3. the shopper and their verified bank account
  const customerBody = { firstName: 'Mara', lastName: 'Quill', externalId: `shopper-${runId}` };
  const customer = await reported(
    'POST',
    '/v1/customers',
    customerBody,
    201,
    client.POST('/v1/customers', { body: customerBody, params: key('customer') }),
  );
  const customerId = String(customer.customerId);
  const instrumentBody: RequestBodyOf<'/v1/customers/{customerId}/payment-instruments', 'post'> = {
    instrumentType: 'BANK_ACCOUNT',
    providerTokenRef: `tok_vault_${runId}`,
    lastFour: '4321',
  };
  const instrument = await reported(
    'POST',
    `/v1/customers/${customerId}/payment-instruments`,
    instrumentBody,
    201,
    client.POST('/v1/customers/{customerId}/payment-instruments', {
      body: instrumentBody,
      params: { path: { customerId }, ...key('instrument') },
    }),
  );
  const instrumentId = String(instrument.instrumentId);
  const verificationBody = { verificationSource: 'PLAID_AUTH', verifiedAt: new Date().toISOString() };
  await reported(
    'POST',
    `/v1/customers/${customerId}/payment-instruments/${instrumentId}/verification`,
    verificationBody,
    200,
    client.POST('/v1/customers/{customerId}/payment-instruments/{instrumentId}/verification', {
      body: verificationBody,
      params: { path: { customerId, instrumentId }, ...key('verify') },
    }),
  );

  // 4. checkout: the loan, its approval and its funding (which records the down payment too)
  const loanBody: RequestBodyOf<'/v1/loans', 'post'> = {
    clientId: customer.customerId,
    productId: product.productId,
    loanType: 'individual',
    principal: '400.00',
    loanTermFrequency: 6,
    loanTermFrequencyType: 1,
    numberOfRepayments: 3,
    repaymentEvery: 2,
    repaymentFrequencyType: 1,
    interestRatePerPeriod: 0,
    interestType: 1,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'mifos-standard-strategy',
    expectedDisbursementDate: today,
    submittedOnDate: today,
    externalId: `order-${runId}`,
    dateFormat: 'yyyy-MM-dd',
    locale: 'en',
  };
  const loan = await reported(
    'POST',
    '/v1/loans',
    loanBody,
    201,
    client.POST('/v1/loans', { body: loanBody, params: key('loan') }),
  );
  if (!('loanId' in loan)) throw new Error(`POST /v1/loans answered no loanId: ${JSON.stringify(loan)}`);
  const loanId = String(loan.loanId);
  const loanPath = `/v1/loans/${loanId}`;
  const byLoan = { path: { loanId } };
  const approvalBody = { approvedOnDate: today, approvedLoanAmount: '400.00' };
  await reported(
    'POST',
    `${loanPath}?command=approve`,
    approvalBody,
    200,
    client.POST('/v1/loans/{loanId}', {
      body: approvalBody,
      params: { ...byLoan, query: { command: 'approve' }, ...key('approve') },
    }),
  );
  const fundingRef = `checkout-${runId}`;
  const fundingBody: RequestBodyOf<'/v1/loans/{loanId}/fundings/record-external', 'post'> = {
    amount: '400.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'merchant-settlement',
    externalRecordRef: fundingRef,
    reason: 'Purchase paid to the merchant at checkout',
    fundingDate: today,
  };
  await reported(
    'POST',
    `${loanPath}/fundings/record-external`,
    fundingBody,
    201,
    client.POST('/v1/loans/{loanId}/fundings/record-external', {
      body: fundingBody,
      params: { ...byLoan, ...key('funding') },
    }),
  );
  const readLoan = async () =>
    (await reported(
      'GET',
      `${loanPath}?associations=repaymentSchedule,transactions`,
      undefined,
      200,
      client.GET('/v1/loans/{loanId}', {
        params: { path: { loanId }, query: { associations: 'repaymentSchedule,transactions' } },
      }),
    )) as JsonBody;
  const funded = await readLoan();
  const downPayment = (funded.transactions as JsonBody[]).find(
    (t) => t.type.code === 'loanTransactionType.downPayment',
  );
  if (!downPayment) throw new Error(`no down payment was recorded with the funding of loan ${loanId}`);

  // 5. three payments by ACH, each settled by the sandbox; the second comes back R01
  const pay = async (label: string, amount: string): Promise<number> => {
    const intent: RequestBodyOf<'/v1/loans/{loanId}/payments', 'post'> = {
      instrumentId: instrument.instrumentId,
      amount,
      currency: 'USD',
      rail: 'ACH',
      effectiveDate: today,
      source: 'borrower-portal',
    };
    const created = await reported(
      'POST',
      `${loanPath}/payments`,
      intent,
      201,
      client.POST('/v1/loans/{loanId}/payments', { body: intent, params: { ...byLoan, ...key(label) } }),
    );
    const paymentId = String(created.paymentId);
    // Its process submits it to the rail at once (value-dated today).
    for (let attempt = 0; ; attempt++) {
      const { data } = await client.GET('/v1/loans/{loanId}/payments/{paymentId}', {
        params: { path: { loanId, paymentId } },
      });
      if (data?.status === 'SUBMITTED') break;
      if (attempt >= 150)
        throw new Error(`payment ${paymentId} was not submitted within 15 s: ${JSON.stringify(data)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await reported(
      'POST',
      `/v1/sandbox/payments/${paymentId}/settle`,
      {},
      200,
      client.POST('/v1/sandbox/payments/{paymentId}/settle', { params: { path: { paymentId } }, body: {} }),
    );
    return created.paymentId;
  };
  await pay('first', '100.00');
  const bounced = await pay('second', '100.00');
  const returnBody = { returnCode: 'R01' };
  await reported(
    'POST',
    `/v1/sandbox/payments/${bounced}/return`,
    returnBody,
    200,
    client.POST('/v1/sandbox/payments/{paymentId}/return', {
      params: { path: { paymentId: String(bounced) } },
      body: returnBody,
    }),
  );
  const listCharges = async () =>
    (await reported(
      'GET',
      `${loanPath}/charges`,
      undefined,
      200,
      client.GET('/v1/loans/{loanId}/charges', { params: byLoan }),
    )) as JsonBody[];
  const nsfCharge = (await listCharges()).find((c) => c.chargeId === nsf.chargeId) ?? null;
  await pay('replacement', '100.00');

  // 6. a snooze fee on the last installment, agreed on the phone, then waived by an agent
  const lastDue = plusDays(today, 42);
  const snoozeChargeBody: RequestBodyOf<'/v1/loans/{loanId}/charges', 'post'> = {
    chargeId: snooze.chargeId,
    amount: '5.00',
    dueDate: lastDue,
    dateFormat: 'yyyy-MM-dd',
    locale: 'en',
  };
  const added = await reported(
    'POST',
    `${loanPath}/charges`,
    snoozeChargeBody,
    201,
    client.POST('/v1/loans/{loanId}/charges', {
      body: snoozeChargeBody,
      params: { ...byLoan, ...key('snooze-fee') },
    }),
  );
  const loanChargeId = String(added.resourceId);
  await reported(
    'POST',
    `${loanPath}/charges/${loanChargeId}?command=waive`,
    undefined,
    200,
    client.POST('/v1/loans/{loanId}/charges/{loanChargeId}', {
      params: { path: { loanId, loanChargeId }, query: { command: 'waive' }, ...key('waive') },
    }),
  );
  const charges = await listCharges();
  const snoozed = charges.find((c) => String(c.id) === loanChargeId);
  if (!snoozed) throw new Error(`loan charge ${loanChargeId} is not listed on loan ${loanId}`);
  const after = await readLoan();
  return {
    loanId: loan.loanId,
    status: after.status.code,
    downPayment: { amount: downPayment.amount, externalId: downPayment.externalId },
    returned: {
      paymentId: bounced,
      nsfFee: nsfCharge ? { loanChargeId: nsfCharge.id, amount: nsfCharge.amount, currency: 'USD' } : null,
    },
    snoozeFee: {
      loanChargeId: snoozed.id,
      amount: snoozed.amount,
      amountWaived: snoozed.amountWaived,
      amountOutstanding: snoozed.amountOutstanding,
    },
    charges,
    periods: after.repaymentSchedule.periods,
  };
}
