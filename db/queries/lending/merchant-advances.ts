/**
 * Read queries of merchant advances (docs/processes.md P6 "Merchant advances"; OpenAPI `GET
 * /v1/merchant-advances/{advanceId}/reconciliation`, docs/lending.md "Merchant advances"). Each takes a
 * tenant transaction (the operations pass theirs; the routes go through `withTenantTransaction`, row-level
 * security). Stored `numeric(19,6)` amounts are rendered with exactly the currency's minor-unit digits (never via a
 * float). An advance of another tenant is invisible: the functions answer null, which the routes turn into 404.
 */
import { and, asc, eq } from 'drizzle-orm';
import {
  formatHoldbackRate,
  type MerchantRemittanceStatus,
  type ReconciliationPeriod,
  type RemittanceFrequency,
  reconcile,
} from '../../../domain/lending/merchant-advance';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../../../domain/money';
import type { Db } from '../../client';
import { merchantAdvances, merchantRemittances, merchantSalesReports } from '../../schema';
import { type Tx, withTenantTransaction } from '../../tenant-tx';

/** Decimal string as stored → minor units of `currency`. */
export function minorOfStored(amount: string, currency: string): bigint {
  return parseDecimalToMinor(amount, minorUnitDigits(currency), { allowTrailingZeros: true });
}

/** Decimal string as stored → decimal string with exactly the currency's digits. */
export function moneyTextOf(amount: string, currency: string): string {
  return formatMinor(minorOfStored(amount, currency), minorUnitDigits(currency));
}

export type MerchantAdvanceRow = typeof merchantAdvances.$inferSelect;
export type MerchantRemittanceRow = typeof merchantRemittances.$inferSelect;
export type MerchantSalesReportRow = typeof merchantSalesReports.$inferSelect;

/** A merchant advance as answered by the create and read routes. */
export interface MerchantAdvanceView {
  /** Opaque id `mca_…`. */
  advanceId: string;
  customerId: number;
  /** Decimal strings with the currency's digits. */
  advanceAmount: string;
  purchasedAmount: string;
  /** Decimal string with 4 fraction digits in (0, 1]. */
  holdbackRate: string;
  currency: string;
  remittanceFrequency: RemittanceFrequency;
  /** ACTIVE while purchased receivables are outstanding, PAID_OFF when the posted remittances cover them. */
  status: 'ACTIVE' | 'PAID_OFF';
  /** Σ POSTED remittances (returned ones excluded). */
  remittedAmount: string;
  /** purchasedAmount − remittedAmount. */
  outstandingAmount: string;
  /** ISO date the advance was posted to the ledger. */
  fundedOnDate: string;
  /** ISO 8601 instant (UTC). */
  createdAt: string;
}

/** A remittance as answered by the record-external and return routes. */
export interface MerchantRemittanceView {
  /** Opaque id `mrem_…`. */
  remittanceId: string;
  advanceId: string;
  periodStart: string;
  periodEnd: string;
  amount: string;
  currency: string;
  effectiveDate: string;
  status: MerchantRemittanceStatus;
  returnCode: string | null;
  returnReason: string | null;
  returnedAt: string | null;
  createdAt: string;
}

/** The spec's reconciliation (exactly these keys). */
export interface MerchantAdvanceReconciliation {
  advanceId: string;
  status: 'matched' | 'unmatched';
  periods: ReconciliationPeriod[];
}

/** The advance row of `advanceRef` in the tenant, or undefined. `lock` takes a row lock (money operations). */
export async function merchantAdvanceRowOf(
  tx: Tx,
  tenantId: string,
  advanceRef: string,
  lock = false,
): Promise<MerchantAdvanceRow | undefined> {
  const query = tx
    .select()
    .from(merchantAdvances)
    .where(and(eq(merchantAdvances.tenantId, tenantId), eq(merchantAdvances.advanceRef, advanceRef)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** The advance's remittances in recording order. */
export async function remittancesOf(
  tx: Tx,
  tenantId: string,
  advanceId: number,
): Promise<MerchantRemittanceRow[]> {
  return tx
    .select()
    .from(merchantRemittances)
    .where(and(eq(merchantRemittances.tenantId, tenantId), eq(merchantRemittances.advanceId, advanceId)))
    .orderBy(asc(merchantRemittances.id));
}

/** The advance's sales reports by period start. */
export async function salesReportsOf(
  tx: Tx,
  tenantId: string,
  advanceId: number,
): Promise<MerchantSalesReportRow[]> {
  return tx
    .select()
    .from(merchantSalesReports)
    .where(and(eq(merchantSalesReports.tenantId, tenantId), eq(merchantSalesReports.advanceId, advanceId)))
    .orderBy(asc(merchantSalesReports.periodStart));
}

/** Σ POSTED remittances of the advance in minor units. */
export function postedMinorOf(
  advance: MerchantAdvanceRow,
  remittances: readonly MerchantRemittanceRow[],
): bigint {
  return remittances
    .filter((r) => r.status === 'POSTED')
    .reduce((sum, r) => sum + minorOfStored(r.amount, advance.currencyCode), 0n);
}

/** The view of an advance given its remittances. */
export function merchantAdvanceViewOf(
  advance: MerchantAdvanceRow,
  remittances: readonly MerchantRemittanceRow[],
): MerchantAdvanceView {
  const currency = advance.currencyCode;
  const digits = minorUnitDigits(currency);
  const purchased = minorOfStored(advance.purchasedAmount, currency);
  const remitted = postedMinorOf(advance, remittances);
  const outstanding = purchased - remitted;
  return {
    advanceId: advance.advanceRef,
    customerId: advance.customerId,
    advanceAmount: moneyTextOf(advance.advanceAmount, currency),
    purchasedAmount: formatMinor(purchased, digits),
    holdbackRate: formatHoldbackRate(advance.holdbackRate),
    currency,
    remittanceFrequency: advance.remittanceFrequency,
    status: outstanding > 0n ? 'ACTIVE' : 'PAID_OFF',
    remittedAmount: formatMinor(remitted, digits),
    outstandingAmount: formatMinor(outstanding, digits),
    fundedOnDate: advance.fundedOnDate,
    createdAt: advance.createdAt.toISOString(),
  };
}

/** The view of a remittance of `advance`. */
export function merchantRemittanceViewOf(
  advance: MerchantAdvanceRow,
  row: MerchantRemittanceRow,
): MerchantRemittanceView {
  return {
    remittanceId: row.remittanceRef,
    advanceId: advance.advanceRef,
    periodStart: row.periodStart,
    periodEnd: row.periodEnd,
    amount: moneyTextOf(row.amount, advance.currencyCode),
    currency: advance.currencyCode,
    effectiveDate: row.effectiveDate,
    status: row.status,
    returnCode: row.returnCode,
    returnReason: row.returnReason,
    returnedAt: row.returnedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** `GET /v1/merchant-advances/{advanceId}`: the advance with its outstanding amount, or null when not the tenant's. */
export async function getMerchantAdvance(
  db: Db,
  tenantId: string,
  advanceRef: string,
): Promise<MerchantAdvanceView | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const advance = await merchantAdvanceRowOf(tx, tenantId, advanceRef);
    if (!advance) return null;
    return merchantAdvanceViewOf(advance, await remittancesOf(tx, tenantId, advance.id));
  });
}

/**
 * `GET /v1/merchant-advances/{advanceId}/reconciliation`: one row per period that has reported sales or a
 * remittance (domain/lending/merchant-advance.ts `reconcile`), or null when the tenant has no such advance.
 */
export async function getMerchantAdvanceReconciliation(
  db: Db,
  tenantId: string,
  advanceRef: string,
): Promise<MerchantAdvanceReconciliation | null> {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const advance = await merchantAdvanceRowOf(tx, tenantId, advanceRef);
    if (!advance) return null;
    const [reports, remittances] = await Promise.all([
      salesReportsOf(tx, tenantId, advance.id),
      remittancesOf(tx, tenantId, advance.id),
    ]);
    const periods = new Map<
      string,
      {
        periodStart: string;
        periodEnd: string;
        reportedSales: string | null;
        remittances: { amount: string; status: MerchantRemittanceStatus }[];
      }
    >();
    const periodOf = (periodStart: string, periodEnd: string) => {
      const key = `${periodStart}/${periodEnd}`;
      let period = periods.get(key);
      if (!period) {
        period = { periodStart, periodEnd, reportedSales: null, remittances: [] };
        periods.set(key, period);
      }
      return period;
    };
    for (const report of reports)
      periodOf(report.periodStart, report.periodEnd).reportedSales = report.amount;
    for (const remittance of remittances) {
      periodOf(remittance.periodStart, remittance.periodEnd).remittances.push({
        amount: remittance.amount,
        status: remittance.status,
      });
    }
    const result = reconcile([...periods.values()], advance.holdbackRate, advance.currencyCode);
    return { advanceId: advance.advanceRef, status: result.status, periods: result.periods };
  });
}
