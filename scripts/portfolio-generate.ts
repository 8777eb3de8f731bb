/**
 * `npm run portfolio:generate -- --loans N --payments-per-loan K --seed S --out <file> [--as-of YYYY-MM-DD]`:
 * writes a realistic synthetic portfolio as a boarding file (docs/processes.md P3; line format in
 * domain/boarding/batch.ts): NDJSON, one `{kind, sourceRef, body}` per line, each body the public route's body
 * with source refs in place of ids.
 *
 * What it holds: three charges (flat installment fees), four loan products (consumer and commercial, monthly,
 * 6–60 repayments, declining balance, equal installments) with their charges; one customer per loan, except that
 * every tenth loan is a second loan of the customer before it; each customer with an address, an e-mail and a
 * phone, a made-up SSN that passes the service's own checks (area 100–599, group 10–99, serial 1000–9999:
 * SSA never assigns 000, 666, 9xx, 00 or 0000; unique per seed for up to 810,000 customers), an ESIGN consent, a
 * vault-token payment instrument, and for most of them the instrument's verification; a restriction for about 3 %
 * (COMMUNICATION_HOLD or COLLECTIONS_HOLD: never a payment hold, which would refuse the history); loans of 6 to 60
 * months, disbursed (back-dated funding) 1 to 72 months before `--as-of`; and each loan's payment history:
 * `min(K, installments due by --as-of)` payments in date order, mostly the installment's total on its due date,
 * about 8 % late (1–20 days after the due date, never after `--as-of`) and about 5 % partial (40–90 % of it).
 * Installments are computed as the service does (declining balance, interest of a period = balance × annual
 * rate / 12 rounded half-even to cents, the last installment's principal the balance left, plus the fees), so
 * no payment exceeds what is due and nothing is overpaid. Amounts are decimal strings; dates ISO.
 *
 * Lines are written as they are generated (the file is interleaved: a customer, its restriction and verification,
 * its loan, the loan's funding and payments; the workflow boards kind by kind), so memory is constant whatever N.
 * Deterministic: the same options (seed and as-of date included) give the same bytes (a seeded sfc32 PRNG; never
 * `Math.random`). Source refs and all text are letters and short numbers only (never 8 or more digits in a row:
 * the service refuses those as possible account numbers, domain/sensitive-data.ts).
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Decimal from 'decimal.js';
import type { BoardingKind } from '../domain/boarding/batch';
import { addDays, addMonths, daysBetween } from '../domain/calendar';

/** What the generator is asked for. */
export interface PortfolioOptions {
  loans: number;
  /** Payments per loan wanted; a loan gets fewer when fewer installments are due by `asOf`. */
  paymentsPerLoan: number;
  seed: number;
  /** ISO date "today" (default: today UTC); nothing is dated after it. */
  asOf: string;
}

/** Lines per kind written (what the generator reports and the tests check). */
export type PortfolioCounts = Record<BoardingKind, number>;

const D = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });

/** sfc32 (Chris Doty-Humphrey's Small Fast Counting PRNG), seeded through splitmix32: deterministic, 32-bit. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  const splitmix = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

const firstNames = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Frances',
  'Dennis',
  'Radia',
  'John',
  'Katherine',
  'Niklaus',
  'Shafi',
  'Leslie',
  'Hedy',
  'Tim',
  'Sophie',
  'Carlos',
  'Maria',
  'Wei',
  'Aisha',
  'Omar',
];
const lastNames = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Allen',
  'Ritchie',
  'Perlman',
  'Backus',
  'Johnson',
  'Wirth',
  'Goldwasser',
  'Lamport',
  'Lamarr',
  'Berners',
  'Wilson',
  'Garcia',
  'Rodriguez',
  'Chen',
  'Khan',
  'Nguyen',
];
const streets = [
  'Market Street',
  'Oak Avenue',
  'Maple Drive',
  'Cedar Lane',
  'Main Street',
  'Pine Road',
  'Elm Court',
];
const places: [city: string, region: string, postalCode: string, areaCode: string][] = [
  ['San Francisco', 'CA', '94105', '415'],
  ['Austin', 'TX', '78701', '512'],
  ['Chicago', 'IL', '60601', '312'],
  ['Boston', 'MA', '02108', '617'],
  ['Seattle', 'WA', '98101', '206'],
  ['Denver', 'CO', '80202', '303'],
  ['New York', 'NY', '10001', '212'],
];
const terms = [6, 12, 18, 24, 36, 48, 60];

interface Product {
  sourceRef: string;
  chargeRefs: string[];
  /** Nominal annual rate in percent (decimal text). */
  annualRate: string;
  minPrincipalCents: number;
  maxPrincipalCents: number;
}

const charges: { sourceRef: string; name: string; amount: string }[] = [
  { sourceRef: 'chg-svcfee', name: 'Monthly service fee', amount: '2.00' },
  { sourceRef: 'chg-insfee', name: 'Payment protection premium', amount: '4.50' },
  { sourceRef: 'chg-admfee', name: 'Account administration fee', amount: '1.25' },
];

const products: (Product & { name: string; shortName: string; productClass: string })[] = [
  {
    sourceRef: 'prd-personal',
    name: 'Personal installment loan',
    shortName: 'PIL',
    productClass: 'COVERED_CONSUMER',
    chargeRefs: ['chg-svcfee'],
    annualRate: '12',
    minPrincipalCents: 50_000,
    maxPrincipalCents: 2_500_000,
  },
  {
    sourceRef: 'prd-auto',
    name: 'Used auto loan',
    shortName: 'AUTO',
    productClass: 'COVERED_CONSUMER',
    chargeRefs: ['chg-svcfee', 'chg-insfee'],
    annualRate: '8.5',
    minPrincipalCents: 300_000,
    maxPrincipalCents: 4_000_000,
  },
  {
    sourceRef: 'prd-homeimp',
    name: 'Home improvement loan',
    shortName: 'HIL',
    productClass: 'COVERED_CONSUMER',
    chargeRefs: [],
    annualRate: '15.75',
    minPrincipalCents: 100_000,
    maxPrincipalCents: 3_000_000,
  },
  {
    sourceRef: 'prd-smallbiz',
    name: 'Small business term loan',
    shortName: 'SBL',
    productClass: 'COMMERCIAL',
    chargeRefs: ['chg-admfee'],
    annualRate: '18',
    minPrincipalCents: 500_000,
    maxPrincipalCents: 5_000_000,
  },
];

const centsText = (cents: number) => new D(cents).div(100).toFixed(2);

/** The installments of a loan as the service computes them (module note): totals in cents, due dates ISO. */
export function installmentTotals(
  principalCents: number,
  annualRate: string,
  n: number,
  feeCents: number,
  disbursementDate: string,
): { dueDate: string; totalCents: number }[] {
  const r = new D(annualRate).div(100).div(12);
  const principal = new D(principalCents).div(100);
  const emi = r.isZero()
    ? principal.div(n).toDecimalPlaces(2)
    : principal
        .times(r)
        .div(new D(1).minus(r.plus(1).pow(-n)))
        .toDecimalPlaces(2);
  const rows: { dueDate: string; totalCents: number }[] = [];
  let balance = principal;
  for (let k = 1; k <= n; k++) {
    const interest = balance.times(r).toDecimalPlaces(2);
    const principalPart = k < n ? emi.minus(interest) : balance;
    balance = balance.minus(principalPart);
    const total = principalPart.plus(interest).times(100).toNumber() + feeCents;
    rows.push({ dueDate: addMonths(disbursementDate, k), totalCents: Math.round(total) });
  }
  return rows;
}

/** One line of the file, as text (no newline). */
function line(kind: BoardingKind, sourceRef: string, body: Record<string, unknown>): string {
  return JSON.stringify({ kind, sourceRef, body });
}

/**
 * The portfolio's lines in file order (module note), each without its newline; `counts` (if given) is filled as
 * lines are produced. A generator: nothing is kept but the current customer and loan.
 */
export function* portfolioLines(options: PortfolioOptions, counts?: PortfolioCounts): Generator<string> {
  const rnd = seededRandom(options.seed);
  const int = (min: number, max: number) => min + Math.floor(rnd() * (max - min + 1));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const emit = (kind: BoardingKind, sourceRef: string, body: Record<string, unknown>) => {
    if (counts) counts[kind]++;
    return line(kind, sourceRef, body);
  };
  const asOf = options.asOf;
  /** Letters only, from the seed: keeps tokens of different seeds apart. */
  const seedTag = (options.seed >>> 0)
    .toString(26)
    .replace(/[0-9a-p]/g, (ch) => String.fromCharCode(97 + Number.parseInt(ch, 26)));
  const areaBase = (options.seed >>> 0) % 500;

  for (const charge of charges) {
    yield emit('charge', charge.sourceRef, {
      name: charge.name,
      currencyCode: 'USD',
      amount: charge.amount,
      chargeAppliesTo: 1,
      chargeTimeType: 8,
      chargeCalculationType: 1,
      chargePaymentMode: 0,
      penalty: false,
      active: true,
      locale: 'en',
    });
  }
  for (const product of products) {
    yield emit('loanProduct', product.sourceRef, {
      name: product.name,
      shortName: product.shortName,
      currencyCode: 'USD',
      digitsAfterDecimal: 2,
      inMultiplesOf: 0,
      principal: centsText(product.minPrincipalCents * 2),
      minPrincipal: centsText(product.minPrincipalCents),
      maxPrincipal: centsText(product.maxPrincipalCents),
      numberOfRepayments: 12,
      minNumberOfRepayments: 6,
      maxNumberOfRepayments: 60,
      interestRatePerPeriod: product.annualRate,
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
      chargeSourceRefs: product.chargeRefs,
      lmsConfig: {
        productClass: product.productClass,
        aprEnabled: product.productClass === 'COVERED_CONSUMER',
        ...(product.productClass === 'COVERED_CONSUMER'
          ? { aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP', aprTolerancePolicy: 'REGULAR' }
          : {}),
        statementEnabled: true,
        statementLeadDays: 21,
      },
      locale: 'en',
    });
  }

  let customerNo = 0;
  let customerRef = '';
  for (let loanNo = 1; loanNo <= options.loans; loanNo++) {
    // Every tenth loan is a second loan of the customer before it; otherwise a new customer.
    const secondLoan = loanNo % 10 === 0 && customerNo > 0;
    const monthsBack = int(1, 72);
    const term = pick(terms);
    const target = Math.min(options.paymentsPerLoan, term);
    // Old enough for `target` installments due (one month more: the day of month may not have come yet).
    const age = Math.max(monthsBack, target + 1);
    const day = int(1, 28);
    const disbursementDate = addDays(addMonths(`${asOf.slice(0, 8)}01`, -age), day - 1);

    if (!secondLoan) {
      customerNo++;
      customerRef = `cus-${customerNo}`;
      const first = pick(firstNames);
      const last = pick(lastNames);
      const [city, region, postalCode, areaCode] = pick(places);
      const c = customerNo - 1;
      const ssn = `${100 + ((areaBase + Math.floor(c / 810_000)) % 500)}-${10 + (Math.floor(c / 9000) % 90)}-${1000 + (c % 9000)}`;
      const onboarded = addDays(disbursementDate, -int(0, 10));
      const instrumentRef = `${customerRef}-ins`;
      yield emit('customer', customerRef, {
        firstName: first,
        lastName: last,
        dateOfBirth: `${int(1950, 2000)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}`,
        externalId: customerRef,
        addresses: [
          {
            addressType: 'HOME',
            line1: `${int(1, 9999)} ${pick(streets)}`,
            ...(rnd() < 0.3 ? { line2: `Apt ${int(1, 40)}` } : {}),
            city,
            region,
            postalCode,
            countryCode: 'US',
          },
        ],
        contactPoints: [
          {
            contactType: 'EMAIL',
            value: `${first}.${last}.${customerNo}.${seedTag}@example.com`.toLowerCase(),
          },
          { contactType: 'PHONE', value: `+1 ${areaCode}-555-${int(1000, 9999)}` },
        ],
        identifiers: [{ identifierType: 'SSN', value: ssn, issuingCountry: 'US' }],
        consents: [
          {
            consentType: 'ESIGN',
            granted: true,
            captureMethod: 'WEB_FORM',
            evidenceRef: `esign-${customerRef}`,
            capturedAt: `${onboarded}T15:00:00Z`,
          },
        ],
        paymentInstruments: [
          {
            sourceRef: instrumentRef,
            instrumentType: rnd() < 0.8 ? 'BANK_ACCOUNT' : 'DEBIT_CARD',
            providerTokenRef: `tok-vault-${seedTag}-${customerRef}`,
            lastFour: String(int(0, 9999)).padStart(4, '0'),
          },
        ],
      });
      if (rnd() < 0.03) {
        yield emit('restriction', `${customerRef}-hold`, {
          customerSourceRef: customerRef,
          restrictionType: rnd() < 0.7 ? 'COMMUNICATION_HOLD' : 'COLLECTIONS_HOLD',
          reason: 'Hold carried over from the legacy servicing system',
        });
      }
      if (rnd() < 0.85) {
        yield emit('verification', `${instrumentRef}-ver`, {
          customerSourceRef: customerRef,
          instrumentSourceRef: instrumentRef,
          verificationSource: 'LEGACY_SYSTEM_MICRO_DEPOSITS',
          verifiedAt: `${addDays(onboarded, 1)}T16:00:00Z`,
        });
      }
    }

    const product = products[loanNo % products.length]!;
    const principalCents =
      Math.round(int(product.minPrincipalCents, product.maxPrincipalCents) / 5000) * 5000;
    const loanRef = `ln-${loanNo}`;
    const feeCents = product.chargeRefs
      .map((ref) => new D(charges.find((ch) => ch.sourceRef === ref)!.amount).times(100).toNumber())
      .reduce((a, b) => a + b, 0);
    yield emit('loan', loanRef, {
      customerSourceRef: customerRef,
      productSourceRef: product.sourceRef,
      loanType: 'individual',
      principal: centsText(principalCents),
      loanTermFrequency: term,
      loanTermFrequencyType: 2,
      numberOfRepayments: term,
      repaymentEvery: 1,
      repaymentFrequencyType: 2,
      interestRatePerPeriod: product.annualRate,
      interestType: 0,
      interestCalculationPeriodType: 1,
      amortizationType: 1,
      transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
      expectedDisbursementDate: disbursementDate,
      submittedOnDate: disbursementDate,
      externalId: loanRef,
      charges: product.chargeRefs.map((chargeSourceRef) => ({ chargeSourceRef })),
      dateFormat: 'yyyy-MM-dd',
      locale: 'en',
    });
    yield emit('funding', `${loanRef}-fund`, {
      loanSourceRef: loanRef,
      amount: centsText(principalCents),
      currency: 'USD',
      fundingType: 'DISBURSEMENT',
      recipientType: 'BORROWER',
      recipientRef: 'borrower-primary',
      externalRecordRef: `${loanRef}-fund`,
      reason: 'Disbursed by the originating lender before migration',
      fundingDate: disbursementDate,
    });

    const installments = installmentTotals(
      principalCents,
      product.annualRate,
      term,
      feeCents,
      disbursementDate,
    );
    const due = installments.filter((i) => i.dueDate <= asOf);
    const count = Math.min(options.paymentsPerLoan, due.length);
    for (let k = 0; k < count; k++) {
      const installment = due[k]!;
      const roll = rnd();
      let effectiveDate = installment.dueDate;
      let amountCents = installment.totalCents;
      let rationale = `Boarded history: installment ${k + 1} paid on its due date`;
      if (roll < 0.08) {
        const late = addDays(installment.dueDate, int(1, 20));
        if (late <= asOf) {
          effectiveDate = late;
          rationale = `Boarded history: installment ${k + 1} paid ${daysBetween(installment.dueDate, late)} days late`;
        }
      } else if (roll < 0.13) {
        amountCents = Math.max(1, Math.round((installment.totalCents * int(40, 90)) / 100));
        rationale = `Boarded history: installment ${k + 1} partly paid`;
      }
      const paymentRef = `${loanRef}-pmt${k + 1}`;
      yield emit('payment', paymentRef, {
        loanSourceRef: loanRef,
        amount: centsText(amountCents),
        currency: 'USD',
        effectiveDate,
        externalRecordRef: paymentRef,
        source: 'IMPORT',
        rationale,
      });
    }
  }
}

/** Counts of zero for every kind. */
export function emptyPortfolioCounts(): PortfolioCounts {
  return {
    charge: 0,
    loanProduct: 0,
    customer: 0,
    restriction: 0,
    loan: 0,
    funding: 0,
    payment: 0,
    verification: 0,
  };
}

/** Writes the portfolio to `outPath` (streamed, constant memory); resolves with the lines per kind. */
export async function writePortfolio(options: PortfolioOptions, outPath: string): Promise<PortfolioCounts> {
  const counts = emptyPortfolioCounts();
  const lines = portfolioLines(options, counts);
  /** Lines joined into chunks of about 64 KiB: fewer, larger writes. */
  function* chunks(): Generator<string> {
    let chunk = '';
    for (const text of lines) {
      chunk += `${text}\n`;
      if (chunk.length >= 65_536) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  await pipeline(Readable.from(chunks()), createWriteStream(outPath));
  return counts;
}

/** Today (UTC) as an ISO date. */
export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Parses a whole number option ≥ `min`; throws with the option's name. */
export function wholeNumber(name: string, text: string | undefined, fallback: number, min = 0): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text) || Number(text) < min)
    throw new Error(`--${name} must be a whole number ≥ ${min} (got ${text}).`);
  return Number(text);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      loans: { type: 'string' },
      'payments-per-loan': { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      'as-of': { type: 'string' },
    },
  });
  let options: PortfolioOptions;
  try {
    if (!values.out) throw new Error('--out <file> is required.');
    const asOf = values['as-of'] ?? todayUtc();
    if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf)) throw new Error('--as-of must be an ISO date (YYYY-MM-DD).');
    options = {
      loans: wholeNumber('loans', values.loans, 1000, 1),
      paymentsPerLoan: wholeNumber('payments-per-loan', values['payments-per-loan'], 12),
      seed: wholeNumber('seed', values.seed, 1),
      asOf,
    };
  } catch (err) {
    process.stderr.write(
      `${(err as Error).message}\nUsage: npm run portfolio:generate -- --loans N --payments-per-loan K --seed S --out <file> [--as-of YYYY-MM-DD]\n`,
    );
    process.exit(2);
  }
  const started = Date.now();
  const counts = await writePortfolio(options, values.out);
  const lines = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stdout.write(
    `Wrote ${lines} lines to ${values.out} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${Object.entries(
      counts,
    )
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
