/**
 * Customers context (docs/lending.md "Lending core": customers, identifiers, consents, payment
 * instruments; restrictions are db/schema/customers/restrictions.ts). Every table is tenant-owned under row-level security.
 * Government identifiers are stored encrypted (AES-256-GCM) with a keyed digest for look-ups and a
 * normalized mask for reads; payment instruments carry only a vault's `providerTokenRef`.
 * Customer history is append-only.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, date, index, jsonb, pgEnum, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  createdAt,
  identityId,
  instant,
  tenantId,
  tenantIsolation,
  tenantKey,
  tenantReference,
} from '../columns';

export const verificationStatus = pgEnum('verification_status', ['UNVERIFIED', 'VERIFIED']);

export const customers = pgTable(
  'customers',
  {
    id: identityId(),
    tenantId: tenantId(),
    /** The source system's key (never an identifier or account number). */
    externalId: text(),
    /**
     * Stable opaque reference the servicing plane names the customer by (`cus_` + 32 letters a–p; minted by
     * the database at insert, migration 0027 `mint_opaque_ref`; docs/processes.md P4 "Refs").
     */
    customerRef: text().notNull().default(sql`mint_opaque_ref('cus_')`),
    firstName: text().notNull(),
    middleName: text(),
    lastName: text().notNull(),
    /** Folded "first last" for search (domain/customers/search.ts `searchNameOf`). */
    searchName: text().notNull(),
    /** Folded "last first" for search by last name (`searchNameLastFirstOf`; '' until backfilled). */
    searchNameLastFirst: text().notNull().default(''),
    dateOfBirth: date({ mode: 'string' }),
    status: text().notNull().default('ACTIVE'),
    createdAt: createdAt(),
    updatedAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantKey('customers', t),
    uniqueIndex('customers_tenant_external_id_idx').on(t.tenantId, t.externalId),
    uniqueIndex('customers_tenant_customer_ref_idx').on(t.tenantId, t.customerRef),
    uniqueIndex('customers_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    index('customers_tenant_updated_idx').on(t.tenantId, t.updatedAt, t.id),
    index('customers_tenant_search_name_idx').on(t.tenantId, t.searchName, t.id),
    index('customers_tenant_search_name_last_first_idx').on(t.tenantId, t.searchNameLastFirst, t.id),
    tenantIsolation('customers'),
  ],
).enableRLS();

export const customerAddresses = pgTable(
  'customer_addresses',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    addressType: text().notNull(),
    line1: text().notNull(),
    line2: text(),
    city: text().notNull(),
    region: text(),
    postalCode: text(),
    /** ISO 3166-1 alpha-2. */
    countryCode: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantReference('customer_addresses_customer_fk', t, t.customerId, customers),
    index().on(t.tenantId, t.customerId),
    tenantIsolation('customer_addresses'),
  ],
).enableRLS();

export const contactPointType = pgEnum('contact_point_type', ['EMAIL', 'PHONE']);

export const contactPoints = pgTable(
  'contact_points',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    contactType: contactPointType().notNull(),
    /** As supplied. */
    value: text().notNull(),
    /** E.164 for phones, lower-cased for e-mail: what search matches. */
    normalizedValue: text().notNull(),
    verificationStatus: verificationStatus().notNull().default('UNVERIFIED'),
    /** PHONE only: may be sent SMS (null: never stated; STOP and contact-consent updates set it). */
    canReceiveSms: boolean(),
    /** EMAIL only: may be sent e-mail (null: never stated; set by contact-consent updates, docs/processes.md P4). */
    canReceiveEmail: boolean(),
    /** PHONE only: may be called (null: never stated; set by contact-consent updates, docs/processes.md P4). */
    canReceiveVoice: boolean(),
    /** Stable opaque reference (`cp_` + 32 letters a–p, minted by the database; docs/processes.md P4 "Refs"). */
    contactPointRef: text().notNull().default(sql`mint_opaque_ref('cp_')`),
    createdAt: createdAt(),
  },
  (t) => [
    tenantReference('contact_points_customer_fk', t, t.customerId, customers),
    uniqueIndex('contact_points_tenant_ref_idx').on(t.tenantId, t.contactPointRef),
    index().on(t.tenantId, t.customerId),
    index('contact_points_tenant_normalized_idx').on(t.tenantId, t.normalizedValue),
    tenantIsolation('contact_points'),
  ],
).enableRLS();

export const customerIdentifiers = pgTable(
  'customer_identifiers',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** e.g. SSN, ITIN, PASSPORT, NATIONAL_ID. */
    identifierType: text().notNull(),
    /** Issuing country, ISO 3166-1 alpha-2. */
    issuingCountry: text(),
    /** base64 of IV ‖ ciphertext ‖ tag (AES-256-GCM, key from configuration). */
    valueCiphertext: text().notNull(),
    /** Hex HMAC-SHA256 of the normalized value: finds duplicates without decrypting. */
    valueDigest: text().notNull(),
    /** e.g. `***-**-6789`: the only form ever returned. */
    mask: text().notNull(),
    verificationStatus: verificationStatus().notNull().default('UNVERIFIED'),
    createdAt: createdAt(),
  },
  (t) => [
    tenantReference('customer_identifiers_customer_fk', t, t.customerId, customers),
    index().on(t.tenantId, t.customerId),
    uniqueIndex('customer_identifiers_tenant_type_digest_idx').on(
      t.tenantId,
      t.identifierType,
      t.valueDigest,
    ),
    tenantIsolation('customer_identifiers'),
  ],
).enableRLS();

export const consents = pgTable(
  'consents',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** e.g. ESIGN, MARKETING_EMAIL, SMS, CREDIT_REPORT_PULL, AUTOPAY. */
    consentType: text().notNull(),
    granted: boolean().notNull(),
    /** e.g. WEB_FORM, RECORDED_CALL, PAPER, IMPORT. */
    captureMethod: text().notNull(),
    evidenceRef: text().notNull(),
    capturedAt: instant().notNull(),
    createdAt: createdAt(),
    requestKey: text(),
  },
  (t) => [
    tenantReference('consents_customer_fk', t, t.customerId, customers),
    index().on(t.tenantId, t.customerId),
    uniqueIndex('consents_tenant_request_key_idx').on(t.tenantId, t.requestKey),
    tenantIsolation('consents'),
  ],
).enableRLS();

export const instrumentState = pgEnum('instrument_state', ['ACTIVE', 'INACTIVE']);

export const paymentInstruments = pgTable(
  'payment_instruments',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** BANK_ACCOUNT or DEBIT_CARD. */
    instrumentType: text().notNull(),
    /** The vault provider's token; raw account or card numbers never reach us. */
    providerTokenRef: text().notNull(),
    /** Optional last four digits as the vault reports them, for display. */
    lastFour: text(),
    verificationStatus: verificationStatus().notNull().default('UNVERIFIED'),
    state: instrumentState().notNull().default('INACTIVE'),
    verifiedAt: instant(),
    verificationSource: text(),
    createdAt: createdAt(),
  },
  (t) => [
    tenantKey('payment_instruments', t),
    tenantReference('payment_instruments_customer_fk', t, t.customerId, customers),
    index().on(t.tenantId, t.customerId),
    uniqueIndex('payment_instruments_tenant_token_idx').on(t.tenantId, t.providerTokenRef),
    tenantIsolation('payment_instruments'),
  ],
).enableRLS();

export const customerHistory = pgTable(
  'customer_history',
  {
    id: identityId(),
    tenantId: tenantId(),
    customerId: bigint({ mode: 'number' }).notNull(),
    /** e.g. CUSTOMER_CREATED, IDENTIFIER_ADDED, CONSENT_RECORDED, INSTRUMENT_VERIFIED, RESTRICTION_APPLIED. */
    action: text().notNull(),
    detail: jsonb().notNull().$type<Record<string, unknown>>(),
    actorUsername: text(),
    correlationId: text(),
    occurredAt: createdAt(),
  },
  (t) => [
    tenantReference('customer_history_customer_fk', t, t.customerId, customers),
    index().on(t.tenantId, t.customerId, t.id),
    tenantIsolation('customer_history'),
  ],
).enableRLS();
