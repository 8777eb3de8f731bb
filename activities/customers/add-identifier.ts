import { and, eq } from 'drizzle-orm';
import { customerIdentifiers } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import {
  type IdentifierType,
  identifierDigestInput,
  normalizeIdentifier,
} from '../../domain/customers/identifiers';
import { DomainError, fieldError } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { encryptIdentifier, identifierDigest } from './identifier-crypto';
import { type CustomerTxHeld, lockCustomer, recordCustomerChange } from './records';

export interface AddIdentifierInput extends OperationContext {
  customerId: number;
  identifierType: IdentifierType;
  /**
   * The complete value, supplied once (dashes and spaces allowed). Never logged, never returned,
   * never put in an error. Do not pass it through a Temporal workflow without an encrypting
   * payload codec: workflow inputs are stored in its history.
   */
  value: string;
  /** ISO 3166-1 alpha-2 issuing country; US (or absent) for SSN, ITIN and EIN. */
  issuingCountry?: string | null;
}

export interface AddIdentifierResult {
  identifierId: number;
  identifierType: IdentifierType;
  /** e.g. `***-**-6789`: the only form of the value ever returned. */
  mask: string;
  verificationStatus: 'UNVERIFIED' | 'VERIFIED';
}

/**
 * Records a government identifier of a customer (docs/lending.md "Lending core": "complete identifier
 * value supplied once; reads return only a normalized mask"; docs/design.md §3). The normalized value is
 * stored encrypted (AES-256-GCM) with a keyed digest for the per-tenant unique index and its mask;
 * the history entry `IDENTIFIER_ADDED` carries the mask only.
 *
 * Idempotent by the identifier itself: the same type, country and value on the same customer
 * returns the identifier recorded first (no new row, no new history entry).
 * Errors: 400 (parameterName `value`, value never echoed) when the value does not fit its type;
 * 404 when the customer is not the tenant's; 409 `error.msg.customer.identifier.conflict` when
 * another customer of the tenant already has this identifier.
 */
export function addCustomerIdentifier(deps: Deps) {
  return async (input: AddIdentifierInput): Promise<AddIdentifierResult> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) => addCustomerIdentifierInTx(deps, tx, input));
}

/**
 * `addCustomerIdentifier` inside the caller's tenant transaction `tx`: the same checks, rows, events and result, for an
 * operation that boards a customer with its items in one transaction (activities/customers/board-customer.ts);
 * `held.customerLocked` skips the customer's row lock when `tx` already holds it.
 * Errors: those of `addCustomerIdentifier`.
 */
export async function addCustomerIdentifierInTx(
  deps: Deps,
  tx: Tx,
  input: AddIdentifierInput,
  held: CustomerTxHeld = {},
): Promise<AddIdentifierResult> {
  const check = normalizeIdentifier(input.identifierType, input.value, input.issuingCountry);
  if (!check.ok) {
    throw new DomainError('validation.msg.validation.errors.exist', check.message, {
      errors: [fieldError('value', null, check.message)],
    });
  }
  const { identifier } = check;
  const valueDigest = identifierDigest(
    deps.dataEncryptionKey,
    identifierDigestInput(input.identifierType, identifier),
  );
  if (!held.customerLocked) await lockCustomer(tx, input.tenantId, input.customerId);
  const now = deps.clock();
  const [created] = await tx
    .insert(customerIdentifiers)
    .values({
      tenantId: input.tenantId,
      customerId: input.customerId,
      identifierType: input.identifierType,
      issuingCountry: identifier.issuingCountry,
      valueCiphertext: encryptIdentifier(
        deps.dataEncryptionKey,
        { tenantId: input.tenantId, identifierType: input.identifierType },
        identifier.normalized,
      ),
      valueDigest,
      mask: identifier.mask,
      createdAt: now,
    })
    .onConflictDoNothing({
      target: [
        customerIdentifiers.tenantId,
        customerIdentifiers.identifierType,
        customerIdentifiers.valueDigest,
      ],
    })
    .returning();
  const row =
    created ??
    (
      await tx
        .select()
        .from(customerIdentifiers)
        .where(
          and(
            eq(customerIdentifiers.tenantId, input.tenantId),
            eq(customerIdentifiers.identifierType, input.identifierType),
            eq(customerIdentifiers.valueDigest, valueDigest),
          ),
        )
    )[0];
  if (!row) throw new Error('customer identifier vanished after a digest conflict');
  if (row.customerId !== input.customerId) {
    throw new DomainError(
      'error.msg.customer.identifier.conflict',
      `This ${input.identifierType} is already recorded for another customer of this tenant.`,
    );
  }
  if (created) {
    await recordCustomerChange(
      tx,
      {
        tenantId: input.tenantId,
        customerId: input.customerId,
        action: 'IDENTIFIER_ADDED',
        detail: {
          identifierId: row.id,
          identifierType: row.identifierType,
          issuingCountry: row.issuingCountry,
          mask: row.mask,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      },
      held.buffers?.history,
    );
  }
  return {
    identifierId: row.id,
    identifierType: input.identifierType,
    mask: row.mask,
    verificationStatus: row.verificationStatus,
  };
}
