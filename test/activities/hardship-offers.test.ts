/**
 * Hardship offers up to their decision (activities/hardship/create-hardship-offer.ts and
 * decide-hardship-offer.ts, docs/processes.md P5, docs/servicing.md "Hardship offers") on the real database: each routing outcome stored with its case
 * effect, task and timer; replay by request key; approval and rejection by a second actor with the append-only
 * approval record (request hash of the canonical terms); the maker refused (403), wrong state (409), unknown or
 * another tenant's references (404), bad input (400), nothing changed by a refusal.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getHardshipOffer } from '../../db/queries/hardship/hardship-offers';
import { customers, hardshipOfferApprovals, hardshipOffers, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import type { HardshipLoanFacts, RequestedRelief } from '../../domain/hardship/offer';
import { hardshipOfferTermsHash } from '../../domain/hardship/offer';
import type { HardshipGuardrailSettings, HardshipProgramTerms } from '../../domain/hardship/policy';
import {
  type ActivityHarness,
  createHarness,
  effectsOf,
  expectDomainError,
  insertBareLoanProduct,
  newRequestKey,
  newTenant,
  outboxOf,
  tasksOf,
} from './helpers';

let h: ActivityHarness;
let tenant: string;
let otherTenant: string;
let loanId: number;
let customerId: number;
/** The borrower's `customerRef`: hardship cases are theirs. */
let borrowerRef: string;
let otherCaseId: number;

const guardrails: HardshipGuardrailSettings = {
  minimumLoanAgeInstallments: 2,
  maximumActiveHardshipCasesPerLoan: 1,
  requireVerifiedContactForOffer: true,
  requireWorkflowConfirmedEvidence: true,
  prohibitPrincipalForgiveness: true,
  prohibitRateChange: true,
  specialistConditions: ['BANKRUPTCY'],
  offerValidityHoursMaximum: 72,
  documentDeadlineHoursMaximum: 240,
  maximumDeferredPayments: 6,
  reevaluateOnMaterialLoanDrift: true,
};

const terms: HardshipProgramTerms = {
  reliefType: 'PAYMENT_DEFERRAL',
  straightThroughMaximum: 1,
  humanApprovalMaximum: 3,
  humanApprovalPermission: 'APPROVE_LOAN',
  requiredEvidenceCode: 'HARDSHIP_STATEMENT',
  offerValidityHours: 48,
  scope: {
    productClasses: ['COVERED_CONSUMER'],
    jurisdictions: [],
    currencies: ['USD'],
    repaymentFrequencies: ['MONTHLY'],
    requiredNativeCapability: '',
  },
  workflow: { caseType: 'HARDSHIP', workflowKey: 'hardship-offer' },
};

const facts: HardshipLoanFacts = {
  productClass: 'COVERED_CONSUMER',
  jurisdiction: 'US-CA',
  currency: 'USD',
  repaymentFrequency: 'MONTHLY',
  nativeCapabilities: [],
  installmentsSinceFirstDue: 4,
  activeHardshipCaseCount: 1,
  verifiedContactPresent: true,
  conditions: [],
  activeRestrictionTypes: [],
};

const deferral = (installmentCount: number): RequestedRelief => ({
  reliefType: 'PAYMENT_DEFERRAL',
  params: { installmentCount },
});

async function openHardshipCase(tenantId: string, customerRef = borrowerRef): Promise<number> {
  const { caseId } = await h.activities.openCase({
    tenantId,
    customerRef,
    caseTypeCode: 'HARDSHIP',
    summary: 'Job loss',
  });
  return caseId;
}

async function create(
  caseId: number,
  over: Partial<Parameters<ActivityHarness['activities']['createHardshipOffer']>[0]> = {},
) {
  const created = await h.activities.createHardshipOffer({
    tenantId: tenant,
    requestKey: newRequestKey(),
    actor: 'maker-1',
    clientId: 'cli_maker',
    correlationId: 'req-hs',
    caseId,
    loanId,
    programCode: 'DEFER',
    hardshipReasonCode: 'JOB_LOSS',
    requestedRelief: deferral(1),
    loanFacts: facts,
    ...over,
  });
  return created.offer;
}

function decide(
  offerId: number,
  actor: string | null,
  decision: 'APPROVED' | 'REJECTED' = 'APPROVED',
  checker: { clientId?: string; scopes?: string[] } = {},
) {
  return h.activities.decideHardshipOffer({
    tenantId: tenant,
    requestKey: newRequestKey(),
    actor,
    clientId: checker.clientId ?? 'cli_checker',
    scopes: checker.scopes ?? ['servicing:read', 'actions:approve'],
    offerId,
    decision,
  });
}

/** The outbox events about hardship offer `offerId` (other subjects may share the id). */
async function offerEvents(offerId: number) {
  return (await outboxOf(h, tenant, offerId)).filter((e) => e.subjectType === 'hardship_offer');
}

function approvalsOf(offerId: number) {
  return withTenantTransaction(h.db, tenant, (tx) =>
    tx
      .select()
      .from(hardshipOfferApprovals)
      .where(and(eq(hardshipOfferApprovals.offerId, offerId))),
  );
}

beforeAll(async () => {
  h = createHarness();
  tenant = await newTenant(h, 'hso');
  otherTenant = await newTenant(h, 'hso-b');
  const context = { tenantId: tenant, requestKey: null, actor: 'admin' };
  await h.activities.setHardshipGuardrails({ ...context, guardrails });
  await h.activities.createHardshipProgram({
    ...context,
    programCode: 'DEFER',
    displayName: 'Deferral',
    hardshipReasonCode: 'JOB_LOSS',
    description: 'Defer up to three payments',
    effectiveFrom: '2020-01-01',
    terms,
  });
  ({ customerId } = await h.activities.createCustomer({
    ...context,
    requestKey: newRequestKey(),
    firstName: 'Ana',
    lastName: 'López',
  }));
  loanId = await newLoan();
  const [borrower] = await withTenantTransaction(h.db, tenant, (tx) =>
    tx.select({ ref: customers.customerRef }).from(customers).where(eq(customers.id, customerId)),
  );
  borrowerRef = borrower!.ref;
  otherCaseId = await openHardshipCase(otherTenant, 'cus_other');
});
afterAll(async () => h?.close());

let loanCounter = 0;
async function newLoan(): Promise<number> {
  const [loan] = await withTenantTransaction(h.db, tenant, async (tx) =>
    tx
      .insert(loans)
      .values({
        tenantId: tenant,
        accountNo: `LN-HS-${Date.now().toString(36)}-${(loanCounter++).toString(36)}`,
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
  return loan!.id;
}

describe('createHardshipOffer', () => {
  it('OFFERED: stores the offer with its expiry timer and a case effect; a replay returns it', async () => {
    h.now.value = new Date('2026-03-02T10:00:00.000Z');
    const caseId = await openHardshipCase(tenant);
    const requestKey = newRequestKey();
    const offer = await create(caseId, { requestKey });
    expect(offer).toMatchObject({
      caseId,
      loanId,
      programCode: 'DEFER',
      programVersion: 1,
      guardrailsVersion: 1,
      status: 'OFFERED',
      reliefSize: 1,
      reasons: [],
      createdBy: 'maker-1',
      requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 1 } },
      timers: { offerExpiresAt: '2026-03-04T10:00:00.000Z', documentsDueAt: null },
      decisions: [],
    });
    const again = await create(caseId, { requestKey, requestedRelief: deferral(2) });
    expect(again.offerId).toBe(offer.offerId);
    expect(again.status).toBe('OFFERED');
    const effects = await effectsOf(h, tenant, caseId, 'HARDSHIP_OFFER_CREATED');
    expect(effects).toHaveLength(1);
    expect(effects[0]?.detail).toMatchObject({ offerId: offer.offerId, status: 'OFFERED' });
    expect(await tasksOf(h, tenant, caseId)).toHaveLength(0);
    expect(await getHardshipOffer(h.db, tenant, offer.offerId)).toEqual(offer);
    const events = await offerEvents(offer.offerId);
    expect(events.map((e) => [e.eventType, e.subjectType])).toEqual([
      ['hardship.offer.created', 'hardship_offer'],
    ]);
    expect(events[0]?.data).toEqual({
      offerId: offer.offerId,
      caseId,
      loanId,
      programCode: 'DEFER',
      programVersion: 1,
      status: 'OFFERED',
      reliefType: 'PAYMENT_DEFERRAL',
      reliefSize: 1,
      reasonCodes: [],
      offerExpiresAt: '2026-03-04T10:00:00.000Z',
    });
    h.now.value = null;
  });

  it('PENDING_APPROVAL and REFERRED open their tasks, without a running timer', async () => {
    const caseId = await openHardshipCase(tenant);
    const pending = await create(caseId, { requestedRelief: deferral(3) });
    expect(pending).toMatchObject({
      status: 'PENDING_APPROVAL',
      reliefSize: 3,
      timers: { offerExpiresAt: null },
    });
    const referred = await create(caseId, { requestedRelief: deferral(4) });
    expect(referred).toMatchObject({ status: 'REFERRED', reliefSize: 4 });
    const tasks = await tasksOf(h, tenant, caseId);
    expect(tasks.map((t) => [t.taskType, t.subjectId])).toEqual([
      ['HARDSHIP_OFFER_APPROVAL', String(pending.offerId)],
      ['HARDSHIP_OFFER_REFERRAL', String(referred.offerId)],
    ]);
  });

  it('INELIGIBLE stores its reasons; SPECIALIST opens a specialist task', async () => {
    const caseId = await openHardshipCase(tenant);
    const ineligible = await create(caseId, {
      hardshipReasonCode: 'MEDICAL',
      loanFacts: { ...facts, installmentsSinceFirstDue: 1 },
    });
    expect(ineligible.status).toBe('INELIGIBLE');
    expect(ineligible.reliefSize).toBeNull();
    expect(ineligible.reasons.map((r) => r.code)).toEqual([
      'HARDSHIP_REASON_MISMATCH',
      'MINIMUM_LOAN_AGE_NOT_MET',
    ]);
    const specialist = await create(caseId, {
      loanFacts: { ...facts, activeRestrictionTypes: ['SCRA_MLA_PROTECTED'] },
    });
    expect(specialist.status).toBe('SPECIALIST');
    expect(specialist.reasons.map((r) => r.code)).toEqual(['SCRA_MLA_PROTECTED']);
    expect((await tasksOf(h, tenant, caseId)).map((t) => t.taskType)).toEqual(['HARDSHIP_SPECIALIST_REVIEW']);
  });

  it('refuses bad input and unknown references, storing nothing', async () => {
    const caseId = await openHardshipCase(tenant);
    const noActor = await expectDomainError(
      create(caseId, { actor: null }),
      'validation.msg.validation.errors.exist',
    );
    expect(noActor.errors[0]?.parameterName).toBe('header.Service-Actor');
    const badRelief = await expectDomainError(
      create(caseId, { requestedRelief: deferral(0) }),
      'validation.msg.validation.errors.exist',
    );
    expect(badRelief.errors[0]?.parameterName).toBe('requestedRelief.params.installmentCount');
    const loan = await expectDomainError(
      create(caseId, { loanId: loanId + 100000 }),
      'error.msg.resource.not.found',
    );
    expect(loan.errors[0]?.parameterName).toBe('loanId');
    const program = await expectDomainError(
      create(caseId, { programCode: 'NOPE' }),
      'error.msg.resource.not.found',
    );
    expect(program.errors[0]?.parameterName).toBe('programCode');
    const foreignCase = await expectDomainError(create(otherCaseId), 'error.msg.resource.not.found');
    expect(foreignCase.errors[0]?.parameterName).toBe('caseId');
    const strangersCase = await openHardshipCase(tenant, 'cus_stranger');
    const stranger = await expectDomainError(create(strangersCase), 'error.msg.case.customer.mismatch');
    expect(stranger.errors[0]?.parameterName).toBe('caseId');
    await h.activities.closeCase({
      tenantId: tenant,
      actor: 'agent',
      caseId,
      outcomeCode: 'RESOLVED',
      closureReason: 'Done',
    });
    const closed = await expectDomainError(create(caseId), 'error.msg.case.invalid.state.transition');
    expect(closed.errors[0]?.parameterName).toBe('caseId');
    expect(await effectsOf(h, tenant, caseId, 'HARDSHIP_OFFER_CREATED')).toHaveLength(0);
  });
});

describe('gatherHardshipLoanFacts (no loanFacts given)', () => {
  it('reads product class, loan age, verified contact, active cases and restrictions from the database', async () => {
    const freshLoan = await newLoan();
    const first = await openHardshipCase(tenant);
    const offer = await create(first, { loanId: freshLoan, loanFacts: undefined });
    // The bare product has no productClass, the loan no installments, the borrower no verified contact;
    // USD and the product's monthly frequency are in scope.
    expect(offer.reasons.map((r) => r.code)).toEqual([
      'PRODUCT_CLASS_NOT_IN_SCOPE',
      'MINIMUM_LOAN_AGE_NOT_MET',
      'VERIFIED_CONTACT_REQUIRED',
    ]);
    const second = await openHardshipCase(tenant);
    const again = await create(second, { loanId: freshLoan, loanFacts: undefined });
    expect(again.reasons.map((r) => r.code)).toContain('ACTIVE_HARDSHIP_CASES_ABOVE_MAXIMUM');
    await h.activities.closeCase({
      tenantId: tenant,
      actor: 'agent',
      caseId: first,
      outcomeCode: 'RESOLVED',
      closureReason: 'Handled',
    });
    const afterClose = await create(second, { loanId: freshLoan, loanFacts: undefined });
    expect(afterClose.reasons.map((r) => r.code)).not.toContain('ACTIVE_HARDSHIP_CASES_ABOVE_MAXIMUM');
    await h.activities.applyRestriction({
      tenantId: tenant,
      requestKey: newRequestKey(),
      actor: 'agent',
      customerId,
      restrictionType: 'SCRA_MLA_PROTECTED',
      reason: 'Active duty',
      loanId: freshLoan,
    });
    const protectedOffer = await create(second, { loanId: freshLoan, loanFacts: undefined });
    expect(protectedOffer.status).toBe('SPECIALIST');
    expect(protectedOffer.reasons.map((r) => r.code)).toEqual(['SCRA_MLA_PROTECTED']);
  });
});

describe('decideHardshipOffer (maker-checker)', () => {
  it('a second actor approves: record with actor, decision, policy version, terms hash; timer started; idempotent', async () => {
    const caseId = await openHardshipCase(tenant);
    const pending = await create(caseId, { requestedRelief: deferral(2) });
    h.now.value = new Date('2026-03-05T08:00:00.000Z');
    const approved = await decide(pending.offerId, 'checker-1');
    h.now.value = null;
    const hash = hardshipOfferTermsHash({
      offerId: pending.offerId,
      caseId,
      loanId,
      programCode: 'DEFER',
      programVersion: 1,
      guardrailsVersion: 1,
      hardshipReasonCode: 'JOB_LOSS',
      requestedRelief: { reliefType: 'PAYMENT_DEFERRAL', params: { installmentCount: 2 } },
    });
    expect(approved.status).toBe('APPROVED');
    expect(approved.timers.offerExpiresAt).toBe('2026-03-07T08:00:00.000Z');
    expect(approved.decisions).toEqual([
      {
        actor: 'checker-1',
        clientId: 'cli_checker',
        makerActor: 'maker-1',
        makerClientId: 'cli_maker',
        makerCheckerPolicy: 'distinct-client',
        decision: 'APPROVED',
        policyVersion: 1,
        requestHash: hash,
        decidedAt: '2026-03-05T08:00:00.000Z',
      },
    ]);
    expect(await decide(pending.offerId, 'checker-1')).toEqual(approved);
    expect(await approvalsOf(pending.offerId)).toHaveLength(1);
    expect((await effectsOf(h, tenant, caseId, 'HARDSHIP_OFFER_APPROVED')).length).toBe(1);
    const [task] = await tasksOf(h, tenant, caseId, 'HARDSHIP_OFFER_APPROVAL');
    expect(task).toMatchObject({ status: 'COMPLETED', completedBy: 'checker-1', completionNote: 'APPROVED' });
    expect((await effectsOf(h, tenant, caseId, 'TASK_COMPLETED')).length).toBe(1);
    const events = await offerEvents(pending.offerId);
    expect(events.map((e) => e.eventType)).toEqual(['hardship.offer.created', 'hardship.offer.approved']);
    expect(events[1]?.data).toEqual({
      offerId: pending.offerId,
      caseId,
      loanId,
      programCode: 'DEFER',
      programVersion: 1,
      status: 'APPROVED',
      decidedBy: 'checker-1',
      policyVersion: 1,
      requestHash: hash,
      decidedAt: '2026-03-05T08:00:00.000Z',
      offerExpiresAt: '2026-03-07T08:00:00.000Z',
    });
    await expectDomainError(
      decide(pending.offerId, 'checker-2', 'REJECTED'),
      'error.msg.hardship.offer.invalid.state.transition',
    );
  });

  it('refuses the maker (403) and an offer that is not PENDING_APPROVAL (409), changing nothing', async () => {
    const caseId = await openHardshipCase(tenant);
    const pending = await create(caseId, { requestedRelief: deferral(2) });
    const self = await expectDomainError(decide(pending.offerId, 'maker-1'), 'error.msg.not.authorized');
    expect(self.errors[0]?.parameterName).toBe('header.Service-Actor');
    expect((await tasksOf(h, tenant, caseId, 'HARDSHIP_OFFER_APPROVAL'))[0]?.status).toBe('OPEN');
    expect((await getHardshipOffer(h.db, tenant, pending.offerId))?.status).toBe('PENDING_APPROVAL');
    expect(await approvalsOf(pending.offerId)).toHaveLength(0);
    const offered = await create(caseId);
    const state = await expectDomainError(
      decide(offered.offerId, 'checker-1'),
      'error.msg.hardship.offer.invalid.state.transition',
    );
    expect(state.errors[0]?.parameterName).toBe('offerId');
    await expectDomainError(decide(pending.offerId, null), 'validation.msg.validation.errors.exist');
  });

  it("distinct-client (the default): the maker's client is refused with another actor (403 header.Authorization), so is a checker without actions:approve and an offer whose maker client is unknown", async () => {
    const caseId = await openHardshipCase(tenant);
    const pending = await create(caseId, { requestedRelief: deferral(2) });
    expect((await getHardshipOffer(h.db, tenant, pending.offerId))?.createdByClientId).toBe('cli_maker');
    const sameClient = await expectDomainError(
      decide(pending.offerId, 'checker-1', 'APPROVED', { clientId: 'cli_maker' }),
      'error.msg.not.authorized',
    );
    expect(sameClient.errors[0]?.parameterName).toBe('header.Authorization');
    const noScope = await expectDomainError(
      decide(pending.offerId, 'checker-1', 'APPROVED', { scopes: ['servicing:read', 'servicing:write'] }),
      'error.msg.not.authorized',
    );
    expect(noScope.errors[0]?.parameterName).toBe('scope');
    // An offer made before maker client ids were recorded: distinct clients cannot be shown.
    const legacy = await create(caseId, { requestedRelief: deferral(2) });
    await withTenantTransaction(h.db, tenant, (tx) =>
      tx
        .update(hardshipOffers)
        .set({ makerClientId: null })
        .where(and(eq(hardshipOffers.tenantId, tenant), eq(hardshipOffers.id, legacy.offerId))),
    );
    const unknownMaker = await expectDomainError(
      decide(legacy.offerId, 'checker-1'),
      'error.msg.not.authorized',
    );
    expect(unknownMaker.errors[0]?.parameterName).toBe('header.Authorization');
    expect(await approvalsOf(pending.offerId)).toHaveLength(0);
    expect(await approvalsOf(legacy.offerId)).toHaveLength(0);
    expect((await getHardshipOffer(h.db, tenant, pending.offerId))?.status).toBe('PENDING_APPROVAL');
  });

  it("same-client-distinct-actor (tenant setting): the maker's client with another actor decides, the record says so; the same actor is still refused", async () => {
    const relaxed = await newTenant(h);
    expect(await h.platform.tenantSettings({ tenantId: relaxed })).toMatchObject({
      tenantId: relaxed,
      makerCheckerPolicy: 'distinct-client',
    });
    await expectDomainError(
      h.platform.tenantSettings({ tenantId: relaxed, makerCheckerPolicy: 'anyone' }),
      'validation.msg.validation.errors.exist',
    );
    await expectDomainError(
      h.platform.tenantSettings({ tenantId: 'no-such-tenant-mc', makerCheckerPolicy: 'distinct-client' }),
      'error.msg.resource.not.found',
    );
    expect(
      await h.platform.tenantSettings({
        tenantId: relaxed,
        makerCheckerPolicy: 'same-client-distinct-actor',
      }),
    ).toMatchObject({ tenantId: relaxed, makerCheckerPolicy: 'same-client-distinct-actor' });
    const caseId = await openHardshipCase(tenant);
    const pending = await create(caseId, { requestedRelief: deferral(2) });
    // The setting is the tenant's own: the default tenant still refuses the maker's client.
    await expectDomainError(
      decide(pending.offerId, 'checker-1', 'APPROVED', { clientId: 'cli_maker' }),
      'error.msg.not.authorized',
    );
    await h.platform.tenantSettings({ tenantId: tenant, makerCheckerPolicy: 'same-client-distinct-actor' });
    try {
      const self = await expectDomainError(
        decide(pending.offerId, 'maker-1', 'APPROVED', { clientId: 'cli_maker' }),
        'error.msg.not.authorized',
      );
      expect(self.errors[0]?.parameterName).toBe('header.Service-Actor');
      const approved = await decide(pending.offerId, 'checker-1', 'APPROVED', { clientId: 'cli_maker' });
      expect(approved.decisions).toEqual([
        expect.objectContaining({
          actor: 'checker-1',
          clientId: 'cli_maker',
          makerActor: 'maker-1',
          makerClientId: 'cli_maker',
          makerCheckerPolicy: 'same-client-distinct-actor',
          decision: 'APPROVED',
        }),
      ]);
    } finally {
      await h.platform.tenantSettings({ tenantId: tenant, makerCheckerPolicy: 'distinct-client' });
    }
  });

  it('a second actor rejects: REJECTED, no timer; another tenant cannot see or decide the offer', async () => {
    const caseId = await openHardshipCase(tenant);
    const pending = await create(caseId, { requestedRelief: deferral(3) });
    const rejected = await decide(pending.offerId, 'checker-1', 'REJECTED');
    expect(rejected.status).toBe('REJECTED');
    expect(rejected.timers.offerExpiresAt).toBeNull();
    expect(rejected.decisions.map((d) => d.decision)).toEqual(['REJECTED']);
    const events = await offerEvents(pending.offerId);
    expect(events.map((e) => e.eventType)).toEqual(['hardship.offer.created', 'hardship.offer.rejected']);
    expect(events[1]?.data).toMatchObject({
      status: 'REJECTED',
      decidedBy: 'checker-1',
      offerExpiresAt: null,
    });
    expect(await getHardshipOffer(h.db, otherTenant, pending.offerId)).toBeNull();
    await expectDomainError(
      h.activities.decideHardshipOffer({
        tenantId: otherTenant,
        actor: 'checker-9',
        clientId: 'cli_checker',
        scopes: ['actions:approve'],
        offerId: pending.offerId,
        decision: 'APPROVED',
      }),
      'error.msg.resource.not.found',
    );
  });
});

describe('the process steps (activities/hardship/hardship-offer-steps.ts and one file per step)', () => {
  const ref = (offerId: number) => ({ tenantId: tenant, offerId });

  it('expireHardshipOffer: OFFERED → EXPIRED with effect and event; a second call and other statuses change nothing', async () => {
    h.now.value = new Date('2026-03-04T10:00:00.000Z');
    const caseId = await openHardshipCase(tenant);
    const offer = await create(caseId);
    expect(offer.status).toBe('OFFERED');
    h.now.value = new Date('2026-03-06T10:00:00.000Z');
    const progress = await h.activities.expireHardshipOffer(ref(offer.offerId));
    expect(progress).toEqual({
      offerId: offer.offerId,
      status: 'EXPIRED',
      offerExpiresAtMs: Date.parse('2026-03-06T10:00:00.000Z'),
      documentsDueAtMs: null,
    });
    expect(await h.activities.expireHardshipOffer(ref(offer.offerId))).toEqual(progress);
    expect((await effectsOf(h, tenant, caseId, 'HARDSHIP_OFFER_EXPIRED')).length).toBe(1);
    expect((await offerEvents(offer.offerId)).map((e) => e.eventType)).toContain('hardship.offer.expired');

    const pending = await create(caseId, { loanFacts: facts, requestedRelief: deferral(2) });
    expect(pending.status).toBe('PENDING_APPROVAL');
    expect((await h.activities.expireHardshipOffer(ref(pending.offerId))).status).toBe('PENDING_APPROVAL');
  });

  it('acceptHardshipOffer → AWAITING_DOCUMENTS; confirmHardshipEvidence before the deadline without evidence changes nothing, at the deadline LAPSED', async () => {
    h.now.value = new Date('2026-03-10T10:00:00.000Z');
    const caseId = await openHardshipCase(tenant);
    const offer = await create(caseId);
    const accepted = await h.activities.acceptHardshipOffer({
      tenantId: tenant,
      requestKey: newRequestKey(),
      actor: 'agent-1',
      offerId: offer.offerId,
    });
    expect(accepted).toMatchObject({
      status: 'AWAITING_DOCUMENTS',
      acceptance: { acceptedAt: '2026-03-10T10:00:00.000Z', acceptedBy: 'agent-1' },
      timers: { offerExpiresAt: null, documentsDueAt: '2026-03-20T10:00:00.000Z' },
    });
    const [documentsTask] = await tasksOf(h, tenant, caseId, 'HARDSHIP_DOCUMENTS_DUE');
    expect(documentsTask).toMatchObject({ status: 'OPEN' });
    // Evidence of another type is not the program's.
    await h.activities.addEvidence({
      tenantId: tenant,
      requestKey: newRequestKey(),
      caseId,
      evidenceType: 'PAYSLIP',
      description: 'payslip',
    });
    const early = await h.activities.confirmHardshipEvidence({ ...ref(offer.offerId), atDeadline: false });
    expect(early.status).toBe('AWAITING_DOCUMENTS');
    h.now.value = new Date('2026-03-20T10:00:00.000Z');
    const lapsed = await h.activities.confirmHardshipEvidence({ ...ref(offer.offerId), atDeadline: true });
    expect(lapsed).toMatchObject({
      status: 'LAPSED',
      documentsDueAtMs: Date.parse('2026-03-20T10:00:00.000Z'),
    });
    const [closedTask] = await tasksOf(h, tenant, caseId, 'HARDSHIP_DOCUMENTS_DUE');
    expect(closedTask).toMatchObject({ status: 'COMPLETED', completionNote: 'LAPSED' });
    expect((await effectsOf(h, tenant, caseId, 'HARDSHIP_OFFER_LAPSED')).length).toBe(1);
    expect((await offerEvents(offer.offerId)).map((e) => e.eventType)).toEqual(
      expect.arrayContaining(['hardship.offer.accepted', 'hardship.offer.lapsed']),
    );
    // Accepting a LAPSED offer (by another actor) is refused.
    await expectDomainError(
      h.activities.acceptHardshipOffer({
        tenantId: tenant,
        requestKey: null,
        actor: 'agent-2',
        offerId: offer.offerId,
      }),
      'error.msg.hardship.offer.invalid.state.transition',
    );
  });

  it('reevaluateHardshipOffer: INELIGIBLE with the new reasons when the loan no longer qualifies; nothing when the guardrails do not ask for it', async () => {
    h.now.value = new Date('2026-03-12T10:00:00.000Z');
    const caseId = await openHardshipCase(tenant);
    const offer = await create(caseId);
    // The test loan has no installments and no verified contact: the real facts fail these rules.
    const reevaluated = await h.activities.reevaluateHardshipOffer({
      ...ref(offer.offerId),
      change: { kind: 'PAYMENT', resourceId: null },
    });
    expect(reevaluated).toMatchObject({ status: 'INELIGIBLE', offerExpiresAtMs: null });
    const view = await getHardshipOffer(h.db, tenant, offer.offerId);
    expect(view?.reasons.map((r) => r.code)).toContain('MINIMUM_LOAN_AGE_NOT_MET');
    const [event] = (await offerEvents(offer.offerId)).filter(
      (e) => e.eventType === 'hardship.offer.reevaluated',
    );
    expect(event?.data).toMatchObject({ fromStatus: 'OFFERED', status: 'INELIGIBLE' });

    const context = { tenantId: tenant, requestKey: null, actor: 'admin' };
    await h.activities.setHardshipGuardrails({
      ...context,
      guardrails: { ...guardrails, reevaluateOnMaterialLoanDrift: false },
    });
    try {
      const stays = await create(caseId);
      expect(stays.status).toBe('OFFERED');
      const unchanged = await h.activities.reevaluateHardshipOffer({
        ...ref(stays.offerId),
        change: { kind: 'FUNDING', resourceId: null },
      });
      expect(unchanged.status).toBe('OFFERED');
      expect(await effectsOf(h, tenant, caseId, 'HARDSHIP_OFFER_REEVALUATED')).toHaveLength(1);
    } finally {
      await h.activities.setHardshipGuardrails({ ...context, guardrails });
    }
  });
});
