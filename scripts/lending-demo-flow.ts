/**
 * The lending integrator flow over HTTP through the typed client: how a migration team boards one loan with its
 * history (docs/migrating.md "Portfolio boarding": products and charges first, then parties, the loan,
 * its funding, the payment history in date order, then verification by reading it back).
 *
 * token → charge (a flat installment fee) → loan product (COVERED_CONSUMER, APR enabled, monthly, 12 repayments,
 * declining balance, equal installments) → customer with an address and contact points → SSN → consent →
 * payment instrument (vault token) → its verification → loan (submitted and expected to disburse about a year
 * ago) → approval (freezes the Regulation Z disclosure) → the schedule read back → the funding recorded as
 * external on the disbursement date → the 12 historical payments recorded as external in date order (each the
 * installment's `totalDueForPeriod`, value-dated to its due date, source `IMPORT`) → summary, the loan with its
 * schedule and transactions, its journal entries.
 *
 * The fee is an installment fee, not a disbursement fee: charges due at disbursement are not booked by the
 * ledger (the allocation replays installments 1…n only, so a disbursement fee would never reach FEE_INCOME).
 *
 * Every call is a typed call of the client (client/), every mutation with a given `Idempotency-Key`; keys and
 * `externalRecordRef`s are letters plus short numbers (never 8 or more digits in a row, which the service refuses
 * as possible account numbers). The client retries a 429, a 503 and a 409 in flight after its `Retry-After`
 * under the same key. Used by `npm run demo` (which prints every exchange) and by test/e2e/boarding.test.ts.
 * Throws when a step answers other than expected.
 */
import { randomBytes, randomInt } from 'node:crypto';
import {
  type DemoCredential,
  demoClient,
  type Exchange,
  type RequestBodyOf,
  reportingTo,
} from './http-client';

/** What the flow boards (inputs, not answers of the service). */
export const lendingDemoTerms = {
  currency: 'USD',
  principal: '1200.00',
  /** Nominal annual rate in percent. */
  annualInterestRate: '12',
  numberOfRepayments: 12,
  /** Flat fee due with every installment. */
  installmentFee: '2.00',
} as const;

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field and checked by the caller
export type JsonBody = Record<string, any>;

export interface LendingDemoResult {
  runId: string;
  /** The made-up SSN this run sent once (never echoed back; tests check that). */
  demoSsn: string;
  chargeId: number;
  productId: number;
  customerId: number;
  identifierId: number;
  consentId: number;
  instrumentId: number;
  loanId: number;
  fundingId: number;
  paymentIds: number[];
  /** ISO date of the disbursement (= submission, approval and funding date). */
  disbursementDate: string;
  /** The 201 bodies of the 12 payments, in the order they were recorded. */
  payments: JsonBody[];
  /** `GET /v1/loans/{loanId}/summary` after the history. */
  summary: JsonBody;
  /** `GET /v1/loans/{loanId}?associations=repaymentSchedule,transactions` after the history. */
  loan: JsonBody;
  /** `loan.repaymentSchedule`. */
  schedule: JsonBody;
  /** Every line of `GET /v1/journalentries?loanId=` (all pages): `{totalFilteredRecords, pageItems}`. */
  journal: { totalFilteredRecords: number; pageItems: JsonBody[] };
}

/** `count` random lower-case letters: no digits, so no reference built from it can look like an account. */
function randomLetters(count: number): string {
  return [...randomBytes(count)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}

/** ISO date of today (UTC) minus 13 months, on day min(today's day, 28), so no due date is moved or in the future. */
export function defaultDisbursementDate(today: Date = new Date()): string {
  const day = Math.min(today.getUTCDate(), 28);
  return new Date(Date.UTC(today.getUTCFullYear() - 1, today.getUTCMonth() - 1, day))
    .toISOString()
    .slice(0, 10);
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * The installment rows (those whose `period` is a number, not the disbursement row) of a loan read with
 * `associations=repaymentSchedule` (`GET /v1/loans/{loanId}`); throws when the answer has no schedule.
 */
export function installmentsOf(loan: {
  id: number;
  repaymentSchedule?: { [key: string]: unknown };
}): JsonBody[] {
  const periods = loan.repaymentSchedule?.periods;
  if (!Array.isArray(periods)) throw new Error(`loan ${loan.id} was read without its repayment schedule`);
  return (periods as JsonBody[]).filter((p) => typeof p.period === 'number');
}

export async function runLendingDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
  options: {
    disbursementDate?: string;
    /** How many installments the boarded history pays (on their due dates), from the first; default all 12. */
    historyPayments?: number;
  } = {},
): Promise<LendingDemoResult> {
  const runId = randomLetters(10);
  const disbursementDate = options.disbursementDate ?? defaultDisbursementDate();
  const terms = lendingDemoTerms;
  const scope = 'lending:read lending:write';

  // Typed calls through the client (client/): its token cached, an Idempotency-Key per POST (given below, so
  // a rerun of a step is a replay), 429/503 and a 409 in flight retried under that key.
  const client = demoClient(baseUrl, credential, scope, 'migration.agent', onExchange);
  const reported = reportingTo(onExchange);
  const key = (what: string) => ({ header: { 'Idempotency-Key': `lend-${runId}-${what}` } });

  // 1. product mapping: the charge, then the product that attaches it
  const chargeBody: RequestBodyOf<'/v1/charges', 'post'> = {
    name: `Monthly service fee ${runId}`,
    currencyCode: terms.currency,
    amount: terms.installmentFee,
    chargeAppliesTo: 1,
    chargeTimeType: 8,
    chargeCalculationType: 1,
    chargePaymentMode: 0,
    penalty: false,
    active: true,
    locale: 'en',
  };
  const charge = await reported(
    'POST',
    '/v1/charges',
    chargeBody,
    201,
    client.POST('/v1/charges', { body: chargeBody, params: key('charge') }),
  );
  const productBody: RequestBodyOf<'/v1/loanproducts', 'post'> = {
    name: `Personal installment loan ${runId}`,
    shortName: 'PIL',
    currencyCode: terms.currency,
    digitsAfterDecimal: 2,
    inMultiplesOf: 0,
    principal: terms.principal,
    minPrincipal: '500.00',
    maxPrincipal: '25000.00',
    numberOfRepayments: terms.numberOfRepayments,
    minNumberOfRepayments: 6,
    maxNumberOfRepayments: 36,
    interestRatePerPeriod: terms.annualInterestRate,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRateFrequencyType: 3,
    interestType: 0,
    amortizationType: 1,
    interestCalculationPeriodType: 1,
    daysInYearType: 1,
    daysInMonthType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    isInterestRecalculationEnabled: false,
    charges: [{ id: charge.chargeId }],
    lmsConfig: {
      productClass: 'COVERED_CONSUMER',
      aprEnabled: true,
      aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
      aprTolerancePolicy: 'REGULAR',
      statementEnabled: true,
      statementLeadDays: 21,
    },
    locale: 'en',
  };
  const product = await reported(
    'POST',
    '/v1/loanproducts',
    productBody,
    201,
    client.POST('/v1/loanproducts', { body: productBody, params: key('product') }),
  );
  const productId = String(product.productId);
  const productRead = await reported(
    'GET',
    `/v1/loanproducts/${productId}`,
    undefined,
    200,
    client.GET('/v1/loanproducts/{productId}', { params: { path: { productId } } }),
  );
  if (productRead.configurationStatus !== 'CONFIGURED')
    throw new Error(`product ${product.productId} is ${productRead.configurationStatus}, not CONFIGURED`);

  // 2. the borrower: customer, identifier, consent, instrument and its verification
  const customerBody: RequestBodyOf<'/v1/customers', 'post'> = {
    firstName: 'Grace',
    lastName: 'Hopper',
    dateOfBirth: '1986-12-09',
    externalId: `LEGACY-CUS-${runId}`,
    addresses: [
      {
        addressType: 'HOME',
        line1: '500 Market Street',
        line2: 'Apt 4',
        city: 'San Francisco',
        region: 'CA',
        postalCode: '94105',
        countryCode: 'US',
      },
    ],
    contactPoints: [
      { contactType: 'EMAIL', value: `grace.${runId}@example.com` },
      { contactType: 'PHONE', value: '+14155552671' },
    ],
  };
  const customer = await reported(
    'POST',
    '/v1/customers',
    customerBody,
    201,
    client.POST('/v1/customers', { body: customerBody, params: key('customer') }),
  );
  const customerId = String(customer.customerId);
  const customerPath = `/v1/customers/${customerId}`;
  const byCustomer = { path: { customerId } };
  // A made-up number of a valid SSA form (area 100–599, never 000, 666 or 9xx; group not 00; serial
  // not 0000), new each run: identifiers are unique per tenant, so a rerun against the same service
  // must not reuse it.
  const [area, group, serial] = [100 + randomInt(500), 10 + randomInt(90), 1000 + randomInt(9000)];
  const demoSsn = `${area}-${group}-${serial}`;
  // onExchange is shown a masked body: a government identifier is never reported.
  const identifier = await reported(
    'POST',
    `${customerPath}/identifiers`,
    {
      identifierType: 'SSN',
      value: `***-**-${demoSsn.slice(-4)} (sent in full, not shown)`,
      issuingCountry: 'US',
    },
    201,
    client.POST('/v1/customers/{customerId}/identifiers', {
      body: { identifierType: 'SSN', value: demoSsn, issuingCountry: 'US' },
      params: { ...byCustomer, ...key('ssn') },
    }),
  );
  const consentBody = {
    consentType: 'ESIGN',
    granted: true,
    captureMethod: 'WEB_FORM',
    evidenceRef: `legacy-esign-${runId}`,
    capturedAt: `${disbursementDate}T15:00:00Z`,
  };
  const consent = await reported(
    'POST',
    `${customerPath}/consents`,
    consentBody,
    201,
    client.POST('/v1/customers/{customerId}/consents', {
      body: consentBody,
      params: { ...byCustomer, ...key('consent') },
    }),
  );
  const instrumentBody: RequestBodyOf<'/v1/customers/{customerId}/payment-instruments', 'post'> = {
    instrumentType: 'BANK_ACCOUNT',
    providerTokenRef: `tok_vault_${runId}`,
    lastFour: '6789',
  };
  const instrument = await reported(
    'POST',
    `${customerPath}/payment-instruments`,
    instrumentBody,
    201,
    client.POST('/v1/customers/{customerId}/payment-instruments', {
      body: instrumentBody,
      params: { ...byCustomer, ...key('instrument') },
    }),
  );
  const instrumentId = String(instrument.instrumentId);
  const verificationBody = {
    verificationSource: 'LEGACY_SYSTEM_MICRO_DEPOSITS',
    verifiedAt: `${disbursementDate}T16:00:00Z`,
  };
  await reported(
    'POST',
    `${customerPath}/payment-instruments/${instrumentId}/verification`,
    verificationBody,
    200,
    client.POST('/v1/customers/{customerId}/payment-instruments/{instrumentId}/verification', {
      body: verificationBody,
      params: { path: { customerId, instrumentId }, ...key('verify') },
    }),
  );

  // 3. the loan, approved as it was a year ago
  const loanBody: RequestBodyOf<'/v1/loans', 'post'> = {
    clientId: customer.customerId,
    productId: product.productId,
    loanType: 'individual',
    principal: terms.principal,
    loanTermFrequency: terms.numberOfRepayments,
    loanTermFrequencyType: 2,
    numberOfRepayments: terms.numberOfRepayments,
    repaymentEvery: 1,
    repaymentFrequencyType: 2,
    interestRatePerPeriod: terms.annualInterestRate,
    interestType: 0,
    interestCalculationPeriodType: 1,
    amortizationType: 1,
    transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
    expectedDisbursementDate: disbursementDate,
    submittedOnDate: disbursementDate,
    externalId: `LEGACY-LN-${runId}`,
    charges: [{ chargeId: charge.chargeId }],
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
  // 201 is the submitted loan (200 would be a schedule preview, asked with `command=calculateLoanSchedule`).
  if (!('loanId' in loan)) throw new Error(`POST /v1/loans answered no loanId: ${JSON.stringify(loan)}`);
  const loanId = String(loan.loanId);
  const loanPath = `/v1/loans/${loanId}`;
  const byLoan = { path: { loanId } };
  const approvalBody = {
    approvedOnDate: disbursementDate,
    approvedLoanAmount: terms.principal,
    note: 'Boarded from the legacy servicing system',
  };
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

  // 4. money history: the funding, then the payments in date order, from the authoritative schedule
  const fundingBody: RequestBodyOf<'/v1/loans/{loanId}/fundings/record-external', 'post'> = {
    amount: terms.principal,
    currency: terms.currency,
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-primary',
    externalRecordRef: `IMPORT-${runId}-FUND`,
    reason: 'Disbursed by the originating bank before migration',
    fundingDate: disbursementDate,
  };
  const funding = await reported(
    'POST',
    `${loanPath}/fundings/record-external`,
    fundingBody,
    201,
    client.POST('/v1/loans/{loanId}/fundings/record-external', {
      body: fundingBody,
      params: { ...byLoan, ...key('funding') },
    }),
  );
  const beforeHistory = await reported(
    'GET',
    `${loanPath}?associations=repaymentSchedule`,
    undefined,
    200,
    client.GET('/v1/loans/{loanId}', { params: { ...byLoan, query: { associations: 'repaymentSchedule' } } }),
  );
  const installments = installmentsOf(beforeHistory);
  const payments: JsonBody[] = [];
  for (const installment of installments.slice(0, options.historyPayments ?? installments.length)) {
    const n = two(installment.period);
    const paymentBody: RequestBodyOf<'/v1/loans/{loanId}/payments/record-external', 'post'> = {
      amount: installment.totalDueForPeriod,
      currency: terms.currency,
      effectiveDate: installment.dueDate,
      externalRecordRef: `IMPORT-${runId}-PMT-${n}`,
      source: 'IMPORT',
      rationale: `Boarded history: installment ${n} paid on its due date`,
    };
    payments.push(
      await reported(
        'POST',
        `${loanPath}/payments/record-external`,
        paymentBody,
        201,
        client.POST('/v1/loans/{loanId}/payments/record-external', {
          body: paymentBody,
          params: { ...byLoan, ...key(`pmt-${n}`) },
        }),
      ),
    );
  }

  // 5. verification: read everything back
  const summary = await reported(
    'GET',
    `${loanPath}/summary`,
    undefined,
    200,
    client.GET('/v1/loans/{loanId}/summary', { params: byLoan }),
  );
  const loanRead = await reported(
    'GET',
    `${loanPath}?associations=repaymentSchedule,transactions`,
    undefined,
    200,
    client.GET('/v1/loans/{loanId}', {
      params: { ...byLoan, query: { associations: 'repaymentSchedule,transactions' } },
    }),
  );
  if (!loanRead.repaymentSchedule) throw new Error(`GET ${loanPath} answered no repaymentSchedule`);
  const journal: LendingDemoResult['journal'] = { totalFilteredRecords: 0, pageItems: [] };
  for (let offset = 0; ; offset += 200) {
    const page = await reported(
      'GET',
      `/v1/journalentries?loanId=${loanId}&limit=200&offset=${offset}`,
      undefined,
      200,
      client.GET('/v1/journalentries', {
        params: { query: { loanId, limit: '200', offset: String(offset) } },
      }),
    );
    journal.totalFilteredRecords = page.totalFilteredRecords;
    journal.pageItems.push(...page.pageItems);
    if (page.pageItems.length < 200) break;
  }

  return {
    runId,
    demoSsn,
    chargeId: charge.chargeId,
    productId: product.productId,
    customerId: customer.customerId,
    identifierId: identifier.identifierId,
    consentId: consent.consentId,
    instrumentId: instrument.instrumentId,
    loanId: loan.loanId,
    fundingId: funding.fundingId,
    paymentIds: payments.map((p) => p.paymentId),
    disbursementDate,
    payments,
    summary,
    loan: loanRead,
    schedule: loanRead.repaymentSchedule,
    journal,
  };
}
