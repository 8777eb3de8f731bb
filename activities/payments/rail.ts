/**
 * The payment-rail port (docs/processes.md P1 "Rails"): the requests, answers and interface a rail adapter
 * implements. The sandbox adapter is activities/payments/sandbox-rail.ts; a production adapter implements the
 * same `PaymentRail`, and workers/config.ts chooses which one the operations get (`deps.paymentRail`).
 *
 * `PaymentRail` is the shape a production adapter (a bank's or payment provider's API) needs and the
 * payment-intent workflow's activities call: `submit` (idempotent by tenant and paymentId: the provider's
 * idempotency key), `cancel`, and `settlementReport` (what the daily reconciliation compares with our ledger).
 * Provider events (settled, returned, failed) reach the workflow as signals, so the port has no callbacks.
 * Every method is an external call: an activity calling it writes nothing of ours in the same activity
 * (docs/conventions.md §5, record intent → call rail → record outcome).
 */
import type { Rail } from '../../domain/payments/rails';

/** What `submit` sends to the rail. */
export interface RailSubmitRequest {
  tenantId: string;
  /** Our payment id (positive integer): with the tenant, the provider's idempotency key. */
  paymentId: number;
  rail: Rail;
  /** Decimal string with at most the currency's minor-unit digits, > 0 (`"125.00"`). */
  amount: string;
  /** ISO 4217 code. */
  currency: string;
  /** The instrument as the provider knows it: its token, never an account or card number. */
  instrument: { providerTokenRef: string; instrumentType: string };
  /** ISO date the payment is for (`YYYY-MM-DD`). */
  effectiveDate: string;
}

/** The rail's answer to `submit`; the same on every call for one (tenant, paymentId). */
export interface RailSubmitResult {
  /** The provider's reference of the transfer (`sbx_<rail>_<letters>` in the sandbox). */
  providerRef: string;
  /** `SUBMITTED`: accepted, the outcome comes later; `DECLINED`: refused now, nothing moves. */
  status: 'SUBMITTED' | 'DECLINED';
  /** Why it was declined (a provider's code, e.g. `card_declined`); only with `DECLINED`. */
  declineReason?: string;
}

/** What `cancel` sends: the payment and the reference `submit` answered. */
export interface RailCancelRequest {
  tenantId: string;
  paymentId: number;
  /** The `providerRef` that `submit` answered. */
  providerRef: string;
}

/** The rail's answer to `cancel`. */
export interface RailCancelResult {
  /** True when the transfer is cancelled (now or before); false once it can no longer be cancelled. */
  cancelled: boolean;
}

/** Which outcomes `settlementReport` lists: a tenant's, dated `from`–`to`, optionally of one rail. */
export interface SettlementReportRequest {
  tenantId: string;
  /** Only this rail's transfers; every rail when absent. */
  rail?: Rail;
  /** First ISO date of the report, inclusive. */
  from: string;
  /** Last ISO date of the report, inclusive (≥ `from`). */
  to: string;
}

/**
 * One line of a settlement report: one outcome of one transfer, dated `reportedOn`. A transfer settled and
 * later returned has a `SETTLED` line on its settlement date and a `RETURNED` line on its return date.
 */
export interface SettlementReportEntry {
  providerRef: string;
  paymentId: number;
  rail: Rail;
  /** `SETTLED`: money arrived; `RETURNED`: a settled transfer came back; `FAILED`: it failed before settling. */
  status: 'SETTLED' | 'RETURNED' | 'FAILED';
  /** Decimal string with the currency's minor-unit digits: what settled (or came back); for FAILED, what was asked. */
  amount: string;
  currency: string;
  /** ISO date it settled; null for FAILED. */
  settledOn: string | null;
  /** The rail's return code (`R01`, `A`…); RETURNED only. */
  returnCode?: string;
  /** ISO date of the return; RETURNED only. */
  returnedOn?: string;
  /** The provider's failure reason; FAILED only. */
  failureReason?: string;
  /** ISO date of the failure; FAILED only. */
  failedOn?: string;
  /** The date of this line: `settledOn`, `returnedOn` or `failedOn`. */
  reportedOn: string;
}

/**
 * A payment rail as the workflow's activities see it. Errors: a `DomainError` for a request the rail refuses
 * as malformed (400 `validation.msg.validation.errors.exist`), a `submit` reusing a paymentId with other
 * content (422 `idempotency.key.payload.mismatch`) or a `cancel` of an unknown transfer (404); any other
 * error is transient (network, provider 5xx) and may be retried with the same arguments.
 */
export interface PaymentRail {
  /** Sends a payment; idempotent by (tenantId, paymentId): a repeat returns the first answer and sends nothing. */
  submit(request: RailSubmitRequest): Promise<RailSubmitResult>;
  /** Cancels a submitted payment while the rail still allows it; idempotent. */
  cancel(request: RailCancelRequest): Promise<RailCancelResult>;
  /** The outcomes dated `from`–`to`, ordered by date, then providerRef, then SETTLED before RETURNED. */
  settlementReport(request: SettlementReportRequest): Promise<SettlementReportEntry[]>;
}
