/**
 * The sandbox adapter of the payment-rail port (`PaymentRail`, activities/payments/rail.ts; docs/processes.md
 * P1 "Rails"): the production adapter's shape, backed by a table instead of a provider's API.
 *
 * `createSandboxRail(db)` behaves like a provider's test mode (Stripe test tokens, Increase's sandbox
 * simulations). It keeps the provider's records in its own table `sandbox_rail_transfers` (db/schema/payments/sandbox.ts),
 * in its own transactions, never our ledger. Deterministic outcomes by instrument token, like Stripe's test
 * cards:
 * | `providerTokenRef` | rail | outcome at `submit` |
 * |---|---|---|
 * | starts with `tok_decline` | `DEBIT_CARD` | `DECLINED`, `declineReason` `card_declined`, or the token's suffix after `tok_decline_` when it is 1–40 of `a–z _` (`tok_decline_insufficient_funds` → `insufficient_funds`) |
 * | starts with `tok_rtp_reject` | `RTP`, `FEDNOW` | `DECLINED`, `declineReason` `rejected_by_receiving_bank` (the instant rail's reject) |
 * | an instrument type the rail cannot use (a card on ACH, a bank account on the card rail) | any | `DECLINED`, `declineReason` `instrument_not_supported_by_rail` |
 * | anything else | any | `SUBMITTED` |
 * Outcomes after submission are recorded by the sandbox simulation routes or the workflow's own timeline
 * through `recordSandboxSettlement`, `recordSandboxReturn` and `recordSandboxFailure` (each idempotent), and
 * the settlement report shows them. The provider's business calendar is America/New_York (the Federal
 * Reserve's); `submittedOn` and a failure's default date are the clock's date there.
 */
import { createHash } from 'node:crypto';
import { and, asc, eq, gte, lte, or, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sandboxRailTransfers } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { isIsoDate } from '../../domain/calendar';
import { DomainError, notFound, validationError } from '../../domain/errors';
import { currencyFor, formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../domain/money';
import {
  expectedSettlementOf,
  isKnownReturnCode,
  isRail,
  type Rail,
  railAcceptsInstrumentType,
  railAcceptsReturns,
} from '../../domain/payments/rails';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import { localDate } from '../../domain/time-zone';
import type { PaymentRail, RailSubmitRequest, RailSubmitResult, SettlementReportEntry } from './rail';

/** The provider-side record of one transfer, as the sandbox keeps it. */
export interface SandboxTransfer {
  providerRef: string;
  paymentId: number;
  rail: Rail;
  status: 'SUBMITTED' | 'DECLINED' | 'CANCELLED' | 'SETTLED' | 'RETURNED' | 'FAILED';
  /** Decimal string, the currency's minor-unit digits. */
  amount: string;
  currency: string;
  effectiveDate: string;
  submittedOn: string;
  declineReason: string | null;
  /** What settled (decimal string), null until settled. */
  settledAmount: string | null;
  settledOn: string | null;
  returnCode: string | null;
  returnedOn: string | null;
  failureReason: string | null;
  failedOn: string | null;
}

/**
 * What a `recordSandbox…` call did: `RECORDED` (applied now), `ALREADY_RECORDED` (the same outcome was
 * recorded before: nothing changed) or `REFUSED` (the transfer's state or rail does not allow it; `reason`
 * says why, nothing changed).
 */
export interface SandboxOutcome {
  result: 'RECORDED' | 'ALREADY_RECORDED' | 'REFUSED';
  reason?: string;
  transfer: SandboxTransfer;
}

/** The sandbox rail: `PaymentRail` plus the provider-side simulations. */
export interface SandboxRail extends PaymentRail {
  /**
   * Records that the transfer settled on ISO `settledOn` for `amount` (decimal string in the transfer's
   * currency, > 0; may differ from the submitted amount to simulate a mismatch). From `SUBMITTED` only.
   */
  recordSandboxSettlement(input: {
    tenantId: string;
    paymentId: number;
    amount: string;
    settledOn: string;
  }): Promise<SandboxOutcome>;
  /**
   * Records a return of a settled transfer with `returnCode` (a code of its rail, domain/payments/rails.ts),
   * dated ISO `returnedOn` (≥ its settlement date). The provider relays late returns too: whether the return
   * is still accepted is the workflow's decision (`acceptsReturn`), not the provider's.
   */
  recordSandboxReturn(input: {
    tenantId: string;
    paymentId: number;
    returnCode: string;
    returnedOn: string;
  }): Promise<SandboxOutcome>;
  /**
   * Records that a submitted transfer failed before settling, for `reason` (1–500 characters, no identifiers
   * or account numbers), dated ISO `failedOn` (default: the provider's today).
   */
  recordSandboxFailure(input: {
    tenantId: string;
    paymentId: number;
    reason: string;
    failedOn?: string;
  }): Promise<SandboxOutcome>;
  /** The provider's record of a transfer; null when nothing was submitted for (tenant, paymentId). */
  getSandboxTransfer(input: { tenantId: string; paymentId: number }): Promise<SandboxTransfer | null>;
}

/** The provider's business calendar: the Federal Reserve's (Eastern time). */
export const sandboxRailTimeZone = 'America/New_York';

const letters = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The sandbox's reference of a transfer: `sbx_<rail in lower case>_<20 letters>`, the letters drawn from
 * SHA-256 of `<tenantId>/<paymentId>`. Deterministic (a retried submit finds the same reference), distinct
 * per tenant and payment, and letters only, so it never looks like an account number (domain/sensitive-data.ts).
 */
export function sandboxProviderRef(tenantId: string, paymentId: number, rail: Rail): string {
  const digest = createHash('sha256').update(`${tenantId}/${paymentId}`).digest();
  let suffix = '';
  for (let i = 0; i < 20; i += 1) suffix += letters[(digest[i] as number) % 26];
  return `sbx_${rail.toLowerCase()}_${suffix}`;
}

type Row = typeof sandboxRailTransfers.$inferSelect;

/** A `numeric(19,6)` read back as a decimal string with the currency's minor-unit digits. */
function amountOf(numeric: string, currency: string): string {
  const digits = minorUnitDigits(currency);
  return formatMinor(parseDecimalToMinor(numeric, digits, { allowTrailingZeros: true }), digits);
}

function transferOf(row: Row): SandboxTransfer {
  return {
    providerRef: row.providerRef,
    paymentId: row.paymentId,
    rail: row.rail as Rail,
    status: row.status,
    amount: amountOf(row.amount, row.currencyCode),
    currency: row.currencyCode,
    effectiveDate: row.effectiveDate,
    submittedOn: row.submittedOn,
    declineReason: row.declineReason,
    settledAmount: row.settledAmount === null ? null : amountOf(row.settledAmount, row.currencyCode),
    settledOn: row.settledOn,
    returnCode: row.returnCode,
    returnedOn: row.returnedOn,
    failureReason: row.failureReason,
    failedOn: row.failedOn,
  };
}

function requirePaymentId(paymentId: unknown): asserts paymentId is number {
  if (!Number.isSafeInteger(paymentId) || (paymentId as number) < 1) {
    throw validationError('paymentId', paymentId, 'paymentId must be a positive integer.');
  }
}

function requireTenant(tenantId: unknown): asserts tenantId is string {
  if (typeof tenantId !== 'string' || tenantId.length === 0) {
    throw validationError('tenantId', tenantId, 'tenantId is required.');
  }
}

function requireDate(name: string, value: unknown): asserts value is string {
  if (!isIsoDate(value)) throw validationError(name, value, `${name} must be a calendar date YYYY-MM-DD.`);
}

/** Minor units of a positive `amount` in `currency` (at most 13 integer digits); a 400 on `name` otherwise. */
function positiveMinorUnits(name: string, amount: unknown, currency: string): bigint {
  let minor: bigint;
  try {
    if (typeof amount !== 'string') throw new RangeError('not a string');
    minor = parseDecimalToMinor(amount, minorUnitDigits(currency));
  } catch {
    throw validationError(
      name,
      amount,
      `${name} must be a decimal string with at most ${minorUnitDigits(currency)} fraction digits.`,
    );
  }
  if (minor <= 0n) throw validationError(name, amount, `${name} must be greater than zero.`);
  // numeric(19,6) holds 13 integer digits.
  if (minor >= 10n ** BigInt(13 + minorUnitDigits(currency))) {
    throw validationError(name, amount, `${name} must have at most 13 integer digits.`);
  }
  return minor;
}

const tokenPattern = /^[\x21-\x7e]{1,200}$/;

/** Checks a submit request the way a provider's API would; a 400 `DomainError` naming the field otherwise. */
function checkSubmitRequest(request: RailSubmitRequest): bigint {
  requireTenant(request.tenantId);
  requirePaymentId(request.paymentId);
  if (!isRail(request.rail)) throw validationError('rail', request.rail, 'rail is not a payment rail.');
  try {
    currencyFor(request.currency);
  } catch {
    throw validationError('currency', request.currency, 'currency is not an ISO 4217 code.');
  }
  const minor = positiveMinorUnits('amount', request.amount, request.currency);
  const token = request.instrument?.providerTokenRef;
  if (typeof token !== 'string' || !tokenPattern.test(token)) {
    throw validationError(
      'instrument.providerTokenRef',
      token,
      'providerTokenRef must be 1–200 visible characters.',
    );
  }
  if (
    typeof request.instrument.instrumentType !== 'string' ||
    request.instrument.instrumentType.length === 0
  ) {
    throw validationError(
      'instrument.instrumentType',
      request.instrument.instrumentType,
      'instrumentType is required.',
    );
  }
  requireDate('effectiveDate', request.effectiveDate);
  return minor;
}

/** The sandbox's deterministic decision at submission (module table). */
function submissionOutcome(request: RailSubmitRequest): {
  status: 'SUBMITTED' | 'DECLINED';
  declineReason: string | null;
} {
  const token = request.instrument.providerTokenRef;
  if (!railAcceptsInstrumentType(request.rail, request.instrument.instrumentType)) {
    return { status: 'DECLINED', declineReason: 'instrument_not_supported_by_rail' };
  }
  if (request.rail === 'DEBIT_CARD' && token.startsWith('tok_decline')) {
    const suffix = token.slice('tok_decline_'.length);
    const reason =
      token.startsWith('tok_decline_') && /^[a-z_]{1,40}$/.test(suffix) ? suffix : 'card_declined';
    return { status: 'DECLINED', declineReason: reason };
  }
  if ((request.rail === 'RTP' || request.rail === 'FEDNOW') && token.startsWith('tok_rtp_reject')) {
    return { status: 'DECLINED', declineReason: 'rejected_by_receiving_bank' };
  }
  return { status: 'SUBMITTED', declineReason: null };
}

function resultOf(row: Row): RailSubmitResult {
  // A later outcome (settled, returned, cancelled) does not change what submit answered.
  return row.status === 'DECLINED'
    ? { providerRef: row.providerRef, status: 'DECLINED', declineReason: row.declineReason ?? 'declined' }
    : { providerRef: row.providerRef, status: 'SUBMITTED' };
}

/** The rails whose submitted transfers can still be cancelled before their settlement date (module note). */
const cancellableRails: ReadonlySet<Rail> = new Set<Rail>(['ACH', 'DEBIT_CARD']);

/**
 * The sandbox rail over `db` (module note), with `clock` giving the provider's current instant (default the
 * real clock; tests inject theirs). Every method opens its own tenant transaction on the sandbox's table.
 */
export function createSandboxRail(db: Db, options: { clock?: () => Date } = {}): SandboxRail {
  const clock = options.clock ?? (() => new Date());
  const providerToday = () => localDate(clock().getTime(), sandboxRailTimeZone);

  async function lockTransfer(tx: Tx, tenantId: string, paymentId: number) {
    const [row] = await tx
      .select()
      .from(sandboxRailTransfers)
      .where(and(eq(sandboxRailTransfers.tenantId, tenantId), eq(sandboxRailTransfers.paymentId, paymentId)))
      .for('update');
    if (!row) throw notFound('Payment', paymentId);
    return row;
  }

  async function update(
    tx: Tx,
    row: Row,
    values: Partial<typeof sandboxRailTransfers.$inferInsert>,
  ): Promise<Row> {
    const [updated] = await tx
      .update(sandboxRailTransfers)
      .set({ ...values, updatedAt: clock() })
      .where(eq(sandboxRailTransfers.id, row.id))
      .returning();
    return updated as Row;
  }

  const refused = (row: Row, reason: string): SandboxOutcome => ({
    result: 'REFUSED',
    reason,
    transfer: transferOf(row),
  });

  return {
    async submit(request) {
      const minor = checkSubmitRequest(request);
      const { status, declineReason } = submissionOutcome(request);
      const now = clock();
      const providerRef = sandboxProviderRef(request.tenantId, request.paymentId, request.rail);
      return withTenantTransaction(db, request.tenantId, async (tx) => {
        const [inserted] = await tx
          .insert(sandboxRailTransfers)
          .values({
            tenantId: request.tenantId,
            paymentId: request.paymentId,
            rail: request.rail,
            providerRef,
            amount: request.amount,
            currencyCode: request.currency,
            providerTokenRef: request.instrument.providerTokenRef,
            instrumentType: request.instrument.instrumentType,
            effectiveDate: request.effectiveDate,
            status,
            declineReason,
            submittedAt: now,
            submittedOn: localDate(now.getTime(), sandboxRailTimeZone),
            updatedAt: now,
          })
          .onConflictDoNothing({ target: [sandboxRailTransfers.tenantId, sandboxRailTransfers.paymentId] })
          .returning();
        if (inserted) return resultOf(inserted);
        const [existing] = await tx
          .select()
          .from(sandboxRailTransfers)
          .where(
            and(
              eq(sandboxRailTransfers.tenantId, request.tenantId),
              eq(sandboxRailTransfers.paymentId, request.paymentId),
            ),
          );
        const row = existing as Row;
        const same =
          row.rail === request.rail &&
          row.currencyCode === request.currency &&
          parseDecimalToMinor(row.amount, minorUnitDigits(row.currencyCode), { allowTrailingZeros: true }) ===
            minor &&
          row.providerTokenRef === request.instrument.providerTokenRef &&
          row.instrumentType === request.instrument.instrumentType &&
          row.effectiveDate === request.effectiveDate;
        if (!same) {
          throw new DomainError(
            'idempotency.key.payload.mismatch',
            `Payment ${request.paymentId} was submitted to the rail before with other content.`,
          );
        }
        return resultOf(row);
      });
    },

    async cancel(request) {
      requireTenant(request.tenantId);
      requirePaymentId(request.paymentId);
      const today = providerToday();
      return withTenantTransaction(db, request.tenantId, async (tx) => {
        const row = await lockTransfer(tx, request.tenantId, request.paymentId);
        if (row.providerRef !== request.providerRef) throw notFound('Transfer', request.providerRef);
        if (row.status === 'CANCELLED') return { cancelled: true };
        const rail = row.rail as Rail;
        const stillOpen =
          row.status === 'SUBMITTED' &&
          cancellableRails.has(rail) &&
          today < expectedSettlementOf(rail, row.submittedOn);
        if (!stillOpen) return { cancelled: false };
        await update(tx, row, { status: 'CANCELLED', cancelledAt: clock() });
        return { cancelled: true };
      });
    },

    async settlementReport(request) {
      requireTenant(request.tenantId);
      requireDate('from', request.from);
      requireDate('to', request.to);
      if (request.to < request.from) throw validationError('to', request.to, 'to must not be before from.');
      if (request.rail !== undefined && !isRail(request.rail)) {
        throw validationError('rail', request.rail, 'rail is not a payment rail.');
      }
      const t = sandboxRailTransfers;
      const within = (column: typeof t.settledOn | typeof t.returnedOn | typeof t.failedOn) =>
        and(gte(column, request.from), lte(column, request.to));
      const conditions: (SQL | undefined)[] = [
        eq(t.tenantId, request.tenantId),
        or(within(t.settledOn), within(t.returnedOn), within(t.failedOn)),
        request.rail === undefined ? undefined : eq(t.rail, request.rail),
      ];
      const rows = await withTenantTransaction(
        db,
        request.tenantId,
        (tx) =>
          tx
            .select()
            .from(t)
            .where(and(...conditions))
            .orderBy(asc(t.id)),
        { accessMode: 'read only' },
      );
      const inRange = (date: string | null): date is string =>
        date !== null && date >= request.from && date <= request.to;
      const entries: SettlementReportEntry[] = [];
      for (const row of rows) {
        const base = {
          providerRef: row.providerRef,
          paymentId: row.paymentId,
          rail: row.rail as Rail,
          currency: row.currencyCode,
        };
        const settledAmount =
          row.settledAmount === null ? null : amountOf(row.settledAmount, row.currencyCode);
        if (settledAmount !== null && inRange(row.settledOn)) {
          entries.push({
            ...base,
            status: 'SETTLED',
            amount: settledAmount,
            settledOn: row.settledOn,
            reportedOn: row.settledOn,
          });
        }
        if (row.status === 'RETURNED' && settledAmount !== null && inRange(row.returnedOn)) {
          entries.push({
            ...base,
            status: 'RETURNED',
            amount: settledAmount,
            settledOn: row.settledOn,
            returnCode: row.returnCode ?? '',
            returnedOn: row.returnedOn,
            reportedOn: row.returnedOn,
          });
        }
        if (row.status === 'FAILED' && inRange(row.failedOn)) {
          entries.push({
            ...base,
            status: 'FAILED',
            amount: amountOf(row.amount, row.currencyCode),
            settledOn: null,
            failureReason: row.failureReason ?? '',
            failedOn: row.failedOn,
            reportedOn: row.failedOn,
          });
        }
      }
      const order = { SETTLED: 0, RETURNED: 1, FAILED: 2 } as const;
      return entries.sort(
        (a, b) =>
          a.reportedOn.localeCompare(b.reportedOn) ||
          a.providerRef.localeCompare(b.providerRef) ||
          order[a.status] - order[b.status],
      );
    },

    async recordSandboxSettlement(input) {
      requireTenant(input.tenantId);
      requirePaymentId(input.paymentId);
      requireDate('settledOn', input.settledOn);
      return withTenantTransaction(db, input.tenantId, async (tx) => {
        const row = await lockTransfer(tx, input.tenantId, input.paymentId);
        const digits = minorUnitDigits(row.currencyCode);
        const minor = positiveMinorUnits('amount', input.amount, row.currencyCode);
        if (row.status === 'SETTLED' || row.status === 'RETURNED') {
          const settledMinor = parseDecimalToMinor(row.settledAmount ?? '0', digits, {
            allowTrailingZeros: true,
          });
          return settledMinor === minor && row.settledOn === input.settledOn
            ? { result: 'ALREADY_RECORDED', transfer: transferOf(row) }
            : refused(row, `the transfer settled already (${row.settledOn}) for another amount or date`);
        }
        if (row.status !== 'SUBMITTED')
          return refused(row, `the transfer is ${row.status}: it cannot settle`);
        const updated = await update(tx, row, {
          status: 'SETTLED',
          settledAmount: formatMinor(minor, digits),
          settledOn: input.settledOn,
        });
        return { result: 'RECORDED', transfer: transferOf(updated) };
      });
    },

    async recordSandboxReturn(input) {
      requireTenant(input.tenantId);
      requirePaymentId(input.paymentId);
      requireDate('returnedOn', input.returnedOn);
      return withTenantTransaction(db, input.tenantId, async (tx) => {
        const row = await lockTransfer(tx, input.tenantId, input.paymentId);
        const rail = row.rail as Rail;
        if (row.status === 'RETURNED') {
          return row.returnCode === input.returnCode && row.returnedOn === input.returnedOn
            ? { result: 'ALREADY_RECORDED', transfer: transferOf(row) }
            : refused(row, `the transfer was returned already (${row.returnCode} on ${row.returnedOn})`);
        }
        if (!railAcceptsReturns(rail))
          return refused(row, `rail ${rail} has no returns: its payments are final`);
        if (!isKnownReturnCode(rail, input.returnCode)) {
          return refused(row, `${String(input.returnCode)} is not a return code of rail ${rail}`);
        }
        if (row.status !== 'SETTLED')
          return refused(row, `the transfer is ${row.status}: only a settled transfer is returned`);
        if (input.returnedOn < (row.settledOn as string)) {
          return refused(
            row,
            `returnedOn ${input.returnedOn} is before the settlement date ${row.settledOn}`,
          );
        }
        const updated = await update(tx, row, {
          status: 'RETURNED',
          returnCode: input.returnCode,
          returnedOn: input.returnedOn,
        });
        return { result: 'RECORDED', transfer: transferOf(updated) };
      });
    },

    async recordSandboxFailure(input) {
      requireTenant(input.tenantId);
      requirePaymentId(input.paymentId);
      if (typeof input.reason !== 'string' || input.reason.trim().length === 0 || input.reason.length > 500) {
        throw validationError('reason', input.reason, 'reason must be 1–500 characters.');
      }
      assertNoSensitiveData('reason', input.reason);
      const failedOn = input.failedOn ?? providerToday();
      requireDate('failedOn', failedOn);
      return withTenantTransaction(db, input.tenantId, async (tx) => {
        const row = await lockTransfer(tx, input.tenantId, input.paymentId);
        if (row.status === 'FAILED') {
          return row.failureReason === input.reason
            ? { result: 'ALREADY_RECORDED', transfer: transferOf(row) }
            : refused(row, 'the transfer failed already, for another reason');
        }
        if (row.status !== 'SUBMITTED')
          return refused(row, `the transfer is ${row.status}: only a submitted transfer fails`);
        const updated = await update(tx, row, { status: 'FAILED', failureReason: input.reason, failedOn });
        return { result: 'RECORDED', transfer: transferOf(updated) };
      });
    },

    async getSandboxTransfer(input) {
      requireTenant(input.tenantId);
      requirePaymentId(input.paymentId);
      const [row] = await withTenantTransaction(
        db,
        input.tenantId,
        (tx) =>
          tx
            .select()
            .from(sandboxRailTransfers)
            .where(
              and(
                eq(sandboxRailTransfers.tenantId, input.tenantId),
                eq(sandboxRailTransfers.paymentId, input.paymentId),
              ),
            ),
        { accessMode: 'read only' },
      );
      return row ? transferOf(row) : null;
    },
  };
}
