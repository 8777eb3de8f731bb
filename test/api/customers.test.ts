/**
 * The customers routes and portfolio search through the app on the real database (docs/lending.md "Lending core", docs/design.md §4 Errors, docs/design.md §4 Paging): status codes, Shape A bodies with
 * `parameterName`, sensitive values never echoed, idempotent replay, cross-tenant 404, paging.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  customerHistory,
  customerIdentifiers,
  customers,
  idempotencyKeys,
  outboxEvents,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { requestFingerprint } from '../../domain/fingerprint';
import { hmacSha256Hex } from '../../domain/hash';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  testSecrets,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, type Json, newKey } from './helpers';

let ctx: TestContext;
let cred: Credential;
let other: Credential;
const lending = { scopes: ['lending:read', 'lending:write'] };

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  cred = await credentialFor(ctx, uniqueTenant('cus'), lending);
  other = await credentialFor(ctx, uniqueTenant('cus-other'), lending);
});
afterAll(async () => ctx?.close());

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function createCustomer(
  as: Credential,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await call(
    ctx,
    as,
    'POST',
    '/v1/customers',
    { firstName: 'Test', lastName: 'Person', ...body },
    headers,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.customerId as number;
}

async function addInstrument(customerId: number, token = `tok_${newKey('i').slice(2)}`) {
  const res = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/payment-instruments`, {
    instrumentType: 'BANK_ACCOUNT',
    providerTokenRef: token,
    lastFour: '6789',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.instrumentId as number;
}

function expectNotEchoed(res: { body: Json }, ...values: string[]) {
  const text = JSON.stringify(res.body);
  for (const value of values) if (value.length > 0) expect(text).not.toContain(value);
}

/** A `customerRef` as the database mints it (migration 0027). */
const anyCustomerRef = expect.stringMatching(/^cus_[a-p]{32}$/);

describe('POST /v1/customers and GET /v1/customers/{customerId}', () => {
  it('creates the aggregate (201 {customerId, resourceId, customerRef}) and reads it back normalized', async () => {
    const res = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: ' Ana ',
      middleName: 'María',
      lastName: 'López',
      dateOfBirth: '1988-04-12',
      externalId: 'SRC-ana-001',
      addresses: [
        {
          addressType: 'HOME',
          line1: '1 Main St',
          city: 'Springfield',
          region: 'IL',
          postalCode: '62701',
          countryCode: 'US',
        },
      ],
      contactPoints: [
        { contactType: 'EMAIL', value: 'Ana.Lopez@Example.com' },
        { contactType: 'PHONE', value: '(415) 555-2671' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      customerId: expect.any(Number),
      resourceId: res.body.customerId,
      customerRef: expect.stringMatching(/^cus_[a-p]{32}$/),
    });
    const read = await call(ctx, cred, 'GET', `/v1/customers/${res.body.customerId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      customerId: res.body.customerId,
      resourceId: res.body.customerId,
      customerRef: res.body.customerRef,
      externalId: 'SRC-ana-001',
      firstName: 'Ana',
      middleName: 'María',
      lastName: 'López',
      dateOfBirth: '1988-04-12',
      status: 'ACTIVE',
      createdAt: expect.stringMatching(isoInstant),
      updatedAt: expect.stringMatching(isoInstant),
      addresses: [
        {
          addressId: expect.any(Number),
          addressType: 'HOME',
          line1: '1 Main St',
          line2: null,
          city: 'Springfield',
          region: 'IL',
          postalCode: '62701',
          countryCode: 'US',
        },
      ],
      contactPoints: [
        {
          contactPointId: expect.any(Number),
          contactPointRef: expect.stringMatching(/^cp_[a-p]{32}$/),
          contactType: 'EMAIL',
          value: 'Ana.Lopez@Example.com',
          normalizedValue: 'ana.lopez@example.com',
          verificationStatus: 'UNVERIFIED',
          canReceiveSms: null,
          canReceiveEmail: null,
          canReceiveVoice: null,
        },
        {
          contactPointId: expect.any(Number),
          contactPointRef: expect.stringMatching(/^cp_[a-p]{32}$/),
          contactType: 'PHONE',
          value: '(415) 555-2671',
          normalizedValue: '+14155552671',
          verificationStatus: 'UNVERIFIED',
          canReceiveSms: null,
          canReceiveEmail: null,
          canReceiveVoice: null,
        },
      ],
      identifiers: [],
      consents: [],
      paymentInstruments: [],
      restrictions: [],
    });
    const refs = read.body.contactPoints.map((cp: { contactPointRef: string }) => cp.contactPointRef);
    expect(new Set(refs).size).toBe(2);
    const replay = await call(ctx, cred, 'GET', `/v1/customers/${res.body.customerId}`);
    expect(replay.body.customerRef).toBe(res.body.customerRef);
    const events = await countRows(
      ctx,
      cred.tenant,
      outboxEvents,
      eq(outboxEvents.eventType, 'customer.created'),
    );
    expect(events).toBeGreaterThanOrEqual(1);
  });

  it('refuses an identifier-looking externalId without echoing it', async () => {
    for (const externalId of ['123-45-6789', '4111 1111 1111 1111', 'GB82WEST12345698765432']) {
      const res = await call(ctx, cred, 'POST', '/v1/customers', {
        firstName: 'A',
        lastName: 'B',
        externalId,
      });
      const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['externalId']);
      expect(body.errors[0]?.value).toBeNull();
      expect(body.errors[0]?.developerMessage).toMatch(/government identifier or account number/);
      expectNotEchoed(res, externalId, externalId.replace(/\D/g, '').slice(-4));
    }
    expect(
      (
        await call(ctx, cred, 'POST', '/v1/customers', {
          firstName: 'A',
          lastName: 'B',
          externalId: 'ORD-2024-001',
        })
      ).status,
    ).toBe(201);
  });

  it('refuses an invalid phone, an invalid e-mail, a future date of birth, a bad country and unknown fields', async () => {
    const phone = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'A',
      lastName: 'B',
      contactPoints: [
        { contactType: 'EMAIL', value: 'a@example.com' },
        { contactType: 'PHONE', value: '555-0100' },
      ],
    });
    expectShapeA(phone, 400, 'validation.msg.validation.errors.exist', ['contactPoints[1].value']);
    const email = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'A',
      lastName: 'B',
      contactPoints: [{ contactType: 'EMAIL', value: 'not-an-email' }],
    });
    expectShapeA(email, 400, 'validation.msg.validation.errors.exist', ['contactPoints[0].value']);
    const tomorrowPlus = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const dob = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'A',
      lastName: 'B',
      dateOfBirth: tomorrowPlus,
    });
    const dobBody = expectShapeA(dob, 400, 'validation.msg.validation.errors.exist', ['dateOfBirth']);
    expect(dobBody.errors[0]?.developerMessage).toMatch(/future/);
    const impossible = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'A',
      lastName: 'B',
      dateOfBirth: '1990-02-30',
    });
    expectShapeA(impossible, 400, 'validation.msg.validation.errors.exist', ['dateOfBirth']);
    const country = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'A',
      lastName: 'B',
      addresses: [{ addressType: 'HOME', line1: 'x', city: 'y', countryCode: 'UK' }],
    });
    expectShapeA(country, 400, 'validation.msg.validation.errors.exist', ['addresses[0].countryCode']);
    const unknown = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'A',
      lastName: 'B',
      ssn: '123-45-6789',
    });
    expectShapeA(unknown, 400, 'validation.msg.validation.errors.exist', ['ssn']);
    expectNotEchoed(unknown, '123-45-6789');
    const missing = await call(ctx, cred, 'POST', '/v1/customers', { firstName: 'A' });
    expectShapeA(missing, 400, 'validation.msg.validation.errors.exist', ['lastName']);
  });

  it('an externalId in use → 409; the same Idempotency-Key replays the original 201', async () => {
    const externalId = `SRC-${newKey('x').slice(2)}`;
    const key = newKey();
    const first = await call(
      ctx,
      cred,
      'POST',
      '/v1/customers',
      { firstName: 'C', lastName: 'D', externalId },
      { 'idempotency-key': key },
    );
    expect(first.status).toBe(201);
    const replay = await call(
      ctx,
      cred,
      'POST',
      '/v1/customers',
      { firstName: 'C', lastName: 'D', externalId },
      { 'idempotency-key': key },
    );
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    const reuse = await call(ctx, cred, 'POST', '/v1/customers', {
      firstName: 'E',
      lastName: 'F',
      externalId,
    });
    expectShapeA(reuse, 409, 'error.msg.customer.external.id.conflict');
    expect(await countRows(ctx, cred.tenant, customers, eq(customers.externalId, externalId))).toBe(1);
  });

  it('an Idempotency-Key that looks like an identifier or account number → 400 without echoing it', async () => {
    for (const key of ['4111111111111111', 'cust-123-45-6789', 'acct 12345678']) {
      const res = await call(
        ctx,
        cred,
        'POST',
        '/v1/customers',
        { firstName: 'A', lastName: 'B' },
        { 'idempotency-key': key },
      );
      const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [
        'header.Idempotency-Key',
      ]);
      expect(body.errors[0]?.value).toBeNull();
      expect(body.developerMessage).toMatch(/must not contain a government identifier or account number/);
      expectNotEchoed(res, key);
    }
    const ok = await call(
      ctx,
      cred,
      'POST',
      '/v1/customers',
      { firstName: 'A', lastName: 'B' },
      { 'idempotency-key': 'ORD-2024-001' },
    );
    expect(ok.status).toBe(201);
  });

  it("another tenant's customer is 404 on every route", async () => {
    const customerId = await createCustomer(cred);
    const instrumentId = await addInstrument(customerId);
    const restriction = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'PAYMENT_HOLD',
      reason: 'Dispute',
    });
    const paths: [string, string, unknown?][] = [
      ['GET', `/v1/customers/${customerId}`],
      ['GET', `/v1/customers/${customerId}/history`],
      ['GET', `/v1/customers/${customerId}/restrictions`],
      ['POST', `/v1/customers/${customerId}/identifiers`, { identifierType: 'SSN', value: '123-45-6789' }],
      [
        'POST',
        `/v1/customers/${customerId}/consents`,
        {
          consentType: 'ESIGN',
          granted: true,
          captureMethod: 'WEB_FORM',
          evidenceRef: 'ev-1',
          capturedAt: '2024-01-01T00:00:00Z',
        },
      ],
      [
        'POST',
        `/v1/customers/${customerId}/payment-instruments`,
        { instrumentType: 'DEBIT_CARD', providerTokenRef: 'tok_x' },
      ],
      [
        'POST',
        `/v1/customers/${customerId}/payment-instruments/${instrumentId}/verification`,
        { verificationSource: 'PLAID' },
      ],
      ['POST', `/v1/customers/${customerId}/restrictions`, { restrictionType: 'PAYMENT_HOLD', reason: 'x' }],
      [
        'POST',
        `/v1/customers/${customerId}/restrictions/${restriction.body.restrictionId}/release`,
        { reason: 'x' },
      ],
    ];
    for (const [method, path, body] of paths) {
      expectShapeA(await call(ctx, other, method, path, body), 404, 'error.msg.resource.not.found');
    }
    const list = await call(ctx, other, 'GET', '/v1/customers?limit=200');
    expect(list.body.items.map((c: Json) => c.customerId)).not.toContain(customerId);
  });

  it('needs the lending scopes and the route permission', async () => {
    const servicingOnly = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:read', 'servicing:write'],
    });
    expectShapeA(
      await call(ctx, servicingOnly, 'POST', '/v1/customers', { firstName: 'A', lastName: 'B' }),
      403,
      'error.msg.not.authorized',
    );
    const readOnly = await credentialFor(ctx, cred.tenant, { ...lending, permissions: ['READ_CUSTOMER'] });
    expectShapeA(
      await call(ctx, readOnly, 'POST', '/v1/customers', { firstName: 'A', lastName: 'B' }),
      403,
      'error.msg.not.authorized',
    );
    expect((await call(ctx, readOnly, 'GET', '/v1/customers')).status).toBe(200);
    expectShapeA(
      await call(ctx, readOnly, 'GET', '/v1/portfolio/search?q=ana'),
      403,
      'error.msg.not.authorized',
    );
  });
});

describe('GET /v1/customers', () => {
  it('lists newest-modified first and echoes limit and offset', async () => {
    const tenantCred = await credentialFor(ctx, uniqueTenant('cus-list'), lending);
    const a = await createCustomer(tenantCred, { firstName: 'First' });
    const b = await createCustomer(tenantCred, { firstName: 'Second' });
    const c = await createCustomer(tenantCred, { firstName: 'Third' });
    let page = await call(ctx, tenantCred, 'GET', '/v1/customers');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 50, offset: 0 });
    expect(page.body.items.map((x: Json) => x.customerId)).toEqual([c, b, a]);
    const consent = await call(ctx, tenantCred, 'POST', `/v1/customers/${a}/consents`, {
      consentType: 'SMS',
      granted: false,
      captureMethod: 'RECORDED_CALL',
      evidenceRef: 'call-77',
      capturedAt: new Date().toISOString(),
    });
    expect(consent.status).toBe(201);
    page = await call(ctx, tenantCred, 'GET', '/v1/customers?limit=2');
    expect(page.body).toMatchObject({ limit: 2, offset: 0 });
    expect(page.body.items.map((x: Json) => x.customerId)).toEqual([a, c]);
    page = await call(ctx, tenantCred, 'GET', '/v1/customers?limit=2&offset=2');
    expect(page.body).toMatchObject({ limit: 2, offset: 2 });
    expect(page.body.items.map((x: Json) => x.customerId)).toEqual([b]);
    expect(page.body.items[0]).toEqual({
      customerId: b,
      resourceId: b,
      customerRef: anyCustomerRef,
      externalId: null,
      firstName: 'Second',
      middleName: null,
      lastName: 'Person',
      dateOfBirth: null,
      status: 'ACTIVE',
      createdAt: expect.stringMatching(isoInstant),
      updatedAt: expect.stringMatching(isoInstant),
    });
  });

  it('rejects out-of-range paging and unknown parameters', async () => {
    for (const query of ['limit=0', 'limit=201', 'offset=-1', 'cursor=abc', 'sort=name']) {
      expectShapeA(
        await call(ctx, cred, 'GET', `/v1/customers?${query}`),
        400,
        'validation.msg.validation.errors.exist',
      );
    }
  });
});

describe('identifiers', () => {
  it('201 with the mask only; reads and history never carry the value; a replay is served from cache', async () => {
    const customerId = await createCustomer(cred);
    const key = newKey();
    const res = await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${customerId}/identifiers`,
      { identifierType: 'SSN', value: '078-05-1120' },
      { 'idempotency-key': key },
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      identifierId: expect.any(Number),
      resourceId: res.body.identifierId,
      identifierType: 'SSN',
      mask: '***-**-1120',
      verificationStatus: 'UNVERIFIED',
    });
    const replay = await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${customerId}/identifiers`,
      { identifierType: 'SSN', value: '078-05-1120' },
      { 'idempotency-key': key },
    );
    expect(replay.body).toEqual(res.body);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    // The stored fingerprint is over a keyed HMAC of the value, not over the value itself.
    const [stored] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select({ fingerprint: idempotencyKeys.fingerprint })
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.clientId, cred.clientId), eq(idempotencyKeys.key, key))),
    );
    const fingerprintOf = (value: string) =>
      requestFingerprint({
        method: 'POST',
        routeTemplate: '/v1/customers/:customerId/identifiers',
        pathParams: { customerId: String(customerId) },
        body: { identifierType: 'SSN', value },
      });
    expect(stored?.fingerprint).not.toBe(fingerprintOf('078-05-1120'));
    expect(stored?.fingerprint).toBe(
      fingerprintOf(
        `hmac:${hmacSha256Hex(testSecrets.cursorSigningKey, 'idempotency-fingerprint|value|078-05-1120')}`,
      ),
    );
    const otherValue = await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${customerId}/identifiers`,
      { identifierType: 'SSN', value: '078-05-1121' },
      { 'idempotency-key': key },
    );
    expectShapeA(otherValue, 422, 'idempotency.key.payload.mismatch');
    const passport = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/identifiers`, {
      identifierType: 'PASSPORT',
      value: 'X1234567',
      issuingCountry: 'GB',
    });
    expect(passport.body).toMatchObject({ identifierType: 'PASSPORT', mask: '****4567' });
    const read = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
    expect(read.body.identifiers.map((i: Json) => i.mask)).toEqual(['***-**-1120', '****4567']);
    const history = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history`);
    expectNotEchoed(read, '078051120', '078-05-1120', 'X1234567');
    expectNotEchoed(history, '078051120', '078-05-1120', 'X1234567');
    expect(
      await countRows(ctx, cred.tenant, customerIdentifiers, eq(customerIdentifiers.customerId, customerId)),
    ).toBe(2);
  });

  it('a value that does not fit its type → 400 on `value`, never echoed', async () => {
    const customerId = await createCustomer(cred);
    for (const body of [
      { identifierType: 'SSN', value: '666-12-3456' },
      { identifierType: 'SSN', value: '12345' },
      { identifierType: 'EIN', value: '00-1234567' },
      { identifierType: 'PASSPORT', value: 'A!' },
    ]) {
      const res = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/identifiers`, body);
      const shape = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', ['value']);
      expect(shape.errors[0]?.value).toBeNull();
      expectNotEchoed(res, body.value, body.value.replace(/\D/g, ''));
    }
    const wrongCountry = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/identifiers`, {
      identifierType: 'SSN',
      value: '123-45-6789',
      issuingCountry: 'CA',
    });
    expectShapeA(wrongCountry, 400, 'validation.msg.validation.errors.exist', ['issuingCountry']);
    expectNotEchoed(wrongCountry, '6789');
    const numeric = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/identifiers`, {
      identifierType: 'SSN',
      value: 123456789,
    });
    expectShapeA(numeric, 400, 'validation.msg.validation.errors.exist', ['value']);
    expectNotEchoed(numeric, '123456789');
    const badType = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/identifiers`, {
      identifierType: 'TIN',
      value: '123-45-6789',
    });
    expectShapeA(badType, 400, 'validation.msg.validation.errors.exist', ['identifierType']);
  });

  it('the same identifier on another customer of the tenant → 409; on the same customer → the original', async () => {
    const one = await createCustomer(cred);
    const two = await createCustomer(cred);
    const body = { identifierType: 'ITIN', value: '912-70-5555' };
    const first = await call(ctx, cred, 'POST', `/v1/customers/${one}/identifiers`, body);
    expect(first.status).toBe(201);
    const again = await call(ctx, cred, 'POST', `/v1/customers/${one}/identifiers`, {
      ...body,
      value: '912705555',
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const clash = await call(ctx, cred, 'POST', `/v1/customers/${two}/identifiers`, body);
    expectShapeA(clash, 409, 'error.msg.customer.identifier.conflict');
    expectNotEchoed(clash, '5555');
  });
});

describe('consents', () => {
  const consent = {
    consentType: 'ESIGN',
    granted: true,
    captureMethod: 'WEB_FORM',
    evidenceRef: 'doc-ESIGN-2024-001',
    capturedAt: '2024-05-01T10:00:00+02:00',
  };

  it('201 {consentId, resourceId}; shown on the customer with capturedAt in UTC', async () => {
    const customerId = await createCustomer(cred);
    const res = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/consents`, consent);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ consentId: expect.any(Number), resourceId: res.body.consentId });
    const read = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
    expect(read.body.consents).toEqual([
      {
        consentId: res.body.consentId,
        consentType: 'ESIGN',
        granted: true,
        captureMethod: 'WEB_FORM',
        evidenceRef: 'doc-ESIGN-2024-001',
        capturedAt: '2024-05-01T08:00:00.000Z',
      },
    ]);
  });

  it('refuses an evidenceRef carrying an IBAN, a future capture time and a timestamp without zone', async () => {
    const customerId = await createCustomer(cred);
    const iban = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/consents`, {
      ...consent,
      evidenceRef: 'GB82 WEST 1234 5698 7654 32',
    });
    const body = expectShapeA(iban, 400, 'validation.msg.validation.errors.exist', ['evidenceRef']);
    expect(body.errors[0]?.value).toBeNull();
    expectNotEchoed(iban, 'WEST 1234');
    const future = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/consents`, {
      ...consent,
      capturedAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expectShapeA(future, 400, 'validation.msg.validation.errors.exist', ['capturedAt']);
    const noZone = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/consents`, {
      ...consent,
      capturedAt: '2024-05-01T10:00:00',
    });
    expectShapeA(noZone, 400, 'validation.msg.validation.errors.exist', ['capturedAt']);
  });
});

describe('payment instruments', () => {
  it('201 UNVERIFIED/INACTIVE; verification → VERIFIED/ACTIVE, and again returns the same', async () => {
    const customerId = await createCustomer(cred);
    const res = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/payment-instruments`, {
      instrumentType: 'DEBIT_CARD',
      providerTokenRef: 'tok_visa_debit_a1',
      lastFour: '1111',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      instrumentId: expect.any(Number),
      resourceId: res.body.instrumentId,
      verificationStatus: 'UNVERIFIED',
      state: 'INACTIVE',
    });
    const path = `/v1/customers/${customerId}/payment-instruments/${res.body.instrumentId}/verification`;
    const verified = await call(ctx, cred, 'POST', path, {
      verificationSource: 'CARD_NETWORK_AVS',
      verifiedAt: '2024-06-01T12:00:00Z',
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      instrumentId: res.body.instrumentId,
      resourceId: res.body.instrumentId,
      verificationStatus: 'VERIFIED',
      state: 'ACTIVE',
      verifiedAt: '2024-06-01T12:00:00.000Z',
      verificationSource: 'CARD_NETWORK_AVS',
    });
    const twice = await call(ctx, cred, 'POST', path, { verificationSource: 'OTHER' });
    expect(twice.status).toBe(200);
    expect(twice.body).toEqual(verified.body);
    const read = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
    expect(read.body.paymentInstruments).toEqual([
      expect.objectContaining({
        instrumentId: res.body.instrumentId,
        verificationStatus: 'VERIFIED',
        state: 'ACTIVE',
        lastFour: '1111',
      }),
    ]);
    const history = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history`);
    expect(history.body.items.map((e: Json) => e.action)).toEqual([
      'CUSTOMER_CREATED',
      'INSTRUMENT_ADDED',
      'INSTRUMENT_VERIFIED',
    ]);
    const elsewhere = await createCustomer(cred);
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        `/v1/customers/${elsewhere}/payment-instruments/${res.body.instrumentId}/verification`,
        { verificationSource: 'X' },
      ),
      404,
      'error.msg.resource.not.found',
    );
  });

  it('refuses raw account and card number fields and a token that looks like a PAN', async () => {
    const customerId = await createCustomer(cred);
    const base = { instrumentType: 'BANK_ACCOUNT', providerTokenRef: 'tok_bank_1' };
    for (const [field, value] of [
      ['accountNumber', '000123456789'],
      ['routingNumber', '021000021'],
      ['cardNumber', '4111111111111111'],
    ] as const) {
      const res = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/payment-instruments`, {
        ...base,
        [field]: value,
      });
      const body = expectShapeA(res, 400, 'validation.msg.validation.errors.exist', [field]);
      expect(body.errors[0]?.developerMessage).toMatch(/providerTokenRef/);
      expectNotEchoed(res, value);
    }
    const pan = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/payment-instruments`, {
      ...base,
      providerTokenRef: '4111 1111 1111 1111',
    });
    const panBody = expectShapeA(pan, 400, 'validation.msg.validation.errors.exist', ['providerTokenRef']);
    expect(panBody.errors[0]?.value).toBeNull();
    expectNotEchoed(pan, '4111');
    const lastFour = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/payment-instruments`, {
      ...base,
      lastFour: '12345',
    });
    expectShapeA(lastFour, 400, 'validation.msg.validation.errors.exist', ['lastFour']);
  });

  it('a token already recorded for another customer → 409', async () => {
    const token = `tok_${newKey('t').slice(2)}`;
    await addInstrument(await createCustomer(cred), token);
    const res = await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${await createCustomer(cred)}/payment-instruments`,
      {
        instrumentType: 'BANK_ACCOUNT',
        providerTokenRef: token,
        lastFour: '6789',
      },
    );
    expectShapeA(res, 409, 'error.msg.payment.instrument.conflict');
  });
});

describe('restrictions', () => {
  it('apply (201, server-derived effectiveAt), list newest first, release (200), release again → 409', async () => {
    const customerId = await createCustomer(cred);
    const before = Date.now();
    const applied = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'PAYMENT_HOLD',
      reason: 'Customer disputes the debit',
    });
    expect(applied.status).toBe(201);
    expect(applied.body).toEqual({
      restrictionId: expect.any(Number),
      resourceId: applied.body.restrictionId,
      restrictionType: 'PAYMENT_HOLD',
      status: 'ACTIVE',
      loanId: null,
      effectiveAt: expect.stringMatching(isoInstant),
      expiresAt: null,
    });
    expect(Date.parse(applied.body.effectiveAt)).toBeGreaterThanOrEqual(before - 1000);
    const second = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'SCRA_MLA_PROTECTED',
      reason: 'Active duty orders received',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    expect(second.status).toBe(201);
    const list = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/restrictions`);
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(['items']);
    expect(list.body.items.map((r: Json) => r.restrictionId)).toEqual([
      second.body.restrictionId,
      applied.body.restrictionId,
    ]);
    const onePage = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/restrictions?limit=1&offset=1`);
    expect(onePage.body.items.map((r: Json) => r.restrictionId)).toEqual([applied.body.restrictionId]);

    const path = `/v1/customers/${customerId}/restrictions/${applied.body.restrictionId}/release`;
    const released = await call(ctx, cred, 'POST', path, { reason: 'Dispute resolved' });
    expect(released.status).toBe(200);
    expect(released.body).toEqual({
      resourceId: applied.body.restrictionId,
      changes: { status: 'RELEASED', releasedAt: expect.stringMatching(isoInstant) },
    });
    expectShapeA(
      await call(ctx, cred, 'POST', path, { reason: 'again' }),
      409,
      'error.msg.restriction.invalid.state.transition',
    );
    const read = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
    expect(read.body.restrictions.map((r: Json) => r.restrictionType)).toEqual(['SCRA_MLA_PROTECTED']);
    const after = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/restrictions`);
    expect(after.body.items.map((r: Json) => r.status)).toEqual(['ACTIVE', 'RELEASED']);
    expect(after.body.items[1]).toMatchObject({
      releaseReason: 'Dispute resolved',
      releasedAt: released.body.changes.releasedAt,
    });
    const events = await countRows(
      ctx,
      cred.tenant,
      outboxEvents,
      eq(outboxEvents.subjectId, String(applied.body.restrictionId)),
    );
    expect(events).toBeGreaterThanOrEqual(2);
  });

  it('refuses a reason with an account number, a past expiry, an unknown type and a foreign restriction', async () => {
    const customerId = await createCustomer(cred);
    const reason = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'COLLECTIONS_HOLD',
      reason: 'per acct 000123456789',
    });
    const body = expectShapeA(reason, 400, 'validation.msg.validation.errors.exist', ['reason']);
    expect(body.errors[0]?.value).toBeNull();
    expectNotEchoed(reason, '000123456789');
    const past = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'COLLECTIONS_HOLD',
      reason: 'Bankruptcy filed',
      expiresAt: '2020-01-01T00:00:00Z',
    });
    expectShapeA(past, 400, 'validation.msg.validation.errors.exist', ['expiresAt']);
    const type = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'LEGAL_HOLD',
      reason: 'x',
    });
    expectShapeA(type, 400, 'validation.msg.validation.errors.exist', ['restrictionType']);
    const loan = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
      restrictionType: 'DISBURSEMENT_HOLD',
      reason: 'x',
      loanId: 987654,
    });
    expectShapeA(loan, 400, 'validation.msg.validation.errors.exist', ['loanId']);
    const someoneElse = await createCustomer(cred);
    const theirs = await call(ctx, cred, 'POST', `/v1/customers/${someoneElse}/restrictions`, {
      restrictionType: 'PAYMENT_HOLD',
      reason: 'x',
    });
    expectShapeA(
      await call(
        ctx,
        cred,
        'POST',
        `/v1/customers/${customerId}/restrictions/${theirs.body.restrictionId}/release`,
        { reason: 'x' },
      ),
      404,
      'error.msg.resource.not.found',
    );
  });
});

describe('GET /v1/customers/{customerId}/history', () => {
  it('lists every change in order, cursor-paged, the cursor bound to the customer', async () => {
    const customerId = await createCustomer(cred, {}, { 'service-actor': 'agent-42' });
    const steps: [string, unknown][] = [
      ['identifiers', { identifierType: 'SSN', value: '123-45-6780' }],
      [
        'consents',
        {
          consentType: 'ESIGN',
          granted: true,
          captureMethod: 'WEB_FORM',
          evidenceRef: 'ev-9',
          capturedAt: '2024-01-01T00:00:00Z',
        },
      ],
      [
        'payment-instruments',
        { instrumentType: 'BANK_ACCOUNT', providerTokenRef: `tok_${newKey('h').slice(2)}` },
      ],
      ['restrictions', { restrictionType: 'COMMUNICATION_HOLD', reason: 'Asked for no calls' }],
    ];
    let instrumentId = 0;
    let restrictionId = 0;
    for (const [path, body] of steps) {
      const res = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/${path}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      if (path === 'payment-instruments') instrumentId = res.body.instrumentId;
      if (path === 'restrictions') restrictionId = res.body.restrictionId;
    }
    await call(
      ctx,
      cred,
      'POST',
      `/v1/customers/${customerId}/payment-instruments/${instrumentId}/verification`,
      { verificationSource: 'PLAID' },
    );
    await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions/${restrictionId}/release`, {
      reason: 'Lifted',
    });
    const expected = [
      'CUSTOMER_CREATED',
      'IDENTIFIER_ADDED',
      'CONSENT_RECORDED',
      'INSTRUMENT_ADDED',
      'RESTRICTION_APPLIED',
      'INSTRUMENT_VERIFIED',
      'RESTRICTION_RELEASED',
    ];
    expect(
      await countRows(ctx, cred.tenant, customerHistory, eq(customerHistory.customerId, customerId)),
    ).toBe(expected.length);

    const all = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history`);
    expect(all.status).toBe(200);
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.items.map((e: Json) => e.action)).toEqual(expected);
    expect(all.body.items[0]).toEqual({
      action: 'CUSTOMER_CREATED',
      detail: { externalId: null, addressCount: 0, contactPointCount: 0 },
      actorUsername: 'agent-42',
      correlationId: expect.any(String),
      occurredAt: expect.stringMatching(isoInstant),
    });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `limit=3&cursor=${encodeURIComponent(cursor)}` : 'limit=3';
      const page = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history?${query}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.items.map((e: Json) => e.action));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);

    const first = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history?limit=1`);
    const elsewhere = await createCustomer(cred);
    expectShapeA(
      await call(
        ctx,
        cred,
        'GET',
        `/v1/customers/${elsewhere}/history?cursor=${encodeURIComponent(first.body.nextCursor)}`,
      ),
      400,
      'validation.msg.cursor.query.mismatch',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history?cursor=forged.cursor`),
      400,
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(
      await call(ctx, cred, 'GET', `/v1/customers/${customerId}/history?offset=1`),
      400,
      'validation.msg.validation.errors.exist',
    );
  });
});

describe('GET /v1/portfolio/search', () => {
  let searcher: Credential;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    searcher = await credentialFor(ctx, uniqueTenant('cus-search'), lending);
    ids.ana = await createCustomer(searcher, {
      firstName: 'Ana',
      lastName: 'López',
      contactPoints: [
        { contactType: 'EMAIL', value: 'ana.lopez@example.com' },
        { contactType: 'PHONE', value: '+1 (415) 555-2671' },
      ],
    });
    ids.anabel = await createCustomer(searcher, { firstName: 'Anabel', lastName: 'Smith' });
    ids.andrea = await createCustomer(searcher, {
      firstName: 'Andrea',
      lastName: 'Lopez',
      contactPoints: [{ contactType: 'EMAIL', value: 'ANA.LOPEZ@EXAMPLE.COM' }],
    });
    ids.bob = await createCustomer(searcher, { firstName: 'Bob', lastName: 'Anders' });
    // Same e-mail in another tenant: never visible here.
    await createCustomer(other, {
      firstName: 'Ana',
      lastName: 'Other',
      contactPoints: [{ contactType: 'EMAIL', value: 'ana.lopez@example.com' }],
    });
  });

  async function search(q: string, extra = '') {
    const res = await call(ctx, searcher, 'GET', `/v1/portfolio/search?q=${encodeURIComponent(q)}${extra}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  it('by name: case- and accent-insensitive prefix of "first last" or "last first"', async () => {
    const byFirst = await search('AN');
    expect(byFirst.items).toEqual([
      { customerId: ids.ana, customerRef: anyCustomerRef, displayName: 'Ana López', matchedOn: 'NAME' },
      { customerId: ids.anabel, customerRef: anyCustomerRef, displayName: 'Anabel Smith', matchedOn: 'NAME' },
      { customerId: ids.bob, customerRef: anyCustomerRef, displayName: 'Bob Anders', matchedOn: 'NAME' },
      { customerId: ids.andrea, customerRef: anyCustomerRef, displayName: 'Andrea Lopez', matchedOn: 'NAME' },
    ]);
    expect((await search('lopez')).items.map((i: Json) => i.customerId)).toEqual([ids.ana, ids.andrea]);
    expect(byFirst.nextCursor).toBeNull();
    expect((await search('ana ló')).items.map((i: Json) => i.customerId)).toEqual([ids.ana]);
    expect((await search('  Ana   Lopez ')).items.map((i: Json) => i.customerId)).toEqual([ids.ana]);
    expect((await search('zed')).items).toEqual([]);
    expect((await search('an%')).items).toEqual([]);
  });

  it('by e-mail (exact, case-insensitive) and by phone (any notation, normalized to E.164)', async () => {
    const byEmail = await search('Ana.Lopez@Example.com');
    expect(byEmail.items).toEqual([
      { customerId: ids.ana, customerRef: anyCustomerRef, displayName: 'Ana López', matchedOn: 'EMAIL' },
      {
        customerId: ids.andrea,
        customerRef: anyCustomerRef,
        displayName: 'Andrea Lopez',
        matchedOn: 'EMAIL',
      },
    ]);
    for (const phone of ['415-555-2671', '+14155552671', '(415) 555 2671']) {
      expect((await search(phone)).items).toEqual([
        { customerId: ids.ana, customerRef: anyCustomerRef, displayName: 'Ana López', matchedOn: 'PHONE' },
      ]);
    }
    expect((await search('ana@nowhere.example')).items).toEqual([]);
  });

  it('pages with a cursor bound to the query', async () => {
    const first = await search('an', '&limit=2');
    expect(first.items.map((i: Json) => i.customerId)).toEqual([ids.ana, ids.anabel]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await search('an', `&limit=2&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(second.items.map((i: Json) => i.customerId)).toEqual([ids.bob, ids.andrea]);
    expect(second.nextCursor).toBeNull();
    const mismatch = await call(
      ctx,
      searcher,
      'GET',
      `/v1/portfolio/search?q=and&cursor=${encodeURIComponent(first.nextCursor)}`,
    );
    expectShapeA(mismatch, 400, 'validation.msg.cursor.query.mismatch');
    const emailPage = await search('ana.lopez@example.com', '&limit=1');
    expect(emailPage.items.map((i: Json) => i.customerId)).toEqual([ids.ana]);
    const emailNext = await search(
      'ana.lopez@example.com',
      `&limit=1&cursor=${encodeURIComponent(emailPage.nextCursor)}`,
    );
    expect(emailNext.items.map((i: Json) => i.customerId)).toEqual([ids.andrea]);
    expect(emailNext.nextCursor).toBeNull();
  });

  it('400 for a query shorter than 2 characters, an invalid phone or e-mail, bad paging', async () => {
    for (const query of [
      'q=a',
      'q=',
      'q=%20x%20',
      'q=555-12',
      'q=ana%40',
      'q=an&limit=0',
      'q=an&offset=5',
      'limit=5',
    ]) {
      const res = await call(ctx, searcher, 'GET', `/v1/portfolio/search?${query}`);
      expectShapeA(res, 400, 'validation.msg.validation.errors.exist');
    }
    const short = await call(ctx, searcher, 'GET', '/v1/portfolio/search?q=a');
    expect(short.body.errors[0]?.parameterName).toBe('q');
  });
});

describe('restrictions in force follow the service clock', () => {
  it('a restriction past its expiresAt by the injected clock is no longer in force on any read', async () => {
    const customerId = await createCustomer(cred);
    const start = new Date('2031-05-01T10:00:00.000Z');
    ctx.now.value = start;
    try {
      const applied = await call(ctx, cred, 'POST', `/v1/customers/${customerId}/restrictions`, {
        restrictionType: 'PAYMENT_HOLD',
        reason: 'Borrower asked for a pause',
        expiresAt: '2031-05-01T11:00:00.000Z',
      });
      expect(applied.status).toBe(201);
      const during = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
      expect(during.body.restrictions.map((r: { restrictionId: number }) => r.restrictionId)).toEqual([
        applied.body.restrictionId,
      ]);
      // The database's own now() is years earlier than this clock: only the injected clock can expire it.
      ctx.now.value = new Date('2031-05-01T12:00:00.000Z');
      const after = await call(ctx, cred, 'GET', `/v1/customers/${customerId}`);
      expect(after.body.restrictions).toEqual([]);
      const list = await call(ctx, cred, 'GET', `/v1/customers/${customerId}/restrictions`);
      expect(list.body.items.map((r: { status: string }) => r.status)).toEqual(['EXPIRED']);
    } finally {
      ctx.now.value = null;
    }
  });
});
