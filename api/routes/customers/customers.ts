/**
 * Customers (docs/lending.md "Lending core": customers, identifiers, consents, payment instruments,
 * restrictions; docs/lending.md "Lending core": customer history). Mounted at `/v1/customers`.
 *
 * Bodies that may carry sensitive values are validated through `guardedJsonBody`: a field error
 * on such a field keeps its `parameterName` but never echoes the value (docs/design.md §5 Error details:
 * "identifier values are masked"), and a raw account or card number field gets a message saying
 * where such numbers belong.
 */
import type * as v from 'valibot';
import {
  customerExists,
  getCustomer,
  listCustomerHistory,
  listCustomerRestrictions,
  listCustomers,
} from '../../../db/queries/customers/customers';
import type { Permission } from '../../../domain/auth';
import { decodeCursor, encodeCursor } from '../../../domain/cursor';
import {
  appliedRestrictionResponse,
  applyRestrictionBody,
  createConsentBody,
  createCustomerBody,
  createdConsentResponse,
  createdCustomerResponse,
  createdIdentifierResponse,
  createdInstrumentResponse,
  createIdentifierBody,
  createInstrumentBody,
  customerIdParam,
  customerListResponse,
  customerResponse,
  historyQuery,
  historyResponse,
  instrumentParams,
  listCustomersQuery,
  listRestrictionsQuery,
  releasedRestrictionResponse,
  releaseRestrictionBody,
  restrictionListResponse,
  restrictionParams,
  verifiedInstrumentResponse,
  verifyInstrumentBody,
} from '../../../domain/customers/schemas/customers';
import { type FieldError, fieldError, notFound } from '../../../domain/errors';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { noQuery, pathParams, queryParams, redactingJsonBody } from '../../validation';
import { operationContext } from '../context';
import { signalLoanChanged } from '../hardship/hardship-signals';

const tags = ['Lending: customers'];
const historyRoute = '/v1/customers/:customerId/history';

/** Fields a vault keeps: sending one is refused with a message pointing at `providerTokenRef`. */
const rawAccountFields = new Set(['accountNumber', 'cardNumber', 'routingNumber', 'pan', 'iban', 'cvv']);

/** The vault's explanation for a raw account or card number field; null for any other field error. */
function rawAccountFieldError(error: FieldError): FieldError | null {
  if (!rawAccountFields.has(error.parameterName)) return null;
  const message = `${error.parameterName} must never be sent: raw account and card numbers stay with the vault provider; send its providerTokenRef.`;
  return fieldError(error.parameterName, null, message);
}

/** `redactingJsonBody` that also answers raw account fields with `rawAccountFieldError`. */
function guardedJsonBody<S extends v.GenericSchema>(schema: S, redacted: readonly string[]) {
  return redactingJsonBody(schema, redacted, rawAccountFieldError);
}

/**
 * The middleware of a write on a customer's sub-resource, after its `doc`: the `lending:write` permission check,
 * the path (`params`), no query, the body through `guardedJsonBody` and Idempotency-Key replays.
 */
function customerWrite<P extends v.GenericSchema, S extends v.GenericSchema>(
  permission: Permission,
  params: P,
  body: S,
  redacted: readonly string[],
  idempotency: { blindFields?: readonly string[] } = {},
) {
  return [
    requires('lending:write', permission),
    pathParams(params),
    noQuery(),
    ...guardedJsonBody(body, redacted),
    idempotent(idempotency),
  ] as const;
}

export const customerRoutes = factory
  .createApp()
  /**
   * Creates a customer with addresses and contact points → 201 `{customerId, resourceId, customerRef}`
   * (`customerRef` `cus_…` minted by the database; docs/processes.md P4 "Refs").
   * 400: invalid fields (phone → `contactPoints[i].value`; future `dateOfBirth`; an `externalId`
   * that looks like an identifier or account number, not echoed); 409
   * `error.msg.customer.external.id.conflict` when the tenant has another customer with `externalId`.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Create a customer',
      description:
        'Contact points start UNVERIFIED; phones are normalized to E.164 (US assumed without a country code), e-mails lower-cased. `externalId` carries the source key, unique per tenant, and must not be a government identifier or account number.',
      scope: 'lending:write',
      permission: 'CREATE_CUSTOMER',
      mutation: true,
      responses: { 201: { description: 'Customer created', schema: createdCustomerResponse } },
    }),
    requires('lending:write', 'CREATE_CUSTOMER'),
    noQuery(),
    ...guardedJsonBody(createCustomerBody, ['externalId']),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.createCustomer({ ...operationContext(c), ...body });
      return c.json(
        { customerId: result.customerId, resourceId: result.customerId, customerRef: result.customerRef },
        201,
      );
    },
  )
  /** Customers newest-modified first: `limit` (1–200, default 50), `offset` → `{items, limit, offset}`. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List customers',
      scope: 'lending:read',
      permission: 'READ_CUSTOMER',
      responses: { 200: { description: 'One page of customers', schema: customerListResponse } },
    }),
    requires('lending:read', 'READ_CUSTOMER'),
    queryParams(listCustomersQuery),
    async (c) => {
      const { limit, offset } = c.req.valid('query');
      const items = await listCustomers(c.get('deps').db, c.get('tenantId'), { limit, offset });
      return c.json({ items, limit, offset }, 200);
    },
  )
  /**
   * The customer aggregate: addresses, contact points, identifiers (masks only), consents,
   * payment instruments and the restrictions in force. Another tenant's customer → 404.
   */
  .get(
    '/:customerId',
    doc({
      tags,
      summary: 'Read a customer',
      scope: 'lending:read',
      permission: 'READ_CUSTOMER',
      responses: { 200: { description: 'The customer aggregate', schema: customerResponse } },
    }),
    requires('lending:read', 'READ_CUSTOMER'),
    pathParams(customerIdParam),
    noQuery(),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const found = await getCustomer(c.get('deps').db, c.get('tenantId'), customerId, c.get('deps').clock());
      if (!found) throw notFound('Customer', customerId);
      return c.json(found, 200);
    },
  )
  /**
   * Records a government identifier, supplied once in full → 201 `{identifierId, resourceId,
   * identifierType, mask, verificationStatus: "UNVERIFIED"}`. The value is stored encrypted and
   * never returned, logged or echoed in errors. 400 when it does not fit its type; 409
   * `error.msg.customer.identifier.conflict` when another customer of the tenant has it.
   */
  .post(
    '/:customerId/identifiers',
    doc({
      tags,
      summary: 'Add a government identifier',
      description:
        'identifierType SSN, ITIN, EIN (9 digits, dashes allowed, US only), PASSPORT, NATIONAL_ID, DRIVERS_LICENSE (4–20 letters or digits). Reads return only the mask, e.g. `***-**-6789`. The same identifier on the same customer returns the original record.',
      scope: 'lending:write',
      permission: 'CREATE_CUSTOMERIDENTIFIER',
      mutation: true,
      responses: { 201: { description: 'Identifier recorded', schema: createdIdentifierResponse } },
    }),
    ...customerWrite('CREATE_CUSTOMERIDENTIFIER', customerIdParam, createIdentifierBody, ['value'], {
      blindFields: ['value'],
    }),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.addCustomerIdentifier({ ...operationContext(c), customerId, ...body });
      return c.json(
        {
          identifierId: result.identifierId,
          resourceId: result.identifierId,
          identifierType: result.identifierType,
          mask: result.mask,
          verificationStatus: result.verificationStatus,
        },
        201,
      );
    },
  )
  /** Records a consent decision with its capture method and evidence → 201 `{consentId, resourceId}`. */
  .post(
    '/:customerId/consents',
    doc({
      tags,
      summary: 'Record a consent',
      description:
        '`evidenceRef` points at the evidence (recording, document) and must not be a government identifier or account number; `capturedAt` may not be in the future.',
      scope: 'lending:write',
      permission: 'CREATE_CUSTOMERCONSENT',
      mutation: true,
      responses: { 201: { description: 'Consent recorded', schema: createdConsentResponse } },
    }),
    ...customerWrite('CREATE_CUSTOMERCONSENT', customerIdParam, createConsentBody, ['evidenceRef']),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.recordCustomerConsent({ ...operationContext(c), customerId, ...body });
      return c.json({ consentId: result.consentId, resourceId: result.consentId }, 201);
    },
  )
  /**
   * Records a payment instrument by its vault token → 201 `{instrumentId, resourceId,
   * verificationStatus: "UNVERIFIED", state: "INACTIVE"}`. Raw `accountNumber`, `cardNumber` or
   * `routingNumber` fields, or a `providerTokenRef` that looks like one → 400; the token already
   * recorded with other content → 409 `error.msg.payment.instrument.conflict`.
   */
  .post(
    '/:customerId/payment-instruments',
    doc({
      tags,
      summary: 'Add a payment instrument',
      description:
        'Carries `providerTokenRef` from a vault provider; raw account and card numbers are never sent. The instrument starts UNVERIFIED and INACTIVE.',
      scope: 'lending:write',
      permission: 'CREATE_PAYMENTINSTRUMENT',
      mutation: true,
      responses: { 201: { description: 'Instrument recorded', schema: createdInstrumentResponse } },
    }),
    ...customerWrite('CREATE_PAYMENTINSTRUMENT', customerIdParam, createInstrumentBody, [
      'providerTokenRef',
      'lastFour',
    ]),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.addPaymentInstrument({ ...operationContext(c), customerId, ...body });
      return c.json(
        {
          instrumentId: result.instrumentId,
          resourceId: result.instrumentId,
          verificationStatus: result.verificationStatus,
          state: result.state,
        },
        201,
      );
    },
  )
  /**
   * Trusted-integration verification of an instrument → 200 VERIFIED and ACTIVE (docs/lending.md "Lending core");
   * verifying again returns the same state. Another customer's or tenant's instrument → 404.
   */
  .post(
    '/:customerId/payment-instruments/:instrumentId/verification',
    doc({
      tags,
      summary: 'Verify a payment instrument',
      description:
        'Written by trusted integrations or provider events: the instrument becomes VERIFIED and ACTIVE, as required before money moves. A second verification is a no-op that returns the first one.',
      scope: 'lending:write',
      permission: 'VERIFY_PAYMENTINSTRUMENT',
      mutation: true,
      responses: { 200: { description: 'Instrument verified', schema: verifiedInstrumentResponse } },
    }),
    ...customerWrite('VERIFY_PAYMENTINSTRUMENT', instrumentParams, verifyInstrumentBody, [
      'verificationSource',
    ]),
    async (c) => {
      const { customerId, instrumentId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.verifyPaymentInstrument({ ...operationContext(c), customerId, instrumentId, ...body });
      return c.json({ ...result, resourceId: result.instrumentId }, 200);
    },
  )
  /**
   * Applies a restriction (hold) → 201 with its server-derived `effectiveAt` (commit time).
   * 400 for a `reason` that looks like an identifier or account number (not echoed), an
   * `expiresAt` not in the future, or a `loanId` that is not the customer's.
   */
  .post(
    '/:customerId/restrictions',
    doc({
      tags,
      summary: 'Apply a restriction',
      description:
        'restrictionType PAYMENT_HOLD, COLLECTIONS_HOLD, COMMUNICATION_HOLD, SCRA_MLA_PROTECTED or DISBURSEMENT_HOLD, for every loan of the customer or one `loanId`. The server derives `effectiveAt`. Emits `restriction.applied`.',
      scope: 'lending:write',
      permission: 'CREATE_RESTRICTION',
      mutation: true,
      responses: { 201: { description: 'Restriction applied', schema: appliedRestrictionResponse } },
    }),
    ...customerWrite('CREATE_RESTRICTION', customerIdParam, applyRestrictionBody, ['reason']),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.applyRestriction({ ...operationContext(c), customerId, ...body });
      await signalLoanChanged(
        c.get('deps'),
        c.get('tenantId'),
        body.loanId ? { loanId: body.loanId } : { borrowerId: customerId },
        { kind: 'RESTRICTION', resourceId: result.restrictionId },
      );
      return c.json({ ...result, resourceId: result.restrictionId }, 201);
    },
  )
  /** The customer's restrictions newest first with their current status: `limit`, `offset` → `{items}`. */
  .get(
    '/:customerId/restrictions',
    doc({
      tags,
      summary: 'List the restrictions of a customer',
      scope: 'lending:read',
      permission: 'READ_CUSTOMER',
      responses: { 200: { description: 'One page of restrictions', schema: restrictionListResponse } },
    }),
    requires('lending:read', 'READ_CUSTOMER'),
    pathParams(customerIdParam),
    queryParams(listRestrictionsQuery),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const { limit, offset } = c.req.valid('query');
      const { db } = c.get('deps');
      const tenantId = c.get('tenantId');
      if (!(await customerExists(db, tenantId, customerId))) throw notFound('Customer', customerId);
      const items = await listCustomerRestrictions(
        db,
        tenantId,
        customerId,
        { limit, offset },
        c.get('deps').clock(),
      );
      return c.json({ items }, 200);
    },
  )
  /**
   * Releases an active restriction → 200 `{resourceId, changes: {status: "RELEASED", releasedAt}}`;
   * emits `restriction.released`. Already released or expired → 409
   * `error.msg.restriction.invalid.state.transition`.
   */
  .post(
    '/:customerId/restrictions/:restrictionId/release',
    doc({
      tags,
      summary: 'Release a restriction',
      scope: 'lending:write',
      permission: 'RELEASE_RESTRICTION',
      mutation: true,
      responses: { 200: { description: 'Restriction released', schema: releasedRestrictionResponse } },
    }),
    ...customerWrite('RELEASE_RESTRICTION', restrictionParams, releaseRestrictionBody, ['reason']),
    async (c) => {
      const { customerId, restrictionId } = c.req.valid('param');
      const { reason } = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.releaseRestriction({ ...operationContext(c), customerId, restrictionId, reason });
      return c.json(
        {
          resourceId: result.restrictionId,
          changes: { status: result.status, releasedAt: result.releasedAt },
        },
        200,
      );
    },
  )
  /**
   * The customer's history in the order it happened: `limit` (1–200, default 50) and an opaque
   * `cursor` bound to this customer → `{items, nextCursor}`; `nextCursor` is null on the last page.
   */
  .get(
    '/:customerId/history',
    doc({
      tags,
      summary: 'List the history of a customer',
      description:
        'Every change of the customer aggregate (CUSTOMER_CREATED, IDENTIFIER_ADDED, CONSENT_RECORDED, INSTRUMENT_ADDED, INSTRUMENT_VERIFIED, RESTRICTION_APPLIED, RESTRICTION_RELEASED), oldest first. Send `nextCursor` unchanged; stop when it is null.',
      scope: 'lending:read',
      permission: 'READ_CUSTOMER',
      responses: { 200: { description: 'One page of history', schema: historyResponse } },
    }),
    requires('lending:read', 'READ_CUSTOMER'),
    pathParams(customerIdParam),
    queryParams(historyQuery),
    async (c) => {
      const { customerId } = c.req.valid('param');
      const { limit, cursor } = c.req.valid('query');
      const { db, config } = c.get('deps');
      const tenantId = c.get('tenantId');
      const binding = { customerId: String(customerId) };
      const afterId = cursor
        ? Number(decodeCursor(config.cursorSigningKey, c.get('tenantId'), historyRoute, binding, cursor).id)
        : null;
      if (!(await customerExists(db, tenantId, customerId))) throw notFound('Customer', customerId);
      const rows = await listCustomerHistory(db, tenantId, customerId, { afterId, limit });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const nextCursor =
        rows.length > limit && last
          ? encodeCursor(config.cursorSigningKey, c.get('tenantId'), historyRoute, binding, {
              sortKey: String(last.historyId),
              id: String(last.historyId),
            })
          : null;
      const items = page.map(({ historyId: _historyId, ...item }) => item);
      return c.json({ items, nextCursor }, 200);
    },
  );
