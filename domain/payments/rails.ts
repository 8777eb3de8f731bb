/**
 * The payment rails a payment intent can use and their rules (docs/design.md §5 "Enumerations not shown",
 * docs/processes.md P1 "Rails"), as pure data and functions: when a submission settles, which return codes a
 * rail knows and until when it accepts each, and how far from today an intent's `effectiveDate` may lie.
 * The payment-intent workflow and the create-intent operation read these; the sandbox rail
 * (activities/payments/sandbox-rail.ts) follows the same timelines. Dates are ISO calendar dates `YYYY-MM-DD`;
 * business days are Federal Reserve business days (domain/calendar.ts), the settlement calendar of ACH,
 * Fedwire and check collection.
 *
 * Sources, per rail:
 * - `ACH`: NACHA Operating Rules — Appendix Four (Return Entries: return reason codes and their time frames),
 *   Article Three §3.8 (the RDFI's right to return); next-day settlement of an entry on the banking day after
 *   the ODFI sends it.
 * - `DEBIT_CARD`: card-network authorization then capture; the networks settle a captured transaction to the
 *   acquirer on the next business day. Chargebacks (Visa Core Rules, Mastercard Chargeback Guide) are a
 *   dispute process over months, not a rail return, and are out of scope: a card payment has no returns here.
 * - `RTP`: The Clearing House RTP Operating Rules — a payment is settled or rejected within seconds, 24×7, and
 *   is final and irrevocable (a "request for return of funds" is a new payment, not a return).
 * - `FEDNOW`: FedNow Service Operating Circular 8 and Operating Procedures — settled or rejected within 20
 *   seconds of submission, 24×7×365, final and irrevocable.
 * - `WIRE`: Fedwire Funds Service (Regulation J subpart B, 12 CFR 210.25 ff., incorporating UCC Article 4A;
 *   Operating Circular 6) — settles on the business day of submission, final once the Reserve Bank sends the
 *   payment order to the beneficiary's bank (12 CFR 210.31); no returns.
 * - `CHECK`: Regulation CC (12 CFR 229) — funds of a deposited check available on the second business day
 *   after the banking day of deposit (§229.12(b)); a deposit on a non-banking day counts as made on the next
 *   banking day (§229.19(a)(1)); the paying bank's expeditious return reaches the depositary bank by the
 *   second business day after presentment (§229.31(b), the "two-day test"); return reasons of ANSI
 *   X9.100-188 (Return Reasons for Check Image Exchange and IRDs).
 */
import {
  addDays,
  addFederalReserveBusinessDays,
  federalReserveBusinessDayOnOrAfter,
  isIsoDate,
  previousFederalReserveBusinessDay,
} from '../calendar';
import type { InstrumentType } from '../customers/customer';
import { DomainError, fieldError } from '../errors';

/** Every rail, in the spelling of the wire (docs/design.md §5). */
export const paymentRails = ['ACH', 'DEBIT_CARD', 'RTP', 'FEDNOW', 'WIRE', 'CHECK'] as const;

/** A payment rail's name (the adapter over a rail is `PaymentRail`, activities/payments/rail.ts). */
export type Rail = (typeof paymentRails)[number];

/** True when `value` is one of `paymentRails`. */
export function isRail(value: unknown): value is Rail {
  return typeof value === 'string' && (paymentRails as readonly string[]).includes(value);
}

/** How long after settlement a return with a given code is accepted. */
export type ReturnWindow =
  /** Until the `length`-th Federal Reserve business day after the settlement date, inclusive. */
  | { unit: 'BUSINESS_DAYS'; length: number }
  /** Until the settlement date plus `length` calendar days, inclusive. */
  | { unit: 'CALENDAR_DAYS'; length: number };

/** One return code of a rail. */
export interface ReturnCodeRule {
  /** The code as the rail sends it, e.g. `R01` (NACHA) or `A` (X9.100-188). */
  code: string;
  /** Its title in the rail's rules. */
  title: string;
  /** Whether the receiver disputes the authorization (NACHA's "unauthorized" returns); false for bank returns. */
  unauthorized: boolean;
  /** How long after settlement the rail accepts it. */
  window: ReturnWindow;
}

/** When a submission settles, relative to the date it was submitted. */
export type SettlementTiming =
  /** Settled or rejected within `outcomeWithinSeconds` of submission, any day of the year (24×7×365). */
  | { kind: 'INSTANT'; outcomeWithinSeconds: number }
  /**
   * On the `businessDaysAfter`-th Federal Reserve business day after the processing day: the submission date
   * when it is a business day, else the next business day (0 = the processing day itself).
   */
  | { kind: 'BUSINESS_DAYS'; businessDaysAfter: number };

/** How far an intent's `effectiveDate` may lie from the day it is created. */
export interface EffectiveDateRule {
  /** Federal Reserve business days before today still accepted (0 = today is the earliest). */
  businessDaysBack: number;
  /** Calendar days after today still accepted (0 = today is the latest). */
  calendarDaysAhead: number;
  /** Why, with its source. */
  reason: string;
}

/** Everything this module knows about one rail. */
export interface RailRules {
  rail: Rail;
  settlement: SettlementTiming;
  /** The return codes the rail accepts after settlement, by code; empty when payments on it are final. */
  returnCodes: Readonly<Record<string, ReturnCodeRule>>;
  effectiveDate: EffectiveDateRule;
  /** The rules this entry follows. */
  source: string;
}

const twoBankingDays: ReturnWindow = { unit: 'BUSINESS_DAYS', length: 2 };
const sixtyCalendarDays: ReturnWindow = { unit: 'CALENDAR_DAYS', length: 60 };

function codes(entries: [string, string, boolean, ReturnWindow][]): Readonly<Record<string, ReturnCodeRule>> {
  return Object.freeze(
    Object.fromEntries(
      entries.map(([code, title, unauthorized, window]) => [
        code,
        Object.freeze({ code, title, unauthorized, window }),
      ]),
    ),
  );
}

/**
 * ACH return codes and windows (NACHA Operating Rules, Appendix Four). A return is accepted when it reaches
 * us (the originator's side) on or before its deadline:
 * - bank returns R01, R02, R03, R04, R08, R09, R16, R20 and the non-consumer unauthorized R29: the second
 *   banking day after the settlement date (NACHA: "no later than the opening of business on the second
 *   Banking Day following the Settlement Date");
 * - consumer unauthorized returns R05, R07, R10, R11: sixty calendar days after the settlement date (NACHA's
 *   extended return: the RDFI transmits it by its deposit deadline for the ODFI to have it by the opening of
 *   the banking day following the sixtieth calendar day; docs/processes.md P1 counts the sixty days, so a
 *   return dated day 61 is late and goes to reconciliation instead of reversing the payment).
 * R29 (Corporate Customer Advises Not Authorized) is a two-banking-day return in NACHA's table (non-consumer
 * receivers have no extended window); docs/processes.md P1 lists it with the sixty-day codes, and this table
 * follows NACHA, the rule P1 cites.
 */
const achReturnCodes = codes([
  ['R01', 'Insufficient Funds', false, twoBankingDays],
  ['R02', 'Account Closed', false, twoBankingDays],
  ['R03', 'No Account/Unable to Locate Account', false, twoBankingDays],
  ['R04', 'Invalid Account Number Structure', false, twoBankingDays],
  ['R05', 'Unauthorized Debit to Consumer Account Using Corporate SEC Code', true, sixtyCalendarDays],
  ['R07', 'Authorization Revoked by Customer', true, sixtyCalendarDays],
  ['R08', 'Payment Stopped', false, twoBankingDays],
  ['R09', 'Uncollected Funds', false, twoBankingDays],
  [
    'R10',
    'Customer Advises Originator is Not Known to Receiver and/or Originator is Not Authorized by Receiver to Debit Receiver’s Account',
    true,
    sixtyCalendarDays,
  ],
  [
    'R11',
    'Customer Advises Entry Not in Accordance with the Terms of the Authorization',
    true,
    sixtyCalendarDays,
  ],
  ['R16', 'Account Frozen/Entry Returned per OFAC Instruction', false, twoBankingDays],
  ['R20', 'Non-Transaction Account', false, twoBankingDays],
  ['R29', 'Corporate Customer Advises Not Authorized', true, twoBankingDays],
]);

/**
 * The check return window: five Federal Reserve business days after the settlement (availability) date. A
 * paying bank's expeditious return reaches the depositary bank by the second business day after presentment
 * (Reg CC §229.31(b)); presentment can be as late as the business day after deposit, so a timely return
 * arrives at most one business day after our settlement date, two days into the window. The remaining days
 * cover the depositary bank's and the provider's own reporting, and match the "reasonable period" of five
 * business days that Reg CC §229.13(h)(4) grants a depositary bank to learn whether a check will be paid.
 * A later return (a paying bank past its midnight deadline, UCC §4-302, or a warranty claim under
 * §229.34) is a dispute for an operator: it reaches reconciliation, not an automatic reversal.
 */
const checkReturnWindow: ReturnWindow = { unit: 'BUSINESS_DAYS', length: 5 };

/**
 * Customer return reasons of ANSI X9.100-188 (the codes a returned check image carries). Administrative
 * codes (`U` unusable image) lead to re-presentment, not a return, and warranty-breach codes (`3`, `4`, `5`)
 * are claims outside the return window; neither is accepted.
 */
const checkReturnCodes = codes(
  (
    [
      ['A', 'NSF - Not Sufficient Funds', false],
      ['B', 'UCF - Uncollected Funds Hold', false],
      ['C', 'Stop Payment', false],
      ['D', 'Closed Account', false],
      ['E', 'UTLA - Unable to Locate Account', false],
      ['F', 'Frozen/Blocked Account', false],
      ['G', 'Stale Dated', false],
      ['H', 'Post Dated', false],
      ['I', 'Endorsement Missing', false],
      ['J', 'Endorsement Irregular', false],
      ['K', 'Signature(s) Missing', false],
      ['L', 'Signature(s) Irregular, Suspected Forgery', false],
      ['M', 'Non-Cash Item (Non-Negotiable)', false],
      ['N', 'Altered/Fictitious Item/Suspected Counterfeit/Counterfeit', false],
      ['O', 'Unable to Process', false],
      ['P', 'Item Exceeds Stated Max Value', false],
      ['Q', 'Not Authorized (Includes Drafts)', true],
      ['R', 'Branch/Account Sold (Wrong Bank)', false],
      ['S', 'Refer to Maker', false],
      ['T', 'Item Cannot Be Re-presented', false],
      ['W', 'Cannot Determine Amount', false],
      ['X', 'Refer to Image', false],
      ['Y', 'Duplicate Presentment', false],
      ['Z', 'Forgery', true],
    ] as [string, string, boolean][]
  ).map(([code, title, unauthorized]) => [code, title, unauthorized, checkReturnWindow]),
);

const noReturns: Readonly<Record<string, ReturnCodeRule>> = Object.freeze({});

/**
 * How far ahead any scheduled rail accepts an `effectiveDate`: thirty calendar days. Our choice, not a rail
 * rule: an intent reserves part of the loan's outstanding until it settles, and autopay creates its intent
 * `daysBeforeDue` before a monthly due date, so one monthly cycle ahead is enough and keeps reservations short.
 */
const scheduleAheadDays = 30;

/** The rules of every rail. */
export const railRules: Readonly<Record<Rail, RailRules>> = Object.freeze({
  ACH: {
    rail: 'ACH',
    settlement: { kind: 'BUSINESS_DAYS', businessDaysAfter: 1 },
    returnCodes: achReturnCodes,
    effectiveDate: {
      businessDaysBack: 0,
      calendarDaysAhead: scheduleAheadDays,
      reason:
        'An ACH entry carries a future or same-day Effective Entry Date; a past (stale) one is settled at the next ' +
        'opportunity (NACHA Operating Rules), so the past is never honoured. Forward-dated up to 30 days.',
    },
    source: 'NACHA Operating Rules, Appendix Four (Return Entries), Article Three §3.8',
  },
  DEBIT_CARD: {
    rail: 'DEBIT_CARD',
    settlement: { kind: 'BUSINESS_DAYS', businessDaysAfter: 1 },
    returnCodes: noReturns,
    effectiveDate: {
      businessDaysBack: 0,
      calendarDaysAhead: scheduleAheadDays,
      reason:
        'A card payment is authorized when it is submitted; it cannot be dated before that. Scheduled up to 30 ' +
        'days ahead (the workflow submits on the date).',
    },
    source: 'Card-network authorization and capture, next-business-day settlement; chargebacks out of scope',
  },
  RTP: {
    rail: 'RTP',
    settlement: { kind: 'INSTANT', outcomeWithinSeconds: 20 },
    returnCodes: noReturns,
    effectiveDate: {
      businessDaysBack: 0,
      calendarDaysAhead: scheduleAheadDays,
      reason:
        'An instant payment settles when it is sent; it cannot be dated before that. Scheduled up to 30 days ' +
        'ahead (the workflow submits on the date).',
    },
    source:
      'The Clearing House RTP Operating Rules (final, irrevocable, 24×7); the same 20-second bound as FedNow',
  },
  FEDNOW: {
    rail: 'FEDNOW',
    settlement: { kind: 'INSTANT', outcomeWithinSeconds: 20 },
    returnCodes: noReturns,
    effectiveDate: {
      businessDaysBack: 0,
      calendarDaysAhead: scheduleAheadDays,
      reason:
        'An instant payment settles when it is sent; it cannot be dated before that. Scheduled up to 30 days ' +
        'ahead (the workflow submits on the date).',
    },
    source:
      'FedNow Service Operating Circular 8 and Operating Procedures (settled or rejected within 20 seconds)',
  },
  WIRE: {
    rail: 'WIRE',
    settlement: { kind: 'BUSINESS_DAYS', businessDaysAfter: 0 },
    returnCodes: noReturns,
    effectiveDate: {
      businessDaysBack: 0,
      calendarDaysAhead: scheduleAheadDays,
      reason:
        'A Fedwire payment order settles on its business day of execution, never earlier than it is sent. ' +
        'Scheduled up to 30 days ahead (the workflow submits on the date).',
    },
    source:
      'Fedwire Funds Service: Regulation J subpart B (12 CFR 210.25 ff.), UCC Article 4A, Operating Circular 6',
  },
  CHECK: {
    rail: 'CHECK',
    settlement: { kind: 'BUSINESS_DAYS', businessDaysAfter: 2 },
    returnCodes: checkReturnCodes,
    effectiveDate: {
      businessDaysBack: 5,
      calendarDaysAhead: 0,
      reason:
        'A payment by check is credited as of the day it was received (Regulation Z §1026.10(a) for open-end ' +
        'credit, §1026.36(c)(1)(i) for mortgage loans), which comes before its deposit: up to five Federal ' +
        'Reserve business days back covers a long weekend with a holiday and a lockbox’s processing lag; an ' +
        'older receipt is a correction for an operator. Never ahead: a post-dated check is returned (X9.100-188 ' +
        '`H`).',
    },
    source:
      'Regulation CC (12 CFR 229): §229.12(b) availability, §229.19(a)(1) deposit day, §229.31(b) expeditious return; ANSI X9.100-188',
  },
} satisfies Record<Rail, RailRules>);

/** The rules of `rail`; RangeError for a value that is not a rail (callers validate the wire value first). */
export function railRulesOf(rail: Rail): RailRules {
  if (!isRail(rail)) throw new RangeError(`not a payment rail: ${String(rail)}`);
  return railRules[rail];
}

function requireDate(name: string, value: string): void {
  if (!isIsoDate(value)) throw new RangeError(`${name} is not an ISO calendar date: ${String(value)}`);
}

/**
 * Whether a payment instrument of `instrumentType` can pay on `rail`: a `DEBIT_CARD` only on the card rail,
 * a `BANK_ACCOUNT` on every other rail (ACH debit, RTP/FedNow and wire from the account, a check drawn on it).
 */
export function railAcceptsInstrumentType(rail: Rail, instrumentType: InstrumentType | string): boolean {
  railRulesOf(rail);
  return rail === 'DEBIT_CARD' ? instrumentType === 'DEBIT_CARD' : instrumentType === 'BANK_ACCOUNT';
}

/** Whether `rail` settles or rejects within seconds, any day (RTP, FedNow), rather than on a business-day timeline. */
export function isInstantRail(rail: Rail): boolean {
  return railRulesOf(rail).settlement.kind === 'INSTANT';
}

/**
 * The date a payment submitted to `rail` on ISO `submittedOn` is expected to settle (`YYYY-MM-DD`):
 * - `RTP`, `FEDNOW`: `submittedOn` itself (instant, 24×7×365; the outcome comes within seconds);
 * - `WIRE`: `submittedOn` when it is a business day, else the next business day;
 * - `ACH`, `DEBIT_CARD`: the business day after the processing day (a Friday submission settles Monday, a
 *   Saturday one Tuesday: it is sent Monday);
 * - `CHECK`: the second business day after the banking day of deposit (Reg CC §229.12(b), §229.19(a)(1)).
 * RangeError when `submittedOn` is not a date or `rail` not a rail.
 */
export function expectedSettlementOf(rail: Rail, submittedOn: string): string {
  requireDate('submittedOn', submittedOn);
  const { settlement } = railRulesOf(rail);
  if (settlement.kind === 'INSTANT') return submittedOn;
  return addFederalReserveBusinessDays(
    federalReserveBusinessDayOnOrAfter(submittedOn),
    settlement.businessDaysAfter,
  );
}

/**
 * The date (`YYYY-MM-DD`) the workflow should submit an intent of `rail` with ISO `effectiveDate`, created on
 * ISO `today`: for `ACH` the business day before the settlement day of `effectiveDate`, so the borrower's
 * account is debited on `effectiveDate` (or the first business day after it) — an ACH debit's Effective
 * Entry Date is its settlement date; for every other rail `effectiveDate` itself (a card is charged, an
 * instant payment or a wire sent, a check deposited on that day). Never before `today`: an intent dated today
 * or in the past is submitted at once. RangeError when a date is not a date or `rail` not a rail.
 */
export function submissionDateOf(rail: Rail, effectiveDate: string, today: string): string {
  requireDate('effectiveDate', effectiveDate);
  requireDate('today', today);
  railRulesOf(rail);
  const wanted =
    rail === 'ACH'
      ? previousFederalReserveBusinessDay(federalReserveBusinessDayOnOrAfter(effectiveDate))
      : effectiveDate;
  return wanted > today ? wanted : today;
}

/** Whether `rail` accepts returns after settlement at all (ACH and CHECK; card, RTP, FedNow and wire do not). */
export function railAcceptsReturns(rail: Rail): boolean {
  return Object.keys(railRulesOf(rail).returnCodes).length > 0;
}

/** The return codes `rail` accepts (empty for a rail without returns), in code order. */
export function returnCodesOf(rail: Rail): readonly ReturnCodeRule[] {
  return Object.values(railRulesOf(rail).returnCodes);
}

/** Whether `code` is a return code of `rail` (exact spelling: `R01`, not `r01` or `R1`; an ACH code is unknown to CHECK). */
export function isKnownReturnCode(rail: Rail, code: string): boolean {
  return typeof code === 'string' && Object.hasOwn(railRulesOf(rail).returnCodes, code);
}

function deadlineOfWindow(window: ReturnWindow, settledOn: string): string {
  return window.unit === 'CALENDAR_DAYS'
    ? addDays(settledOn, window.length)
    : addFederalReserveBusinessDays(settledOn, window.length);
}

/**
 * The last date (`YYYY-MM-DD`, inclusive) on which `rail` accepts a return with `code` of a payment settled on
 * ISO `settledOn`: `settledOn` plus the code's window (`BUSINESS_DAYS`: that many Federal Reserve business
 * days after it; `CALENDAR_DAYS`: that many calendar days). Null when `code` is not a return code of `rail`
 * (including every code on a rail without returns). RangeError when `settledOn` is not a date.
 */
export function returnDeadlineOf(rail: Rail, code: string, settledOn: string): string | null {
  requireDate('settledOn', settledOn);
  if (!isKnownReturnCode(rail, code)) return null;
  const rule = railRulesOf(rail).returnCodes[code] as ReturnCodeRule;
  return deadlineOfWindow(rule.window, settledOn);
}

/**
 * The last date (`YYYY-MM-DD`) on which `rail` accepts any return of a payment settled on ISO `settledOn`:
 * the latest deadline over its codes, i.e. how long the payment-intent workflow stays open after settlement
 * (ACH: `settledOn` + 60 calendar days; CHECK: 5 business days). Null for a rail without returns (the
 * workflow may finish at settlement). RangeError when `settledOn` is not a date.
 */
export function returnWindowEndOf(rail: Rail, settledOn: string): string | null {
  requireDate('settledOn', settledOn);
  let end: string | null = null;
  for (const rule of returnCodesOf(rail)) {
    const deadline = deadlineOfWindow(rule.window, settledOn);
    if (end === null || deadline > end) end = deadline;
  }
  return end;
}

/**
 * Whether `rail` accepts a return with `code`, dated ISO `returnedOn`, of a payment settled on ISO
 * `settledOn`: the code is one of the rail's and `settledOn` ≤ `returnedOn` ≤ its deadline
 * (`returnDeadlineOf`). A return dated before settlement is not a return (the payment failed). Dates are
 * when the event reached us. RangeError when a date is not a date.
 */
export function acceptsReturn(rail: Rail, code: string, settledOn: string, returnedOn: string): boolean {
  requireDate('returnedOn', returnedOn);
  const deadline = returnDeadlineOf(rail, code, settledOn);
  return deadline !== null && returnedOn >= settledOn && returnedOn <= deadline;
}

/**
 * The earliest `effectiveDate` (`YYYY-MM-DD`) an intent of `rail` created on ISO `today` may carry:
 * `today` for every rail but `CHECK`, which may be dated up to five Federal Reserve business days back (the
 * day a check was received; see `railRules.CHECK.effectiveDate.reason`). `today` is the creating tenant's
 * calendar date, chosen by the caller. RangeError when `today` is not a date.
 */
export function earliestEffectiveDateOf(rail: Rail, today: string): string {
  requireDate('today', today);
  let earliest = today;
  for (let n = railRulesOf(rail).effectiveDate.businessDaysBack; n > 0; n -= 1) {
    earliest = previousFederalReserveBusinessDay(earliest);
  }
  return earliest;
}

/**
 * The latest `effectiveDate` (`YYYY-MM-DD`) an intent of `rail` created on ISO `today` may carry: `today` + 30
 * calendar days for the rails the workflow can schedule, `today` for `CHECK` (never post-dated). RangeError
 * when `today` is not a date.
 */
export function latestEffectiveDateOf(rail: Rail, today: string): string {
  requireDate('today', today);
  return addDays(today, railRulesOf(rail).effectiveDate.calendarDaysAhead);
}

/**
 * Checks an intent's `effectiveDate` against its rail ("400 for … a past effectiveDate more than
 * the rail allows"): nothing when `earliestEffectiveDateOf(rail, today)` ≤ `effectiveDate` ≤
 * `latestEffectiveDateOf(rail, today)`; otherwise a 400 `DomainError` (`validation.msg.validation.errors.exist`)
 * with one field error on `effectiveDate`, code `validation.msg.payment.effectiveDate.not.allowed.for.rail`,
 * args `[rail, earliest, latest]`. A malformed `effectiveDate` is a 400 on the same field. RangeError when
 * `today` is not a date.
 */
export function assertEffectiveDateAllowed(rail: Rail, effectiveDate: string, today: string): void {
  const earliest = earliestEffectiveDateOf(rail, today);
  const latest = latestEffectiveDateOf(rail, today);
  if (!isIsoDate(effectiveDate)) {
    const message = 'effectiveDate must be a calendar date YYYY-MM-DD.';
    throw new DomainError('validation.msg.validation.errors.exist', message, {
      errors: [fieldError('effectiveDate', effectiveDate, message)],
    });
  }
  if (effectiveDate >= earliest && effectiveDate <= latest) return;
  const message =
    effectiveDate < earliest
      ? `effectiveDate ${effectiveDate} is earlier than rail ${rail} allows (earliest ${earliest}).`
      : `effectiveDate ${effectiveDate} is later than rail ${rail} allows (latest ${latest}).`;
  throw new DomainError('validation.msg.validation.errors.exist', message, {
    errors: [
      fieldError(
        'effectiveDate',
        effectiveDate,
        message,
        'validation.msg.payment.effectiveDate.not.allowed.for.rail',
        [rail, earliest, latest],
      ),
    ],
  });
}

/**
 * NACHA return codes that mean the borrower's account could not cover the debit: R01 Insufficient Funds, R09
 * Uncollected Funds (NACHA Operating Rules, Appendix Four). A return with one of them adds the product's NSF
 * charge to the loan (activities/payments/return-payment.ts).
 */
export const insufficientFundsReturnCodes: readonly string[] = ['R01', 'R09'];
