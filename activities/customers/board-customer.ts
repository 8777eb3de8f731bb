import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import type { Deps, OperationContext } from '../deps';
import { type AddIdentifierInput, addCustomerIdentifierInTx } from './add-identifier';
import { type AddPaymentInstrumentInput, addPaymentInstrumentInTx } from './add-payment-instrument';
import { type CreateCustomerInput, type CreateCustomerResult, createCustomerInTx } from './create-customer';
import { type RecordConsentInput, recordCustomerConsentInTx } from './record-consent';
import { type CustomerWriteBuffers, lockCustomer } from './records';

/** An item of the customer: its operation's fields without the customer and the context. */
type ItemOf<T> = Omit<T, 'customerId' | keyof OperationContext>;

export interface BoardCustomerInput {
  /** The customer, as `createCustomer` takes it (its tenant, actor and request key serve every item). */
  customer: CreateCustomerInput;
  identifiers: ItemOf<AddIdentifierInput>[];
  /** Consents, each with its own request key (`recordCustomerConsent` is idempotent by it). */
  consents: (ItemOf<RecordConsentInput> & { requestKey: string })[];
  instruments: ItemOf<AddPaymentInstrumentInput>[];
}

export interface BoardCustomerResult extends CreateCustomerResult {
  /** The instruments' ids, in input order. */
  instrumentIds: number[];
}

/**
 * Boards one customer with its identifiers, consents and payment instruments in ONE transaction (portfolio
 * boarding, docs/processes.md P3 and its boarding speed target): `createCustomer` (idempotent by the customer's request
 * key), then `addCustomerIdentifier`, `recordCustomerConsent` and `addPaymentInstrument` for each item, in that
 * order, with the same rules, rows, events and results as those operations called one after the other — one commit
 * instead of one per item. One instant for the whole transaction: every row, history entry and event of it carries
 * the same time (`deps.clock()` read once), and the customer's row lock is taken once for all items.
 *
 * Errors: any DomainError of the customer or of an item (400, 404, 409) rolls the whole transaction back — nothing
 * is stored — and is thrown as that operation throws it, so a caller that must report which item failed (the
 * boarding) runs the operations one by one after such an error.
 */
export function boardCustomer(deps: Deps) {
  return async (input: BoardCustomerInput): Promise<BoardCustomerResult> =>
    withTenantTransaction(deps.db, input.customer.tenantId, (tx) => boardCustomerInTx(deps, tx, input));
}

/**
 * `boardCustomer` inside the caller's tenant transaction `tx` (the same steps, rows, events, results and errors, at
 * one instant read from `deps.clock()`). Portfolio boarding runs the customers of one chunk in one transaction this
 * way, each under a savepoint (activities/boarding/board-lines-together.ts), with the chunk's `buffers`: the
 * history entries and events of its customers are then written by one multi-row statement each before the commit
 * (records.ts `flushCustomerWrites`).
 */
export async function boardCustomerInTx(
  deps: Deps,
  tx: Tx,
  input: BoardCustomerInput,
  buffers?: CustomerWriteBuffers,
): Promise<BoardCustomerResult> {
  const at = deps.clock();
  const once: Deps = { ...deps, clock: () => at };
  const { inserted, ...created } = await createCustomerInTx(once, tx, input.customer, buffers);
  // A customer inserted by this transaction is invisible to others until commit, so no other transaction can
  // touch it; one created earlier (a replay of its request key) is locked here, once, for all its items.
  if (!inserted) await lockCustomer(tx, input.customer.tenantId, created.customerId);
  const held = { customerLocked: true, ...(buffers ? { buffers } : {}) };
  const context = {
    tenantId: input.customer.tenantId,
    actor: input.customer.actor ?? null,
    correlationId: input.customer.correlationId ?? null,
    customerId: created.customerId,
  };
  for (const item of input.identifiers)
    await addCustomerIdentifierInTx(once, tx, { ...context, ...item }, held);
  for (const item of input.consents) await recordCustomerConsentInTx(once, tx, { ...context, ...item }, held);
  const instrumentIds: number[] = [];
  for (const item of input.instruments) {
    instrumentIds.push(
      (await addPaymentInstrumentInTx(once, tx, { ...context, ...item }, held)).instrumentId,
    );
  }
  return { ...created, instrumentIds };
}
