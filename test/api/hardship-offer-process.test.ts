/**
 * The hardship offer as a durable process, through the app with a servicing worker on the real dev server and the
 * real database (docs/processes.md P5): every offer gets its process `hardship-offer/<tenant>/<id>`;
 * acceptance (AWAITING_DOCUMENTS with its deadline and task, or APPLIED at once when the program asks for no
 * evidence); evidence of the required type confirmed by the process, which applies the relief (a new schedule
 * version, totals conserved by a deferral); a material loan change (an SCRA restriction) re-evaluated by the process
 * (SPECIALIST); state errors (not acceptable, expired), idempotent acceptance, permission and cross-tenant checks.
 * Timers (expiry, document deadline) are proven on the time-skipping server (test/workflows/hardship-offer.test.ts).
 */

import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, hardshipOffers, loanInstallments, outboxEvents, tasks } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { hardshipOfferWorkflowId } from '../../domain/ids';
import { minorOf } from '../../domain/lending/loan-allocation';
import { formatMinor } from '../../domain/money';
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
import { expectShapeA, type Json, openCase } from './helpers';

const offers = '/v1/servicing/hardship-offers';
const maker = { 'service-actor': 'maker-ana' };
const borrowerAgent = { 'service-actor': 'agent-cy' };

let ctx: TestContext;
let admin: Credential;
let tenant: string;
let loanId: number;
let customerId: number;
let refSeq = 0;

const program = (programCode: string, requiredEvidenceCode: string) =>
  deferralProgramBody(programCode, { displayName: `Deferral ${programCode}`, requiredEvidenceCode });

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = uniqueTenant('hsp');
  admin = await credentialFor(ctx, tenant, {
    scopes: ['servicing:read', 'servicing:write', 'lending:read', 'lending:write'],
  });
  const guardrails = await call(
    ctx,
    admin,
    'PUT',
    '/v1/servicing/admin/hardship-policies/guardrails',
    deferralGuardrails,
  );
  expect(guardrails.status, JSON.stringify(guardrails.body)).toBe(200);
  for (const body of [program('DEFER', 'HARDSHIP_STATEMENT'), program('DEFER_NOW', 'NONE')]) {
    const res = await call(ctx, admin, 'POST', '/v1/servicing/admin/hardship-programs', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  ({ loanId, customerId } = await fundedLoan());
});
afterAll(async () => ctx?.close());

/**
 * A funded 2,400.00 USD loan of 36 monthly installments from 2025-06-01: many installments already due (old enough
 * for the guardrails) and many still ahead (a deferral has installments to move).
 */
async function fundedLoan(): Promise<{ loanId: number; customerId: number }> {
  const loan = await approvedLoan(ctx, tenant, {
    expectedDisbursementDate: '2025-06-01',
    numberOfRepayments: 36,
    principal: '2400.00',
  });
  refSeq += 1;
  const funded = await call(ctx, admin, 'POST', `/v1/loans/${loan.loanId}/fundings/record-external`, {
    amount: '2400.00',
    currency: 'USD',
    fundingType: 'DISBURSEMENT',
    recipientType: 'BORROWER',
    recipientRef: 'borrower-account-ref',
    externalRecordRef: `FUND-hsp-${Date.now().toString(36)}-${refSeq.toString(36)}`,
    reason: 'Disbursed',
    fundingDate: '2025-06-01',
  });
  expect(funded.status, JSON.stringify(funded.body)).toBe(201);
  return { loanId: loan.loanId, customerId: loan.customerId };
}

async function customerRefOf(id: number): Promise<string> {
  const [row] = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx.select({ ref: customers.customerRef }).from(customers).where(eq(customers.id, id)),
  );
  return row!.ref;
}

const hardshipCase = async (borrower = customerId) =>
  openCase(ctx, admin, {
    caseTypeCode: 'HARDSHIP',
    summary: 'Job loss',
    customerRef: await customerRefOf(borrower),
  });

async function create(caseId: number, over: Json = {}, forLoan = loanId): Promise<Json> {
  const res = await call(
    ctx,
    admin,
    'POST',
    offers,
    {
      caseId,
      loanId: forLoan,
      programCode: 'DEFER',
      hardshipReasonCode: 'JOB_LOSS',
      requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 1 } },
      ...over,
    },
    maker,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function read(offerId: number): Promise<Json> {
  const res = await call(ctx, admin, 'GET', `${offers}/${offerId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Reads the offer until `status` (the process works in the background), or fails after `limitMs`. */
async function eventually(offerId: number, status: string, limitMs = 20_000): Promise<Json> {
  const until = Date.now() + limitMs;
  let offer = await read(offerId);
  while (offer.status !== status && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    offer = await read(offerId);
  }
  expect(offer.status).toBe(status);
  return offer;
}

async function installmentsOf(id: number) {
  return withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .select()
      .from(loanInstallments)
      .where(and(eq(loanInstallments.tenantId, tenant), eq(loanInstallments.loanId, id)))
      .orderBy(loanInstallments.installmentNumber),
  );
}

const totalDue = (rows: Awaited<ReturnType<typeof installmentsOf>>) =>
  rows.reduce(
    (sum, r) =>
      sum +
      minorOf(r.principalDue, 'USD') +
      minorOf(r.interestDue, 'USD') +
      minorOf(r.feeChargesDue, 'USD') +
      minorOf(r.penaltyChargesDue, 'USD'),
    0n,
  );

async function eventTypesOf(offerId: number): Promise<string[]> {
  const rows = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .select({ type: outboxEvents.eventType, subjectId: outboxEvents.subjectId })
      .from(outboxEvents)
      .where(eq(outboxEvents.tenantId, tenant)),
  );
  return rows.filter((r) => String(r.subjectId) === String(offerId)).map((r) => r.type);
}

/** The `data` of the offer's `hardship.offer.applied` outbox event. */
async function appliedEventDataOf(offerId: number): Promise<Record<string, unknown>> {
  const rows = await withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .select({ subjectId: outboxEvents.subjectId, data: outboxEvents.data })
      .from(outboxEvents)
      .where(and(eq(outboxEvents.tenantId, tenant), eq(outboxEvents.eventType, 'hardship.offer.applied'))),
  );
  const row = rows.find((r) => String(r.subjectId) === String(offerId));
  expect(row, `hardship.offer.applied of offer ${offerId}`).toBeDefined();
  return row!.data as Record<string, unknown>;
}

async function tasksOf(caseId: number) {
  return withTenantTransaction(ctx.db, tenant, (tx) =>
    tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.tenantId, tenant), eq(tasks.caseId, caseId))),
  );
}

describe('the offer process', () => {
  it('starts hardship-offer/<tenant>/<offerId> for every offer; a final route ends it at once', async () => {
    const caseId = await hardshipCase();
    const referred = await create(caseId, {
      requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 5 } },
    });
    expect(referred.status).toBe('REFERRED');
    const handle = ctx.client.workflow.getHandle(hardshipOfferWorkflowId(tenant, referred.offerId));
    expect(await handle.result()).toEqual({ offerId: referred.offerId, status: 'REFERRED' });
    const description = await handle.describe();
    expect(description.type).toBe('hardshipOfferWorkflow');
    expect(description.taskQueue).toBe('servicing');
    expect(description.typedSearchAttributes.getAll().map((p) => p.key.name)).toEqual(
      expect.arrayContaining(['TenantId', 'CaseId', 'LoanId']),
    );
  });
});

describe('POST /v1/servicing/hardship-offers/{offerId}/accept', () => {
  it('AWAITING_DOCUMENTS with its deadline and task; evidence of the required type → the process applies the deferral', async () => {
    const { loanId: ownLoan, customerId: borrower } = await fundedLoan();
    const caseId = await hardshipCase(borrower);
    const created = await create(caseId, {}, ownLoan);
    expect(created.status).toBe('OFFERED');
    const before = await installmentsOf(ownLoan);

    const before0 = Date.now();
    const accepted = await call(
      ctx,
      admin,
      'POST',
      `${offers}/${created.offerId}/accept`,
      undefined,
      borrowerAgent,
    );
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({
      status: 'AWAITING_DOCUMENTS',
      acceptance: { acceptedBy: 'agent-cy' },
      application: null,
      timers: { offerExpiresAt: null },
    });
    const dueAt = Date.parse(accepted.body.timers.documentsDueAt);
    expect(dueAt).toBeGreaterThanOrEqual(before0 + 240 * 3_600_000);
    expect(dueAt).toBeLessThanOrEqual(Date.now() + 240 * 3_600_000);
    const documentsTask = (await tasksOf(caseId)).find((t) => t.taskType === 'HARDSHIP_DOCUMENTS_DUE');
    expect(documentsTask).toMatchObject({ status: 'OPEN' });
    expect(documentsTask?.dueAt?.getTime()).toBe(dueAt);

    // Evidence of another type is not the required evidence.
    const other = await call(ctx, admin, 'POST', '/v1/servicing/evidence', {
      caseId,
      evidenceType: 'PAYSLIP',
      description: 'Payslip',
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await read(created.offerId)).status).toBe('AWAITING_DOCUMENTS');

    const statement = await call(ctx, admin, 'POST', '/v1/servicing/evidence', {
      caseId,
      evidenceType: 'HARDSHIP_STATEMENT',
      description: 'Signed hardship statement',
    });
    expect(statement.status, JSON.stringify(statement.body)).toBe(201);
    const applied = await eventually(created.offerId, 'APPLIED');
    expect(applied.application).toMatchObject({
      scheduleVersion: 2,
      evidenceId: statement.body.evidenceId,
      installmentCountBefore: before.length,
      installmentCountAfter: before.length + 1,
    });
    expect(applied.application.totalDueAfter).toBe(applied.application.totalDueBefore);

    const after = await installmentsOf(ownLoan);
    expect(after).toHaveLength(before.length + 1);
    expect(totalDue(after)).toBe(totalDue(before));
    for (let i = 1; i < after.length; i += 1) {
      expect(after[i]!.dueDate > after[i - 1]!.dueDate).toBe(true);
    }
    expect((await tasksOf(caseId)).find((t) => t.taskType === 'HARDSHIP_DOCUMENTS_DUE')?.status).toBe(
      'COMPLETED',
    );
    expect(await eventTypesOf(created.offerId)).toEqual(
      expect.arrayContaining(['hardship.offer.created', 'hardship.offer.accepted', 'hardship.offer.applied']),
    );
    const handle = ctx.client.workflow.getHandle(hardshipOfferWorkflowId(tenant, created.offerId));
    expect(await handle.result()).toEqual({ offerId: created.offerId, status: 'APPLIED' });
  });

  it('a program that asks for no evidence applies the relief at once', async () => {
    const { loanId: ownLoan, customerId: borrower } = await fundedLoan();
    const dueBefore = totalDue(await installmentsOf(ownLoan));
    const caseId = await hardshipCase(borrower);
    const created = await create(caseId, { programCode: 'DEFER_NOW' }, ownLoan);
    const accepted = await call(
      ctx,
      admin,
      'POST',
      `${offers}/${created.offerId}/accept`,
      undefined,
      borrowerAgent,
    );
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({
      status: 'APPLIED',
      application: { scheduleVersion: 2, evidenceId: null },
      timers: { offerExpiresAt: null, documentsDueAt: null },
    });
    // the event's money is a decimal string with its currency (docs/integrating.md "Webhooks"), like every other event's: the
    // loan's total due (a deferral keeps it), not its minor units (it used to send e.g. "130342")
    const event = await appliedEventDataOf(created.offerId);
    const dueText = formatMinor(dueBefore, 2);
    expect(dueText).toMatch(/^[0-9]+\.[0-9]{2}$/);
    expect(event).toMatchObject({ totalDueBefore: dueText, totalDueAfter: dueText, currency: 'USD' });
    const handle = ctx.client.workflow.getHandle(hardshipOfferWorkflowId(tenant, created.offerId));
    expect(await handle.result()).toEqual({ offerId: created.offerId, status: 'APPLIED' });
  });

  it('is idempotent for the same actor; another actor, a PENDING_APPROVAL or an expired offer → 409, nothing changed', async () => {
    const caseId = await hardshipCase();
    const created = await create(caseId);
    const path = `${offers}/${created.offerId}/accept`;
    const first = await call(ctx, admin, 'POST', path, undefined, borrowerAgent);
    expect(first.status).toBe(200);
    const again = await call(ctx, admin, 'POST', path, undefined, borrowerAgent);
    expect(again.status).toBe(200);
    expect(again.body.acceptance).toEqual(first.body.acceptance);
    const other = await call(ctx, admin, 'POST', path, undefined, { 'service-actor': 'someone-else' });
    expectShapeA(other, 409, 'error.msg.hardship.offer.invalid.state.transition', ['offerId']);

    const pending = await create(caseId, {
      requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 2 } },
    });
    expect(pending.status).toBe('PENDING_APPROVAL');
    const refused = await call(
      ctx,
      admin,
      'POST',
      `${offers}/${pending.offerId}/accept`,
      undefined,
      borrowerAgent,
    );
    expectShapeA(refused, 409, 'error.msg.hardship.offer.invalid.state.transition', ['offerId']);
    expect((await read(pending.offerId)).status).toBe('PENDING_APPROVAL');

    const lapsedOffer = await create(caseId);
    await withTenantTransaction(ctx.db, tenant, (tx) =>
      tx
        .update(hardshipOffers)
        .set({ offerExpiresAt: new Date(Date.now() - 1_000) })
        .where(eq(hardshipOffers.id, lapsedOffer.offerId)),
    );
    const late = await call(
      ctx,
      admin,
      'POST',
      `${offers}/${lapsedOffer.offerId}/accept`,
      undefined,
      borrowerAgent,
    );
    const error = expectShapeA(late, 409, 'error.msg.hardship.offer.invalid.state.transition', ['offerId']);
    expect(error.developerMessage).toContain('expired');
    const unchanged = await read(lapsedOffer.offerId);
    expect(unchanged.acceptance).toBeNull();
  });

  it('needs servicing:write and ACCEPT_HARDSHIPOFFER; another tenant\u2019s offer is 404', async () => {
    const caseId = await hardshipCase();
    const created = await create(caseId);
    const reader = await credentialFor(ctx, tenant, {
      scopes: ['servicing:read', 'servicing:write'],
      permissions: ['READ_HARDSHIPOFFER'],
    });
    const noPermission = await call(ctx, reader, 'POST', `${offers}/${created.offerId}/accept`, undefined);
    expect(noPermission.status).toBe(403);
    const foreign = await credentialFor(ctx, uniqueTenant('hsx'));
    const crossTenant = await call(ctx, foreign, 'POST', `${offers}/${created.offerId}/accept`, undefined);
    expect(crossTenant.status).toBe(404);
    expect((await read(created.offerId)).status).toBe('OFFERED');
  });
});

describe('loan drift', () => {
  it('an SCRA_MLA_PROTECTED restriction on the borrower re-evaluates an open offer → SPECIALIST with its task', async () => {
    const { loanId: ownLoan, customerId: borrower } = await fundedLoan();
    const caseId = await hardshipCase(borrower);
    const created = await create(caseId, {}, ownLoan);
    expect(created.status).toBe('OFFERED');
    const restriction = await call(ctx, admin, 'POST', `/v1/customers/${borrower}/restrictions`, {
      restrictionType: 'SCRA_MLA_PROTECTED',
      reason: 'Active duty',
    });
    expect(restriction.status, JSON.stringify(restriction.body)).toBe(201);
    const specialist = await eventually(created.offerId, 'SPECIALIST');
    expect(specialist.reasons.map((r: Json) => r.code)).toEqual(['SCRA_MLA_PROTECTED']);
    expect(specialist.timers.offerExpiresAt).toBeNull();
    expect((await tasksOf(caseId)).map((t) => t.taskType)).toContain('HARDSHIP_SPECIALIST_REVIEW');
    expect(await eventTypesOf(created.offerId)).toContain('hardship.offer.reevaluated');
    const handle = ctx.client.workflow.getHandle(hardshipOfferWorkflowId(tenant, created.offerId));
    expect(await handle.result()).toEqual({ offerId: created.offerId, status: 'SPECIALIST' });
  });
});
