/**
 * Read queries of the customers context. Each runs in a tenant-scoped read
 * transaction (row-level security confines it to `tenantId`), except `getInstrumentForPayment`,
 * which also runs inside a caller's transaction. Identifier reads never select the ciphertext or
 * the digest: the mask is the only form that leaves the database. Every list is served by an index
 * of db/schema/customers/customers.ts (no per-request scan of a growing table); the restriction list reads
 * the (tenant, customer, effective_at, id) index backwards.
 */
import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { ContactType } from '../../../domain/customers/contact-points';
import { prefixUpperBound } from '../../../domain/customers/search';
import type { Db } from '../../client';
import {
  consents,
  contactPoints,
  customerAddresses,
  customerHistory,
  customerIdentifiers,
  customers,
  paymentInstruments,
  restrictions,
} from '../../schema';
import { type DbExecutor, type Tx, withTenantTransaction } from '../../tenant-tx';
import { restrictionInForce, restrictionStatusAtSql } from './restrictions';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function customerSummary(row: typeof customers.$inferSelect) {
  return {
    customerId: row.id,
    resourceId: row.id,
    customerRef: row.customerRef,
    externalId: row.externalId,
    firstName: row.firstName,
    middleName: row.middleName,
    lastName: row.lastName,
    /** ISO calendar date or null. */
    dateOfBirth: row.dateOfBirth,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function restrictionView(row: typeof restrictions.$inferSelect & { currentStatus: string }) {
  return {
    restrictionId: row.id,
    resourceId: row.id,
    customerId: row.customerId,
    loanId: row.loanId,
    restrictionType: row.restrictionType,
    status: row.currentStatus as 'ACTIVE' | 'RELEASED' | 'EXPIRED',
    reason: row.reason,
    effectiveAt: row.effectiveAt.toISOString(),
    expiresAt: iso(row.expiresAt),
    releasedAt: iso(row.releasedAt),
    releaseReason: row.releaseReason,
  };
}

/** True when the customer exists in the tenant. */
export async function customerExists(db: Db, tenantId: string, customerId: number): Promise<boolean> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.tenantId, tenantId), eq(customers.id, customerId))),
  );
  return rows.length > 0;
}

/**
 * The customer aggregate as the API shows it, or null when it is not the tenant's: the customer,
 * its addresses, contact points, identifiers (masks only), consents, payment instruments and the
 * restrictions in force at `at` (db/queries/customers/restrictions.ts). Collections are in creation order.
 */
export async function getCustomer(db: Db, tenantId: string, customerId: number, at: Date) {
  return withTenantTransaction(db, tenantId, async (tx) => {
    const [customer] = await tx
      .select()
      .from(customers)
      .where(and(eq(customers.tenantId, tenantId), eq(customers.id, customerId)));
    if (!customer) return null;
    const addresses = await tx
      .select()
      .from(customerAddresses)
      .where(and(eq(customerAddresses.tenantId, tenantId), eq(customerAddresses.customerId, customerId)))
      .orderBy(customerAddresses.id);
    const contacts = await tx
      .select()
      .from(contactPoints)
      .where(and(eq(contactPoints.tenantId, tenantId), eq(contactPoints.customerId, customerId)))
      .orderBy(contactPoints.id);
    const identifiers = await tx
      .select({
        id: customerIdentifiers.id,
        identifierType: customerIdentifiers.identifierType,
        issuingCountry: customerIdentifiers.issuingCountry,
        mask: customerIdentifiers.mask,
        verificationStatus: customerIdentifiers.verificationStatus,
        createdAt: customerIdentifiers.createdAt,
      })
      .from(customerIdentifiers)
      .where(and(eq(customerIdentifiers.tenantId, tenantId), eq(customerIdentifiers.customerId, customerId)))
      .orderBy(customerIdentifiers.id);
    const consentRows = await tx
      .select()
      .from(consents)
      .where(and(eq(consents.tenantId, tenantId), eq(consents.customerId, customerId)))
      .orderBy(consents.id);
    const instruments = await tx
      .select()
      .from(paymentInstruments)
      .where(and(eq(paymentInstruments.tenantId, tenantId), eq(paymentInstruments.customerId, customerId)))
      .orderBy(paymentInstruments.id);
    const active = await tx
      .select()
      .from(restrictions)
      .where(
        and(
          eq(restrictions.tenantId, tenantId),
          eq(restrictions.customerId, customerId),
          restrictionInForce(at),
        ),
      )
      .orderBy(restrictions.effectiveAt, restrictions.id);
    return {
      ...customerSummary(customer),
      addresses: addresses.map((a) => ({
        addressId: a.id,
        addressType: a.addressType,
        line1: a.line1,
        line2: a.line2,
        city: a.city,
        region: a.region,
        postalCode: a.postalCode,
        countryCode: a.countryCode,
      })),
      contactPoints: contacts.map((cp) => ({
        contactPointId: cp.id,
        contactPointRef: cp.contactPointRef,
        contactType: cp.contactType,
        value: cp.value,
        normalizedValue: cp.normalizedValue,
        verificationStatus: cp.verificationStatus,
        canReceiveSms: cp.canReceiveSms,
        canReceiveEmail: cp.canReceiveEmail,
        canReceiveVoice: cp.canReceiveVoice,
      })),
      identifiers: identifiers.map((i) => ({
        identifierId: i.id,
        identifierType: i.identifierType,
        issuingCountry: i.issuingCountry,
        mask: i.mask,
        verificationStatus: i.verificationStatus,
        createdAt: i.createdAt.toISOString(),
      })),
      consents: consentRows.map((cn) => ({
        consentId: cn.id,
        consentType: cn.consentType,
        granted: cn.granted,
        captureMethod: cn.captureMethod,
        evidenceRef: cn.evidenceRef,
        capturedAt: cn.capturedAt.toISOString(),
      })),
      paymentInstruments: instruments.map(instrumentView),
      restrictions: active.map((r) => restrictionView({ ...r, currentStatus: 'ACTIVE' })),
    };
  });
}

function instrumentView(row: typeof paymentInstruments.$inferSelect) {
  return {
    instrumentId: row.id,
    instrumentType: row.instrumentType,
    providerTokenRef: row.providerTokenRef,
    lastFour: row.lastFour,
    verificationStatus: row.verificationStatus,
    state: row.state,
    verifiedAt: iso(row.verifiedAt),
    verificationSource: row.verificationSource,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Customers newest-modified first (`updated_at` desc, then id desc; docs/design.md §4 Paging "customer lists
 * newest-modified first"), offset-paged on the (tenant, updated_at, id) index.
 */
export async function listCustomers(db: Db, tenantId: string, page: { limit: number; offset: number }) {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(customers)
      .where(eq(customers.tenantId, tenantId))
      .orderBy(desc(customers.updatedAt), desc(customers.id))
      .limit(page.limit)
      .offset(page.offset),
  );
  return rows.map(customerSummary);
}

/**
 * One page of a customer's history in the order it happened, keyset-paged on the entry id
 * (`afterId`: the last id of the previous page). Returns `limit + 1` rows at most so the caller
 * can tell whether more follow; `historyId` is for the cursor only.
 */
export async function listCustomerHistory(
  db: Db,
  tenantId: string,
  customerId: number,
  page: { afterId: number | null; limit: number },
) {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select()
      .from(customerHistory)
      .where(
        and(
          eq(customerHistory.tenantId, tenantId),
          eq(customerHistory.customerId, customerId),
          page.afterId === null ? undefined : gt(customerHistory.id, page.afterId),
        ),
      )
      .orderBy(asc(customerHistory.id))
      .limit(page.limit + 1),
  );
  return rows.map((row) => ({
    historyId: row.id,
    action: row.action,
    detail: row.detail,
    actorUsername: row.actorUsername,
    correlationId: row.correlationId,
    occurredAt: row.occurredAt.toISOString(),
  }));
}

/**
 * A customer's restrictions newest first (effective time desc, then id desc), offset-paged, with
 * the status they have at `at` (a lapsed ACTIVE one reads EXPIRED).
 */
export async function listCustomerRestrictions(
  db: Db,
  tenantId: string,
  customerId: number,
  page: { limit: number; offset: number },
  at: Date,
) {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({ row: restrictions, currentStatus: restrictionStatusAtSql(at) })
      .from(restrictions)
      .where(and(eq(restrictions.tenantId, tenantId), eq(restrictions.customerId, customerId)))
      .orderBy(desc(restrictions.effectiveAt), desc(restrictions.id))
      .limit(page.limit)
      .offset(page.offset),
  );
  return rows.map(({ row, currentStatus }) => restrictionView({ ...row, currentStatus }));
}

/** One search hit: `sortKey` and `id` position the next page's cursor. */
export interface SearchHit {
  customerId: number;
  customerRef: string;
  displayName: string;
  matchedOn: 'NAME' | 'EMAIL' | 'PHONE';
  sortKey: string;
  id: number;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/**
 * Customers whose search keys (domain/customers/search.ts: folded "first last" and folded "last first") start
 * with `prefix`, ordered by (matched key, id) and keyset-paged after `after`; a customer whose both keys match is
 * listed once, under "first last" (so the order is total and a page boundary never repeats or skips one).
 * Two range scans, one per key, of the (tenant, search_name, id) and (tenant, search_name_last_first, id) indexes,
 * each bounded by `[prefix, prefixUpperBound(prefix))` in code-point order (the order of the C and C.UTF-8
 * collations; under a linguistic collation the LIKE guard keeps results exact but the range may miss names whose
 * prefix ends in punctuation or a space) and limited to `limit + 1` rows, merged in SQL.
 * Returns `limit + 1` rows at most.
 */
export async function searchCustomersByName(
  db: Db,
  tenantId: string,
  prefix: string,
  page: { after: { sortKey: string; id: number } | null; limit: number },
): Promise<SearchHit[]> {
  const upper = prefixUpperBound(prefix);
  const pattern = `${escapeLike(prefix)}%`;
  const take = page.limit + 1;
  const forwardAfter =
    page.after === null
      ? sql``
      : sql`and (${customers.searchName}, ${customers.id}) > (${page.after.sortKey}, ${page.after.id})`;
  const backwardAfter =
    page.after === null
      ? sql``
      : sql`and (${customers.searchNameLastFirst}, ${customers.id}) > (${page.after.sortKey}, ${page.after.id})`;
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx.execute<{
      id: string | number;
      customer_ref: string;
      first_name: string;
      last_name: string;
      sort_key: string;
    }>(sql`
      select id, customer_ref, first_name, last_name, sort_key from (
        (select ${customers.id} as id, ${customers.customerRef} as customer_ref, ${customers.firstName} as first_name,
                ${customers.lastName} as last_name, ${customers.searchName} as sort_key
           from ${customers}
          where ${customers.tenantId} = ${tenantId}
            and ${customers.searchName} >= ${prefix} and ${customers.searchName} < ${upper}
            and ${customers.searchName} like ${pattern}
            ${forwardAfter}
          order by ${customers.searchName}, ${customers.id}
          limit ${take})
        union all
        (select ${customers.id}, ${customers.customerRef}, ${customers.firstName}, ${customers.lastName},
                ${customers.searchNameLastFirst}
           from ${customers}
          where ${customers.tenantId} = ${tenantId}
            and ${customers.searchNameLastFirst} >= ${prefix} and ${customers.searchNameLastFirst} < ${upper}
            and ${customers.searchNameLastFirst} like ${pattern}
            and ${customers.searchName} not like ${pattern}
            ${backwardAfter}
          order by ${customers.searchNameLastFirst}, ${customers.id}
          limit ${take})
      ) as hits
      order by sort_key, id
      limit ${take}`),
  );
  return [...rows].map((row) => ({
    customerId: Number(row.id),
    customerRef: row.customer_ref,
    displayName: `${row.first_name} ${row.last_name}`,
    matchedOn: 'NAME' as const,
    sortKey: row.sort_key,
    id: Number(row.id),
  }));
}

/**
 * Customers with a contact point of `contactType` whose normalized value (lower-cased e-mail or
 * E.164 phone) equals `normalizedValue`, through the (tenant, normalized_value) index, ordered by
 * contact point id and keyset-paged after `afterId`. Returns `limit + 1` rows at most.
 */
export async function searchCustomersByContact(
  db: Db,
  tenantId: string,
  contactType: ContactType,
  normalizedValue: string,
  page: { afterId: number | null; limit: number },
): Promise<SearchHit[]> {
  const rows = await withTenantTransaction(db, tenantId, (tx) =>
    tx
      .select({
        contactPointId: contactPoints.id,
        customerId: customers.id,
        customerRef: customers.customerRef,
        firstName: customers.firstName,
        lastName: customers.lastName,
      })
      .from(contactPoints)
      .innerJoin(
        customers,
        and(eq(customers.tenantId, contactPoints.tenantId), eq(customers.id, contactPoints.customerId)),
      )
      .where(
        and(
          eq(contactPoints.tenantId, tenantId),
          eq(contactPoints.normalizedValue, normalizedValue),
          eq(contactPoints.contactType, contactType),
          page.afterId === null ? undefined : gt(contactPoints.id, page.afterId),
        ),
      )
      .orderBy(asc(contactPoints.id))
      .limit(page.limit + 1),
  );
  return rows.map((row) => ({
    customerId: row.customerId,
    customerRef: row.customerRef,
    displayName: `${row.firstName} ${row.lastName}`,
    matchedOn: contactType,
    sortKey: String(row.contactPointId),
    id: row.contactPointId,
  }));
}

/** What a payment needs to know about an instrument. */
export interface InstrumentForPayment {
  instrumentId: number;
  /** The owner; the payment must check it is the loan's borrower. */
  customerId: number;
  instrumentType: string;
  /** The vault token the rail is called with. */
  providerTokenRef: string;
  lastFour: string | null;
  verificationStatus: 'UNVERIFIED' | 'VERIFIED';
  state: 'ACTIVE' | 'INACTIVE';
  /** ISO 8601 instant of the verification, or null. */
  verifiedAt: string | null;
  /** VERIFIED and ACTIVE: "required before money moves" (docs/lending.md "Lending core"). */
  eligible: boolean;
}

/**
 * The payment instrument `instrumentId` of the tenant as a payment sees it, or null when it is
 * not the tenant's. Given the pool it reads in its own tenant transaction; given a transaction
 * (the payment's own, tenant already set) it reads there, optionally locking the row
 * (`lock: 'share'` keeps it from being changed until the payment commits), so the
 * "verified and owned by the borrower" rule is checked against the row the payment commits with.
 */
export async function getInstrumentForPayment(
  db: DbExecutor,
  tenantId: string,
  instrumentId: number,
  options: { lock?: 'share' | 'update' } = {},
): Promise<InstrumentForPayment | null> {
  const read = async (tx: Tx) => {
    const query = tx
      .select()
      .from(paymentInstruments)
      .where(and(eq(paymentInstruments.tenantId, tenantId), eq(paymentInstruments.id, instrumentId)));
    const [row] = options.lock ? await query.for(options.lock) : await query;
    return row;
  };
  const row =
    db instanceof PgTransaction
      ? await read(db as Tx)
      : await withTenantTransaction(db as Db, tenantId, read);
  if (!row) return null;
  return {
    instrumentId: row.id,
    customerId: row.customerId,
    instrumentType: row.instrumentType,
    providerTokenRef: row.providerTokenRef,
    lastFour: row.lastFour,
    verificationStatus: row.verificationStatus,
    state: row.state,
    verifiedAt: iso(row.verifiedAt),
    eligible: row.verificationStatus === 'VERIFIED' && row.state === 'ACTIVE',
  };
}

export type CustomerAggregate = NonNullable<Awaited<ReturnType<typeof getCustomer>>>;

/** A contact point as the servicing plane names it (docs/processes.md P4 "Refs"). */
export interface ContactPointByRef {
  contactPointId: number;
  contactPointRef: string;
  contactType: ContactType;
  verificationStatus: 'UNVERIFIED' | 'VERIFIED';
  canReceiveSms: boolean | null;
  canReceiveEmail: boolean | null;
  canReceiveVoice: boolean | null;
  customerId: number;
  customerRef: string;
}

/**
 * The customer `customerRef` (`cus_…`) of the tenant as `{customerId, customerRef}`, or null when no
 * customer of the tenant carries it (a servicing case may name a customer who is not, or not yet, a
 * lending customer). Reads inside the caller's tenant transaction `tx`, through the unique
 * (tenant, customer_ref) index; `lock` takes the row `FOR SHARE` or `FOR UPDATE` (customer aggregate rule:
 * activities/README.md).
 */
export async function findCustomerByRef(
  tx: Tx,
  tenantId: string,
  customerRef: string,
  options: { lock?: 'share' | 'update' } = {},
): Promise<{ customerId: number; customerRef: string } | null> {
  const query = tx
    .select({ customerId: customers.id, customerRef: customers.customerRef })
    .from(customers)
    .where(and(eq(customers.tenantId, tenantId), eq(customers.customerRef, customerRef)));
  const [row] = options.lock ? await query.for(options.lock) : await query;
  return row ?? null;
}

/**
 * The contact point `contactPointRef` (`cp_…`) of the tenant with its owner's ids and ref, or null when the
 * tenant has none. Reads inside the caller's tenant transaction `tx` through the unique (tenant,
 * contact_point_ref) index. Callers check ownership (`customerRef` equal to the one they were given) and
 * answer 404 naming the field when it differs (docs/processes.md P4: "the contact point must belong to the
 * customer").
 */
export async function findContactPointByRef(
  tx: Tx,
  tenantId: string,
  contactPointRef: string,
): Promise<ContactPointByRef | null> {
  const [row] = await tx
    .select({
      contactPointId: contactPoints.id,
      contactPointRef: contactPoints.contactPointRef,
      contactType: contactPoints.contactType,
      verificationStatus: contactPoints.verificationStatus,
      canReceiveSms: contactPoints.canReceiveSms,
      canReceiveEmail: contactPoints.canReceiveEmail,
      canReceiveVoice: contactPoints.canReceiveVoice,
      customerId: contactPoints.customerId,
      customerRef: customers.customerRef,
    })
    .from(contactPoints)
    .innerJoin(
      customers,
      and(eq(customers.tenantId, contactPoints.tenantId), eq(customers.id, contactPoints.customerId)),
    )
    .where(and(eq(contactPoints.tenantId, tenantId), eq(contactPoints.contactPointRef, contactPointRef)));
  return row ?? null;
}
