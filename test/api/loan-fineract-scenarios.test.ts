/**
 * Apache Fineract's published repayment scenarios, replayed through the API on the real database
 * (test/vectors/fineract-loan-figures.json; sources in test/vectors/README.md). Each scenario's loan is built as a
 * client would build it (`POST /v1/charges`, `/v1/loanproducts`, `/v1/customers`, `/v1/loans`, `?command=approve`,
 * `fundings/record-external`, `payments/record-external`), its money events posted in the scenario's order
 * (back-dated ones included), and after each event that the scenario checks, `GET /v1/loans/{loanId}?associations=
 * repaymentSchedule,transactions` must show Fineract's published figures to the cent: the schedule's rows (days,
 * dates, paid date, balance, due, paid, in advance, late, outstanding) and total row, the transactions with their
 * portions and `outstandingLoanBalance`, the loan status, the summary's outstanding and overpaid amounts, and the
 * journal of a transaction (Fineract's accounts: Loans Receivable = LOAN_PORTFOLIO, Suspense/Clearing account =
 * EXTERNAL_CLEARING, Overpayment account = OVERPAYMENT_LIABILITY). After every event the tenant's trial balance
 * is zero. Fineract's Accrual rows are not replayed: the cash-basis ledger (docs/lending.md) has no accrual
 * transactions.
 *
 * Boarding: every scenario is also boarded from one NDJSON file (`POST /v1/boarding/batches`, docs/migrating.md)
 * with its payment history, and the boarded loan reads back field by field as the API-built one (ids and
 * references aside).
 */
import { randomBytes } from 'node:crypto';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { boardingLines } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { taskQueues } from '../../domain/ids';
import { formatMinor, parseDecimalToMinor } from '../../domain/money';
import { createQueueWorker } from '../../workers/queue-worker';
import { tenantTrialBalance } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  testDataConverter,
  uniqueTenant,
} from '../support/context';
import { readVector } from '../support/vectors';
import type { Json } from './helpers';

// ---- the vector file -------------------------------------------------------------------------------------------

type Cells = Record<string, string | null>;

interface ScenarioCharge {
  fineractCharge: string;
  name: string;
  penalty: boolean;
  chargeTimeType: 2;
  /** 1 flat, 3 a percent of principal plus interest. */
  chargeCalculationType: 1 | 3;
  /** Money, or the percent. */
  amount: string;
  dueDate: string;
  /** How many of the scenario's events Fineract posted before adding the charge (see the file's chargeNote). */
  addedAfterEvents: number;
}

interface ScenarioLoan {
  product: string;
  transactionProcessingStrategyCode: string;
  currency: string;
  principal: string;
  interestRatePerPeriod: string;
  interestRateFrequencyType: number;
  interestType: number;
  interestCalculationPeriodType: number;
  amortizationType: number;
  loanTermFrequency: number;
  loanTermFrequencyType: number;
  repaymentEvery: number;
  repaymentFrequencyType: number;
  numberOfRepayments: number;
  daysInYearType: number;
  daysInMonthType: number;
  charges: ScenarioCharge[];
}

interface Expected {
  status?: string;
  totalOutstanding?: string;
  overpaid?: string;
  transactions?: Cells[];
  transactionsOnDate?: Cells[];
  schedule?: { periods?: Cells[]; total?: Cells };
  journal?: { 'Transaction type': string; 'Transaction date': string; entries: Cells[] }[];
}

interface ScenarioEvent {
  event: 'disbursement' | 'repayment';
  date: string;
  amount: string;
  expected?: Expected;
}

interface Scenario {
  id: string;
  source: { path: string; scenario: string; steps: string };
  loan: ScenarioLoan;
  events: ScenarioEvent[];
}

const vectors = readVector<{ scenarios: Scenario[] }>('fineract-loan-figures.json');

// ---- published cells → this API's decimal strings and ISO dates ------------------------------------------------

/** "1000.0" (Fineract prints doubles) → "1000.00": to the cent, in the loan currency's 2 digits (EUR). */
const money = (text: string): string =>
  formatMinor(parseDecimalToMinor(text, 2, { allowTrailingZeros: true }), 2);

const months: Record<string, string> = {
  January: '01',
  February: '02',
  March: '03',
  April: '04',
  May: '05',
  June: '06',
  July: '07',
  August: '08',
  September: '09',
  October: '10',
  November: '11',
  December: '12',
};

/** "01 February 2023" → "2023-02-01". */
function isoDate(text: string): string {
  const match = /^(\d{1,2}) ([A-Z][a-z]+) (\d{4})$/.exec(text);
  const month = match ? months[match[2] as string] : undefined;
  if (!match || !month) throw new Error(`not a Fineract date: ${text}`);
  return `${match[3]}-${month}-${(match[1] as string).padStart(2, '0')}`;
}

const statusCodes: Record<string, string> = {
  ACTIVE: 'loanStatusType.active',
  CLOSED_OBLIGATIONS_MET: 'loanStatusType.closed.obligations.met',
  OVERPAID: 'loanStatusType.overpaid',
};

/** Fineract's schedule columns → the field of a period of `repaymentSchedule.periods`. */
const periodFields: Record<string, string> = {
  Nr: 'period',
  Days: 'daysInPeriod',
  Date: 'dueDate',
  'Paid date': 'obligationsMetOnDate',
  'Balance of loan': 'principalLoanBalanceOutstanding',
  'Principal due': 'principalDue',
  Interest: 'interestDue',
  Fees: 'feeChargesDue',
  Penalties: 'penaltyChargesDue',
  Due: 'totalDueForPeriod',
  Paid: 'totalPaidForPeriod',
  'In advance': 'totalPaidInAdvanceForPeriod',
  Late: 'totalPaidLateForPeriod',
  Outstanding: 'totalOutstandingForPeriod',
};

/** Fineract's total-row columns → the field of `repaymentSchedule` ("Paid" is summed over the periods). */
const totalFields: Record<string, string> = {
  'Principal due': 'totalPrincipalExpected',
  Interest: 'totalInterestCharged',
  Fees: 'totalFeeChargesCharged',
  Penalties: 'totalPenaltyChargesCharged',
  Due: 'totalRepaymentExpected',
  'In advance': 'totalPaidInAdvance',
  Late: 'totalPaidLate',
  Outstanding: 'totalOutstanding',
};

/** Fineract's transaction columns → the field of a `transactions` item. */
const transactionFields: Record<string, (t: Json) => unknown> = {
  'Transaction date': (t) => t.date,
  'Transaction Type': (t) => t.type.value,
  Amount: (t) => t.amount,
  Principal: (t) => t.principalPortion,
  Interest: (t) => t.interestPortion,
  Fees: (t) => t.feeChargesPortion,
  Penalties: (t) => t.penaltyChargesPortion,
  'Loan Balance': (t) => t.outstandingLoanBalance,
};

const accountOf: Record<string, string> = {
  'Loans Receivable': 'LOAN_PORTFOLIO',
  'Suspense/Clearing account': 'EXTERNAL_CLEARING',
  'Overpayment account': 'OVERPAYMENT_LIABILITY',
};

/** A published cell as this API spells it: dates ISO, counts numbers, money decimal strings with 2 digits. */
function published(column: string, value: string): unknown {
  if (column === 'Date' || column === 'Paid date' || column === 'Transaction date') return isoDate(value);
  if (column === 'Nr' || column === 'Days') return Number(value);
  if (column === 'Transaction Type') return value;
  return money(value);
}

/**
 * The published schedule row in this API's terms, with the same columns of `period` beside it. An empty cell is not
 * asserted, except "Paid date" of an installment, where Fineract's step compares it with a null
 * `obligationsMetOnDate` (an installment not fully paid).
 */
function scheduleRowPair(row: Cells, period: Json): { expected: Json; actual: Json } {
  const expected: Json = {};
  const actual: Json = {};
  for (const [column, value] of Object.entries(row)) {
    const field = periodFields[column];
    if (!field) throw new Error(`unknown schedule column ${column}`);
    const installment = row.Nr !== null;
    if (value === null && !(installment && column === 'Paid date')) continue;
    expected[field] = value === null ? null : published(column, value);
    actual[field] = period[field] ?? null;
  }
  return { expected, actual };
}

// ---- building a scenario's loan ---------------------------------------------------------------------------------

const ref = (prefix: string) => `${prefix}-${randomBytes(9).toString('base64url')}`;

const chargeBody = (c: ScenarioCharge, currency: string) => ({
  name: `${c.name} ${randomBytes(3).toString('hex')}`,
  currencyCode: currency,
  amount: c.amount,
  chargeAppliesTo: 1,
  chargeTimeType: c.chargeTimeType,
  chargeCalculationType: c.chargeCalculationType,
  penalty: c.penalty,
});

/** The product of Fineract's LP1 family as this service's product body (no APR: a commercial EUR product). */
const productBody = (s: Scenario) => ({
  name: `Fineract ${s.id} ${randomBytes(3).toString('hex')}`,
  shortName: `F${randomBytes(2).toString('hex').slice(0, 3)}`,
  currencyCode: s.loan.currency,
  digitsAfterDecimal: 2,
  inMultiplesOf: 0,
  principal: s.loan.principal,
  numberOfRepayments: s.loan.numberOfRepayments,
  interestRatePerPeriod: s.loan.interestRatePerPeriod,
  repaymentEvery: s.loan.repaymentEvery,
  repaymentFrequencyType: s.loan.repaymentFrequencyType,
  interestRateFrequencyType: s.loan.interestRateFrequencyType,
  interestType: s.loan.interestType,
  amortizationType: s.loan.amortizationType,
  interestCalculationPeriodType: s.loan.interestCalculationPeriodType,
  daysInYearType: s.loan.daysInYearType,
  daysInMonthType: s.loan.daysInMonthType,
  transactionProcessingStrategyCode: s.loan.transactionProcessingStrategyCode,
  lmsConfig: { productClass: 'COMMERCIAL', aprEnabled: false, statementEnabled: false },
});

const disbursementDateOf = (s: Scenario): string => {
  const first = s.events[0];
  if (first?.event !== 'disbursement') throw new Error(`${s.id}: no disbursement first`);
  return first.date;
};

/** `POST /v1/loans` without the ids: the scenario's request, submitted and expected on the disbursement date. */
const loanFields = (s: Scenario) => ({
  loanType: 'individual',
  principal: s.loan.principal,
  loanTermFrequency: s.loan.loanTermFrequency,
  loanTermFrequencyType: s.loan.loanTermFrequencyType,
  numberOfRepayments: s.loan.numberOfRepayments,
  repaymentEvery: s.loan.repaymentEvery,
  repaymentFrequencyType: s.loan.repaymentFrequencyType,
  interestRatePerPeriod: s.loan.interestRatePerPeriod,
  interestType: s.loan.interestType,
  interestCalculationPeriodType: s.loan.interestCalculationPeriodType,
  amortizationType: s.loan.amortizationType,
  transactionProcessingStrategyCode: s.loan.transactionProcessingStrategyCode,
  expectedDisbursementDate: disbursementDateOf(s),
  submittedOnDate: disbursementDateOf(s),
});

const approvalBody = (s: Scenario) => ({
  approvedOnDate: disbursementDateOf(s),
  approvedLoanAmount: s.loan.principal,
});

const fundingFields = (s: Scenario, e: ScenarioEvent) => ({
  amount: money(e.amount),
  currency: s.loan.currency,
  fundingType: 'DISBURSEMENT',
  recipientType: 'BORROWER',
  recipientRef: 'borrower-primary',
  reason: 'Disbursed by the originating lender',
  fundingDate: e.date,
});

const paymentFields = (s: Scenario, e: ScenarioEvent) => ({
  amount: money(e.amount),
  currency: s.loan.currency,
  effectiveDate: e.date,
  source: 'IMPORT',
  rationale: 'Fineract scenario repayment',
});

// ---- the test context -------------------------------------------------------------------------------------------

let ctx: TestContext;
let cred: Credential;
let workerConnection: NativeConnection;
let worker: Worker;
let workerRun: Promise<void>;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  // The boarding queue's worker, for the boarded copies of the scenarios.
  workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await createQueueWorker({
    connection: workerConnection,
    namespace: ctx.client.options.namespace,
    taskQueue: taskQueues.boarding,
    activities: ctx.activities,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    dataConverter: testDataConverter,
  });
  workerRun = worker.run();
  cred = await credentialFor(ctx, uniqueTenant('fin-scn'), { scopes: ['lending:read', 'lending:write'] });
});
afterAll(async () => {
  if (worker && worker.getState() === 'RUNNING') worker.shutdown();
  await workerRun;
  await workerConnection?.close();
  await ctx?.close();
});

async function readLoan(loanId: number): Promise<Json> {
  const res = await call(ctx, cred, 'GET', `/v1/loans/${loanId}?associations=repaymentSchedule,transactions`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The tenant's journal is balanced in every currency (Σ debit = Σ credit; test/activities/ledger-fixtures.ts). */
async function expectTrialBalanceZero(): Promise<void> {
  for (const row of await tenantTrialBalance(ctx.db, cred.tenant)) {
    expect(parseDecimalToMinor(row.debit, 6) - parseDecimalToMinor(row.credit, 6), row.currency).toBe(0n);
  }
}

/**
 * Builds the scenario's loan through the API up to its approval; returns the loan id and the charge definitions'
 * ids. With `chargesInApplication` false the loan's application carries no charges: the caller adds them through
 * `POST /v1/loans/{loanId}/charges`, as Fineract's scenario does.
 */
async function createScenarioLoan(
  s: Scenario,
  chargesInApplication = true,
): Promise<{ loanId: number; chargeIds: number[] }> {
  const chargeIds: number[] = [];
  for (const c of s.loan.charges) {
    const charge = await call(ctx, cred, 'POST', '/v1/charges', chargeBody(c, s.loan.currency));
    expect(charge.status, JSON.stringify(charge.body)).toBe(201);
    chargeIds.push(charge.body.chargeId);
  }
  const product = await call(ctx, cred, 'POST', '/v1/loanproducts', productBody(s));
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const customer = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'Maria', lastName: 'Agnesi' });
  expect(customer.status, JSON.stringify(customer.body)).toBe(201);
  const created = await call(ctx, cred, 'POST', '/v1/loans', {
    clientId: customer.body.customerId,
    productId: product.body.productId,
    ...loanFields(s),
    ...(chargesInApplication
      ? { charges: s.loan.charges.map((c, i) => ({ chargeId: chargeIds[i], dueDate: c.dueDate })) }
      : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const loanId = created.body.loanId as number;
  const approval = await call(ctx, cred, 'POST', `/v1/loans/${loanId}?command=approve`, approvalBody(s));
  expect(approval.status, JSON.stringify(approval.body)).toBe(200);
  return { loanId, chargeIds };
}

async function postEvent(s: Scenario, loanId: number, e: ScenarioEvent): Promise<void> {
  const res =
    e.event === 'disbursement'
      ? await call(ctx, cred, 'POST', `/v1/loans/${loanId}/fundings/record-external`, {
          ...fundingFields(s, e),
          externalRecordRef: ref('fund'),
        })
      : await call(ctx, cred, 'POST', `/v1/loans/${loanId}/payments/record-external`, {
          ...paymentFields(s, e),
          externalRecordRef: ref('pay'),
        });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

/**
 * Asserts what the scenario publishes after event `e` against the loan's reads; `businessDate` is the scenario's
 * business date then (the latest value date so far: a back-dated repayment is checked as of the day it was made).
 */
async function expectPublished(
  s: Scenario,
  loanId: number,
  e: ScenarioEvent,
  expected: Expected,
  businessDate: string,
) {
  const at = `${s.id} after the ${e.event} of ${e.amount} on ${e.date}`;
  const loan = await readLoan(loanId);
  if (expected.status) expect(loan.status.code, at).toBe(statusCodes[expected.status]);

  if (expected.schedule?.periods) {
    const periods = loan.repaymentSchedule.periods as Json[];
    expect(periods.length, `${at}: schedule rows`).toBe(expected.schedule.periods.length);
    expected.schedule.periods.forEach((row, i) => {
      const { expected: want, actual } = scheduleRowPair(row, periods[i] as Json);
      expect(actual, `${at}: schedule row ${i}`).toEqual(want);
    });
  }
  if (expected.schedule?.total) {
    const schedule = loan.repaymentSchedule;
    for (const [column, value] of Object.entries(expected.schedule.total)) {
      if (value === null) continue;
      const actual =
        column === 'Paid'
          ? formatMinor(
              (schedule.periods as Json[]).reduce(
                (sum, p) => sum + parseDecimalToMinor(p.totalPaidForPeriod, 2),
                0n,
              ),
              2,
            )
          : schedule[totalFields[column] as string];
      expect(actual, `${at}: total ${column}`).toBe(money(value));
    }
  }

  const shown = (t: Json, columns: string[]) =>
    Object.fromEntries(columns.map((c) => [c, (transactionFields[c] as (t: Json) => unknown)(t)]));
  const wanted = (row: Cells) =>
    Object.fromEntries(
      Object.entries(row).map(([c, v]) => [c, v === null ? null : published(c, v)] as const),
    );
  if (expected.transactions) {
    const rows = expected.transactions.filter((r) => r['Transaction Type'] !== 'Accrual');
    const columns = Object.keys(rows[0] ?? {});
    expect(
      (loan.transactions as Json[]).map((t) => shown(t, columns)),
      `${at}: transactions`,
    ).toEqual(rows.map(wanted));
  }
  for (const row of expected.transactionsOnDate ?? []) {
    const columns = Object.keys(row);
    const want = wanted(row);
    const sameDay = (loan.transactions as Json[]).filter(
      (t) => t.date === want['Transaction date'] && t.type.value === want['Transaction Type'],
    );
    expect(
      sameDay.map((t) => shown(t, columns)),
      `${at}: the transaction of ${row['Transaction date']}`,
    ).toEqual([want]);
  }

  if (expected.totalOutstanding !== undefined || expected.overpaid !== undefined) {
    const summary = await call(ctx, cred, 'GET', `/v1/loans/${loanId}/summary?asOfDate=${businessDate}`);
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    if (expected.totalOutstanding !== undefined) {
      expect(summary.body.balances.totalOutstanding, `${at}: outstanding`).toBe(
        money(expected.totalOutstanding),
      );
    }
    if (expected.overpaid !== undefined) {
      expect(summary.body.balances.overpayment, `${at}: overpaid`).toBe(money(expected.overpaid));
    }
  }

  if (expected.journal) {
    const journal = await call(ctx, cred, 'GET', `/v1/journalentries?loanId=${loanId}&limit=200`);
    expect(journal.status, JSON.stringify(journal.body)).toBe(200);
    expect(journal.body.totalFilteredRecords, 'the whole journal in one page').toBeLessThanOrEqual(200);
    const lines = journal.body.pageItems as {
      transactionRef: string;
      accountCode: string;
      debit: string;
      credit: string;
    }[];
    for (const table of expected.journal) {
      const type = table['Transaction type'] === 'DISBURSEMENT' ? 'Disbursement' : 'Repayment';
      const date = isoDate(table['Transaction date']);
      const matching = (loan.transactions as Json[]).filter((t) => t.date === date && t.type.value === type);
      expect(matching, `${at}: one ${type} on ${date}`).toHaveLength(1);
      const txRef = (matching[0] as Json).transactionRef as string;
      // The transaction's postings net of the revisions and reversals a back-dated event appended
      // (domain/lending/ledger.ts transactionRefOf): Fineract shows the replayed transaction's entries.
      const net = new Map<string, bigint>();
      for (const line of lines) {
        if (line.transactionRef !== txRef && !line.transactionRef.startsWith(`${txRef}/`)) continue;
        const amount =
          parseDecimalToMinor(line.debit, 2, { allowTrailingZeros: true }) -
          parseDecimalToMinor(line.credit, 2, { allowTrailingZeros: true });
        net.set(line.accountCode, (net.get(line.accountCode) ?? 0n) + amount);
      }
      const ours = Object.fromEntries(
        [...net].filter(([, v]) => v !== 0n).map(([k, v]) => [k, formatMinor(v, 2)]),
      );
      const theirs = Object.fromEntries(
        table.entries.map((entry) => {
          const account = accountOf[entry['Account name'] as string];
          if (!account) throw new Error(`unknown Fineract account ${entry['Account name']}`);
          const debit = parseDecimalToMinor(money(entry.Debit ?? '0'), 2);
          const credit = parseDecimalToMinor(money(entry.Credit ?? '0'), 2);
          return [account, formatMinor(debit - credit, 2)];
        }),
      );
      expect(ours, `${at}: journal of the ${type} on ${date}`).toEqual(theirs);
    }
  }
}

// ---- the replay ---------------------------------------------------------------------------------------------------

/** Loan ids of the API-built scenarios, for the boarding comparison below. */
const builtThroughApi = new Map<string, number>();

describe('Fineract scenarios through the API (test/vectors/fineract-loan-figures.json)', () => {
  it.each(vectors.scenarios.map((s) => [`${s.id}: ${s.source.scenario}`, s] as const))(
    '%s',
    async (_name, s) => {
      const { loanId } = await createScenarioLoan(s);
      let businessDate = '';
      for (const e of s.events) {
        await postEvent(s, loanId, e);
        await expectTrialBalanceZero();
        if (e.date > businessDate) businessDate = e.date;
        if (e.expected) await expectPublished(s, loanId, e, e.expected, businessDate);
      }
      builtThroughApi.set(s.id, loanId);
    },
  );
});

/** The scenarios whose charges can be added to the active loan here (flat ones: see test/vectors/README.md). */
const withAddedCharges = vectors.scenarios.filter(
  (s) => s.loan.charges.length > 0 && s.loan.charges.every((c) => c.chargeCalculationType === 1),
);

describe('Fineract scenarios with their charges added through POST /v1/loans/{loanId}/charges', () => {
  it('has scenarios to replay', () => {
    expect(withAddedCharges.length).toBeGreaterThanOrEqual(5);
  });
  it.each(withAddedCharges.map((s) => [`${s.id}: ${s.source.scenario}`, s] as const))(
    '%s',
    async (_name, s) => {
      const { loanId, chargeIds } = await createScenarioLoan(s, false);
      const addCharges = async (afterEvents: number) => {
        for (const [i, c] of s.loan.charges.entries()) {
          if (c.addedAfterEvents !== afterEvents) continue;
          const res = await call(ctx, cred, 'POST', `/v1/loans/${loanId}/charges`, {
            chargeId: chargeIds[i],
            amount: c.amount,
            dueDate: c.dueDate,
          });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
        }
      };
      let businessDate = '';
      for (const [i, e] of s.events.entries()) {
        await addCharges(i);
        await postEvent(s, loanId, e);
        await expectTrialBalanceZero();
        if (e.date > businessDate) businessDate = e.date;
        if (e.expected) await expectPublished(s, loanId, e, e.expected, businessDate);
      }
    },
  );
});

// ---- boarding carries the same figures --------------------------------------------------------------------------

/** The NDJSON lines of one scenario's loan with its whole history (docs/migrating.md), refs prefixed by `tag`. */
function boardingLinesOf(s: Scenario, tag: string): string[] {
  const line = (kind: string, sourceRef: string, body: unknown) => JSON.stringify({ kind, sourceRef, body });
  const chargeRefs = s.loan.charges.map((_, i) => `${tag}-chg-${i}`);
  const loanRef = `${tag}-loan`;
  return [
    ...s.loan.charges.map((c, i) => line('charge', chargeRefs[i] as string, chargeBody(c, s.loan.currency))),
    line('loanProduct', `${tag}-prod`, productBody(s)),
    line('customer', `${tag}-cust`, { firstName: 'Maria', lastName: 'Agnesi' }),
    line('loan', loanRef, {
      customerSourceRef: `${tag}-cust`,
      productSourceRef: `${tag}-prod`,
      ...loanFields(s),
      charges: s.loan.charges.map((c, i) => ({ chargeSourceRef: chargeRefs[i], dueDate: c.dueDate })),
      approval: approvalBody(s),
    }),
    ...s.events.map((e, i) =>
      e.event === 'disbursement'
        ? line('funding', `${tag}-fund-${i}`, { loanSourceRef: loanRef, ...fundingFields(s, e) })
        : line('payment', `${tag}-pay-${i}`, { loanSourceRef: loanRef, ...paymentFields(s, e) }),
    ),
  ];
}

/** A loan read without what differs between two copies of one loan: ids, numbers, references, names of the party. */
function comparable(loan: Json): Json {
  const {
    id: _id,
    accountNo: _a,
    clientId: _c,
    productId: _p,
    externalId: _e,
    parties: _pa,
    approvedBy: _ab,
    // a boarded loan's close of business starts the day before boarding (docs/lending.md "Close of business")
    lastClosedBusinessDate: _closed,
    ...rest
  } = loan;
  return {
    ...rest,
    terms: {
      ...loan.terms,
      charges: (loan.terms.charges as Json[]).map(
        ({ chargeId: _chargeId, name: _name, ...charge }) => charge,
      ),
    },
    transactions: (loan.transactions as Json[]).map(
      ({ id: _tid, transactionRef: _ref, externalId: _ext, ...t }) => t,
    ),
  };
}

describe('boarding carries the figures unchanged (POST /v1/boarding/batches)', () => {
  it('every scenario boarded with its payment history reads back as the loan built through the API', async () => {
    // A letter in the middle: eight hex characters are all digits often enough that the boarding
    // file's external ids would read as an account number (8 or more consecutive digits) and be refused.
    const hex = randomBytes(4).toString('hex');
    const tag = `${hex.slice(0, 4)}x${hex.slice(4)}`;
    const file = vectors.scenarios.flatMap((s) => boardingLinesOf(s, `${tag}-${s.id}`)).join('\n');
    const res = await ctx.app.request('/v1/boarding/batches?fileName=fineract-scenarios.ndjson', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${cred.token}`,
        'service-tenant': cred.tenant,
        'content-type': 'application/x-ndjson',
      },
      body: file,
    });
    const staged = (await res.json()) as Json;
    expect(res.status, JSON.stringify(staged)).toBe(202);
    const batchId = staged.batchId as number;
    const until = Date.now() + 120_000;
    let batch: Json;
    for (;;) {
      batch = (await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}`)).body;
      if (['COMPLETED', 'COMPLETED_WITH_ERRORS', 'CANCELLED'].includes(batch.status)) break;
      if (Date.now() > until) throw new Error(`batch ${batchId} still ${batch.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const errors = await call(ctx, cred, 'GET', `/v1/boarding/batches/${batchId}/errors`);
    expect(batch.status, JSON.stringify(errors.body)).toBe('COMPLETED');
    await expectTrialBalanceZero();

    const loanLines = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ sourceRef: boardingLines.sourceRef, resourceId: boardingLines.resourceId })
        .from(boardingLines)
        .where(
          and(
            eq(boardingLines.tenantId, cred.tenant),
            eq(boardingLines.batchId, batchId),
            eq(boardingLines.kind, 'loan'),
          ),
        ),
    );
    const boardedIdOf = new Map(loanLines.map((l) => [l.sourceRef, l.resourceId]));
    for (const s of vectors.scenarios) {
      const apiLoanId = builtThroughApi.get(s.id);
      const boardedLoanId = boardedIdOf.get(`${tag}-${s.id}-loan`);
      expect(apiLoanId, `${s.id} built through the API first`).toBeDefined();
      expect(boardedLoanId, `${s.id} boarded`).toBeTypeOf('number');
      const [api, boarded] = [await readLoan(apiLoanId as number), await readLoan(boardedLoanId as number)];
      expect(comparable(boarded), s.id).toEqual(comparable(api));
      expect(api.lastClosedBusinessDate, s.id).toBeNull();
      expect(boarded.lastClosedBusinessDate, s.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  }, 180_000);
});
