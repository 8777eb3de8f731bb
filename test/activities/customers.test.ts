/**
 * Customer operations on the real PostgreSQL: every write runs twice with the same
 * key and leaves one row, one history entry and one outbox event; identifiers are stored
 * encrypted and read back as masks only; holds serialize with guarded commands through the
 * customer row lock; row-level security keeps tenants apart.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeRestrictions } from '../../activities/customers';
import { decryptIdentifier, identifierDigest } from '../../activities/customers/identifier-crypto';
import { getCustomer, getInstrumentForPayment } from '../../db/queries/customers/customers';
import {
  consents,
  contactPoints,
  customerAddresses,
  customerHistory,
  customerIdentifiers,
  customers,
  loans,
  paymentInstruments,
  restrictions,
} from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import {
  type ActivityHarness,
  createHarness,
  domainErrorOf,
  expectDomainError,
  insertBareLoanProduct,
  newRequestKey,
  newTenant,
  outboxOf,
} from './helpers';

/** The instant the operations see (the harness's controllable clock). */
const clockOf = (h: { now: { value: Date | null } }) => h.now.value ?? new Date();

let h: ActivityHarness;
let tenant: string;
let otherTenant: string;

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'cus');
  otherTenant = await newTenant(h, 'cus-other');
});
afterAll(async () => h?.close());

function context(tenantId: string, requestKey: string | null = newRequestKey()) {
  return { tenantId, requestKey, actor: 'agent-9', correlationId: 'req-cus' };
}

async function newCustomer(tenantId = tenant, overrides: Record<string, unknown> = {}): Promise<number> {
  const { customerId } = await h.activities.createCustomer({
    ...context(tenantId),
    firstName: 'Ana',
    lastName: 'López',
    ...overrides,
  });
  return customerId;
}

function historyOf(tenantId: string, customerId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx
      .select()
      .from(customerHistory)
      .where(eq(customerHistory.customerId, customerId))
      .orderBy(customerHistory.id),
  );
}

function identifiersOf(tenantId: string, customerId: number) {
  return withTenantTransaction(h.db, tenantId, (tx) =>
    tx.select().from(customerIdentifiers).where(eq(customerIdentifiers.customerId, customerId)),
  );
}

describe('createCustomer', () => {
  const body = {
    firstName: 'Ana',
    middleName: 'María',
    lastName: 'López',
    dateOfBirth: '1988-04-12',
    externalId: 'SRC-ana-001',
    addresses: [
      { addressType: 'HOME', line1: '1 Main St', city: 'Springfield', region: 'IL', countryCode: 'US' },
    ],
    contactPoints: [
      { contactType: 'EMAIL' as const, value: 'Ana.Lopez@Example.com' },
      { contactType: 'PHONE' as const, value: '(415) 555-2671' },
      { contactType: 'PHONE' as const, value: '+1 415 555 2671' },
    ],
  };

  it('twice with the same request key creates one customer, one history entry, one event', async () => {
    const requestKey = newRequestKey();
    const first = await h.activities.createCustomer({ ...context(tenant, requestKey), ...body });
    const second = await h.activities.createCustomer({ ...context(tenant, requestKey), ...body });
    expect(second).toEqual(first);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(customers).where(eq(customers.requestKey, requestKey)),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      searchName: 'ana lopez',
      externalId: 'SRC-ana-001',
      dateOfBirth: '1988-04-12',
    });
    const contacts = await withTenantTransaction(h.db, tenant, (tx) =>
      tx
        .select()
        .from(contactPoints)
        .where(eq(contactPoints.customerId, first.customerId))
        .orderBy(contactPoints.id),
    );
    expect(contacts.map((cp) => [cp.contactType, cp.normalizedValue, cp.verificationStatus])).toEqual([
      ['EMAIL', 'ana.lopez@example.com', 'UNVERIFIED'],
      ['PHONE', '+14155552671', 'UNVERIFIED'],
    ]);
    const addresses = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(customerAddresses).where(eq(customerAddresses.customerId, first.customerId)),
    );
    expect(addresses).toHaveLength(1);
    const history = await historyOf(tenant, first.customerId);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      action: 'CUSTOMER_CREATED',
      actorUsername: 'agent-9',
      correlationId: 'req-cus',
      detail: { externalId: 'SRC-ana-001', addressCount: 1, contactPointCount: 2 },
    });
    const events = (await outboxOf(h, tenant, first.customerId)).filter((e) => e.subjectType === 'customer');
    expect(events.map((e) => e.eventType)).toEqual(['customer.created']);
    expect(events[0]?.data).toEqual({
      customerId: first.customerId,
      customerRef: first.customerRef,
      externalId: 'SRC-ana-001',
    });
  });

  it('concurrently with the same request key creates one customer', async () => {
    const requestKey = newRequestKey();
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        h.activities.createCustomer({ ...context(tenant, requestKey), firstName: 'Bo', lastName: 'Ek' }),
      ),
    );
    expect(new Set(results.map((r) => r.customerId)).size).toBe(1);
    expect(await historyOf(tenant, results[0]!.customerId)).toHaveLength(1);
  });

  it('an externalId of another customer is a 409; another tenant may use it', async () => {
    // Letters only: a random run of 8+ digits would (rightly) be refused as a possible account number.
    const externalId = `SRC-${newRequestKey()
      .slice(-8)
      .replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)] ?? 'x')}`;
    await newCustomer(tenant, { externalId });
    await expectDomainError(newCustomer(tenant, { externalId }), 'error.msg.customer.external.id.conflict');
    expect(await newCustomer(otherTenant, { externalId })).toBeGreaterThan(0);
  });

  it('refuses an identifier-looking externalId, a future date of birth and an invalid phone', async () => {
    const external = await domainErrorOf(newCustomer(tenant, { externalId: '123-45-6789' }));
    expect(external.errors).toEqual([expect.objectContaining({ parameterName: 'externalId', value: null })]);
    expect(external.message).not.toContain('6789');
    h.now.value = new Date('2026-03-10T12:00:00Z');
    try {
      const dob = await domainErrorOf(newCustomer(tenant, { dateOfBirth: '2026-03-12' }));
      expect(dob.errors[0]?.parameterName).toBe('dateOfBirth');
    } finally {
      h.now.value = null;
    }
    const phone = await domainErrorOf(
      newCustomer(tenant, {
        contactPoints: [
          { contactType: 'EMAIL', value: 'x@example.com' },
          { contactType: 'PHONE', value: '555-0100' },
        ],
      }),
    );
    expect(phone.code).toBe('validation.msg.validation.errors.exist');
    expect(phone.errors[0]?.parameterName).toBe('contactPoints[1].value');
  });
});

describe('addCustomerIdentifier', () => {
  it('stores ciphertext and a keyed digest, returns the mask, and a retry adds nothing', async () => {
    const customerId = await newCustomer();
    h.now.value = new Date('2030-01-02T03:04:05.000Z');
    try {
      const input = { ...context(tenant), customerId, identifierType: 'SSN' as const, value: '123-45-6789' };
      const first = await h.activities.addCustomerIdentifier(input);
      const second = await h.activities.addCustomerIdentifier({ ...input, value: '123456789' });
      expect(second).toEqual(first);
      expect(first).toMatchObject({
        identifierType: 'SSN',
        mask: '***-**-6789',
        verificationStatus: 'UNVERIFIED',
      });
      const rows = await identifiersOf(tenant, customerId);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.valueCiphertext).not.toContain('123456789');
      expect(row.valueCiphertext).not.toContain('6789');
      expect(Buffer.from(row.valueCiphertext, 'base64')).toHaveLength(12 + 9 + 16);
      expect(row.valueDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(row.valueDigest).toBe(identifierDigest(h.deps.dataEncryptionKey, 'SSN|US|123456789'));
      expect(row.mask).toBe('***-**-6789');
      expect(
        decryptIdentifier(
          h.deps.dataEncryptionKey,
          { tenantId: tenant, identifierType: 'SSN' },
          row.valueCiphertext,
        ),
      ).toBe('123456789');
      expect(() =>
        decryptIdentifier(
          h.deps.dataEncryptionKey,
          { tenantId: otherTenant, identifierType: 'SSN' },
          row.valueCiphertext,
        ),
      ).toThrow();
      const history = await historyOf(tenant, customerId);
      expect(history.map((e) => e.action)).toEqual(['CUSTOMER_CREATED', 'IDENTIFIER_ADDED']);
      expect(JSON.stringify(history[1]?.detail)).not.toContain('123456789');
      expect(history[1]?.detail).toMatchObject({ identifierType: 'SSN', mask: '***-**-6789' });
      const [customer] = await withTenantTransaction(h.db, tenant, (tx) =>
        tx.select().from(customers).where(eq(customers.id, customerId)),
      );
      expect(customer?.updatedAt.toISOString()).toBe('2030-01-02T03:04:05.000Z');
      const aggregate = await getCustomer(h.db, tenant, customerId, clockOf(h));
      expect(aggregate?.identifiers).toEqual([
        {
          identifierId: first.identifierId,
          identifierType: 'SSN',
          issuingCountry: 'US',
          mask: '***-**-6789',
          verificationStatus: 'UNVERIFIED',
          createdAt: '2030-01-02T03:04:05.000Z',
        },
      ]);
      expect(JSON.stringify(aggregate)).not.toContain('123456789');
    } finally {
      h.now.value = null;
    }
  });

  it('the same value on another customer is a 409 that does not repeat it; another tenant may hold it', async () => {
    const one = await newCustomer();
    const two = await newCustomer();
    const value = '219-09-9999';
    await h.activities.addCustomerIdentifier({
      ...context(tenant),
      customerId: one,
      identifierType: 'SSN',
      value,
    });
    const err = await expectDomainError(
      h.activities.addCustomerIdentifier({
        ...context(tenant),
        customerId: two,
        identifierType: 'SSN',
        value,
      }),
      'error.msg.customer.identifier.conflict',
    );
    expect(err.message).not.toContain('9999');
    const elsewhere = await newCustomer(otherTenant);
    await expect(
      h.activities.addCustomerIdentifier({
        ...context(otherTenant),
        customerId: elsewhere,
        identifierType: 'SSN',
        value,
      }),
    ).resolves.toMatchObject({ mask: '***-**-9999' });
  });

  it('a malformed value is a 400 on `value` with a null value', async () => {
    const customerId = await newCustomer();
    const err = await expectDomainError(
      h.activities.addCustomerIdentifier({
        ...context(tenant),
        customerId,
        identifierType: 'SSN',
        value: '666-12-3456',
      }),
      'validation.msg.validation.errors.exist',
    );
    expect(err.errors).toEqual([expect.objectContaining({ parameterName: 'value', value: null })]);
    expect(err.message).not.toContain('3456');
  });
});

describe('consents and payment instruments', () => {
  it('recordCustomerConsent twice with the same key records one consent', async () => {
    const customerId = await newCustomer();
    const input = {
      ...context(tenant),
      customerId,
      consentType: 'ESIGN',
      granted: true,
      captureMethod: 'WEB_FORM',
      evidenceRef: 'rec-2024-001',
      capturedAt: '2024-05-01T10:00:00Z',
    };
    const first = await h.activities.recordCustomerConsent(input);
    expect(await h.activities.recordCustomerConsent(input)).toEqual(first);
    const rows = await withTenantTransaction(h.db, tenant, (tx) =>
      tx.select().from(consents).where(eq(consents.customerId, customerId)),
    );
    expect(rows).toHaveLength(1);
    expect((await historyOf(tenant, customerId)).map((e) => e.action)).toEqual([
      'CUSTOMER_CREATED',
      'CONSENT_RECORDED',
    ]);
    const err = await domainErrorOf(
      h.activities.recordCustomerConsent({
        ...input,
        ...context(tenant),
        evidenceRef: 'GB82WEST12345698765432',
      }),
    );
    expect(err.errors[0]).toMatchObject({ parameterName: 'evidenceRef', value: null });
  });

  it('an instrument is recorded once per token, starts UNVERIFIED/INACTIVE and verifies once', async () => {
    const customerId = await newCustomer();
    const token = `tok_${newRequestKey().slice(-12)}`;
    const input = {
      ...context(tenant),
      customerId,
      instrumentType: 'BANK_ACCOUNT' as const,
      providerTokenRef: token,
      lastFour: '6789',
    };
    const first = await h.activities.addPaymentInstrument(input);
    expect(await h.activities.addPaymentInstrument({ ...input, requestKey: newRequestKey() })).toEqual(first);
    expect(first).toMatchObject({ verificationStatus: 'UNVERIFIED', state: 'INACTIVE' });
    expect(await getInstrumentForPayment(h.db, tenant, first.instrumentId)).toMatchObject({
      customerId,
      providerTokenRef: token,
      eligible: false,
    });
    await expectDomainError(
      h.activities.addPaymentInstrument({ ...input, lastFour: '1111' }),
      'error.msg.payment.instrument.conflict',
    );
    const other = await newCustomer();
    await expectDomainError(
      h.activities.addPaymentInstrument({ ...input, customerId: other }),
      'error.msg.payment.instrument.conflict',
    );
    const pan = await domainErrorOf(
      h.activities.addPaymentInstrument({ ...input, providerTokenRef: '4111111111111111' }),
    );
    expect(pan.errors[0]).toMatchObject({ parameterName: 'providerTokenRef', value: null });

    const verify = {
      ...context(tenant),
      customerId,
      instrumentId: first.instrumentId,
      verificationSource: 'PLAID_AUTH',
    };
    const verified = await h.activities.verifyPaymentInstrument(verify);
    expect(verified).toMatchObject({
      verificationStatus: 'VERIFIED',
      state: 'ACTIVE',
      verificationSource: 'PLAID_AUTH',
    });
    expect(
      await h.activities.verifyPaymentInstrument({ ...verify, verificationSource: 'MICRO_DEPOSITS' }),
    ).toEqual(verified);
    const history = await historyOf(tenant, customerId);
    expect(history.map((e) => e.action)).toEqual([
      'CUSTOMER_CREATED',
      'INSTRUMENT_ADDED',
      'INSTRUMENT_VERIFIED',
    ]);
    const inTx = await withTenantTransaction(h.db, tenant, (tx) =>
      getInstrumentForPayment(tx, tenant, first.instrumentId, { lock: 'share' }),
    );
    expect(inTx).toMatchObject({ eligible: true, verificationStatus: 'VERIFIED', state: 'ACTIVE' });
    await expectDomainError(
      h.activities.verifyPaymentInstrument({ ...verify, customerId: other }),
      'error.msg.resource.not.found',
    );
  });
});

describe('restrictions', () => {
  it('apply twice with the same key → one hold, one event; release once; release again → 409', async () => {
    const customerId = await newCustomer();
    h.now.value = new Date('2030-02-01T09:00:00.000Z');
    try {
      const input = {
        ...context(tenant),
        customerId,
        restrictionType: 'PAYMENT_HOLD' as const,
        reason: 'Customer disputes the debit',
      };
      const first = await h.activities.applyRestriction(input);
      expect(await h.activities.applyRestriction(input)).toEqual(first);
      expect(first).toMatchObject({
        status: 'ACTIVE',
        effectiveAt: '2030-02-01T09:00:00.000Z',
        loanId: null,
      });
      const held = await withTenantTransaction(h.db, tenant, (tx) =>
        activeRestrictions(tx, tenant, customerId, undefined, { at: h.now.value! }),
      );
      expect(held.map((r) => r.restrictionId)).toEqual([first.restrictionId]);

      h.now.value = new Date('2030-02-02T09:00:00.000Z');
      const release = {
        ...context(tenant),
        customerId,
        restrictionId: first.restrictionId,
        reason: 'Dispute resolved',
      };
      expect(await h.activities.releaseRestriction(release)).toEqual({
        restrictionId: first.restrictionId,
        status: 'RELEASED',
        releasedAt: '2030-02-02T09:00:00.000Z',
      });
      await expectDomainError(
        h.activities.releaseRestriction(release),
        'error.msg.restriction.invalid.state.transition',
      );
      const after = await withTenantTransaction(h.db, tenant, (tx) =>
        activeRestrictions(tx, tenant, customerId, null, { at: clockOf(h) }),
      );
      expect(after).toEqual([]);
      const events = (await outboxOf(h, tenant, first.restrictionId)).filter(
        (e) => e.subjectType === 'restriction',
      );
      expect(events.map((e) => e.eventType)).toEqual(['restriction.applied', 'restriction.released']);
      expect((await historyOf(tenant, customerId)).map((e) => e.action)).toEqual([
        'CUSTOMER_CREATED',
        'RESTRICTION_APPLIED',
        'RESTRICTION_RELEASED',
      ]);
    } finally {
      h.now.value = null;
    }
  });

  it('a loan-scoped hold covers that loan only; an expired hold is not in force and cannot be released', async () => {
    const customerId = await newCustomer();
    const [loan] = await withTenantTransaction(h.db, tenant, async (tx) =>
      tx
        .insert(loans)
        .values({
          tenantId: tenant,
          accountNo: `LN-${newRequestKey().slice(-8)}`,
          clientId: customerId,
          productId: await insertBareLoanProduct(tx, tenant),
          loanType: 'individual',
          currencyCode: 'USD',
          principal: '1000',
          terms: {},
          transactionProcessingStrategyCode: 'advanced-payment-allocation-strategy',
          submittedOnDate: '2026-01-01',
          expectedDisbursementDate: '2026-01-02',
        })
        .returning({ id: loans.id }),
    );
    const loanId = loan!.id;
    const scoped = await h.activities.applyRestriction({
      ...context(tenant),
      customerId,
      restrictionType: 'DISBURSEMENT_HOLD',
      reason: 'Fraud review',
      loanId,
    });
    const other = await newCustomer();
    await expectDomainError(
      h.activities.applyRestriction({
        ...context(tenant),
        customerId: other,
        restrictionType: 'PAYMENT_HOLD',
        reason: 'x',
        loanId,
      }),
      'validation.msg.validation.errors.exist',
    );
    const forLoan = await withTenantTransaction(h.db, tenant, (tx) =>
      activeRestrictions(tx, tenant, customerId, loanId, { at: clockOf(h) }),
    );
    const forOtherLoan = await withTenantTransaction(h.db, tenant, (tx) =>
      activeRestrictions(tx, tenant, customerId, loanId + 1000, { at: clockOf(h) }),
    );
    expect(forLoan.map((r) => r.restrictionId)).toEqual([scoped.restrictionId]);
    expect(forOtherLoan).toEqual([]);

    const expiring = await h.activities.applyRestriction({
      ...context(tenant),
      customerId,
      restrictionType: 'COMMUNICATION_HOLD',
      reason: 'Bereavement pause',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    const later = new Date(Date.now() + 120_000);
    const inForceLater = await withTenantTransaction(h.db, tenant, (tx) =>
      activeRestrictions(tx, tenant, customerId, null, { at: later, types: ['COMMUNICATION_HOLD'] }),
    );
    expect(inForceLater).toEqual([]);
    h.now.value = later;
    try {
      await expectDomainError(
        h.activities.releaseRestriction({
          ...context(tenant),
          customerId,
          restrictionId: expiring.restrictionId,
          reason: 'x',
        }),
        'error.msg.restriction.invalid.state.transition',
      );
    } finally {
      h.now.value = null;
    }
    await expectDomainError(
      h.activities.applyRestriction({
        ...context(tenant),
        customerId,
        restrictionType: 'COMMUNICATION_HOLD',
        reason: 'x',
        expiresAt: '2020-01-01T00:00:00Z',
      }),
      'validation.msg.validation.errors.exist',
    );
  });

  it('a hold waits for a guarded command holding the customer row, and the next command sees it', async () => {
    const customerId = await newCustomer();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let checked = () => {};
    const checkedOnce = new Promise<void>((resolve) => {
      checked = resolve;
    });
    const guarded = withTenantTransaction(h.db, tenant, async (tx) => {
      const seen = await activeRestrictions(tx, tenant, customerId, null, {
        at: clockOf(h),
        types: ['PAYMENT_HOLD'],
      });
      checked();
      await held;
      return seen;
    });
    await checkedOnce;
    let applied = false;
    const apply = h.activities
      .applyRestriction({
        ...context(tenant),
        customerId,
        restrictionType: 'PAYMENT_HOLD',
        reason: 'Chargeback',
      })
      .then((r) => {
        applied = true;
        return r;
      });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(applied).toBe(false);
    release();
    expect(await guarded).toEqual([]);
    const hold = await apply;
    const next = await withTenantTransaction(h.db, tenant, (tx) =>
      activeRestrictions(tx, tenant, customerId, null, { at: clockOf(h), types: ['PAYMENT_HOLD'] }),
    );
    expect(next.map((r) => r.restrictionId)).toEqual([hold.restrictionId]);
  });
});

describe('row-level security', () => {
  it("another tenant neither sees nor changes a customer's aggregate", async () => {
    const customerId = await newCustomer(tenant, {
      contactPoints: [{ contactType: 'EMAIL', value: 'rls@example.com' }],
    });
    await h.activities.addCustomerIdentifier({
      ...context(tenant),
      customerId,
      identifierType: 'ITIN',
      value: '912-70-1234',
    });
    expect(await getCustomer(h.db, otherTenant, customerId, clockOf(h))).toBeNull();
    const seen = await withTenantTransaction(h.db, otherTenant, async (tx) => ({
      customers: await tx.select().from(customers).where(eq(customers.id, customerId)),
      contacts: await tx.select().from(contactPoints).where(eq(contactPoints.customerId, customerId)),
      identifiers: await tx
        .select()
        .from(customerIdentifiers)
        .where(eq(customerIdentifiers.customerId, customerId)),
      history: await tx.select().from(customerHistory).where(eq(customerHistory.customerId, customerId)),
    }));
    expect(seen).toEqual({ customers: [], contacts: [], identifiers: [], history: [] });
    const ctx = context(otherTenant);
    await expectDomainError(
      h.activities.addCustomerIdentifier({ ...ctx, customerId, identifierType: 'SSN', value: '123-45-6780' }),
      'error.msg.resource.not.found',
    );
    await expectDomainError(
      h.activities.applyRestriction({ ...ctx, customerId, restrictionType: 'PAYMENT_HOLD', reason: 'x' }),
      'error.msg.resource.not.found',
    );
    await expectDomainError(
      withTenantTransaction(h.db, otherTenant, (tx) =>
        activeRestrictions(tx, otherTenant, customerId, null, { at: clockOf(h) }),
      ),
      'error.msg.resource.not.found',
    );
    const instrumentRows = await withTenantTransaction(h.db, otherTenant, (tx) =>
      tx.select().from(paymentInstruments).where(eq(paymentInstruments.customerId, customerId)),
    );
    expect(instrumentRows).toEqual([]);
    const restrictionRows = await withTenantTransaction(h.db, otherTenant, (tx) =>
      tx.select().from(restrictions).where(eq(restrictions.customerId, customerId)),
    );
    expect(restrictionRows).toEqual([]);
  });
});
