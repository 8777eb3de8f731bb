/**
 * Posting rules and append-only corrections (domain/lending/ledger.ts).
 *
 * Oracles:
 * - Hand-computed: the disbursement and payment postings of loan A (the loan of allocation.test.ts, USD cents),
 *   and the journal a back-dated payment produces (reversal + new revision), with the arithmetic in comments.
 * - Properties (fast-check): every entry balanced; the trial balance is zero after every operation; recording
 *   the events in any arrival order (re-allocating and appending `diffPostings` after each) ends with the same
 *   account balances, and the same net booking per event, as posting the events once in date order; the loan
 *   portfolio never turns to a credit; reversal lines reference the lines they cancel, each at most once; a
 *   repeated diff appends nothing.
 * - Negative space: `assertBalanced`, `parseTransactionRef` and `diffPostings` rejections.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../domain/calendar';
import { allocatePayments } from '../../domain/lending/allocation/replay';
import {
  type AllocationInput,
  type AllocationStrategy,
  type InstallmentDue,
  type MoneyEvent,
  paymentAllocationRules,
} from '../../domain/lending/allocation/types';
import {
  assertBalanced,
  defaultChartOfAccounts,
  diffPostings,
  disbursementPosting,
  type JournalEntry,
  journalLinePayload,
  journalLines,
  type ProposedPosting,
  parseTransactionRef,
  paymentPosting,
  postingsForAllocation,
  sourceRef,
  transactionRefOf,
  trialBalance,
} from '../../domain/lending/ledger';
import { parseDecimalToMinor } from '../../domain/money';

const usd = (amount: string): bigint => parseDecimalToMinor(amount, 2);

/** Loan A of allocation.test.ts: 1000.00 on 2024-01-01; #1 325.00 (incl. penalty 10), #2 342.00, #3 379.00. */
const loanA: InstallmentDue[] = [
  ['2024-01-01', '2024-02-01', '300.00', '10.00', '5.00', '10.00'],
  ['2024-02-01', '2024-03-01', '330.00', '7.00', '5.00', '0.00'],
  ['2024-03-01', '2024-04-01', '370.00', '4.00', '5.00', '0.00'],
].map(([fromDate, dueDate, principal, interest, fee, penalty], index) => ({
  installmentNumber: index + 1,
  fromDate: fromDate!,
  dueDate: dueDate!,
  principalDueMinor: usd(principal!),
  interestDueMinor: usd(interest!),
  feeDueMinor: usd(fee!),
  penaltyDueMinor: usd(penalty!),
}));
const coveredConsumer: AllocationStrategy = { code: 'advanced-payment-allocation-strategy' };
const funding: MoneyEvent = {
  kind: 'DISBURSEMENT',
  id: 1,
  valueDate: '2024-01-01',
  amountMinor: usd('1000.00'),
};
const paymentA: MoneyEvent = { kind: 'PAYMENT', id: 1, valueDate: '2024-03-10', amountMinor: usd('400.00') };
const paymentB: MoneyEvent = { kind: 'PAYMENT', id: 2, valueDate: '2024-02-01', amountMinor: usd('325.00') };

const proposalsFor = (events: MoneyEvent[], input: Omit<AllocationInput, 'events'> = loanInputA) =>
  postingsForAllocation(allocatePayments({ ...input, events }));
const loanInputA = { currency: 'USD', installments: loanA, strategy: coveredConsumer };

/** Account → balance (debit − credit) in cents, accounts with a zero balance left out. */
const balances = (entries: readonly JournalEntry[]): Record<string, bigint> =>
  Object.fromEntries(
    trialBalance(journalLines(entries))
      .rows.filter((row) => row.balanceMinor !== 0n)
      .map((row) => [row.accountCode, row.balanceMinor]),
  );

/** Records `events` one at a time in the given order, re-allocating all recorded events and appending the diff. */
function recordInOrder(
  input: Omit<AllocationInput, 'events'>,
  events: readonly MoneyEvent[],
  afterEach?: (journal: JournalEntry[], appended: JournalEntry[]) => void,
): JournalEntry[] {
  const journal: JournalEntry[] = [];
  for (let k = 1; k <= events.length; k++) {
    const appended = diffPostings(journal, proposalsFor(events.slice(0, k) as MoneyEvent[], input));
    journal.push(...appended);
    afterEach?.(journal, appended);
  }
  return journal;
}

const lineView = (entry: JournalEntry) =>
  entry.lines.map((l) => [l.accountCode, l.debitMinor, l.creditMinor] as [string, bigint, bigint]);

describe('chart of accounts', () => {
  it('has the nine default accounts with their types and normal sides', () => {
    expect(defaultChartOfAccounts.map((a) => [a.code, a.accountType, a.normalBalance])).toEqual([
      ['LOAN_PORTFOLIO', 'ASSET', 'DEBIT'],
      ['EXTERNAL_CLEARING', 'ASSET', 'DEBIT'],
      ['INTEREST_INCOME', 'INCOME', 'CREDIT'],
      ['FEE_INCOME', 'INCOME', 'CREDIT'],
      ['PENALTY_INCOME', 'INCOME', 'CREDIT'],
      ['OVERPAYMENT_LIABILITY', 'LIABILITY', 'CREDIT'],
      ['PRINCIPAL_FORGIVENESS_EXPENSE', 'EXPENSE', 'DEBIT'],
      ['CREDIT_LOSS_EXPENSE', 'EXPENSE', 'DEBIT'],
      ['RECOVERY_INCOME', 'INCOME', 'CREDIT'],
    ]);
  });
});

describe('posting rules', () => {
  it('disbursement: Dr LOAN_PORTFOLIO / Cr EXTERNAL_CLEARING', () => {
    const posting = disbursementPosting(
      { kind: 'DISBURSEMENT', id: 12, valueDate: '2024-01-01', amountMinor: usd('1000.00') },
      'USD',
    );
    expect(posting.source).toEqual({ kind: 'DISBURSEMENT', id: 12 });
    expect(posting.lines).toEqual([
      { accountCode: 'LOAN_PORTFOLIO', debitMinor: 100_000n, creditMinor: 0n },
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: 0n, creditMinor: 100_000n },
    ]);
    assertBalanced(posting);
  });

  it('payment: Dr EXTERNAL_CLEARING / Cr principal, interest, fee, penalty income by the allocation', () => {
    // 400.00 on 2024-03-10 → principal 368, interest 17, fee 5, penalty 10 (allocation.test.ts).
    const allocation = allocatePayments({ ...loanInputA, events: [funding, paymentA] });
    const posting = paymentPosting(allocation.payments[0]!, 'USD');
    expect(posting.lines).toEqual([
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: 40_000n, creditMinor: 0n },
      { accountCode: 'LOAN_PORTFOLIO', debitMinor: 0n, creditMinor: 36_800n },
      { accountCode: 'INTEREST_INCOME', debitMinor: 0n, creditMinor: 1_700n },
      { accountCode: 'FEE_INCOME', debitMinor: 0n, creditMinor: 500n },
      { accountCode: 'PENALTY_INCOME', debitMinor: 0n, creditMinor: 1_000n },
    ]);
    assertBalanced(posting);
  });

  it('overpayment: Cr OVERPAYMENT_LIABILITY; zero credits are omitted', () => {
    // 1100.00 on 2024-04-02: principal 1000, interest 21, fee 15, penalty 10, overpayment 54.
    const allocation = allocatePayments({
      ...loanInputA,
      events: [funding, { kind: 'PAYMENT', id: 3, valueDate: '2024-04-02', amountMinor: usd('1100.00') }],
    });
    expect(
      paymentPosting(allocation.payments[0]!, 'USD').lines.map((l) => [l.accountCode, l.creditMinor]),
    ).toEqual([
      ['EXTERNAL_CLEARING', 0n],
      ['LOAN_PORTFOLIO', 100_000n],
      ['INTEREST_INCOME', 2_100n],
      ['FEE_INCOME', 1_500n],
      ['PENALTY_INCOME', 1_000n],
      ['OVERPAYMENT_LIABILITY', 5_400n],
    ]);
    const small = allocatePayments({
      ...loanInputA,
      events: [funding, { kind: 'PAYMENT', id: 4, valueDate: '2024-01-15', amountMinor: usd('5.00') }],
    });
    expect(paymentPosting(small.payments[0]!, 'USD').lines.map((l) => l.accountCode)).toEqual([
      'EXTERNAL_CLEARING',
      'INTEREST_INCOME',
    ]);
  });

  it('postingsForAllocation: disbursements, then payments in replay order', () => {
    const postings = proposalsFor([paymentA, paymentB, funding]);
    expect(postings.map((p) => sourceRef(p.source))).toEqual(['funding/1', 'payment/2', 'payment/1']);
  });
});

describe('charges withheld at disbursement', () => {
  it('books the principal lent, the net proceeds and the fee income, balanced', () => {
    // Principal 1200.00 lent, a 25.00 origination fee withheld: the borrower receives 1175.00.
    const posting = disbursementPosting(
      {
        kind: 'DISBURSEMENT',
        id: 9,
        valueDate: '2025-01-15',
        amountMinor: 120000n,
        chargesWithheldMinor: 2500n,
      },
      'USD',
    );
    expect(posting.lines).toEqual([
      { accountCode: 'LOAN_PORTFOLIO', debitMinor: 120000n, creditMinor: 0n },
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: 0n, creditMinor: 117500n },
      { accountCode: 'FEE_INCOME', debitMinor: 0n, creditMinor: 2500n },
    ]);
    expect(() => assertBalanced(posting)).not.toThrow();
  });

  it('carries the withheld charges through allocation to the first disbursement only', () => {
    const result = allocatePayments({
      currency: 'USD',
      installments: [
        {
          installmentNumber: 1,
          fromDate: '2025-01-15',
          dueDate: '2025-02-15',
          principalDueMinor: 120000n,
          interestDueMinor: 1200n,
          feeDueMinor: 0n,
          penaltyDueMinor: 0n,
        },
      ],
      events: [
        {
          kind: 'DISBURSEMENT',
          id: 1,
          valueDate: '2025-01-15',
          amountMinor: 120000n,
          chargesWithheldMinor: 2500n,
        },
      ],
      strategy: { code: 'mifos-standard-strategy' },
    });
    expect(result.disbursements[0]?.chargesWithheldMinor).toBe(2500n);
    const lines = postingsForAllocation(result).flatMap((p) => p.lines);
    const credit = (code: string) =>
      lines.filter((l) => l.accountCode === code).reduce((s, l) => s + l.creditMinor, 0n);
    expect(credit('FEE_INCOME')).toBe(2500n);
    expect(credit('EXTERNAL_CLEARING')).toBe(117500n);
  });

  it('refuses withheld charges above the disbursed amount', () => {
    expect(() =>
      allocatePayments({
        currency: 'USD',
        installments: [
          {
            installmentNumber: 1,
            fromDate: '2025-01-15',
            dueDate: '2025-02-15',
            principalDueMinor: 100n,
            interestDueMinor: 0n,
            feeDueMinor: 0n,
            penaltyDueMinor: 0n,
          },
        ],
        events: [
          {
            kind: 'DISBURSEMENT',
            id: 1,
            valueDate: '2025-01-15',
            amountMinor: 100n,
            chargesWithheldMinor: 101n,
          },
        ],
        strategy: { code: 'mifos-standard-strategy' },
      }),
    ).toThrow(RangeError);
  });
});

describe('diffPostings', () => {
  it('first postings get the base refs and revision 1', () => {
    const journal = diffPostings([], proposalsFor([funding, paymentA]));
    expect(journal.map((e) => [e.transactionRef, e.kind, e.revision, e.valueDate])).toEqual([
      ['funding/1', 'POSTING', 1, '2024-01-01'],
      ['payment/1', 'POSTING', 1, '2024-03-10'],
    ]);
    expect(journal.every((e) => e.lines.every((l) => l.currency === 'USD' && l.reverses === null))).toBe(
      true,
    );
  });

  it('a back-dated payment reverses the later payment’s posting and re-posts it; the journal equals date order', () => {
    // Recorded: funding, A (400.00 on 03-10), then B (325.00 back-dated to 02-01).
    // After A: A = P 368, I 17, F 5, Pen 10. After B: B = #1 in full (P 300, I 10, F 5, Pen 10) and
    // A = #2 in full (P 330, I 7, F 5) + #3 I 4, P 54 → P 384, I 11, F 5.
    const journal = recordInOrder(loanInputA, [funding, paymentA, paymentB]);
    expect(journal.map((e) => e.transactionRef)).toEqual([
      'funding/1',
      'payment/1',
      'payment/2',
      'payment/1/reversal/1',
      'payment/1/revision/2',
    ]);
    const [, original, , reversal, revision] = journal;
    expect(reversal).toMatchObject({ kind: 'REVERSAL', revision: 1, reversesTransactionRef: 'payment/1' });
    expect(reversal!.valueDate).toBe('2024-03-10');
    expect(lineView(reversal!)).toEqual(lineView(original!).map(([a, d, c]) => [a, c, d]));
    expect(reversal!.lines.map((l) => l.reverses)).toEqual(
      original!.lines.map((_, lineIndex) => ({ transactionRef: 'payment/1', lineIndex })),
    );
    expect(lineView(revision!)).toEqual([
      ['EXTERNAL_CLEARING', 40_000n, 0n],
      ['LOAN_PORTFOLIO', 0n, 38_400n],
      ['INTEREST_INCOME', 0n, 1_100n],
      ['FEE_INCOME', 0n, 500n],
    ]);
    // Balances: portfolio 1000 − 300 − 384 = 316; clearing −1000 + 325 + 400 = −275; interest 10 + 11 = 21;
    // fees 5 + 5 = 10; penalty 10.
    const expected = {
      LOAN_PORTFOLIO: 31_600n,
      EXTERNAL_CLEARING: -27_500n,
      INTEREST_INCOME: -2_100n,
      FEE_INCOME: -1_000n,
      PENALTY_INCOME: -1_000n,
    };
    expect(balances(journal)).toEqual(expected);
    expect(balances(recordInOrder(loanInputA, [funding, paymentB, paymentA]))).toEqual(expected);
    expect(trialBalance(journalLines(journal)).balanced).toBe(true);
  });

  it('appends nothing when the allocation has not changed', () => {
    const proposals = proposalsFor([funding, paymentA]);
    const journal = diffPostings([], proposals);
    expect(diffPostings(journal, proposals)).toEqual([]);
  });

  it('a payment that disappears (e.g. returned) is reversed, and posts again as the next revision', () => {
    const journal = diffPostings([], proposalsFor([funding, paymentA]));
    const removed = diffPostings(journal, proposalsFor([funding]));
    expect(removed.map((e) => e.transactionRef)).toEqual(['payment/1/reversal/1']);
    journal.push(...removed);
    expect(balances(journal)).toEqual(balances(diffPostings([], proposalsFor([funding]))));
    const again = diffPostings(journal, proposalsFor([funding, paymentA]));
    expect(again.map((e) => e.transactionRef)).toEqual(['payment/1/revision/2']);
  });

  it('rejects an inconsistent journal and duplicate proposals', () => {
    const journal = diffPostings([], proposalsFor([funding, paymentA]));
    const [fundingEntry, paymentEntry] = journal;
    const proposals = proposalsFor([funding, paymentA]);
    expect(() => diffPostings([{ ...paymentEntry!, revision: 2 }], proposals)).toThrow(/does not match/);
    expect(() =>
      diffPostings([{ ...paymentEntry!, transactionRef: 'payment/1/revision/2', revision: 2 }], proposals),
    ).toThrow(/not 1…n/);
    const reversal = diffPostings(journal, proposalsFor([funding]))[0]!;
    expect(() => diffPostings([fundingEntry!, reversal], proposals)).toThrow(/postings and/);
    expect(() => diffPostings(journal, [...proposals, proposals[1]!])).toThrow(/twice/);
    const unbalanced: ProposedPosting = {
      ...proposals[1]!,
      lines: [...proposals[1]!.lines, { accountCode: 'FEE_INCOME', debitMinor: 0n, creditMinor: 1n }],
    };
    expect(() => diffPostings([], [unbalanced])).toThrow(/unbalanced/);
  });
});

describe('transaction refs', () => {
  it('round-trips every shape', () => {
    const cases: [string, ReturnType<typeof parseTransactionRef>][] = [
      ['funding/12', { source: { kind: 'DISBURSEMENT', id: 12 }, kind: 'POSTING', revision: 1 }],
      ['payment/7', { source: { kind: 'PAYMENT', id: 7 }, kind: 'POSTING', revision: 1 }],
      ['payment/7/revision/3', { source: { kind: 'PAYMENT', id: 7 }, kind: 'POSTING', revision: 3 }],
      ['payment/7/reversal/3', { source: { kind: 'PAYMENT', id: 7 }, kind: 'REVERSAL', revision: 3 }],
      ['forgiveness/5', { source: { kind: 'PRINCIPAL_FORGIVENESS', id: 5 }, kind: 'POSTING', revision: 1 }],
    ];
    for (const [ref, parsed] of cases) {
      expect(parseTransactionRef(ref)).toEqual(parsed);
      expect(transactionRefOf(parsed.source, parsed.kind, parsed.revision)).toBe(ref);
    }
  });

  it('rejects other shapes', () => {
    for (const ref of [
      'payment/0',
      'payment/07',
      'loan/1',
      'payment/1/revision/1',
      'payment/1/reversal/0',
      'payment/1/',
    ]) {
      expect(() => parseTransactionRef(ref)).toThrow(RangeError);
    }
    expect(() => transactionRefOf({ kind: 'PAYMENT', id: 1 }, 'POSTING', 0)).toThrow(RangeError);
  });
});

describe('assertBalanced / trialBalance', () => {
  const ok = {
    currency: 'USD',
    lines: [
      { accountCode: 'EXTERNAL_CLEARING' as const, debitMinor: 5n, creditMinor: 0n },
      { accountCode: 'INTEREST_INCOME' as const, debitMinor: 0n, creditMinor: 5n },
    ],
  };

  it('accepts a balanced entry and rejects every malformed one', () => {
    expect(() => assertBalanced(ok)).not.toThrow();
    const bad =
      (lines: unknown[], currency = 'USD') =>
      () =>
        assertBalanced({ currency, lines } as never);
    expect(bad([ok.lines[0]])).toThrow(/at least two/);
    expect(bad([ok.lines[0], { ...ok.lines[1], creditMinor: 4n }])).toThrow(/unbalanced/);
    expect(bad([ok.lines[0], { ...ok.lines[1], accountCode: 'CASH' }])).toThrow(/unknown account/);
    expect(bad([{ ...ok.lines[0], debitMinor: -5n, creditMinor: -10n }, ok.lines[1]])).toThrow(/negative/);
    expect(
      bad([
        { ...ok.lines[0], creditMinor: 5n },
        { ...ok.lines[1], debitMinor: 5n },
      ]),
    ).toThrow(/exactly one/);
    expect(
      bad([
        { ...ok.lines[0], debitMinor: 0n },
        { ...ok.lines[1], creditMinor: 0n },
      ]),
    ).toThrow(/exactly one/);
    expect(bad([{ ...ok.lines[0], debitMinor: 5 }, ok.lines[1]])).toThrow(/bigint/);
    expect(
      bad([
        { ...ok.lines[0], currency: 'EUR' },
        { ...ok.lines[1], currency: 'USD' },
      ]),
    ).toThrow(/currency/);
    expect(() =>
      assertBalanced(ok, [
        { code: 'EXTERNAL_CLEARING', name: 'x', accountType: 'ASSET', normalBalance: 'DEBIT' },
      ]),
    ).toThrow(/unknown account INTEREST_INCOME/);
  });

  it('sums per currency and account, and reports a non-zero difference', () => {
    const lines = [
      { accountCode: 'LOAN_PORTFOLIO', currency: 'USD', debitMinor: 100n, creditMinor: 0n },
      { accountCode: 'EXTERNAL_CLEARING', currency: 'USD', debitMinor: 0n, creditMinor: 100n },
      { accountCode: 'LOAN_PORTFOLIO', currency: 'USD', debitMinor: 0n, creditMinor: 30n },
      { accountCode: 'EXTERNAL_CLEARING', currency: 'USD', debitMinor: 30n, creditMinor: 0n },
      { accountCode: 'LOAN_PORTFOLIO', currency: 'EUR', debitMinor: 7n, creditMinor: 0n },
    ];
    const result = trialBalance(lines);
    expect(result.rows).toEqual([
      { currency: 'EUR', accountCode: 'LOAN_PORTFOLIO', debitMinor: 7n, creditMinor: 0n, balanceMinor: 7n },
      {
        currency: 'USD',
        accountCode: 'EXTERNAL_CLEARING',
        debitMinor: 30n,
        creditMinor: 100n,
        balanceMinor: -70n,
      },
      {
        currency: 'USD',
        accountCode: 'LOAN_PORTFOLIO',
        debitMinor: 100n,
        creditMinor: 30n,
        balanceMinor: 70n,
      },
    ]);
    expect(result.totals).toEqual([
      { currency: 'EUR', debitMinor: 7n, creditMinor: 0n, differenceMinor: 7n },
      { currency: 'USD', debitMinor: 130n, creditMinor: 130n, differenceMinor: 0n },
    ]);
    expect(result.balanced).toBe(false);
    expect(trialBalance([]).balanced).toBe(true);
  });

  it('journalLinePayload renders decimal strings', () => {
    const [entry] = diffPostings([], proposalsFor([funding]));
    expect(journalLinePayload(entry!.lines[0]!)).toEqual({
      accountCode: 'LOAN_PORTFOLIO',
      debit: '1000.00',
      credit: '0.00',
      currency: 'USD',
    });
  });
});

// ---- properties -----------------------------------------------------------------------------------------------

/** A random loan (1–6 installments, 1–3 tranches) and its events in a random arrival order, first tranche first. */
const scenario = fc
  .record({
    startOffset: fc.integer({ min: 0, max: 3000 }),
    periods: fc.array(
      fc.record({
        gapDays: fc.integer({ min: 1, max: 40 }),
        principal: fc.integer({ min: 0, max: 50_000 }),
        interest: fc.integer({ min: 0, max: 5_000 }),
        fee: fc.integer({ min: 0, max: 1_000 }),
        penalty: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_000 })),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    laterTranches: fc.array(fc.record({ share: fc.integer({ min: 1, max: 5 }), offset: fc.nat(200) }), {
      maxLength: 2,
    }),
    payments: fc.array(
      fc.record({
        onDueDate: fc.boolean(),
        index: fc.nat(),
        offset: fc.nat(300),
        amount: fc.integer({ min: 1, max: 40_000 }),
      }),
      { maxLength: 8 },
    ),
    strategy: fc.oneof(
      fc.constant<AllocationStrategy>({ code: 'mifos-standard-strategy' }),
      fc.constant(coveredConsumer),
      fc
        .record({
          rules: fc.shuffledSubarray([...paymentAllocationRules], { minLength: 12, maxLength: 12 }),
          future: fc.constantFrom(
            'NEXT_INSTALLMENT' as const,
            'LAST_INSTALLMENT' as const,
            'NEXT_LAST_INSTALLMENT' as const,
          ),
          processing: fc.constantFrom('HORIZONTAL' as const, 'VERTICAL' as const),
        })
        .map(
          ({ rules, future, processing }): AllocationStrategy => ({
            code: 'advanced-payment-allocation-strategy',
            loanScheduleProcessingType: processing,
            paymentAllocation: [
              {
                transactionType: 'DEFAULT',
                paymentAllocationOrder: rules.map((paymentAllocationRule, i) => ({
                  paymentAllocationRule,
                  order: i + 1,
                })),
                futureInstallmentAllocationRule: future,
              },
            ],
          }),
        ),
    ),
    arrivalKeys: fc.array(fc.double({ noNaN: true }), { minLength: 12, maxLength: 12 }),
  })
  .map(({ startOffset, periods, laterTranches, payments, strategy, arrivalKeys }) => {
    const start = addDays('2020-01-01', startOffset);
    let fromDate = start;
    const installments: InstallmentDue[] = periods.map((p, index) => {
      const dueDate = addDays(fromDate, p.gapDays);
      const due: InstallmentDue = {
        installmentNumber: index + 1,
        fromDate,
        dueDate,
        principalDueMinor: BigInt(p.principal),
        interestDueMinor: BigInt(p.interest),
        feeDueMinor: BigInt(p.fee),
        penaltyDueMinor: BigInt(p.penalty),
      };
      fromDate = dueDate;
      return due;
    });
    if (installments.every((i) => i.principalDueMinor === 0n)) installments[0]!.principalDueMinor = 10_000n;
    const principal = installments.reduce((sum, i) => sum + i.principalDueMinor, 0n);
    const laterAmounts = laterTranches.map((t) => (principal * BigInt(t.share)) / 12n);
    const first: MoneyEvent = {
      kind: 'DISBURSEMENT',
      id: 1,
      valueDate: start,
      amountMinor: principal - laterAmounts.reduce((a, b) => a + b, 0n),
    };
    const rest: MoneyEvent[] = [
      ...laterTranches
        .map(
          (t, i): MoneyEvent => ({
            kind: 'DISBURSEMENT',
            id: i + 2,
            valueDate: addDays(start, t.offset),
            amountMinor: laterAmounts[i]!,
          }),
        )
        .filter((e) => e.amountMinor > 0n),
      ...payments.map(
        (p, i): MoneyEvent => ({
          kind: 'PAYMENT',
          id: i + 1,
          valueDate: p.onDueDate
            ? installments[p.index % installments.length]!.dueDate
            : addDays(start, p.offset),
          amountMinor: BigInt(p.amount),
        }),
      ),
    ];
    // arrival order: the first tranche (nothing can be paid before it), then the rest in a random order
    const arrival = [
      first,
      ...rest
        .map((event, i) => ({ event, key: arrivalKeys[i]! }))
        .sort((a, b) => a.key - b.key)
        .map((x) => x.event),
    ];
    const dateOrder = [first, ...rest].sort(
      (a, b) =>
        a.valueDate.localeCompare(b.valueDate) ||
        (a.kind === b.kind ? a.id - b.id : a.kind === 'DISBURSEMENT' ? -1 : 1),
    );
    return { input: { currency: 'USD', installments, strategy }, arrival, dateOrder };
  });

/** Net lines per event: Σ over its entries of (debit − credit) per account, zero nets left out. */
function netByEvent(entries: readonly JournalEntry[]): Map<string, Record<string, bigint>> {
  const result = new Map<string, Record<string, bigint>>();
  for (const entry of entries) {
    const key = sourceRef(entry.source);
    const net = result.get(key) ?? {};
    for (const line of entry.lines) {
      net[line.accountCode] = (net[line.accountCode] ?? 0n) + line.debitMinor - line.creditMinor;
      if (net[line.accountCode] === 0n) delete net[line.accountCode];
    }
    result.set(key, net);
  }
  for (const [key, net] of result) if (Object.keys(net).length === 0) result.delete(key);
  return result;
}

describe('ledger — properties', () => {
  it('every entry balances and the trial balance is zero after every operation; the portfolio never turns credit', () => {
    fc.assert(
      fc.property(scenario, ({ input, arrival }) => {
        recordInOrder(input, arrival, (journal, appended) => {
          for (const entry of appended) assertBalanced(entry);
          const tb = trialBalance(journalLines(journal));
          expect(tb.balanced).toBe(true);
          expect(tb.totals.every((t) => t.differenceMinor === 0n)).toBe(true);
          const portfolio = tb.rows.find((r) => r.accountCode === 'LOAN_PORTFOLIO')?.balanceMinor ?? 0n;
          expect(portfolio >= 0n).toBe(true);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('any arrival order (back-dated payments included) ends with the balances and net bookings of date order', () => {
    fc.assert(
      fc.property(scenario, ({ input, arrival, dateOrder }) => {
        const arrived = recordInOrder(input, arrival);
        const inDateOrder = recordInOrder(input, dateOrder);
        const once = diffPostings([], proposalsFor(dateOrder, input));
        expect(balances(arrived)).toEqual(balances(once));
        expect(balances(inDateOrder)).toEqual(balances(once));
        expect(netByEvent(arrived)).toEqual(netByEvent(once));
        // the journal is settled: the final allocation adds nothing
        expect(diffPostings(arrived, proposalsFor(arrival, input))).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('reversal lines reference the posting lines they cancel, each at most once', () => {
    fc.assert(
      fc.property(scenario, ({ input, arrival }) => {
        const journal = recordInOrder(input, arrival);
        const byRef = new Map(journal.map((e) => [e.transactionRef, e]));
        const reversed = new Set<string>();
        for (const entry of journal) {
          if (entry.kind === 'POSTING') {
            expect(entry.reversesTransactionRef).toBeNull();
            expect(entry.lines.every((l) => l.reverses === null)).toBe(true);
            continue;
          }
          const target = byRef.get(entry.reversesTransactionRef!);
          expect(target?.kind).toBe('POSTING');
          expect(target?.revision).toBe(entry.revision);
          expect(journal.indexOf(target!)).toBeLessThan(journal.indexOf(entry));
          expect(entry.valueDate).toBe(target!.valueDate);
          expect(entry.lines).toHaveLength(target!.lines.length);
          for (const line of entry.lines) {
            const { transactionRef, lineIndex } = line.reverses!;
            expect(transactionRef).toBe(target!.transactionRef);
            const original = target!.lines[lineIndex]!;
            expect([line.accountCode, line.currency, line.debitMinor, line.creditMinor]).toEqual([
              original.accountCode,
              original.currency,
              original.creditMinor,
              original.debitMinor,
            ]);
            const key = `${transactionRef}#${lineIndex}`;
            expect(reversed.has(key)).toBe(false);
            reversed.add(key);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
