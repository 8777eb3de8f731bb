/**
 * The delinquency part of `npm run demo` (docs/lending.md "Delinquency", "Close of business", "Charge-off"), over
 * HTTP as an integrator would (docs/processes.md P7):
 *
 * a collections case type (`ARREARS`, created unless the tenant has it) → four delinquency ranges (1–30,
 * 31–90 opening an `ARREARS` case, 91–119, 120 and over) and a bucket of them → an overdue-installment penalty
 * (chargeTimeType 9, flat 10.00) → a product with the bucket, the penalty and `chargeOffDaysPastDue` 120 → loan A,
 * disbursed four months ago (backdated through the API) with two installments unpaid, and loan B, disbursed eight
 * months ago and never paid → close of business for yesterday for the two loans (`POST /v1/cob/runs` with
 * `loanIds`, polled until done) → loan A's
 * penalties, range, delinquent figures, delinquency history and its collections case; loan B charged off by the
 * run (or, when the run did not, by the charge-off command) → a payment on A covering everything overdue: since A
 * has had a close, the payment sets its tag at once (docs/lending.md "The tag between two runs"): the read's
 * `delinquent` figures are zero, `delinquencyRange` is null (NO_DELINQUENCY), a second history row dated today
 * (the loan's business date, `lastClosedBusinessDate` + 1) names the case, and the case is CLOSED with outcome
 * `CURED`; a run for yesterday limited to A (`loanIds`) then shows what a later close does with a loan whose day
 * is closed (counted processed, left alone) → a payment on B, posted as a recovery (its journal lines credit
 * `RECOVERY_INCOME`).
 *
 * `setUpDelinquencyProduct` and `createBackdatedLoan` are also what bench/cob-seed.ts seeds its templates with.
 * Needs a sandbox service with a worker on the `lending` queue (the run is a workflow). Throws when a step
 * answers other than expected; the close-of-business route missing (404) is reported in the result, not thrown.
 */
import { addDays } from '../domain/calendar';
import { defaultComplianceTimeZone } from '../domain/deadlines';
import { type ApiSession, apiRequest, type DemoCredential, type Exchange, requestToken } from './http-client';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are read field by field
type JsonBody = Record<string, any>;

/**
 * The case type of the collections range. Its own type, not the servicing flow's `COLLECTIONS` (whose form asks a
 * resolution note on close, so a cure leaves that case open for a collector): here the cure closes it `CURED`.
 */
export const collectionsCaseType = 'ARREARS';

/** What `setUpDelinquencyProduct` made: ids of the configuration and the product. */
export interface DelinquencyProduct {
  productId: number;
  penaltyChargeId: number;
  bucketId: number;
  /** The bucket's ranges in age order. */
  ranges: { id: number; classification: string; collectionsCaseTypeCode: string | null }[];
  chargeOffDaysPastDue: number;
  /** Principal of every loan made on it (decimal string, USD). */
  principal: string;
}

/**
 * One call as `session`, reported to `onExchange`; throws unless it answered one of `expected`. Answers the JSON
 * body (null when empty) and the status.
 */
async function step(
  session: ApiSession,
  onExchange: (exchange: Exchange) => void,
  method: string,
  path: string,
  body: unknown,
  expected: number[],
  key?: string,
): Promise<{ status: number; body: JsonBody }> {
  const response = await apiRequest(session, method, path, body, key);
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as JsonBody) : ({} as JsonBody);
  onExchange({ method, path, requestBody: body, status: response.status, responseBody: parsed });
  if (!expected.includes(response.status))
    throw new Error(`${method} ${path} answered ${response.status}, expected ${expected.join('/')}: ${text}`);
  return { status: response.status, body: parsed };
}

/**
 * The tenant's delinquency configuration and a product on it (module note), as `session` (scopes lending:write
 * and servicing:write; permissions to create case types, ranges, buckets, charges and products). `ref` (letters,
 * digits and dashes; never 8 digits in a row) makes names and Idempotency-Keys unique per run.
 * `chargeOffDaysPastDue` default 120 (FFIEC: closed-end retail credit charged off at 120 days past due).
 */
export async function setUpDelinquencyProduct(
  session: ApiSession,
  ref: string,
  onExchange: (exchange: Exchange) => void,
  options: { chargeOffDaysPastDue?: number } = {},
): Promise<DelinquencyProduct> {
  const key = (what: string) => `dlq-${ref}-${what}`;
  const chargeOffDaysPastDue = options.chargeOffDaysPastDue ?? 120;
  const caseTypes = await step(
    session,
    onExchange,
    'GET',
    '/v1/servicing/admin/case-types',
    undefined,
    [200],
  );
  const listed = (
    Array.isArray(caseTypes.body) ? caseTypes.body : (caseTypes.body.items ?? [])
  ) as JsonBody[];
  if (!listed.some((t) => t.caseTypeCode === collectionsCaseType))
    await step(
      session,
      onExchange,
      'POST',
      '/v1/servicing/admin/case-types',
      { caseTypeCode: collectionsCaseType, displayName: 'Arrears (opened by close of business)' },
      [201, 409],
      key('case-type'),
    );
  const rangeBodies = [
    { classification: `Early arrears 1-30 days (${ref})`, minimumAgeDays: 1, maximumAgeDays: 30 },
    {
      classification: `Collections 31-90 days (${ref})`,
      minimumAgeDays: 31,
      maximumAgeDays: 90,
      collectionsCaseTypeCode: collectionsCaseType,
    },
    { classification: `Serious arrears 91-119 days (${ref})`, minimumAgeDays: 91, maximumAgeDays: 119 },
    { classification: `Charge-off 120 days and over (${ref})`, minimumAgeDays: 120, maximumAgeDays: null },
  ];
  const ranges: DelinquencyProduct['ranges'] = [];
  for (const [index, body] of rangeBodies.entries()) {
    const created = await step(
      session,
      onExchange,
      'POST',
      '/v1/delinquency/ranges',
      body,
      [201],
      key(`range-${index}`),
    );
    ranges.push({
      id: created.body.resourceId,
      classification: body.classification,
      collectionsCaseTypeCode: body.collectionsCaseTypeCode ?? null,
    });
  }
  const bucket = await step(
    session,
    onExchange,
    'POST',
    '/v1/delinquency/buckets',
    { name: `Consumer installment (${ref})`, ranges: ranges.map((r) => r.id) },
    [201],
    key('bucket'),
  );
  const penalty = await step(
    session,
    onExchange,
    'POST',
    '/v1/charges',
    {
      name: `Late payment penalty (${ref})`,
      currencyCode: 'USD',
      amount: '10.00',
      chargeAppliesTo: 1,
      chargeTimeType: 9,
      chargeCalculationType: 1,
      penalty: true,
      active: true,
      locale: 'en',
    },
    [201],
    key('penalty'),
  );
  const principal = '1200.00';
  const product = await step(
    session,
    onExchange,
    'POST',
    '/v1/loanproducts',
    {
      name: `Installment loan with collections (${ref})`,
      shortName: 'ILC',
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      inMultiplesOf: 0,
      principal,
      minPrincipal: '500.00',
      maxPrincipal: '25000.00',
      numberOfRepayments: 12,
      minNumberOfRepayments: 6,
      maxNumberOfRepayments: 36,
      interestRatePerPeriod: '12',
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
      charges: [{ id: penalty.body.chargeId }],
      delinquencyBucketId: bucket.body.resourceId,
      graceOnArrearsAgeing: 0,
      chargeOffDaysPastDue,
      lmsConfig: {
        productClass: 'COVERED_CONSUMER',
        aprEnabled: true,
        aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
        aprTolerancePolicy: 'REGULAR',
        statementEnabled: false,
      },
      locale: 'en',
    },
    [201],
    key('product'),
  );
  return {
    productId: product.body.productId,
    penaltyChargeId: penalty.body.chargeId,
    bucketId: bucket.body.resourceId,
    ranges,
    chargeOffDaysPastDue,
    principal,
  };
}

/** A loan made by `createBackdatedLoan`. */
export interface BackdatedLoan {
  loanId: number;
  customerId: number;
  /** Installments due before `today`, and how many of them the history paid. */
  dueInstallments: number;
  paidInstallments: number;
}

/**
 * A loan on `product` disbursed on `disbursementDate` (a past ISO date) through the API, as a migration would board
 * it: a customer, the loan submitted and approved on that date, the disbursement recorded as external on it, then
 * each installment due before `today` paid on its due date (recorded as external, source IMPORT) except the last
 * `behind` of them (Infinity: none paid). `ref` makes references and keys unique (letters, digits, dashes).
 * Throws when a step answers other than expected.
 */
export async function createBackdatedLoan(
  session: ApiSession,
  product: DelinquencyProduct,
  options: {
    ref: string;
    disbursementDate: string;
    today: string;
    behind: number;
    onExchange: (exchange: Exchange) => void;
  },
): Promise<BackdatedLoan> {
  const { ref, disbursementDate, today, onExchange } = options;
  const key = (what: string) => `dlq-${ref}-${what}`;
  const customer = await step(
    session,
    onExchange,
    'POST',
    '/v1/customers',
    { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-12-10', externalId: `DLQ-CUS-${ref}` },
    [201],
    key('customer'),
  );
  const loan = await step(
    session,
    onExchange,
    'POST',
    '/v1/loans',
    {
      clientId: customer.body.customerId,
      productId: product.productId,
      loanType: 'individual',
      principal: product.principal,
      loanTermFrequency: 12,
      loanTermFrequencyType: 2,
      numberOfRepayments: 12,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: '12',
      interestType: 0,
      interestCalculationPeriodType: 1,
      amortizationType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      expectedDisbursementDate: disbursementDate,
      submittedOnDate: disbursementDate,
      externalId: `DLQ-LN-${ref}`,
      dateFormat: 'yyyy-MM-dd',
      locale: 'en',
    },
    [201],
    key('loan'),
  );
  const loanId = loan.body.loanId as number;
  await step(
    session,
    onExchange,
    'POST',
    `/v1/loans/${loanId}?command=approve`,
    { approvedOnDate: disbursementDate, approvedLoanAmount: product.principal },
    [200],
    key('approve'),
  );
  await step(
    session,
    onExchange,
    'POST',
    `/v1/loans/${loanId}/fundings/record-external`,
    {
      amount: product.principal,
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: `DLQ-${ref}-FUND`,
      reason: 'Disbursed by the originating bank before migration',
      fundingDate: disbursementDate,
    },
    [201],
    key('funding'),
  );
  const read = await step(
    session,
    onExchange,
    'GET',
    `/v1/loans/${loanId}?associations=repaymentSchedule`,
    undefined,
    [200],
  );
  const periods = (read.body.repaymentSchedule?.periods ?? []) as JsonBody[];
  const due = periods.filter((p) => typeof p.period === 'number' && String(p.dueDate) < today);
  const paid = due.slice(0, Math.max(0, due.length - options.behind));
  for (const installment of paid) {
    const n = String(installment.period).padStart(2, '0');
    await step(
      session,
      onExchange,
      'POST',
      `/v1/loans/${loanId}/payments/record-external`,
      {
        amount: installment.totalDueForPeriod,
        currency: 'USD',
        effectiveDate: installment.dueDate,
        externalRecordRef: `DLQ-${ref}-PMT-${n}`,
        source: 'IMPORT',
        rationale: `Boarded history: installment ${n} paid on its due date`,
      },
      [201],
      key(`pmt-${n}`),
    );
  }
  return {
    loanId,
    customerId: customer.body.customerId,
    dueInstallments: due.length,
    paidInstallments: paid.length,
  };
}

/** ISO date of today in `timeZone` (the tenant's days; default America/Los_Angeles). */
export function tenantToday(timeZone: string = defaultComplianceTimeZone, now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

/** ISO date `months` months before `today`, on day min(today's day, 28) so no due date moves. */
export function monthsBefore(today: string, months: number): string {
  const [year, month, day] = today.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1 - months, Math.min(day, 28))).toISOString().slice(0, 10);
}

/** What the delinquency flow found, for the demo's summary lines and its test. */
export interface DelinquencyDemoResult {
  product: DelinquencyProduct;
  /** The ended day the run closed (yesterday in the tenant's time zone). */
  businessDate: string;
  /** Null when the service has no `POST /v1/cob/runs` (it answered 404): the reads below are then before any run. */
  run: JsonBody | null;
  behindLoan: {
    loanId: number;
    /** The loan's penalties (`GET /v1/loans/{loanId}/charges`, penalty true) after the run. */
    penalties: JsonBody[];
    /** `delinquencyRange` and `delinquent` of `GET /v1/loans/{loanId}` after the run, then after the payment. */
    rangeAfterRun: JsonBody | null;
    delinquentAfterRun: JsonBody;
    history: JsonBody[];
    /** `GET /v1/loans/{loanId}/delinquency-history` after the payment (newest first): the cure's row added. */
    historyAfterCure: JsonBody[];
    /** The collections case the run opened (`GET /v1/servicing/cases/{caseId}`), after the run and after the cure. */
    collectionsCase: JsonBody | null;
    collectionsCaseAfterCure: JsonBody | null;
    cure: { amount: string; paymentId: number };
    rangeAfterCure: JsonBody | null;
    delinquentAfterCure: JsonBody;
    /** The run for yesterday limited to this loan after the payment (null without the route). */
    laterRun: JsonBody | null;
  };
  chargedOffLoan: {
    loanId: number;
    /** `run` when the close charged it off, `command` when the flow did (the run did not). */
    chargedOffBy: 'run' | 'command';
    chargedOffOnDate: string | null;
    recovery: { amount: string; paymentId: number };
    /** Journal lines of the recovery payment (`transactionRef` `payment/<id>`). */
    recoveryLines: JsonBody[];
  };
}

/**
 * Runs the flow (module note) as a client of `credential` (scopes lending and servicing, read and write; every
 * permission). `onExchange` sees each request and answer. Throws when a step answers other than expected.
 */
export async function runDelinquencyDemoFlow(
  baseUrl: string,
  credential: DemoCredential,
  onExchange: (exchange: Exchange) => void = () => {},
  options: { timeZone?: string; runTimeoutMs?: number } = {},
): Promise<DelinquencyDemoResult> {
  const scope = 'lending:read lending:write servicing:read servicing:write';
  const session: ApiSession = {
    baseUrl,
    accessToken: await requestToken(baseUrl, credential, scope, onExchange),
    tenant: credential.tenant,
    actor: 'collections.manager',
  };
  const ref = Date.now().toString(36);
  const today = tenantToday(options.timeZone);
  const businessDate = addDays(today, -1);
  const product = await setUpDelinquencyProduct(session, ref, onExchange);

  // Loan A: four months ago, the last two due installments unpaid (about 60 days past due: the 31-90 range).
  const behind = await createBackdatedLoan(session, product, {
    ref: `${ref}-a`,
    disbursementDate: monthsBefore(today, 4),
    today,
    behind: 2,
    onExchange,
  });
  // Loan B: eight months ago, never paid (over 200 days past due: past chargeOffDaysPastDue).
  const neverPaid = await createBackdatedLoan(session, product, {
    ref: `${ref}-b`,
    disbursementDate: monthsBefore(today, 8),
    today,
    behind: Number.POSITIVE_INFINITY,
    onExchange,
  });

  // Runs for the flow's loans (`loanIds`): the tenant's whole-day run is unique per day, so a second demo the same
  // day would be answered with the first one's run and leave this run's loans open.
  const closeDay = async (loanIds: number[]): Promise<JsonBody | null> => {
    const body = { businessDate, loanIds };
    const started = await apiRequest(
      session,
      'POST',
      '/v1/cob/runs',
      body,
      `dlq-${ref}-run-${loanIds.join('-')}`,
    );
    const text = await started.text();
    const startedBody = text ? (JSON.parse(text) as JsonBody) : {};
    onExchange({
      method: 'POST',
      path: '/v1/cob/runs',
      requestBody: body,
      status: started.status,
      responseBody: startedBody,
    });
    if (started.status === 404 || started.status === 405) return null;
    if (started.status !== 202 && started.status !== 200)
      throw new Error(`POST /v1/cob/runs answered ${started.status}: ${text}`);
    const deadline = Date.now() + (options.runTimeoutMs ?? 120_000);
    for (;;) {
      const response = await apiRequest(session, 'GET', `/v1/cob/runs/${startedBody.runId}`, undefined);
      const run = (await response.json()) as JsonBody;
      if (response.status === 200 && run.status !== 'RUNNING') {
        onExchange({
          method: 'GET',
          path: `/v1/cob/runs/${startedBody.runId}`,
          status: 200,
          responseBody: run,
        });
        return run;
      }
      if (Date.now() > deadline)
        throw new Error(`run ${startedBody.runId} not done in time: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  const run = await closeDay([behind.loanId, neverPaid.loanId]);

  const loanRead = async (loanId: number) =>
    (await step(session, onExchange, 'GET', `/v1/loans/${loanId}`, undefined, [200])).body;
  const afterRun = await loanRead(behind.loanId);
  const charges = (
    await step(session, onExchange, 'GET', `/v1/loans/${behind.loanId}/charges`, undefined, [200])
  ).body;
  const chargeList = (
    Array.isArray(charges) ? charges : (charges.items ?? charges.pageItems ?? [])
  ) as JsonBody[];
  const historyRead = async () =>
    ((
      await step(
        session,
        onExchange,
        'GET',
        `/v1/loans/${behind.loanId}/delinquency-history`,
        undefined,
        [200],
      )
    ).body.items ?? []) as JsonBody[];
  const history = await historyRead();
  const caseId = history.find((h) => h.collectionsCaseId)?.collectionsCaseId ?? null;
  const caseRead = async () =>
    caseId === null
      ? null
      : (await step(session, onExchange, 'GET', `/v1/servicing/cases/${caseId}`, undefined, [200])).body;
  const collectionsCase = await caseRead();

  // The cure: a payment today of everything overdue (penalties included), then the loan and the case read back.
  const summary = (
    await step(
      session,
      onExchange,
      'GET',
      `/v1/loans/${behind.loanId}/summary?asOfDate=${today}`,
      undefined,
      [200],
    )
  ).body;
  const cureAmount = String(summary.overdue?.total ?? summary.balances?.totalOutstanding);
  const cure = await step(
    session,
    onExchange,
    'POST',
    `/v1/loans/${behind.loanId}/payments/record-external`,
    {
      amount: cureAmount,
      currency: 'USD',
      effectiveDate: today,
      externalRecordRef: `DLQ-${ref}-CURE`,
      source: 'MANUAL',
      rationale: 'Borrower paid the arrears by phone',
    },
    [201],
    `dlq-${ref}-cure`,
  );
  // The payment set the tag at once (the loan has had a close): range, history row and case, read before any run.
  const afterCure = await loanRead(behind.loanId);
  const historyAfterCure = await historyRead();
  const collectionsCaseAfterCure = await caseRead();
  const laterRun = run === null ? null : await closeDay([behind.loanId]);

  // Loan B: charged off by the run (its delinquentDays past chargeOffDaysPastDue), else by the command.
  let chargedOff = await loanRead(neverPaid.loanId);
  let chargedOffBy: 'run' | 'command' = 'run';
  if (!chargedOff.chargedOff) {
    chargedOffBy = 'command';
    await step(
      session,
      onExchange,
      'POST',
      `/v1/loans/${neverPaid.loanId}/transactions?command=charge-off`,
      { transactionDate: today, reason: 'Uncollectible: no payment since disbursement' },
      [200],
      `dlq-${ref}-charge-off`,
    );
    chargedOff = await loanRead(neverPaid.loanId);
  }
  const recoveryAmount = '150.00';
  const recovery = await step(
    session,
    onExchange,
    'POST',
    `/v1/loans/${neverPaid.loanId}/payments/record-external`,
    {
      amount: recoveryAmount,
      currency: 'USD',
      effectiveDate: today,
      externalRecordRef: `DLQ-${ref}-RECOVERY`,
      source: 'MANUAL',
      rationale: 'Payment received from the collections agency',
    },
    [201],
    `dlq-${ref}-recovery`,
  );
  const journal = (
    await step(
      session,
      onExchange,
      'GET',
      `/v1/journalentries?loanId=${neverPaid.loanId}&limit=200`,
      undefined,
      [200],
    )
  ).body;
  const recoveryRef = `payment/${recovery.body.paymentId}`;
  return {
    product,
    businessDate,
    run,
    behindLoan: {
      loanId: behind.loanId,
      penalties: chargeList.filter((c) => c.penalty === true),
      rangeAfterRun: afterRun.delinquencyRange ?? null,
      delinquentAfterRun: afterRun.delinquent,
      history,
      historyAfterCure,
      collectionsCase,
      collectionsCaseAfterCure,
      cure: { amount: cureAmount, paymentId: cure.body.paymentId },
      rangeAfterCure: afterCure.delinquencyRange ?? null,
      delinquentAfterCure: afterCure.delinquent,
      laterRun,
    },
    chargedOffLoan: {
      loanId: neverPaid.loanId,
      chargedOffBy,
      chargedOffOnDate: chargedOff.chargedOffOnDate ?? null,
      recovery: { amount: recoveryAmount, paymentId: recovery.body.paymentId },
      recoveryLines: ((journal.pageItems ?? []) as JsonBody[]).filter(
        (l) => l.transactionRef === recoveryRef,
      ),
    },
  };
}
