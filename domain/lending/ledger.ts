/**
 * Double-entry posting rules of a loan's money events, and the append-only corrections a re-allocation needs
 * ("Every money event writes balanced journal entries … Trial balance is zero after every operation";
 * docs/conventions.md §8 after TigerBeetle and Formance: immutable entries, a correction is a new reversing entry that links
 * to the original, money as integer minor units with the currency attached).
 *
 * Pure and deterministic. Amounts are bigint counts of the currency's minor unit (`…Minor`); each entry and
 * each line carries its ISO 4217 currency. `journalLinePayload` renders decimal strings for `journal_entries`.
 *
 * Accounting basis: cash basis. Interest, fees and penalties are recognised as income when a payment is
 * allocated to them, not when they fall due or accrue; there is no receivable for them, and LOAN_PORTFOLIO
 * holds principal only. (A later accrual issue can add INTEREST_RECEIVABLE without changing these rules for
 * principal.) Interest, fees and penalties a payoff waives (domain/lending/allocation/payoff.ts) were never recognised, so
 * waiving them books nothing. Money outside the system (the borrower's bank, the funding source) is represented
 * by the EXTERNAL_CLEARING asset: a disbursement pays out of it, a payment pays into it.
 *
 * Posting rules (one entry per money event, zero lines omitted):
 * - disbursement: Dr LOAN_PORTFOLIO amount / Cr EXTERNAL_CLEARING amount;
 * - payment: Dr EXTERNAL_CLEARING amount / Cr LOAN_PORTFOLIO principal, Cr INTEREST_INCOME interest,
 *   Cr FEE_INCOME fees, Cr PENALTY_INCOME penalties, Cr OVERPAYMENT_LIABILITY overpayment — the split is the
 *   payment's allocation (domain/lending/allocation/);
 * - principal forgiveness (a hardship relief; domain/lending/allocation/replay.ts `principalForgiveness`):
 *   Dr PRINCIPAL_FORGIVENESS_EXPENSE amount / Cr LOAN_PORTFOLIO amount — the principal receivable written off,
 *   value-dated to the relief's as-of date. The other reliefs book nothing: deferral, forbearance and reduced
 *   payment only move due amounts, and the interest, fees and penalties a fee waiver or rate reduction takes off
 *   were never recognised (cash basis, no receivable).
 * - charge-off (Fineract CHARGE_OFF): Dr CREDIT_LOSS_EXPENSE / Cr LOAN_PORTFOLIO, the principal outstanding when
 *   the loan was charged off; its interest, fees and penalties book nothing (never recognised). Undoing the
 *   charge-off drops the event, so the diff appends its reversal.
 * - payment after a charge-off (a recovery): Dr EXTERNAL_CLEARING / Cr RECOVERY_INCOME, its whole amount.
 *
 * Re-allocation (a back-dated payment changes how later payments split): `diffPostings` compares what the
 * journal currently says for each event with what the new allocation says and, for each event that differs,
 * appends a reversal of its current posting (every line swapped, each line linked to the line it reverses)
 * and a new posting. Nothing is ever edited, and the sum of the journal equals the sum of posting the events
 * once, in date order.
 *
 * Transaction refs (`journal_entries.transaction_ref`): `funding/<id>`, `payment/<id>`, `forgiveness/<id>`
 * (the schedule version that forgave) and `charge-off/<id>` (`loan_charge_offs.id`) for an event's first posting, `<base>/revision/<n>` for its n-th posting (n ≥ 2), `<base>/reversal/<n>` for the reversal of
 * revision n. An entry's lines share its ref; a reversal's line i reverses line i of the reversed entry.
 *
 * Errors: RangeError for an unbalanced or malformed entry (`assertBalanced`), an unknown account, mixed
 * currencies in one entry, and a journal whose refs are inconsistent (`diffPostings`).
 */

import { formatMinor, minorUnitDigits } from '../money';
import type {
  AllocationResult,
  DisbursementEvent,
  PaymentAllocation,
  PrincipalForgivenessEvent,
} from './allocation/types';

/** Account codes of the default chart. */
export const accountCodes = [
  'LOAN_PORTFOLIO',
  'EXTERNAL_CLEARING',
  'INTEREST_INCOME',
  'FEE_INCOME',
  'PENALTY_INCOME',
  'OVERPAYMENT_LIABILITY',
  'PRINCIPAL_FORGIVENESS_EXPENSE',
  'CREDIT_LOSS_EXPENSE',
  'RECOVERY_INCOME',
] as const;
export type AccountCode = (typeof accountCodes)[number];

/** `gl_account_type` of db/schema/lending/lending.ts. */
export type AccountType = 'ASSET' | 'LIABILITY' | 'EQUITY' | 'INCOME' | 'EXPENSE';

/** One account of a chart (`gl_accounts` row). */
export interface ChartAccount {
  code: AccountCode;
  name: string;
  accountType: AccountType;
  /** The side that increases it: DEBIT for assets and expenses, CREDIT for liabilities, equity and income. */
  normalBalance: 'DEBIT' | 'CREDIT';
}

/** The chart every tenant starts with (seeded into `gl_accounts`). */
export const defaultChartOfAccounts: readonly ChartAccount[] = [
  {
    code: 'LOAN_PORTFOLIO',
    name: 'Loan portfolio (principal)',
    accountType: 'ASSET',
    normalBalance: 'DEBIT',
  },
  {
    code: 'EXTERNAL_CLEARING',
    name: 'External clearing (fund source)',
    accountType: 'ASSET',
    normalBalance: 'DEBIT',
  },
  { code: 'INTEREST_INCOME', name: 'Interest income', accountType: 'INCOME', normalBalance: 'CREDIT' },
  { code: 'FEE_INCOME', name: 'Fee income', accountType: 'INCOME', normalBalance: 'CREDIT' },
  { code: 'PENALTY_INCOME', name: 'Penalty income', accountType: 'INCOME', normalBalance: 'CREDIT' },
  {
    code: 'OVERPAYMENT_LIABILITY',
    name: 'Overpayments held for borrowers',
    accountType: 'LIABILITY',
    normalBalance: 'CREDIT',
  },
  {
    code: 'PRINCIPAL_FORGIVENESS_EXPENSE',
    name: 'Loan principal forgiven (hardship relief)',
    accountType: 'EXPENSE',
    normalBalance: 'DEBIT',
  },
  {
    code: 'CREDIT_LOSS_EXPENSE',
    name: 'Credit loss / bad debt (principal charged off)',
    accountType: 'EXPENSE',
    normalBalance: 'DEBIT',
  },
  {
    code: 'RECOVERY_INCOME',
    name: 'Recoveries of charged-off loans',
    accountType: 'INCOME',
    normalBalance: 'CREDIT',
  },
];

/** The money event an entry books. `id` is the funding's or payment's identity. */
export interface LedgerSource {
  kind: 'DISBURSEMENT' | 'PAYMENT' | 'PRINCIPAL_FORGIVENESS' | 'CHARGE_OFF';
  id: number;
}

/** One side of a posting: exactly one of debit and credit is > 0 (minor units). */
export interface PostingLine {
  accountCode: AccountCode;
  debitMinor: bigint;
  creditMinor: bigint;
}

/** What one event should currently be booked as (no identity yet): input of `diffPostings`. */
export interface ProposedPosting {
  source: LedgerSource;
  /** ISO date: the event's value date. */
  valueDate: string;
  /** ISO 4217 code. */
  currency: string;
  lines: PostingLine[];
}

/** A journal line as stored: the posting line with its currency and, on a reversal, what it reverses. */
export interface JournalLine extends PostingLine {
  currency: string;
  /** Set on reversal lines: the entry and the index of the line within it that this line cancels. */
  reverses: { transactionRef: string; lineIndex: number } | null;
}

/** An immutable journal entry (one `transaction_ref`; rows of `journal_entries` are its lines). */
export interface JournalEntry {
  transactionRef: string;
  source: LedgerSource;
  kind: 'POSTING' | 'REVERSAL';
  /** Revision of the event's posting that this entry is (POSTING) or cancels (REVERSAL); 1-based. */
  revision: number;
  /** ISO date; a reversal carries the value date of the entry it reverses. */
  valueDate: string;
  currency: string;
  /** Set on a reversal: the entry it cancels. */
  reversesTransactionRef: string | null;
  lines: JournalLine[];
}

/** Posting of a disbursement: Dr LOAN_PORTFOLIO / Cr EXTERNAL_CLEARING. */
export function disbursementPosting(disbursement: DisbursementEvent, currency: string): ProposedPosting {
  const withheld = disbursement.chargesWithheldMinor ?? 0n;
  const lines: PostingLine[] = [
    { accountCode: 'LOAN_PORTFOLIO', debitMinor: disbursement.amountMinor, creditMinor: 0n },
    { accountCode: 'EXTERNAL_CLEARING', debitMinor: 0n, creditMinor: disbursement.amountMinor - withheld },
  ];
  // Charges withheld from the proceeds are earned when the money moves (cash basis).
  if (withheld > 0n) lines.push({ accountCode: 'FEE_INCOME', debitMinor: 0n, creditMinor: withheld });
  return {
    source: { kind: 'DISBURSEMENT', id: disbursement.id },
    valueDate: disbursement.valueDate,
    currency,
    lines,
  };
}

/**
 * Posting of an allocated payment: Dr EXTERNAL_CLEARING amount / Cr LOAN_PORTFOLIO, INTEREST_INCOME,
 * FEE_INCOME, PENALTY_INCOME, OVERPAYMENT_LIABILITY by its allocation (zero credits omitted).
 */
export function paymentPosting(payment: PaymentAllocation, currency: string): ProposedPosting {
  const lines: PostingLine[] = [
    { accountCode: 'EXTERNAL_CLEARING', debitMinor: payment.amountMinor, creditMinor: 0n },
  ];
  const credits: [AccountCode, bigint][] = [
    ['LOAN_PORTFOLIO', payment.principalMinor],
    ['INTEREST_INCOME', payment.interestMinor],
    ['FEE_INCOME', payment.feeMinor],
    ['PENALTY_INCOME', payment.penaltyMinor],
    ['OVERPAYMENT_LIABILITY', payment.overpaymentMinor],
  ];
  for (const [accountCode, amount] of credits) {
    if (amount !== 0n) lines.push({ accountCode, debitMinor: 0n, creditMinor: amount });
  }
  return {
    source: { kind: 'PAYMENT', id: payment.paymentId },
    valueDate: payment.valueDate,
    currency,
    lines,
  };
}

/** Posting of a principal forgiveness: Dr PRINCIPAL_FORGIVENESS_EXPENSE / Cr LOAN_PORTFOLIO, its amount. */
export function principalForgivenessPosting(
  forgiveness: PrincipalForgivenessEvent,
  currency: string,
): ProposedPosting {
  return {
    source: { kind: 'PRINCIPAL_FORGIVENESS', id: forgiveness.id },
    valueDate: forgiveness.valueDate,
    currency,
    lines: [
      { accountCode: 'PRINCIPAL_FORGIVENESS_EXPENSE', debitMinor: forgiveness.amountMinor, creditMinor: 0n },
      { accountCode: 'LOAN_PORTFOLIO', debitMinor: 0n, creditMinor: forgiveness.amountMinor },
    ],
  };
}

/** A charge-off in force (not undone): its id (`loan_charge_offs.id`), value date and principal portion. */
export interface ChargeOffEvent {
  id: number;
  /** ISO date of the charge-off. */
  valueDate: string;
  /** Principal outstanding when the loan was charged off (minor units, ≥ 0). */
  principalMinor: bigint;
}

/**
 * Posting of a charge-off (Fineract `AccountingProcessorForLoan` CHARGE_OFF on the cash basis): Dr
 * CREDIT_LOSS_EXPENSE / Cr LOAN_PORTFOLIO, the principal portion only — interest, fees and penalties were never
 * recognised as income on the cash basis, so their charge-off books nothing. Null when no principal is left
 * (an entry needs two non-zero lines).
 */
export function chargeOffPosting(chargeOff: ChargeOffEvent, currency: string): ProposedPosting | null {
  if (chargeOff.principalMinor === 0n) return null;
  return {
    source: { kind: 'CHARGE_OFF', id: chargeOff.id },
    valueDate: chargeOff.valueDate,
    currency,
    lines: [
      { accountCode: 'CREDIT_LOSS_EXPENSE', debitMinor: chargeOff.principalMinor, creditMinor: 0n },
      { accountCode: 'LOAN_PORTFOLIO', debitMinor: 0n, creditMinor: chargeOff.principalMinor },
    ],
  };
}

/**
 * Posting of a payment received after the loan was charged off (Fineract's recovery repayment on a charged-off
 * loan): Dr EXTERNAL_CLEARING / Cr RECOVERY_INCOME, its whole amount, whatever the allocation paid of the
 * schedule (the principal it pays is already out of LOAN_PORTFOLIO).
 */
export function recoveryPosting(payment: PaymentAllocation, currency: string): ProposedPosting {
  return {
    source: { kind: 'PAYMENT', id: payment.paymentId },
    valueDate: payment.valueDate,
    currency,
    lines: [
      { accountCode: 'EXTERNAL_CLEARING', debitMinor: payment.amountMinor, creditMinor: 0n },
      { accountCode: 'RECOVERY_INCOME', debitMinor: 0n, creditMinor: payment.amountMinor },
    ],
  };
}

/** The loan's charge-off for `postingsForAllocation`: the charge-off in force and the payments that came after it. */
export interface ChargeOffPostingContext {
  chargeOff: ChargeOffEvent;
  /** Ids of the posted payments that are recoveries (received after the charge-off; see repost-loan.ts). */
  recoveryPaymentIds: ReadonlySet<number>;
}

/**
 * Postings of every event of an allocation: disbursements, payments and principal forgiveness, each in replay
 * order, then the charge-off when the loan has one in force (`chargeOff`): its own posting, and the payments named
 * as recoveries posted by `recoveryPosting` instead of `paymentPosting`.
 */
export function postingsForAllocation(
  allocation: AllocationResult,
  chargeOff: ChargeOffPostingContext | null = null,
): ProposedPosting[] {
  const postings = [
    ...allocation.disbursements.map((d) => disbursementPosting(d, allocation.currency)),
    ...allocation.payments.map((p) =>
      chargeOff?.recoveryPaymentIds.has(p.paymentId)
        ? recoveryPosting(p, allocation.currency)
        : paymentPosting(p, allocation.currency),
    ),
    ...(allocation.principalForgiveness ?? []).map((f) =>
      principalForgivenessPosting(f, allocation.currency),
    ),
  ];
  const chargeOffEntry = chargeOff ? chargeOffPosting(chargeOff.chargeOff, allocation.currency) : null;
  if (chargeOffEntry) postings.push(chargeOffEntry);
  return postings;
}

const refPrefix = {
  DISBURSEMENT: 'funding',
  PAYMENT: 'payment',
  PRINCIPAL_FORGIVENESS: 'forgiveness',
  CHARGE_OFF: 'charge-off',
} as const satisfies Record<LedgerSource['kind'], string>;
const kindOfPrefix = {
  funding: 'DISBURSEMENT',
  payment: 'PAYMENT',
  forgiveness: 'PRINCIPAL_FORGIVENESS',
  'charge-off': 'CHARGE_OFF',
} as const satisfies Record<string, LedgerSource['kind']>;

/**
 * `funding/<id>`, `payment/<id>` or `forgiveness/<id>`: the ref of an event's first posting and the prefix of the
 * others.
 */
export function sourceRef(source: LedgerSource): string {
  return `${refPrefix[source.kind]}/${source.id}`;
}

/** The transaction ref of revision `revision` (POSTING) or of its reversal (REVERSAL); see the module note. */
export function transactionRefOf(
  source: LedgerSource,
  kind: 'POSTING' | 'REVERSAL',
  revision: number,
): string {
  if (!Number.isSafeInteger(revision) || revision < 1) throw new RangeError(`invalid revision: ${revision}`);
  const base = sourceRef(source);
  if (kind === 'REVERSAL') return `${base}/reversal/${revision}`;
  return revision === 1 ? base : `${base}/revision/${revision}`;
}

/** Inverse of `transactionRefOf`; RangeError for a ref of another shape. */
export function parseTransactionRef(transactionRef: string): {
  source: LedgerSource;
  kind: 'POSTING' | 'REVERSAL';
  revision: number;
} {
  const match =
    /^(funding|payment|forgiveness|charge-off)\/([1-9]\d*)(?:\/(revision|reversal)\/([1-9]\d*))?$/.exec(
      transactionRef,
    );
  if (!match) throw new RangeError(`not a journal transaction ref: ${transactionRef}`);
  const id = Number(match[2]);
  const revision = match[4] === undefined ? 1 : Number(match[4]);
  // revision 1 of a posting is the bare base ref, so `…/revision/1` is not a ref
  if (
    !Number.isSafeInteger(id) ||
    !Number.isSafeInteger(revision) ||
    (match[3] === 'revision' && revision < 2)
  ) {
    throw new RangeError(`not a journal transaction ref: ${transactionRef}`);
  }
  return {
    source: { kind: kindOfPrefix[match[1] as keyof typeof kindOfPrefix], id },
    kind: match[3] === 'reversal' ? 'REVERSAL' : 'POSTING',
    revision,
  };
}

/**
 * Throws RangeError unless `entry` is a well-formed balanced entry: at least two lines, every account in
 * `chart`, every amount ≥ 0 with exactly one side > 0, every line in the entry's currency, Σ debit = Σ credit.
 */
export function assertBalanced(
  entry: { currency: string; lines: readonly (PostingLine & { currency?: string })[] },
  chart: readonly ChartAccount[] = defaultChartOfAccounts,
): void {
  if (entry.lines.length < 2) throw new RangeError('an entry needs at least two lines');
  let debit = 0n;
  let credit = 0n;
  for (const [index, line] of entry.lines.entries()) {
    if (!chart.some((account) => account.code === line.accountCode)) {
      throw new RangeError(`line ${index}: unknown account ${line.accountCode}`);
    }
    if (typeof line.debitMinor !== 'bigint' || typeof line.creditMinor !== 'bigint') {
      throw new RangeError(`line ${index}: amounts must be bigint minor units`);
    }
    if (line.debitMinor < 0n || line.creditMinor < 0n) throw new RangeError(`line ${index}: negative amount`);
    if ((line.debitMinor === 0n) === (line.creditMinor === 0n)) {
      throw new RangeError(`line ${index}: exactly one of debit and credit must be > 0`);
    }
    if (line.currency !== undefined && line.currency !== entry.currency) {
      throw new RangeError(`line ${index}: currency ${line.currency} in a ${entry.currency} entry`);
    }
    debit += line.debitMinor;
    credit += line.creditMinor;
  }
  if (debit !== credit) throw new RangeError(`unbalanced entry: debits ${debit} ≠ credits ${credit}`);
}

/**
 * The entries to append so that the journal `previous` books exactly `next` (the postings of the latest
 * allocation of the loan's events, `postingsForAllocation`):
 * - an event without a current posting gets one (revision 1, or the next revision after a reversal);
 * - an event whose current posting differs (value date, currency or lines, compared as multisets) gets a
 *   reversal of that posting followed by a new revision;
 * - an event with a current posting that is absent from `next` gets a reversal only;
 * - an event whose posting is unchanged gets nothing, so calling it again with the same `next` returns [].
 * Output order: events in `next` order, each reversal before its new posting, then reversals of absent events.
 * `previous` must be the loan's whole journal (every entry ever appended for its events), read in the same
 * transaction that appends the result under a lock on the loan, so two re-allocations cannot interleave.
 * Every returned entry passes `assertBalanced`. RangeError when `previous` is inconsistent (refs that do not
 * match their kind, revision or source; a revision reversed twice; gaps) or when `next` names an event twice.
 */
export function diffPostings(
  previous: readonly JournalEntry[],
  next: readonly ProposedPosting[],
): JournalEntry[] {
  const history = new Map<string, { postings: JournalEntry[]; reversals: JournalEntry[] }>();
  for (const entry of previous) {
    const parsed = parseTransactionRef(entry.transactionRef);
    if (
      parsed.kind !== entry.kind ||
      parsed.revision !== entry.revision ||
      parsed.source.kind !== entry.source.kind ||
      parsed.source.id !== entry.source.id
    ) {
      throw new RangeError(
        `journal entry ${entry.transactionRef} does not match its kind, revision or source`,
      );
    }
    const key = sourceRef(entry.source);
    let events = history.get(key);
    if (!events) {
      events = { postings: [], reversals: [] };
      history.set(key, events);
    }
    (entry.kind === 'POSTING' ? events.postings : events.reversals).push(entry);
  }
  const current = new Map<string, { revision: number; entry: JournalEntry | null }>();
  for (const [key, events] of history) {
    const postings = [...events.postings].sort((a, b) => a.revision - b.revision);
    const reversals = [...events.reversals].sort((a, b) => a.revision - b.revision);
    postings.forEach((entry, index) => {
      if (entry.revision !== index + 1) throw new RangeError(`${key}: posting revisions are not 1…n`);
    });
    reversals.forEach((entry, index) => {
      if (entry.revision !== index + 1) throw new RangeError(`${key}: reversals are not 1…n or repeat`);
    });
    const p = postings.length;
    const r = reversals.length;
    if (r > p || r < p - 1) throw new RangeError(`${key}: ${p} postings and ${r} reversals`);
    current.set(key, { revision: p, entry: r < p ? postings[p - 1]! : null });
  }

  const appended: JournalEntry[] = [];
  const proposedKeys = new Set<string>();
  for (const proposal of next) {
    const key = sourceRef(proposal.source);
    if (proposedKeys.has(key)) throw new RangeError(`${key} is proposed twice`);
    proposedKeys.add(key);
    assertBalanced(proposal);
    const state = current.get(key) ?? { revision: 0, entry: null };
    if (state.entry && samePosting(state.entry, proposal)) continue;
    if (state.entry) appended.push(reversalOf(state.entry));
    const revision = state.revision + 1;
    appended.push({
      transactionRef: transactionRefOf(proposal.source, 'POSTING', revision),
      source: { ...proposal.source },
      kind: 'POSTING',
      revision,
      valueDate: proposal.valueDate,
      currency: proposal.currency,
      reversesTransactionRef: null,
      lines: proposal.lines.map((line) => ({ ...line, currency: proposal.currency, reverses: null })),
    });
  }
  for (const [key, state] of current) {
    if (state.entry && !proposedKeys.has(key)) appended.push(reversalOf(state.entry));
  }
  return appended;
}

/** One row of a trial balance. Minor units; `balanceMinor` = debit − credit (a credit balance is negative). */
export interface TrialBalanceRow {
  currency: string;
  accountCode: string;
  debitMinor: bigint;
  creditMinor: bigint;
  balanceMinor: bigint;
}

/** Output of `trialBalance`. */
export interface TrialBalance {
  /** Per (currency, account), sorted by currency then account code. */
  rows: TrialBalanceRow[];
  /** Per currency: Σ debits, Σ credits and their difference (zero in a sound journal). */
  totals: { currency: string; debitMinor: bigint; creditMinor: bigint; differenceMinor: bigint }[];
  /** True when every currency's difference is zero. */
  balanced: boolean;
}

/** Sums journal lines per account and currency. Lines of any entries, in any order; amounts in minor units. */
export function trialBalance(
  lines: readonly { accountCode: string; currency: string; debitMinor: bigint; creditMinor: bigint }[],
): TrialBalance {
  const rows = new Map<string, TrialBalanceRow>();
  const totals = new Map<
    string,
    { currency: string; debitMinor: bigint; creditMinor: bigint; differenceMinor: bigint }
  >();
  for (const line of lines) {
    const key = `${line.currency} ${line.accountCode}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        currency: line.currency,
        accountCode: line.accountCode,
        debitMinor: 0n,
        creditMinor: 0n,
        balanceMinor: 0n,
      };
      rows.set(key, row);
    }
    row.debitMinor += line.debitMinor;
    row.creditMinor += line.creditMinor;
    row.balanceMinor += line.debitMinor - line.creditMinor;
    let total = totals.get(line.currency);
    if (!total) {
      total = { currency: line.currency, debitMinor: 0n, creditMinor: 0n, differenceMinor: 0n };
      totals.set(line.currency, total);
    }
    total.debitMinor += line.debitMinor;
    total.creditMinor += line.creditMinor;
    total.differenceMinor += line.debitMinor - line.creditMinor;
  }
  // code-unit order, not localeCompare: the order must not depend on the host's locale
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const byKey = (
    a: { currency: string; accountCode?: string },
    b: { currency: string; accountCode?: string },
  ) => compare(a.currency, b.currency) || compare(a.accountCode ?? '', b.accountCode ?? '');
  const totalList = [...totals.values()].sort(byKey);
  return {
    rows: [...rows.values()].sort(byKey),
    totals: totalList,
    balanced: totalList.every((total) => total.differenceMinor === 0n),
  };
}

/** The lines of `entries`, flattened (e.g. for `trialBalance`). */
export function journalLines(entries: readonly JournalEntry[]): JournalLine[] {
  return entries.flatMap((entry) => entry.lines);
}

/**
 * A journal line as a `journal_entries` row wants it: decimal strings with the currency's minor-unit digits
 * (domain/money.ts `minorUnitDigits`). RangeError for an unknown currency.
 */
export function journalLinePayload(line: JournalLine): {
  accountCode: AccountCode;
  debit: string;
  credit: string;
  currency: string;
} {
  const digits = minorUnitDigits(line.currency);
  return {
    accountCode: line.accountCode,
    debit: formatMinor(line.debitMinor, digits),
    credit: formatMinor(line.creditMinor, digits),
    currency: line.currency,
  };
}

function reversalOf(entry: JournalEntry): JournalEntry {
  return {
    transactionRef: transactionRefOf(entry.source, 'REVERSAL', entry.revision),
    source: { ...entry.source },
    kind: 'REVERSAL',
    revision: entry.revision,
    valueDate: entry.valueDate,
    currency: entry.currency,
    reversesTransactionRef: entry.transactionRef,
    lines: entry.lines.map((line, lineIndex) => ({
      accountCode: line.accountCode,
      debitMinor: line.creditMinor,
      creditMinor: line.debitMinor,
      currency: line.currency,
      reverses: { transactionRef: entry.transactionRef, lineIndex },
    })),
  };
}

function samePosting(entry: JournalEntry, proposal: ProposedPosting): boolean {
  if (entry.valueDate !== proposal.valueDate || entry.currency !== proposal.currency) return false;
  const canonical = (lines: readonly PostingLine[]): string =>
    lines
      .map((line) => `${line.accountCode} ${line.debitMinor} ${line.creditMinor}`)
      .sort()
      .join('|');
  return canonical(entry.lines) === canonical(proposal.lines);
}
