import { and, eq } from 'drizzle-orm';
import { paymentInstruments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { notFound, validationError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { type CustomerTxHeld, lockCustomer, recordCustomerChange } from './records';

/** How far ahead of the server clock `verifiedAt` may be (clock skew of the integration). */
export const verifiedAtSkewMsMax = 5 * 60_000;

export interface VerifyPaymentInstrumentInput extends OperationContext {
  customerId: number;
  instrumentId: number;
  /** Who verified it, e.g. a provider or method name (PLAID_AUTH, MICRO_DEPOSITS). */
  verificationSource: string;
  /** ISO 8601 instant of the verification; default: now. */
  verifiedAt?: string | null;
}

export interface VerifyPaymentInstrumentResult {
  instrumentId: number;
  verificationStatus: 'VERIFIED';
  state: 'ACTIVE';
  /** ISO 8601 instant (UTC) of the verification that made it VERIFIED. */
  verifiedAt: string;
  verificationSource: string;
}

/**
 * Marks a payment instrument VERIFIED and ACTIVE, as written by trusted integrations or provider
 * events (docs/lending.md "Lending core": "instrument UNVERIFIED → VERIFIED and ACTIVE, required before money
 * moves"), and appends `INSTRUMENT_VERIFIED` to the customer's history.
 *
 * Verifying a verified instrument is a no-op returning its state (the first verification's time
 * and source are kept).
 * Errors: 400 for a `verifiedAt` more than 5 minutes ahead of the server clock; 404 when the
 * customer or the instrument is not the tenant's, or the instrument is not the customer's.
 */
export function verifyPaymentInstrument(deps: Deps) {
  return async (input: VerifyPaymentInstrumentInput): Promise<VerifyPaymentInstrumentResult> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) => verifyPaymentInstrumentInTx(deps, tx, input));
}

/**
 * `verifyPaymentInstrument` inside the caller's tenant transaction `tx` (the same checks, rows, history and
 * result). `held.customerLocked` skips the customer's row lock when `tx` already holds it; with `held.buffers` the
 * history entry is held there (records.ts `CustomerWriteBuffers`): portfolio boarding verifies a chunk's
 * instruments in one transaction this way, each under a savepoint. Errors: those of `verifyPaymentInstrument`.
 */
export async function verifyPaymentInstrumentInTx(
  deps: Deps,
  tx: Tx,
  input: VerifyPaymentInstrumentInput,
  held: CustomerTxHeld = {},
): Promise<VerifyPaymentInstrumentResult> {
  if (!held.customerLocked) await lockCustomer(tx, input.tenantId, input.customerId);
  const [current] = await tx
    .select()
    .from(paymentInstruments)
    .where(
      and(
        eq(paymentInstruments.tenantId, input.tenantId),
        eq(paymentInstruments.id, input.instrumentId),
        eq(paymentInstruments.customerId, input.customerId),
      ),
    )
    .for('update');
  if (!current) throw notFound('Payment instrument', input.instrumentId);
  if (current.verificationStatus === 'VERIFIED' && current.state === 'ACTIVE' && current.verifiedAt) {
    return {
      instrumentId: current.id,
      verificationStatus: 'VERIFIED',
      state: 'ACTIVE',
      verifiedAt: current.verifiedAt.toISOString(),
      verificationSource: current.verificationSource ?? input.verificationSource,
    };
  }
  const now = deps.clock();
  const verifiedAt = input.verifiedAt ? new Date(input.verifiedAt) : now;
  if (Number.isNaN(verifiedAt.getTime()))
    throw validationError('verifiedAt', input.verifiedAt, 'verifiedAt must be an ISO 8601 timestamp.');
  if (verifiedAt.getTime() > now.getTime() + verifiedAtSkewMsMax)
    throw validationError('verifiedAt', input.verifiedAt, 'verifiedAt must not be in the future.');
  await tx
    .update(paymentInstruments)
    .set({
      verificationStatus: 'VERIFIED',
      state: 'ACTIVE',
      verifiedAt,
      verificationSource: input.verificationSource,
    })
    .where(and(eq(paymentInstruments.tenantId, input.tenantId), eq(paymentInstruments.id, current.id)));
  await recordCustomerChange(
    tx,
    {
      tenantId: input.tenantId,
      customerId: input.customerId,
      action: 'INSTRUMENT_VERIFIED',
      detail: {
        instrumentId: current.id,
        verificationSource: input.verificationSource,
        verifiedAt: verifiedAt.toISOString(),
      },
      actor: input.actor,
      correlationId: input.correlationId,
      occurredAt: now,
    },
    held.buffers?.history,
  );
  return {
    instrumentId: current.id,
    verificationStatus: 'VERIFIED',
    state: 'ACTIVE',
    verifiedAt: verifiedAt.toISOString(),
    verificationSource: input.verificationSource,
  };
}
