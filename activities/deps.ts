/**
 * What operations need from the outside world, injected once per process (docs/conventions.md §13.4).
 * Operations never reach for globals, so tests build them on a throw-away database and a
 * controllable clock.
 */
import type { Db } from '../db/client';
import type { WebhookLimits } from '../domain/webhooks/limits';
import type { PaymentRail } from './payments/rail';
import type { SandboxRail } from './payments/sandbox-rail';

export interface Deps {
  db: Db;
  /** Current instant; injected so tests control time. */
  clock: () => Date;
  /** Server pepper for client-secret digests (HMAC-SHA256); never logged. */
  secretPepper: string;
  /** 64 hex characters (256 bits): AES-256-GCM key of government identifiers and the key of their digests; never logged. */
  dataEncryptionKey: string;
  /** `sandbox` or `production`: the one environment this deployment serves (docs/design.md §3). */
  environment: 'sandbox' | 'production';
  /**
   * The payment rail adapter payment intents are submitted through (activities/payments/rail.ts `PaymentRail`).
   * Absent: submissions wait (retried) until a worker with an adapter runs them.
   */
  paymentRail?: PaymentRail;
  /** The sandbox rail's provider-side books (sandbox only): what simulations and the sandbox timeline record. */
  sandboxRail?: SandboxRail;
  /** Per-tenant webhook limits (domain/webhooks/limits.ts); absent → `defaultWebhookLimits`. */
  webhookLimits?: WebhookLimits;
  /**
   * false: portfolio boarding writes each loan of a chunk with its own reads and single-row writes, as the route
   * operations do, instead of through the chunk's shared reads and multi-row writes (activities/lending/loan-chunk.ts);
   * the rows are the same. Default true; false serves as the reference of the equivalence tests.
   */
  boardingLoanChunks?: boolean;
}

/** Who asked and under which key: carried by every state-changing operation. */
export interface OperationContext {
  tenantId: string;
  /** End user named by `Service-Actor` (≤ 128 visible ASCII), recorded in histories. */
  actor?: string | null;
  /** `<clientId>/<Idempotency-Key>` when the caller sent a key: makes a retried create a no-op. */
  requestKey?: string | null;
  /** Request id, recorded with effects for tracing. */
  correlationId?: string | null;
}
