import { and, eq } from 'drizzle-orm';
import { contactPoints, customerAddresses, customers } from '../../db/schema';
import { type Tx, withTenantTransaction } from '../../db/tenant-tx';
import { type ContactType, normalizeContactValue } from '../../domain/customers/contact-points';
import { dateOfBirthProblem } from '../../domain/customers/customer';
import { searchNameLastFirstOf, searchNameOf } from '../../domain/customers/search';
import { DomainError, validationError } from '../../domain/errors';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { type CustomerWriteBuffers, recordCustomerChange } from './records';

/** One postal address of a customer. */
export interface AddressInput {
  /** Upper-case code, e.g. HOME, MAILING, WORK. */
  addressType: string;
  line1: string;
  line2?: string | null;
  city: string;
  /** State, province or region. */
  region?: string | null;
  postalCode?: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
}

/** One contact point; starts UNVERIFIED. */
export interface ContactPointInput {
  contactType: ContactType;
  /** An e-mail address, or a phone number in any common notation (US assumed without `+`). */
  value: string;
}

export interface CreateCustomerInput extends OperationContext {
  firstName: string;
  middleName?: string | null;
  lastName: string;
  /** ISO calendar date, not in the future. */
  dateOfBirth?: string | null;
  /** The source system's key; unique per tenant; never an identifier or account number. */
  externalId?: string | null;
  addresses?: AddressInput[];
  contactPoints?: ContactPointInput[];
}

export interface CreateCustomerResult {
  customerId: number;
  /** Opaque `cus_…` reference minted by the database (docs/processes.md P4 "Refs"). */
  customerRef: string;
}

/**
 * Creates a customer with its addresses and contact points (OpenAPI `POST /v1/customers`), appends `CUSTOMER_CREATED` to its history and writes the
 * outbox event `customer.created`, all in one transaction. Contact points start UNVERIFIED with
 * their normalized value (E.164 phone, lower-cased e-mail); a contact point repeated in the input
 * is stored once.
 *
 * Idempotent by `requestKey`: a retry returns the customer the first call created.
 * Errors: 400 `validation.msg.validation.errors.exist` for a future or impossible `dateOfBirth`,
 * an `externalId` that looks like a government identifier or account number (value not echoed),
 * or an invalid contact point (parameterName `contactPoints[i].value`); 409
 * `error.msg.customer.external.id.conflict` when another customer of the tenant has `externalId`.
 */
export function createCustomer(deps: Deps) {
  return async (input: CreateCustomerInput): Promise<CreateCustomerResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const { inserted: _, ...result } = await createCustomerInTx(deps, tx, input);
      return result;
    });
}

/**
 * `createCustomer` inside the caller's tenant transaction `tx`: the same checks, rows, events and result, for an
 * operation that boards a customer with its items in one transaction (activities/customers/board-customer.ts), and
 * `inserted`: whether this call inserted the customer (false: a replay of its request key answered the earlier
 * one). With `buffers` the history entry and the event are held there instead of written (records.ts
 * `CustomerWriteBuffers`). Errors: those of `createCustomer`.
 */
export async function createCustomerInTx(
  deps: Deps,
  tx: Tx,
  input: CreateCustomerInput,
  buffers?: CustomerWriteBuffers,
): Promise<CreateCustomerResult & { inserted: boolean }> {
  const now = deps.clock();
  if (input.dateOfBirth) {
    const problem = dateOfBirthProblem(input.dateOfBirth, now);
    if (problem) throw validationError('dateOfBirth', input.dateOfBirth, problem);
  }
  assertNoSensitiveData('externalId', input.externalId);
  const contacts: { contactType: ContactType; value: string; normalizedValue: string }[] = [];
  const seen = new Set<string>();
  for (const [i, contact] of (input.contactPoints ?? []).entries()) {
    const normalizedValue = normalizeContactValue(contact.contactType, contact.value);
    if (normalizedValue === null) {
      throw validationError(
        `contactPoints[${i}].value`,
        contact.value,
        `contactPoints[${i}].value is not a valid ${contact.contactType === 'EMAIL' ? 'e-mail address' : 'phone number'}.`,
      );
    }
    const key = `${contact.contactType}|${normalizedValue}`;
    if (seen.has(key)) continue;
    seen.add(key);
    contacts.push({ contactType: contact.contactType, value: contact.value.trim(), normalizedValue });
  }
  const [created] = await tx
    .insert(customers)
    .values({
      tenantId: input.tenantId,
      externalId: input.externalId ?? null,
      firstName: input.firstName,
      middleName: input.middleName ?? null,
      lastName: input.lastName,
      searchName: searchNameOf(input.firstName, input.lastName),
      searchNameLastFirst: searchNameLastFirstOf(input.firstName, input.lastName),
      dateOfBirth: input.dateOfBirth ?? null,
      createdAt: now,
      updatedAt: now,
      requestKey: input.requestKey ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: customers.id, customerRef: customers.customerRef });
  if (!created) {
    if (input.requestKey) {
      const [same] = await tx
        .select({ id: customers.id, customerRef: customers.customerRef })
        .from(customers)
        .where(and(eq(customers.tenantId, input.tenantId), eq(customers.requestKey, input.requestKey)));
      if (same) return { customerId: same.id, customerRef: same.customerRef, inserted: false };
    }
    if (input.externalId) {
      throw new DomainError(
        'error.msg.customer.external.id.conflict',
        'Another customer of this tenant already has this externalId.',
      );
    }
    throw new Error('customer insert conflicted on neither its request key nor its externalId');
  }
  const customerId = created.id;
  if (input.addresses?.length) {
    await tx.insert(customerAddresses).values(
      input.addresses.map((a) => ({
        tenantId: input.tenantId,
        customerId,
        addressType: a.addressType,
        line1: a.line1,
        line2: a.line2 ?? null,
        city: a.city,
        region: a.region ?? null,
        postalCode: a.postalCode ?? null,
        countryCode: a.countryCode,
        createdAt: now,
      })),
    );
  }
  if (contacts.length) {
    await tx
      .insert(contactPoints)
      .values(contacts.map((cp) => ({ tenantId: input.tenantId, customerId, ...cp, createdAt: now })));
  }
  await recordCustomerChange(
    tx,
    {
      tenantId: input.tenantId,
      customerId,
      action: 'CUSTOMER_CREATED',
      detail: {
        externalId: input.externalId ?? null,
        addressCount: input.addresses?.length ?? 0,
        contactPointCount: contacts.length,
      },
      actor: input.actor,
      correlationId: input.correlationId,
      occurredAt: now,
    },
    buffers?.history,
  );
  await writeOutboxEvent(
    tx,
    {
      tenantId: input.tenantId,
      eventType: 'customer.created',
      subjectId: customerId,
      data: { customerId, customerRef: created.customerRef, externalId: input.externalId ?? null },
      occurredAt: now,
      dedupeKey: `customer/${customerId}/created`,
    },
    buffers?.outbox,
  );
  return { customerId, customerRef: created.customerRef, inserted: true };
}
