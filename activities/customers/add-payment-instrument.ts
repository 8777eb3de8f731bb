import { and, eq } from 'drizzle-orm';
import { paymentInstruments } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import type { InstrumentType } from '../../domain/customers/customer';
import { DomainError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { type CustomerTxHeld, lockCustomer, recordCustomerChange } from './records';

export interface AddPaymentInstrumentInput extends OperationContext {
  customerId: number;
  instrumentType: InstrumentType;
  /** The vault provider's token for the account or card; never a raw account or card number. */
  providerTokenRef: string;
  /** Last four digits as the vault reports them, for display. */
  lastFour?: string | null;
}

export interface PaymentInstrumentState {
  instrumentId: number;
  verificationStatus: 'UNVERIFIED' | 'VERIFIED';
  state: 'ACTIVE' | 'INACTIVE';
}

/**
 * Records a payment instrument of a customer by its vault token (docs/lending.md "Lending core":
 * "carries providerTokenRef from a vault provider; raw account numbers are never sent"). It starts
 * UNVERIFIED and INACTIVE; money moves only after a trusted verification (verify-payment-instrument.ts).
 * Appends `INSTRUMENT_ADDED` to the customer's history.
 *
 * Idempotent by `providerTokenRef` (unique per tenant): the same token with the same customer,
 * type and last four returns the instrument recorded first, in its current state.
 * Errors: 400 when `providerTokenRef` looks like a raw card or account number (not echoed);
 * 404 when the customer is not the tenant's; 409 `error.msg.payment.instrument.conflict` when the
 * token is already recorded with another customer, type or last four.
 */
export function addPaymentInstrument(deps: Deps) {
  return async (input: AddPaymentInstrumentInput): Promise<PaymentInstrumentState> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) => addPaymentInstrumentInTx(deps, tx, input));
}

/**
 * `addPaymentInstrument` inside the caller's tenant transaction `tx`: the same checks, rows, events and result, for an
 * operation that boards a customer with its items in one transaction (activities/customers/board-customer.ts);
 * `held.customerLocked` skips the customer's row lock when `tx` already holds it.
 * Errors: those of `addPaymentInstrument`.
 */
export async function addPaymentInstrumentInTx(
  deps: Deps,
  tx: Tx,
  input: AddPaymentInstrumentInput,
  held: CustomerTxHeld = {},
): Promise<PaymentInstrumentState> {
  assertNoSensitiveData('providerTokenRef', input.providerTokenRef);
  if (!held.customerLocked) await lockCustomer(tx, input.tenantId, input.customerId);
  const now = deps.clock();
  const [created] = await tx
    .insert(paymentInstruments)
    .values({
      tenantId: input.tenantId,
      customerId: input.customerId,
      instrumentType: input.instrumentType,
      providerTokenRef: input.providerTokenRef,
      lastFour: input.lastFour ?? null,
      createdAt: now,
    })
    .onConflictDoNothing({ target: [paymentInstruments.tenantId, paymentInstruments.providerTokenRef] })
    .returning();
  const row =
    created ??
    (
      await tx
        .select()
        .from(paymentInstruments)
        .where(
          and(
            eq(paymentInstruments.tenantId, input.tenantId),
            eq(paymentInstruments.providerTokenRef, input.providerTokenRef),
          ),
        )
    )[0];
  if (!row) throw new Error('payment instrument vanished after a token conflict');
  if (
    row.customerId !== input.customerId ||
    row.instrumentType !== input.instrumentType ||
    row.lastFour !== (input.lastFour ?? null)
  ) {
    throw new DomainError(
      'error.msg.payment.instrument.conflict',
      'This providerTokenRef is already recorded for another customer or with another type or lastFour.',
    );
  }
  if (created) {
    await recordCustomerChange(
      tx,
      {
        tenantId: input.tenantId,
        customerId: input.customerId,
        action: 'INSTRUMENT_ADDED',
        detail: { instrumentId: row.id, instrumentType: row.instrumentType, lastFour: row.lastFour },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      },
      held.buffers?.history,
    );
  }
  return { instrumentId: row.id, verificationStatus: row.verificationStatus, state: row.state };
}
