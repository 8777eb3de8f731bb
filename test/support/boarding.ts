/**
 * Boarding test fixtures: a small synthetic portfolio as NDJSON line objects (docs/processes.md P3), and
 * `stageBatch`, which stages lines as the upload does (a batch row, lines PENDING with kind, sourceRef and
 * parentSourceRef set) directly in the database.
 */
import type { Db } from '../../db/client';
import { boardingBatches, boardingLines } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { BoardingKind } from '../../domain/boarding/batch';

export interface TestLine {
  kind: BoardingKind;
  sourceRef: string;
  body: Record<string, unknown>;
}

let counter = 0;
/** A ref prefix of letters and a counter (random hex may look like an account number). */
export function refPrefix(prefix = 'src'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter.toString(36)}`;
}

const parentOf = (line: TestLine): string | null => {
  const b = line.body;
  return ((b.loanSourceRef ?? b.customerSourceRef) as string | undefined) ?? null;
};

/** Stages `lines` (or raw texts) as a new batch of `tenantId`, numbered from 1; returns the batchId. */
export async function stageBatch(db: Db, tenantId: string, lines: (TestLine | string)[]): Promise<number> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [batch] = await tx
      .insert(boardingBatches)
      .values({
        tenantId,
        fileName: 'test.ndjson',
        records: lines.length,
        status: 'STAGED',
        contentSha256: `test-${refPrefix('sha')}`,
      })
      .returning({ id: boardingBatches.id });
    if (!batch) throw new Error('no batch');
    const rows = lines.map((line, i) =>
      typeof line === 'string'
        ? { tenantId, batchId: batch.id, lineNo: i + 1, raw: line, state: 'FAILED' }
        : {
            tenantId,
            batchId: batch.id,
            lineNo: i + 1,
            raw: JSON.stringify(line),
            kind: line.kind,
            sourceRef: line.sourceRef,
            parentSourceRef: parentOf(line),
            state: 'PENDING',
          },
    );
    for (let i = 0; i < rows.length; i += 1000)
      await tx.insert(boardingLines).values(rows.slice(i, i + 1000));
    return batch.id;
  });
}

/** Reference lines of a portfolio: one installment-fee charge and one product using it. */
export function catalogLines(p: string): TestLine[] {
  return [
    {
      kind: 'charge',
      sourceRef: `${p}-fee`,
      body: {
        name: 'Installment fee',
        currencyCode: 'USD',
        amount: '2.00',
        chargeAppliesTo: 1,
        chargeTimeType: 8,
        chargeCalculationType: 1,
      },
    },
    {
      kind: 'loanProduct',
      sourceRef: `${p}-prod`,
      body: {
        name: 'Personal loan',
        shortName: 'PL1',
        currencyCode: 'USD',
        digitsAfterDecimal: 2,
        inMultiplesOf: 0,
        principal: '5000',
        minPrincipal: '100',
        maxPrincipal: '20000',
        numberOfRepayments: 12,
        minNumberOfRepayments: 1,
        maxNumberOfRepayments: 36,
        interestRatePerPeriod: 12,
        minInterestRatePerPeriod: 0,
        maxInterestRatePerPeriod: 30,
        repaymentEvery: 1,
        repaymentFrequencyType: 2,
        interestRateFrequencyType: 3,
        interestType: 0,
        amortizationType: 1,
        interestCalculationPeriodType: 1,
        daysInYearType: 1,
        daysInMonthType: 1,
        transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
        chargeSourceRefs: [`${p}-fee`],
        lmsConfig: {
          productClass: 'COVERED_CONSUMER',
          aprEnabled: true,
          aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
          aprTolerancePolicy: 'REGULAR',
        },
      },
    },
  ];
}

/** Customer `n` of a portfolio with one consent and one instrument (`bank`). */
export function customerLine(p: string, n: number): TestLine {
  return {
    kind: 'customer',
    sourceRef: `${p}-cust-${n}`,
    body: {
      firstName: 'Ada',
      lastName: `Boarded${String.fromCharCode(65 + (n % 26))}`,
      consents: [
        {
          consentType: 'ESIGN',
          granted: true,
          captureMethod: 'IMPORT',
          evidenceRef: `${p}-consent-${n}`,
          capturedAt: '2025-01-02T10:00:00Z',
        },
      ],
      paymentInstruments: [
        {
          sourceRef: 'bank',
          instrumentType: 'BANK_ACCOUNT',
          providerTokenRef: `tok-${p}-${n}`,
          lastFour: '6789',
        },
      ],
    },
  };
}

/** Loan `n` of customer `c`: 1,200.00 over 12 months, funded 2025-01-15, with `payments` monthly payments. */
export function loanLines(p: string, n: number, c: number, payments: number): TestLine[] {
  const loanRef = `${p}-loan-${n}`;
  const lines: TestLine[] = [
    {
      kind: 'loan',
      sourceRef: loanRef,
      body: {
        customerSourceRef: `${p}-cust-${c}`,
        productSourceRef: `${p}-prod`,
        loanType: 'individual',
        principal: '1200',
        loanTermFrequency: 12,
        loanTermFrequencyType: 2,
        numberOfRepayments: 12,
        repaymentEvery: 1,
        repaymentFrequencyType: 2,
        interestRatePerPeriod: 12,
        interestType: 0,
        interestCalculationPeriodType: 1,
        amortizationType: 1,
        transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
        expectedDisbursementDate: '2025-01-15',
        submittedOnDate: '2025-01-10',
        charges: [{ chargeSourceRef: `${p}-fee` }],
      },
    },
    {
      kind: 'funding',
      sourceRef: `${loanRef}-fund`,
      body: {
        loanSourceRef: loanRef,
        amount: '1200.00',
        currency: 'USD',
        fundingType: 'DISBURSEMENT',
        recipientType: 'BORROWER',
        recipientRef: `${p}-recipient-${n}`,
        reason: 'Boarded disbursement',
        fundingDate: '2025-01-15',
      },
    },
  ];
  for (let k = 1; k <= payments; k++) {
    const month = String(1 + k).padStart(2, '0');
    lines.push({
      kind: 'payment',
      sourceRef: `${loanRef}-pay-${k}`,
      body: {
        loanSourceRef: loanRef,
        amount: k % 3 === 0 ? '60.00' : '108.62',
        currency: 'USD',
        effectiveDate: `2025-${month}-15`,
        source: 'IMPORT',
      },
    });
  }
  return lines;
}

/** A whole small portfolio: catalog, `loans` customers with a loan each, a hold on the first, verifications. */
export function portfolioLines(p: string, loans: number, payments: number): TestLine[] {
  const lines: TestLine[] = [...catalogLines(p)];
  for (let n = 1; n <= loans; n++) lines.push(customerLine(p, n));
  lines.push({
    kind: 'restriction',
    sourceRef: `${p}-hold-1`,
    body: { customerSourceRef: `${p}-cust-1`, restrictionType: 'COMMUNICATION_HOLD', reason: 'Boarded hold' },
  });
  for (let n = 1; n <= loans; n++) lines.push(...loanLines(p, n, n, payments));
  lines.push({
    kind: 'verification',
    sourceRef: `${p}-verify-1`,
    body: { customerSourceRef: `${p}-cust-1`, instrumentSourceRef: 'bank', verificationSource: 'PLAID_AUTH' },
  });
  return lines;
}
