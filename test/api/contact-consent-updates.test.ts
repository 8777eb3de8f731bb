/**
 * `POST /v1/servicing/cases/{caseId}/contact-consent-updates` and its read (docs/servicing.md;
 * docs/processes.md P4 "Contact-consent updates", "Refs"): an update effective now is applied at once (contact point,
 * customer history, case effect, event), a future one is SCHEDULED with its durable process and changes nothing yet;
 * every reference is checked (404 naming the field, 409 for another customer's or a closed case and a contact point
 * of the wrong type), bad input is a 400 per field with nothing stored, scope and permission are enforced, and an
 * Idempotency-Key replay answers the same body. Real PostgreSQL and the Temporal dev server with a servicing worker.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessClients } from '../../api/processes';
import { caseEffects, contactConsentUpdates, outboxEvents, workflowStartIntents } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { contactConsentUpdateWorkflowId } from '../../domain/ids';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, type Json, newKey, openCase } from './helpers';

const DAY = 86_400_000;
const allScopes = ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'];

let ctx: TestContext;
let cred: Credential;
let other: Credential;
let sequence = 0;

beforeAll(async () => {
  ctx = await createTestContext();
  cred = await credentialFor(ctx, uniqueTenant('ccu'), { scopes: allScopes });
  other = await credentialFor(ctx, uniqueTenant('ccu'), { scopes: allScopes });
});
afterAll(async () => ctx?.close());

interface CustomerFixture {
  customerId: number;
  customerRef: string;
  /** contactPointRef of the EMAIL contact point. */
  emailRef: string;
  /** contactPointRef of the PHONE contact point. */
  phoneRef: string;
}

/** A customer of `as`'s tenant with one e-mail address and one phone, through the public route. */
async function newCustomer(as: Credential = cred): Promise<CustomerFixture> {
  sequence += 1;
  const tag = `${Date.now().toString(36)}${String.fromCharCode(97 + (sequence % 26))}`;
  const created = await call(ctx, as, 'POST', '/v1/customers', {
    firstName: 'Cora',
    lastName: `Consent${tag.replace(/[0-9]/g, '')}`,
    contactPoints: [
      { contactType: 'EMAIL', value: `cora.${tag}@example.com` },
      { contactType: 'PHONE', value: '(415) 555-2671' },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const read = await call(ctx, as, 'GET', `/v1/customers/${created.body.customerId}`);
  const ref = (type: string) =>
    read.body.contactPoints.find((cp: { contactType: string }) => cp.contactType === type).contactPointRef;
  return {
    customerId: created.body.customerId,
    customerRef: created.body.customerRef,
    emailRef: ref('EMAIL'),
    phoneRef: ref('PHONE'),
  };
}

/** A customer and an open case of theirs. */
async function customerWithCase(as: Credential = cred) {
  const customer = await newCustomer(as);
  const caseId = await openCase(ctx, as, {
    customerRef: customer.customerRef,
    summary: 'Contact preferences',
  });
  return { ...customer, caseId };
}

const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

function smsBody(customer: CustomerFixture, overrides: Record<string, unknown> = {}) {
  return {
    customerRef: customer.customerRef,
    operation: 'UPDATE_SMS_PERMISSION',
    contactPointRef: customer.phoneRef,
    canReceiveSms: false,
    effectiveAt: new Date(Date.now() - 60_000).toISOString(),
    reason: 'Customer asked on the phone to stop text messages',
    ...overrides,
  };
}

function post(caseId: number, body: unknown, headers: Record<string, string> = {}, as: Credential = cred) {
  return call(ctx, as, 'POST', `/v1/servicing/cases/${caseId}/contact-consent-updates`, body, headers);
}

async function contactPointOf(customer: CustomerFixture, type: 'EMAIL' | 'PHONE', as: Credential = cred) {
  const read = await call(ctx, as, 'GET', `/v1/customers/${customer.customerId}`);
  expect(read.status).toBe(200);
  return read.body.contactPoints.find((cp: { contactType: string }) => cp.contactType === type);
}

async function effectTypesOf(caseId: number, as: Credential = cred): Promise<string[]> {
  const res = await call(ctx, as, 'GET', `/v1/servicing/cases/${caseId}/effects?limit=200`);
  expect(res.status).toBe(200);
  return res.body.items.map((e: { effectType: string }) => e.effectType);
}

async function historyOf(customer: CustomerFixture): Promise<Json[]> {
  const res = await call(ctx, cred, 'GET', `/v1/customers/${customer.customerId}/history?limit=200`);
  expect(res.status).toBe(200);
  return res.body.items;
}

const updatesOfCase = (tenant: string, caseId: number) =>
  countRows(ctx, tenant, contactConsentUpdates, eq(contactConsentUpdates.caseId, caseId));

describe('applied at once (effectiveAt now or earlier)', () => {
  it('COMPLETED: the contact point, the customer history, the case effect, the event and the read all show it', async () => {
    const c = await customerWithCase();
    const res = await post(c.caseId, smsBody(c));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      outcome: 'COMPLETED',
      customerRef: c.customerRef,
      resourceId: expect.any(Number),
    });
    const updateId = res.body.resourceId as number;

    expect(await contactPointOf(c, 'PHONE')).toMatchObject({ canReceiveSms: false, canReceiveVoice: null });
    expect(await contactPointOf(c, 'EMAIL')).toMatchObject({ canReceiveEmail: null, canReceiveSms: null });

    const entry = (await historyOf(c)).find((i) => i.action === 'CONTACT_CONSENT_UPDATED');
    expect(entry?.detail).toMatchObject({
      updateId,
      caseId: c.caseId,
      contactPointRef: c.phoneRef,
      operation: 'UPDATE_SMS_PERMISSION',
      permission: false,
    });
    // Never the contact value itself.
    expect(JSON.stringify(entry?.detail)).not.toMatch(/555|\+1415/);

    const effects = await effectTypesOf(c.caseId);
    expect(effects).toContain('CONTACT_CONSENT_UPDATED');
    expect(effects).not.toContain('CONTACT_CONSENT_SCHEDULED');

    const events = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.eventType, 'contact.consent.updated'),
            eq(outboxEvents.subjectId, String(updateId)),
          ),
        ),
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.subjectType).toBe('contact_consent_update');
    expect(events[0]?.data).toEqual({
      customerRef: c.customerRef,
      contactPointRef: c.phoneRef,
      operation: 'UPDATE_SMS_PERMISSION',
      permission: false,
      effectiveAt: expect.stringMatching(/Z$/),
      caseId: c.caseId,
    });

    const read = await call(
      ctx,
      cred,
      'GET',
      `/v1/servicing/cases/${c.caseId}/contact-consent-updates/${updateId}`,
    );
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      updateId,
      resourceId: updateId,
      caseId: c.caseId,
      customerRef: c.customerRef,
      contactPointRef: c.phoneRef,
      operation: 'UPDATE_SMS_PERMISSION',
      canReceiveSms: false,
      permission: false,
      status: 'COMPLETED',
      resolvedAt: expect.any(String),
      supersededBy: null,
    });
    expect(read.body).not.toHaveProperty('canReceiveEmail');
  });

  it('sets the e-mail permission of an EMAIL point and the voice permission of a PHONE point', async () => {
    const c = await customerWithCase();
    const email = await post(c.caseId, {
      ...smsBody(c, { operation: 'UPDATE_EMAIL_PERMISSION', contactPointRef: c.emailRef }),
      canReceiveSms: undefined,
      canReceiveEmail: true,
    });
    expect(email.status, JSON.stringify(email.body)).toBe(200);
    expect(email.body.outcome).toBe('COMPLETED');
    const voice = await post(c.caseId, {
      ...smsBody(c, { operation: 'UPDATE_VOICE_PERMISSION' }),
      canReceiveSms: undefined,
      canReceiveVoice: false,
    });
    expect(voice.status, JSON.stringify(voice.body)).toBe(200);
    expect(await contactPointOf(c, 'EMAIL')).toMatchObject({ canReceiveEmail: true });
    expect(await contactPointOf(c, 'PHONE')).toMatchObject({ canReceiveVoice: false, canReceiveSms: null });
    expect((await effectTypesOf(c.caseId)).filter((t) => t === 'CONTACT_CONSENT_UPDATED')).toHaveLength(2);
  });
});

describe('scheduled (effectiveAt in the future)', () => {
  it('SCHEDULED: nothing changes yet; a CONTACT_CONSENT_SCHEDULED effect and a running process wait for effectiveAt', async () => {
    const c = await customerWithCase();
    const effectiveAt = inDays(3);
    const res = await post(c.caseId, smsBody(c, { effectiveAt, canReceiveSms: true }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      outcome: 'SCHEDULED',
      customerRef: c.customerRef,
      resourceId: expect.any(Number),
    });
    const updateId = res.body.resourceId as number;

    expect(await contactPointOf(c, 'PHONE')).toMatchObject({ canReceiveSms: null });
    expect((await historyOf(c)).map((i) => i.action)).not.toContain('CONTACT_CONSENT_UPDATED');
    const effects = await effectTypesOf(c.caseId);
    expect(effects).toContain('CONTACT_CONSENT_SCHEDULED');
    expect(effects).not.toContain('CONTACT_CONSENT_UPDATED');

    const read = await call(
      ctx,
      cred,
      'GET',
      `/v1/servicing/cases/${c.caseId}/contact-consent-updates/${updateId}`,
    );
    expect(read.body).toMatchObject({ status: 'SCHEDULED', canReceiveSms: true, resolvedAt: null });
    expect(Date.parse(read.body.effectiveAt)).toBe(Date.parse(effectiveAt));

    // The process runs (its timer waits), and its start intent is marked started (at the buffer's flush).
    const progress = await createProcessClients(ctx.client).contactConsentUpdates.progress({
      tenantId: cred.tenant,
      updateId,
    });
    expect(progress).toEqual({
      updateId,
      status: 'SCHEDULED',
      effectiveAt: new Date(effectiveAt).toISOString(),
    });
    // The route notes the mark; the app's start-mark buffer writes it at its next flush.
    await ctx.startMarks.flush();
    const [intent] = await withTenantTransaction(ctx.db, cred.tenant, (tx) =>
      tx
        .select()
        .from(workflowStartIntents)
        .where(eq(workflowStartIntents.workflowId, contactConsentUpdateWorkflowId(cred.tenant, updateId))),
    );
    expect(intent?.startedAt).not.toBeNull();
  });
});

describe('references', () => {
  it("refuses another customer's contact point and an unknown one: 404 contactPointRef, nothing stored", async () => {
    const c = await customerWithCase();
    const stranger = await newCustomer();
    for (const contactPointRef of [stranger.phoneRef, 'cp_nosuchpointnosuchpointnosuchpo']) {
      const res = await post(c.caseId, smsBody(c, { contactPointRef }));
      const err = expectShapeA(res, 404, 'error.msg.resource.not.found', ['contactPointRef']);
      expect(err.errors[0]?.value).toBe(contactPointRef);
    }
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(0);
    expect(await contactPointOf(stranger, 'PHONE')).toMatchObject({ canReceiveSms: null });
  });

  it('refuses a customerRef no customer carries: 404 customerRef', async () => {
    const customerRef = 'cus_nosuchcustomernosuchcustomern';
    const caseId = await openCase(ctx, cred, { customerRef });
    const c = await newCustomer();
    const res = await post(caseId, smsBody({ ...c, customerRef }));
    expectShapeA(res, 404, 'error.msg.resource.not.found', ['customerRef']);
    expect(await updatesOfCase(cred.tenant, caseId)).toBe(0);
  });

  it("refuses another customer's case (409 error.msg.case.customer.mismatch) and a closed case (409)", async () => {
    const c = await customerWithCase();
    const someoneElse = await customerWithCase();
    expectShapeA(await post(someoneElse.caseId, smsBody(c)), 409, 'error.msg.case.customer.mismatch', [
      'caseId',
    ]);
    const closed = await call(ctx, cred, 'POST', `/v1/servicing/cases/${c.caseId}/close`, {
      outcomeCode: 'RESOLVED',
      closureReason: 'Done',
    });
    expect(closed.status).toBe(200);
    expectShapeA(await post(c.caseId, smsBody(c)), 409, 'error.msg.case.invalid.state.transition', [
      'caseId',
    ]);
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(0);
    expect(await updatesOfCase(cred.tenant, someoneElse.caseId)).toBe(0);
    expect(await contactPointOf(c, 'PHONE')).toMatchObject({ canReceiveSms: null });
  });

  it('refuses a permission the contact point cannot take: 409 error.msg.contact.point.type.mismatch', async () => {
    const c = await customerWithCase();
    expectShapeA(
      await post(c.caseId, smsBody(c, { contactPointRef: c.emailRef })),
      409,
      'error.msg.contact.point.type.mismatch',
      ['contactPointRef'],
    );
    expectShapeA(
      await post(c.caseId, {
        ...smsBody(c, { operation: 'UPDATE_EMAIL_PERMISSION' }),
        canReceiveSms: undefined,
        canReceiveEmail: false,
      }),
      409,
      'error.msg.contact.point.type.mismatch',
      ['contactPointRef'],
    );
    expectShapeA(
      await post(c.caseId, {
        ...smsBody(c, { operation: 'UPDATE_VOICE_PERMISSION', contactPointRef: c.emailRef }),
        canReceiveSms: undefined,
        canReceiveVoice: false,
      }),
      409,
      'error.msg.contact.point.type.mismatch',
      ['contactPointRef'],
    );
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(0);
  });

  it("treats another tenant's case, customer, contact point and update as absent: 404", async () => {
    const mine = await customerWithCase();
    const theirs = await customerWithCase(other);
    // Their case, from my tenant.
    expectShapeA(await post(theirs.caseId, smsBody(theirs)), 404, 'error.msg.resource.not.found', ['caseId']);
    // My case naming their customer's contact point.
    expectShapeA(
      await post(mine.caseId, smsBody(mine, { contactPointRef: theirs.phoneRef })),
      404,
      'error.msg.resource.not.found',
      ['contactPointRef'],
    );
    // Their update, read from my tenant.
    const applied = await post(theirs.caseId, smsBody(theirs), {}, other);
    expect(applied.status).toBe(200);
    const read = await call(
      ctx,
      cred,
      'GET',
      `/v1/servicing/cases/${theirs.caseId}/contact-consent-updates/${applied.body.resourceId}`,
    );
    expectShapeA(read, 404, 'error.msg.resource.not.found');
    expect(await contactPointOf(theirs, 'PHONE', other)).toMatchObject({ canReceiveSms: false });
    expect(await contactPointOf(mine, 'PHONE')).toMatchObject({ canReceiveSms: null });
    expect(await updatesOfCase(cred.tenant, mine.caseId)).toBe(0);
  });
});

describe('scope and permission', () => {
  it('answers 403 without UPDATE_CONTACTCONSENT or without servicing:write, and 403 on the read without READ_CONTACTCONSENT', async () => {
    const c = await customerWithCase();
    const noPermission = await credentialFor(ctx, cred.tenant, {
      scopes: allScopes,
      permissions: ['CREATE_SERVICINGCASE', 'READ_SERVICINGCASE'],
    });
    expectShapeA(await post(c.caseId, smsBody(c), {}, noPermission), 403, 'error.msg.not.authorized');
    const readOnly = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:read'],
      permissions: ['ALL'],
    });
    expectShapeA(await post(c.caseId, smsBody(c), {}, readOnly), 403, 'error.msg.not.authorized');
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(0);

    const granted = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:write'],
      permissions: ['UPDATE_CONTACTCONSENT'],
    });
    const res = await post(c.caseId, smsBody(c), {}, granted);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const path = `/v1/servicing/cases/${c.caseId}/contact-consent-updates/${res.body.resourceId}`;
    expectShapeA(await call(ctx, noPermission, 'GET', path), 403, 'error.msg.not.authorized');
    const reader = await credentialFor(ctx, cred.tenant, {
      scopes: ['servicing:read'],
      permissions: ['READ_CONTACTCONSENT'],
    });
    expect((await call(ctx, reader, 'GET', path)).status).toBe(200);
  });
});

describe('bad input', () => {
  it('answers 400 naming each bad field, with nothing stored', async () => {
    const c = await customerWithCase();
    const cases: [body: Record<string, unknown>, fields: string[]][] = [
      [{ ...smsBody(c), operation: 'UPDATE_FAX_PERMISSION' }, ['operation']],
      [{ ...smsBody(c), operation: undefined }, ['operation']],
      [{ ...smsBody(c), canReceiveSms: undefined }, ['canReceiveSms']],
      [{ ...smsBody(c), canReceiveSms: 'no' }, ['canReceiveSms']],
      [{ ...smsBody(c), canReceiveEmail: false }, ['canReceiveEmail']],
      [
        {
          ...smsBody(c, { operation: 'UPDATE_EMAIL_PERMISSION', contactPointRef: c.emailRef }),
          canReceiveVoice: true,
        },
        ['canReceiveSms', 'canReceiveVoice', 'canReceiveEmail'],
      ],
      [{ ...smsBody(c), customerRef: '' }, ['customerRef']],
      [{ ...smsBody(c), contactPointRef: undefined }, ['contactPointRef']],
      [{ ...smsBody(c), effectiveAt: '2026-11-23T10:00:00' }, ['effectiveAt']],
      [{ ...smsBody(c), effectiveAt: '2026-11-23' }, ['effectiveAt']],
      [{ ...smsBody(c), effectiveAt: '9999-01-01T00:00:00Z' }, ['effectiveAt']],
      [{ ...smsBody(c), reason: '   ' }, ['reason']],
      [{ ...smsBody(c), reason: 'x'.repeat(2001) }, ['reason']],
      [{ ...smsBody(c), note: 'unknown field' }, ['note']],
    ];
    for (const [body, fields] of cases) {
      expectShapeA(await post(c.caseId, body), 400, 'validation.msg.validation.errors.exist', fields);
    }
    // More than 365 days ahead: refused by the operation, naming effectiveAt.
    expectShapeA(
      await post(c.caseId, smsBody(c, { effectiveAt: inDays(366) })),
      400,
      'validation.msg.validation.errors.exist',
      ['effectiveAt'],
    );
    // An identifier in the free text: refused without echoing it.
    const ssn = await post(c.caseId, smsBody(c, { reason: 'Customer SSN is 123-45-6789' }));
    const err = expectShapeA(ssn, 400, 'validation.msg.validation.errors.exist', ['reason']);
    expect(JSON.stringify(err)).not.toContain('6789');
    // A case id that is not an integer.
    expectShapeA(
      await call(ctx, cred, 'POST', '/v1/servicing/cases/abc/contact-consent-updates', smsBody(c)),
      400,
      'validation.msg.validation.errors.exist',
      ['caseId'],
    );
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(0);
    expect(await contactPointOf(c, 'PHONE')).toMatchObject({ canReceiveSms: null });
  });
});

describe('Idempotency-Key', () => {
  it('answers a replay with the same body (x-served-from-cache) and stores one update; another payload → 422', async () => {
    const c = await customerWithCase();
    const key = newKey('ccu');
    const scheduled = smsBody(c, { effectiveAt: inDays(10) });
    const first = await post(c.caseId, scheduled, { 'idempotency-key': key });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.outcome).toBe('SCHEDULED');
    const replay = await post(c.caseId, scheduled, { 'idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(1);
    expect(
      await countRows(
        ctx,
        cred.tenant,
        caseEffects,
        and(eq(caseEffects.caseId, c.caseId), eq(caseEffects.effectType, 'CONTACT_CONSENT_SCHEDULED')),
      ),
    ).toBe(1);
    const mismatch = await post(c.caseId, { ...scheduled, canReceiveSms: true }, { 'idempotency-key': key });
    expectShapeA(mismatch, 422, 'idempotency.key.payload.mismatch');

    // The operation itself is idempotent by the request key too (a retried activity, a lost answer).
    const requestKey = `${cred.clientId}/${newKey('op')}`;
    const input = {
      tenantId: cred.tenant,
      requestKey,
      caseId: c.caseId,
      ...smsBody(c),
    };
    const once = await ctx.activities.recordContactConsentUpdate(input);
    const twice = await ctx.activities.recordContactConsentUpdate(input);
    expect(twice).toEqual({ ...once, created: false });
    expect(await updatesOfCase(cred.tenant, c.caseId)).toBe(2);
    expect((await historyOf(c)).filter((i) => i.action === 'CONTACT_CONSENT_UPDATED')).toHaveLength(1);
  });
});
