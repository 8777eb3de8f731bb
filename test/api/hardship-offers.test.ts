/**
 * Hardship offers through the app, on the real database (docs/processes.md P5 third bullet; docs/servicing.md "Hardship offers"): create → each routing outcome (OFFERED, PENDING_APPROVAL, REFERRED,
 * INELIGIBLE with reasons, SPECIALIST), the read with timers and decision trail, approval and rejection by a second
 * actor, the maker refused (403), missing scope or program permission (403), wrong state (409), cross-tenant 404,
 * bad input 400, idempotent replay.
 */

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, hardshipOfferApprovals, hardshipOffers } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { deferralGuardrails, deferralProgramBody } from '../../scripts/hardship-bodies';
import { approvedLoan } from '../activities/ledger-fixtures';
import {
  type Credential,
  call,
  createTestContext,
  credentialFor,
  type TestContext,
  uniqueTenant,
} from '../support/context';
import { countRows, expectShapeA, type Json, newKey, openCase } from './helpers';

const offers = '/v1/servicing/hardship-offers';
const maker = { 'service-actor': 'maker-ana' };
const checkerActor = { 'service-actor': 'checker-bo' };

let ctx: TestContext;
let admin: Credential;
let checker: Credential;
let loanId: number;
let customerId: number;

beforeAll(async () => {
  ctx = await createTestContext({ worker: false });
  const tenant = uniqueTenant('hso');
  admin = await credentialFor(ctx, tenant);
  checker = await credentialFor(ctx, tenant, {
    scopes: ['servicing:read', 'actions:approve'],
    permissions: ['APPROVE_LOAN'],
  });
  const guardrails = await call(
    ctx,
    admin,
    'PUT',
    '/v1/servicing/admin/hardship-policies/guardrails',
    deferralGuardrails,
  );
  expect(guardrails.status, JSON.stringify(guardrails.body)).toBe(200);
  const program = await call(
    ctx,
    admin,
    'POST',
    '/v1/servicing/admin/hardship-programs',
    deferralProgramBody('DEFER'),
  );
  expect(program.status, JSON.stringify(program.body)).toBe(201);
  // Three monthly installments from 2025-01-01: all due, so the loan is old enough.
  ({ loanId, customerId } = await approvedLoan(ctx, tenant, { expectedDisbursementDate: '2025-01-01' }));
});
afterAll(async () => ctx?.close());

function body(caseId: number, over: Json = {}): Json {
  return {
    caseId,
    loanId,
    programCode: 'DEFER',
    hardshipReasonCode: 'JOB_LOSS',
    requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 1 } },
    ...over,
  };
}

const deferral = (installmentCount: number) => ({
  requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount } },
});

async function create(
  caseId: number,
  over: Json = {},
  headers: Record<string, string> = maker,
): Promise<Json> {
  const res = await call(ctx, admin, 'POST', offers, body(caseId, over), headers);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(Object.keys(res.body).sort()).toEqual(['offerId', 'status']);
  return res.body;
}

async function read(offerId: number, cred = admin): Promise<Json> {
  const res = await call(ctx, cred, 'GET', `${offers}/${offerId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The `customerRef` of customer `id` of the admin's tenant. */
async function customerRefOf(id: number): Promise<string> {
  const [row] = await withTenantTransaction(ctx.db, admin.tenant, (tx) =>
    tx.select({ ref: customers.customerRef }).from(customers).where(eq(customers.id, id)),
  );
  return row!.ref;
}

/** An OPEN hardship case of the borrower of `loanId` (default: the shared loan). */
const hardshipCase = async (borrower = customerId) =>
  openCase(ctx, admin, {
    caseTypeCode: 'HARDSHIP',
    summary: 'Job loss',
    customerRef: await customerRefOf(borrower),
  });

describe('POST /v1/servicing/hardship-offers: routing', () => {
  it('OFFERED within straightThroughMaximum, with its expiry timer; a replay answers the same offer', async () => {
    const caseId = await hardshipCase();
    const headers = { ...maker, 'idempotency-key': newKey('hso') };
    const before = Date.now();
    const created = await create(caseId, {}, headers);
    expect(created.status).toBe('OFFERED');
    const replay = await call(ctx, admin, 'POST', offers, body(caseId), headers);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(created);
    expect(replay.headers.get('x-served-from-cache')).toBe('true');
    const offer = await read(created.offerId);
    expect(offer).toMatchObject({
      offerId: created.offerId,
      caseId,
      loanId,
      programCode: 'DEFER',
      programVersion: 1,
      guardrailsVersion: 1,
      hardshipReasonCode: 'JOB_LOSS',
      requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 1 } },
      status: 'OFFERED',
      reliefSize: 1,
      reasons: [],
      createdBy: 'maker-ana',
      decisions: [],
      timers: { documentsDueAt: null },
    });
    const expiresAt = Date.parse(offer.timers.offerExpiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 48 * 3_600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 48 * 3_600_000);
  });

  it('PENDING_APPROVAL up to humanApprovalMaximum, REFERRED above it', async () => {
    const caseId = await hardshipCase();
    expect((await create(caseId, deferral(2))).status).toBe('PENDING_APPROVAL');
    expect((await create(caseId, deferral(3))).status).toBe('PENDING_APPROVAL');
    const referred = await create(caseId, deferral(4));
    expect(referred.status).toBe('REFERRED');
    expect((await read(referred.offerId)).timers.offerExpiresAt).toBeNull();
  });

  it('INELIGIBLE with every failed rule as a reason', async () => {
    const caseId = await hardshipCase();
    const created = await create(caseId, { hardshipReasonCode: 'MEDICAL', ...deferral(7) });
    expect(created.status).toBe('INELIGIBLE');
    const offer = await read(created.offerId);
    expect(offer.reasons.map((r: Json) => r.code)).toEqual([
      'HARDSHIP_REASON_MISMATCH',
      'DEFERRED_PAYMENTS_ABOVE_MAXIMUM',
    ]);
    for (const reason of offer.reasons) expect(reason.message.length).toBeGreaterThan(10);
    const forgiveness = await create(caseId, {
      requestedRelief: { reliefType: 'PRINCIPAL_FORGIVENESS', params: { amountMinor: '5000' } },
    });
    expect((await read(forgiveness.offerId)).reasons.map((r: Json) => r.code)).toEqual([
      'RELIEF_TYPE_MISMATCH',
      'PRINCIPAL_FORGIVENESS_PROHIBITED',
    ]);
  });

  it('SPECIALIST for a borrower with an active SCRA_MLA_PROTECTED restriction', async () => {
    const { loanId: protectedLoan, customerId: borrower } = await approvedLoan(ctx, admin.tenant, {
      expectedDisbursementDate: '2025-01-01',
    });
    await ctx.activities.applyRestriction({
      tenantId: admin.tenant,
      requestKey: null,
      actor: 'agent',
      customerId: borrower,
      restrictionType: 'SCRA_MLA_PROTECTED',
      reason: 'Active duty',
    });
    const created = await create(await hardshipCase(borrower), { loanId: protectedLoan });
    expect(created.status).toBe('SPECIALIST');
    expect((await read(created.offerId)).reasons.map((r: Json) => r.code)).toEqual(['SCRA_MLA_PROTECTED']);
    expect(borrower).not.toBe(customerId);
  });
});

describe('POST /v1/servicing/hardship-offers: refusals', () => {
  it('400 for bad input, naming the field, storing nothing', async () => {
    const caseId = await hardshipCase();
    const before = await countRows(ctx, admin.tenant, hardshipOffers);
    const post = (b: Json, headers: Record<string, string> = maker) =>
      call(ctx, admin, 'POST', offers, b, headers);
    expectShapeA(await post(body(caseId), {}), 400, 'validation.msg.validation.errors.exist', [
      'header.Service-Actor',
    ]);
    expectShapeA(await post(body(caseId, deferral(0))), 400, 'validation.msg.validation.errors.exist', [
      'requestedRelief.params.installmentCount',
    ]);
    expectShapeA(
      await post(body(caseId, { requestedRelief: { reliefType: 'GIFT', params: {} } })),
      400,
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(
      await post(
        body(caseId, {
          requestedRelief: {
            reliefType: 'FEE_WAIVER',
            params: { fromDate: '2026-01-01', toDate: '2026-02-01', maximumWaiverMinor: 12.5 },
          },
        }),
      ),
      400,
      'validation.msg.validation.errors.exist',
    );
    expectShapeA(await post({ ...body(caseId), extra: true }), 400, 'validation.msg.validation.errors.exist');
    const strangersCase = await openCase(ctx, admin, {
      caseTypeCode: 'HARDSHIP',
      customerRef: 'cus_stranger',
    });
    expectShapeA(await post(body(strangersCase)), 409, 'error.msg.case.customer.mismatch', ['caseId']);
    expectShapeA(await post(body(caseId, { programCode: 'NOPE' })), 404, 'error.msg.resource.not.found', [
      'programCode',
    ]);
    expectShapeA(
      await post(body(caseId, { loanId: loanId + 1_000_000 })),
      404,
      'error.msg.resource.not.found',
      ['loanId'],
    );
    expect(await countRows(ctx, admin.tenant, hardshipOffers)).toBe(before);
  });

  it('403 without CREATE_HARDSHIPOFFER; 404 for another tenant’s case and offer', async () => {
    const caseId = await hardshipCase();
    const reader = await credentialFor(ctx, admin.tenant, { permissions: ['READ_HARDSHIPOFFER'] });
    expectShapeA(
      await call(ctx, reader, 'POST', offers, body(caseId), maker),
      403,
      'error.msg.not.authorized',
    );
    const created = await create(caseId);
    expect((await read(created.offerId, reader)).status).toBe('OFFERED');
    const other = await credentialFor(ctx, uniqueTenant('hso-x'));
    expectShapeA(
      await call(ctx, other, 'GET', `${offers}/${created.offerId}`),
      404,
      'error.msg.resource.not.found',
    );
    const otherCase = await openCase(ctx, other, { caseTypeCode: 'HARDSHIP' });
    expectShapeA(
      await call(ctx, admin, 'POST', offers, body(otherCase), maker),
      404,
      'error.msg.resource.not.found',
      ['caseId'],
    );
  });
});

describe('POST /v1/servicing/hardship-offers/{offerId}/approve|reject (maker-checker)', () => {
  it('a second actor with actions:approve and the program permission approves; the record is kept', async () => {
    const pending = await create(await hardshipCase(), deferral(2));
    const res = await call(
      ctx,
      checker,
      'POST',
      `${offers}/${pending.offerId}/approve`,
      undefined,
      checkerActor,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('APPROVED');
    // The record keeps both client ids: the maker's (admin) and the checker's, another client (distinct-client).
    expect(res.body.createdByClientId).toBe(admin.clientId);
    expect(res.body.decisions).toEqual([
      {
        actor: 'checker-bo',
        clientId: checker.clientId,
        makerActor: 'maker-ana',
        makerClientId: admin.clientId,
        makerCheckerPolicy: 'distinct-client',
        decision: 'APPROVED',
        policyVersion: 1,
        requestHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        decidedAt: expect.any(String),
      },
    ]);
    expect(res.body.timers.offerExpiresAt).not.toBeNull();
    expect(await read(pending.offerId)).toEqual(res.body);
    expectShapeA(
      await call(ctx, checker, 'POST', `${offers}/${pending.offerId}/reject`, undefined, {
        'service-actor': 'checker-cy',
      }),
      409,
      'error.msg.hardship.offer.invalid.state.transition',
      ['offerId'],
    );
  });

  it('a second actor rejects', async () => {
    const pending = await create(await hardshipCase(), deferral(3));
    const res = await call(
      ctx,
      checker,
      'POST',
      `${offers}/${pending.offerId}/reject`,
      undefined,
      checkerActor,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'REJECTED', timers: { offerExpiresAt: null } });
    expect(res.body.decisions.map((d: Json) => d.decision)).toEqual(['REJECTED']);
  });

  it('403 for the maker, without actions:approve, or without the program permission; nothing recorded', async () => {
    const pending = await create(await hardshipCase(), deferral(2));
    const approve = `${offers}/${pending.offerId}/approve`;
    const approvalsBefore = await countRows(ctx, admin.tenant, hardshipOfferApprovals);
    expectShapeA(
      await call(ctx, checker, 'POST', approve, undefined, maker),
      403,
      'error.msg.not.authorized',
      ['header.Service-Actor'],
    );
    const noScope = await credentialFor(ctx, admin.tenant, { scopes: ['servicing:read', 'servicing:write'] });
    expectShapeA(
      await call(ctx, noScope, 'POST', approve, undefined, checkerActor),
      403,
      'error.msg.not.authorized',
    );
    const noPermission = await credentialFor(ctx, admin.tenant, {
      scopes: ['actions:approve'],
      permissions: ['READ_HARDSHIPOFFER'],
    });
    expectShapeA(
      await call(ctx, noPermission, 'POST', approve, undefined, checkerActor),
      403,
      'error.msg.not.authorized',
    );
    expect((await read(pending.offerId)).status).toBe('PENDING_APPROVAL');
    expect(await countRows(ctx, admin.tenant, hardshipOfferApprovals)).toBe(approvalsBefore);
    expect((await read(pending.offerId)).decisions).toEqual([]);
  });

  it('one credential, two actors: 403 by default (distinct-client); allowed once the tenant says same-client-distinct-actor, and the record says so', async () => {
    // One client that both makes and checks: every scope a maker and a checker need, every permission.
    const both = await credentialFor(ctx, admin.tenant, {
      scopes: ['servicing:read', 'servicing:write', 'actions:approve'],
      permissions: ['ALL'],
    });
    const alice = { 'service-actor': 'maker.alice' };
    const bob = { 'service-actor': 'checker.bob' };
    const made = await call(ctx, both, 'POST', offers, body(await hardshipCase(), deferral(2)), alice);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.status).toBe('PENDING_APPROVAL');
    const approve = `${offers}/${made.body.offerId}/approve`;
    const approvalsBefore = await countRows(ctx, admin.tenant, hardshipOfferApprovals);
    expectShapeA(await call(ctx, both, 'POST', approve, undefined, bob), 403, 'error.msg.not.authorized', [
      'header.Authorization',
    ]);
    expectShapeA(
      await call(ctx, both, 'POST', `${offers}/${made.body.offerId}/reject`, undefined, bob),
      403,
      'error.msg.not.authorized',
      ['header.Authorization'],
    );
    expect(await countRows(ctx, admin.tenant, hardshipOfferApprovals)).toBe(approvalsBefore);
    expect((await read(made.body.offerId)).status).toBe('PENDING_APPROVAL');

    await ctx.platform.tenantSettings({
      tenantId: admin.tenant,
      makerCheckerPolicy: 'same-client-distinct-actor',
    });
    try {
      // The same actor is refused under every policy.
      expectShapeA(
        await call(ctx, both, 'POST', approve, undefined, alice),
        403,
        'error.msg.not.authorized',
        ['header.Service-Actor'],
      );
      const approved = await call(ctx, both, 'POST', approve, undefined, bob);
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(approved.body.status).toBe('APPROVED');
      expect(approved.body.createdByClientId).toBe(both.clientId);
      expect(approved.body.decisions).toEqual([
        {
          actor: 'checker.bob',
          clientId: both.clientId,
          makerActor: 'maker.alice',
          makerClientId: both.clientId,
          makerCheckerPolicy: 'same-client-distinct-actor',
          decision: 'APPROVED',
          policyVersion: 1,
          requestHash: expect.stringMatching(/^[0-9a-f]{64}$/),
          decidedAt: expect.any(String),
        },
      ]);
    } finally {
      await ctx.platform.tenantSettings({ tenantId: admin.tenant, makerCheckerPolicy: 'distinct-client' });
    }
  });

  it('scope and program permission are checked before the body: 403, not 400, for a body with an unknown field', async () => {
    const pending = await create(await hardshipCase(), deferral(2));
    const badBody = { unknownField: true };
    for (const action of ['approve', 'reject']) {
      const path = `${offers}/${pending.offerId}/${action}`;
      const noScope = await credentialFor(ctx, admin.tenant, {
        scopes: ['servicing:read', 'servicing:write'],
      });
      expectShapeA(
        await call(ctx, noScope, 'POST', path, badBody, checkerActor),
        403,
        'error.msg.not.authorized',
      );
      const noPermission = await credentialFor(ctx, admin.tenant, {
        scopes: ['actions:approve'],
        permissions: ['READ_HARDSHIPOFFER'],
      });
      expectShapeA(
        await call(ctx, noPermission, 'POST', `${path}?unknownParameter=1`, badBody, checkerActor),
        403,
        'error.msg.not.authorized',
      );
      // An eligible checker sending the same body gets the validation error.
      expectShapeA(
        await call(ctx, checker, 'POST', path, badBody, checkerActor),
        400,
        'validation.msg.validation.errors.exist',
      );
    }
    expect((await read(pending.offerId)).status).toBe('PENDING_APPROVAL');
  });

  it('409 for an offer that is not PENDING_APPROVAL; 404 for an unknown or another tenant’s offer', async () => {
    const offered = await create(await hardshipCase());
    expectShapeA(
      await call(ctx, checker, 'POST', `${offers}/${offered.offerId}/approve`, undefined, checkerActor),
      409,
      'error.msg.hardship.offer.invalid.state.transition',
    );
    expectShapeA(
      await call(ctx, checker, 'POST', `${offers}/987654/approve`, undefined, checkerActor),
      404,
      'error.msg.resource.not.found',
    );
    const pending = await create(await hardshipCase(), deferral(2));
    const foreign = await credentialFor(ctx, uniqueTenant('hso-y'), {
      scopes: ['actions:approve'],
      permissions: ['ALL'],
    });
    expectShapeA(
      await call(ctx, foreign, 'POST', `${offers}/${pending.offerId}/approve`, undefined, checkerActor),
      404,
      'error.msg.resource.not.found',
    );
    expect((await read(pending.offerId)).status).toBe('PENDING_APPROVAL');
  });
});
