/**
 * Request and response schemas of the customers context and portfolio search (docs/lending.md "Lending core"). Request bodies are strict: an unknown field is a 400, which
 * is how a raw `accountNumber`, `cardNumber` or `routingNumber` is refused. Fields that must never
 * carry a government identifier or account number (`externalId`, `evidenceRef`, `reason`,
 * `providerTokenRef`, `verificationSource`) run `noSensitiveData()` (domain/sensitive-data.ts).
 * Messages of fields that may hold sensitive values never repeat the value.
 */
import * as v from 'valibot';
import { noSensitiveData } from '../../sensitive-data';
import { isoInstant } from '../../validation/dates';
import { integerId, limitParam, offsetParam } from '../../validation/fields';
import { locatorRef, refField } from '../../validation/refs';
import { maxChars, minChars } from '../../validation/text-length';
import { normalizeEmail, normalizePhone } from '../contact-points';
import { countryCodes } from '../country-codes';
import {
  earliestDateOfBirth,
  instrumentTypes,
  isCalendarDate,
  latestDateInForce,
  restrictionTypes,
} from '../customer';
import { identifierTypes, normalizeIdentifier } from '../identifiers';

const id = v.pipe(
  v.number('must be an integer.'),
  v.integer('must be an integer.'),
  v.minValue(1, 'must be a positive integer.'),
  v.maxValue(Number.MAX_SAFE_INTEGER),
);
const code = (what: string) =>
  v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{0,63}$/, `must be an upper-case ${what} code.`));
/** Text that must not carry identifiers or account numbers; messages never repeat the value. */
const guardedText = (max: number) =>
  v.pipe(
    v.string('must be a string.'),
    v.trim(),
    ...minChars(1, 'must not be empty.'),
    ...maxChars(max, `must be at most ${max} characters.`),
    noSensitiveData(),
  );
const countryCode = v.pipe(
  v.string(),
  v.check((c) => countryCodes.has(c), 'must be an ISO 3166-1 alpha-2 country code in upper case.'),
);
/** ISO 8601 instant with a zone offset or Z, dated 1900-01-01..2199-12-31 (./dates.ts). */
const instant = isoInstant();
const name = guardedText(100);

export const customerIdParam = v.strictObject({ customerId: integerId('customerId') });
export const instrumentParams = v.strictObject({
  customerId: integerId('customerId'),
  instrumentId: integerId('instrumentId'),
});
export const restrictionParams = v.strictObject({
  customerId: integerId('customerId'),
  restrictionId: integerId('restrictionId'),
});

export const addressBody = v.strictObject({
  addressType: code('address type'),
  line1: guardedText(200),
  line2: v.optional(v.nullable(guardedText(200))),
  city: guardedText(100),
  region: v.optional(v.nullable(guardedText(100))),
  postalCode: v.optional(v.nullable(guardedText(20))),
  countryCode,
});

export const contactPointBody = v.variant('contactType', [
  v.strictObject({
    contactType: v.literal('EMAIL'),
    value: v.pipe(
      v.string(),
      v.trim(),
      ...maxChars(254, 'must be at most 254 characters.'),
      v.check((value) => normalizeEmail(value) !== null, 'must be a valid e-mail address.'),
    ),
  }),
  v.strictObject({
    contactType: v.literal('PHONE'),
    value: v.pipe(
      v.string(),
      v.trim(),
      ...maxChars(40, 'must be at most 40 characters.'),
      v.check(
        (value) => normalizePhone(value) !== null,
        'must be a valid phone number (E.164 such as +14155552671, or a US number).',
      ),
    ),
  }),
]);

export const createCustomerBody = v.strictObject({
  firstName: name,
  middleName: v.optional(v.nullable(name)),
  lastName: name,
  dateOfBirth: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.check(isCalendarDate, 'must be a calendar date written YYYY-MM-DD.'),
        v.check((d) => d >= earliestDateOfBirth, `must not be before ${earliestDateOfBirth}.`),
        v.check((d) => d <= latestDateInForce(new Date()), 'must not be in the future.'),
      ),
    ),
  ),
  externalId: v.optional(v.nullable(refField(128))),
  addresses: v.optional(v.pipe(v.array(addressBody), v.maxLength(10, 'at most 10 addresses.'))),
  contactPoints: v.optional(v.pipe(v.array(contactPointBody), v.maxLength(20, 'at most 20 contact points.'))),
});

export const listCustomersQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

const taxpayerTypes: readonly string[] = ['SSN', 'ITIN', 'EIN'];

export const createIdentifierBody = v.pipe(
  v.strictObject({
    identifierType: v.picklist(identifierTypes, `must be one of ${identifierTypes.join(', ')}.`),
    value: v.pipe(
      v.string('must be a string.'),
      ...minChars(1, 'must not be empty.'),
      ...maxChars(64, 'must be at most 64 characters.'),
    ),
    issuingCountry: v.optional(v.nullable(countryCode)),
  }),
  v.forward(
    v.partialCheck(
      [['identifierType'], ['issuingCountry']],
      (input) =>
        !taxpayerTypes.includes(input.identifierType) ||
        !input.issuingCountry ||
        input.issuingCountry === 'US',
      'must be US (or absent) for SSN, ITIN and EIN.',
    ),
    ['issuingCountry'],
  ),
  v.forward(
    v.partialCheck(
      [['identifierType'], ['value']],
      (input) => normalizeIdentifier(input.identifierType, input.value).ok,
      (issue) => {
        const input = issue.input as { identifierType: (typeof identifierTypes)[number]; value: string };
        const check = normalizeIdentifier(input.identifierType, input.value);
        return check.ok ? 'is not valid.' : check.message;
      },
    ),
    ['value'],
  ),
);

export const createConsentBody = v.strictObject({
  consentType: code('consent type'),
  granted: v.boolean('must be true or false.'),
  captureMethod: code('capture method'),
  evidenceRef: locatorRef(256),
  capturedAt: instant,
});

export const createInstrumentBody = v.strictObject({
  instrumentType: v.picklist(instrumentTypes, `must be one of ${instrumentTypes.join(', ')}.`),
  providerTokenRef: refField(256),
  lastFour: v.optional(v.nullable(v.pipe(v.string(), v.regex(/^[0-9]{4}$/, 'must be exactly 4 digits.')))),
});

export const verifyInstrumentBody = v.strictObject({
  verificationSource: refField(128),
  verifiedAt: v.optional(v.nullable(instant)),
});

export const applyRestrictionBody = v.strictObject({
  restrictionType: v.picklist(restrictionTypes, `must be one of ${restrictionTypes.join(', ')}.`),
  reason: guardedText(2000),
  loanId: v.optional(v.nullable(id)),
  expiresAt: v.optional(v.nullable(instant)),
});

export const releaseRestrictionBody = v.strictObject({ reason: guardedText(2000) });

export const listRestrictionsQuery = v.strictObject({ limit: limitParam, offset: offsetParam });

const cursorParam = v.optional(v.pipe(v.string(), ...maxChars(1024, 'must be at most 1024 characters.')));

export const historyQuery = v.strictObject({ limit: limitParam, cursor: cursorParam });

export const searchQuery = v.strictObject({
  q: v.pipe(
    v.string(),
    v.trim(),
    ...minChars(2, 'q must be at least 2 characters.'),
    ...maxChars(200, 'q must be at most 200 characters.'),
  ),
  limit: limitParam,
  cursor: cursorParam,
});

// Responses (for the OpenAPI document).
const timestamp = v.pipe(v.string(), v.isoTimestamp());
const verification = v.picklist(['UNVERIFIED', 'VERIFIED']);
const restrictionStatus = v.picklist(['ACTIVE', 'RELEASED', 'EXPIRED']);

/** The opaque references of docs/processes.md P4 "Refs" (minted by the database, migration 0027). */
const customerRefField = v.pipe(
  v.string(),
  v.description('Stable opaque reference `cus_…` the servicing plane names the customer by'),
);
const contactPointRefField = v.pipe(
  v.string(),
  v.description('Stable opaque reference `cp_…` of the contact point'),
);

export const createdCustomerResponse = v.object({
  customerId: v.number(),
  resourceId: v.number(),
  customerRef: customerRefField,
});

const customerSummary = {
  customerId: v.number(),
  resourceId: v.number(),
  customerRef: customerRefField,
  externalId: v.nullable(v.string()),
  firstName: v.string(),
  middleName: v.nullable(v.string()),
  lastName: v.string(),
  dateOfBirth: v.nullable(v.pipe(v.string(), v.isoDate())),
  status: v.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
};

export const restrictionResponse = v.object({
  restrictionId: v.number(),
  resourceId: v.number(),
  customerId: v.number(),
  loanId: v.nullable(v.number()),
  restrictionType: v.picklist(restrictionTypes),
  status: restrictionStatus,
  reason: v.string(),
  effectiveAt: timestamp,
  expiresAt: v.nullable(timestamp),
  releasedAt: v.nullable(timestamp),
  releaseReason: v.nullable(v.string()),
});

export const customerResponse = v.object({
  ...customerSummary,
  addresses: v.array(
    v.object({
      addressId: v.number(),
      addressType: v.string(),
      line1: v.string(),
      line2: v.nullable(v.string()),
      city: v.string(),
      region: v.nullable(v.string()),
      postalCode: v.nullable(v.string()),
      countryCode: v.string(),
    }),
  ),
  contactPoints: v.array(
    v.object({
      contactPointId: v.number(),
      contactPointRef: contactPointRefField,
      contactType: v.picklist(['EMAIL', 'PHONE']),
      value: v.string(),
      normalizedValue: v.pipe(v.string(), v.description('E.164 for phones, lower case for e-mail')),
      verificationStatus: verification,
      canReceiveSms: v.pipe(
        v.nullable(v.boolean()),
        v.description(
          'PHONE: may be sent SMS (null: never stated). Set by STOP replies and contact-consent updates.',
        ),
      ),
      canReceiveEmail: v.pipe(
        v.nullable(v.boolean()),
        v.description('EMAIL: may be sent e-mail (null: never stated). Set by contact-consent updates.'),
      ),
      canReceiveVoice: v.pipe(
        v.nullable(v.boolean()),
        v.description('PHONE: may be called (null: never stated). Set by contact-consent updates.'),
      ),
    }),
  ),
  identifiers: v.array(
    v.object({
      identifierId: v.number(),
      identifierType: v.picklist(identifierTypes),
      issuingCountry: v.nullable(v.string()),
      mask: v.pipe(v.string(), v.description('The only form of the value ever returned, e.g. ***-**-6789')),
      verificationStatus: verification,
      createdAt: timestamp,
    }),
  ),
  consents: v.array(
    v.object({
      consentId: v.number(),
      consentType: v.string(),
      granted: v.boolean(),
      captureMethod: v.string(),
      evidenceRef: v.string(),
      capturedAt: timestamp,
    }),
  ),
  paymentInstruments: v.array(
    v.object({
      instrumentId: v.number(),
      instrumentType: v.picklist(instrumentTypes),
      providerTokenRef: v.string(),
      lastFour: v.nullable(v.string()),
      verificationStatus: verification,
      state: v.picklist(['ACTIVE', 'INACTIVE']),
      verifiedAt: v.nullable(timestamp),
      verificationSource: v.nullable(v.string()),
      createdAt: timestamp,
    }),
  ),
  restrictions: v.pipe(v.array(restrictionResponse), v.description('Restrictions in force now')),
});

export const customerListResponse = v.object({
  items: v.array(v.object(customerSummary)),
  limit: v.number(),
  offset: v.number(),
});

export const createdIdentifierResponse = v.object({
  identifierId: v.number(),
  resourceId: v.number(),
  identifierType: v.picklist(identifierTypes),
  mask: v.string(),
  verificationStatus: verification,
});

export const createdConsentResponse = v.object({ consentId: v.number(), resourceId: v.number() });

export const createdInstrumentResponse = v.object({
  instrumentId: v.number(),
  resourceId: v.number(),
  verificationStatus: verification,
  state: v.picklist(['ACTIVE', 'INACTIVE']),
});

export const verifiedInstrumentResponse = v.object({
  instrumentId: v.number(),
  resourceId: v.number(),
  verificationStatus: v.literal('VERIFIED'),
  state: v.literal('ACTIVE'),
  verifiedAt: timestamp,
  verificationSource: v.string(),
});

export const appliedRestrictionResponse = v.object({
  restrictionId: v.number(),
  resourceId: v.number(),
  restrictionType: v.picklist(restrictionTypes),
  status: restrictionStatus,
  loanId: v.nullable(v.number()),
  effectiveAt: timestamp,
  expiresAt: v.nullable(timestamp),
});

export const releasedRestrictionResponse = v.object({
  resourceId: v.number(),
  changes: v.object({ status: v.literal('RELEASED'), releasedAt: timestamp }),
});

export const restrictionListResponse = v.object({ items: v.array(restrictionResponse) });

export const historyResponse = v.object({
  items: v.array(
    v.object({
      action: v.string(),
      detail: v.record(v.string(), v.unknown()),
      actorUsername: v.nullable(v.string()),
      correlationId: v.nullable(v.string()),
      occurredAt: timestamp,
    }),
  ),
  nextCursor: v.nullable(v.string()),
});

export const searchResponse = v.object({
  items: v.array(
    v.object({
      customerId: v.number(),
      customerRef: customerRefField,
      displayName: v.string(),
      matchedOn: v.picklist(['NAME', 'EMAIL', 'PHONE']),
    }),
  ),
  nextCursor: v.nullable(v.string()),
});
