import { consents } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { validationError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { rowOfRequestKey } from '../servicing/records';
import { type CustomerTxHeld, lockCustomer, recordCustomerChange } from './records';

/** How far ahead of the server clock `capturedAt` may be (clock skew of the capturing system). */
export const capturedAtSkewMsMax = 5 * 60_000;

export interface RecordConsentInput extends OperationContext {
  customerId: number;
  /** Upper-case code, e.g. ESIGN, MARKETING_EMAIL, SMS, CREDIT_REPORT_PULL, AUTOPAY. */
  consentType: string;
  /** True when consent was given, false when it was refused or withdrawn. */
  granted: boolean;
  /** Upper-case code, e.g. WEB_FORM, RECORDED_CALL, PAPER, IMPORT. */
  captureMethod: string;
  /** Reference to the evidence (recording id, document id); never an identifier or account number. */
  evidenceRef: string;
  /** ISO 8601 instant with offset at which consent was captured; not in the future. */
  capturedAt: string;
}

export interface RecordConsentResult {
  consentId: number;
}

/**
 * Records a consent decision of a customer with its capture method and evidence reference (OpenAPI `POST /v1/customers/{customerId}/consents`) and appends
 * `CONSENT_RECORDED` to the customer's history. Consent records are append-only: a later
 * decision of the same type is a new record.
 *
 * Idempotent by `requestKey`: a retry returns the record the first call created.
 * Errors: 400 for an `evidenceRef` that looks like an identifier or account number (not echoed)
 * or a `capturedAt` more than 5 minutes ahead of the server clock; 404 when the customer is not
 * the tenant's.
 */
export function recordCustomerConsent(deps: Deps) {
  return async (input: RecordConsentInput): Promise<RecordConsentResult> =>
    withTenantTransaction(deps.db, input.tenantId, (tx) => recordCustomerConsentInTx(deps, tx, input));
}

/**
 * `recordCustomerConsent` inside the caller's tenant transaction `tx`: the same checks, rows, events and result, for an
 * operation that boards a customer with its items in one transaction (activities/customers/board-customer.ts);
 * `held.customerLocked` skips the customer's row lock when `tx` already holds it.
 * Errors: those of `recordCustomerConsent`.
 */
export async function recordCustomerConsentInTx(
  deps: Deps,
  tx: Tx,
  input: RecordConsentInput,
  held: CustomerTxHeld = {},
): Promise<RecordConsentResult> {
  assertNoSensitiveData('evidenceRef', input.evidenceRef);
  const capturedAt = new Date(input.capturedAt);
  if (Number.isNaN(capturedAt.getTime()))
    throw validationError('capturedAt', input.capturedAt, 'capturedAt must be an ISO 8601 timestamp.');
  const now = deps.clock();
  if (capturedAt.getTime() > now.getTime() + capturedAtSkewMsMax)
    throw validationError('capturedAt', input.capturedAt, 'capturedAt must not be in the future.');
  if (!held.customerLocked) await lockCustomer(tx, input.tenantId, input.customerId);
  const [created] = await tx
    .insert(consents)
    .values({
      tenantId: input.tenantId,
      customerId: input.customerId,
      consentType: input.consentType,
      granted: input.granted,
      captureMethod: input.captureMethod,
      evidenceRef: input.evidenceRef,
      capturedAt,
      createdAt: now,
      requestKey: input.requestKey ?? null,
    })
    .onConflictDoNothing({ target: [consents.tenantId, consents.requestKey] })
    .returning({ id: consents.id });
  if (!created) {
    const existing = await rowOfRequestKey(tx, consents, input.tenantId, input.requestKey);
    return { consentId: existing.id };
  }
  await recordCustomerChange(
    tx,
    {
      tenantId: input.tenantId,
      customerId: input.customerId,
      action: 'CONSENT_RECORDED',
      detail: {
        consentId: created.id,
        consentType: input.consentType,
        granted: input.granted,
        captureMethod: input.captureMethod,
        evidenceRef: input.evidenceRef,
        capturedAt: capturedAt.toISOString(),
      },
      actor: input.actor,
      correlationId: input.correlationId,
      occurredAt: now,
    },
    held.buffers?.history,
  );
  return { consentId: created.id };
}
