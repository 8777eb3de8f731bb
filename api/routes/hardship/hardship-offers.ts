/**
 * Hardship offers up to their decision (docs/processes.md P5 third bullet; docs/servicing.md "Hardship offers"), mounted at `/v1/servicing/hardship-offers`:
 * - `POST /` (scope `servicing:write`, permission `CREATE_HARDSHIPOFFER`) → 201 `{offerId, status}`;
 * - `GET /{offerId}` (scope `servicing:read`, permission `READ_HARDSHIPOFFER`) → 200 the offer with its decision
 *   trail and timers;
 * - `POST /{offerId}/approve|reject` (scope `actions:approve` and the program's `humanApprovalPermission`, both
 *   checked before the query and body are read) → 200 the offer; the checker must pass the tenant's maker-checker
 *   policy (domain/maker-checker.ts: by default another OAuth client and another `Service-Actor` than the maker's;
 *   403), the offer be PENDING_APPROVAL (409);
 * - `POST /{offerId}/accept` (scope `servicing:write`, permission `ACCEPT_HARDSHIPOFFER`) → 200 the offer.
 * Creation starts the offer's process `hardship-offer/<tenant>/<offerId>` (through its start intent); approve,
 * reject and accept commit their operation, then signal the process `offerChanged` (503 when Temporal is down: the
 * change stands, and a retry re-sends the signal).
 * Another tenant's offer is a 404 (docs/design.md §4 "Scopes and permissions"). Errors are Shape A.
 */

import type { Context } from 'hono';
import * as v from 'valibot';
import {
  getHardshipOffer,
  hardshipOfferApprovalPermission,
} from '../../../db/queries/hardship/hardship-offers';
import { DomainError, notFound } from '../../../domain/errors';
import { type HardshipOfferDecision, requestedReliefOf } from '../../../domain/hardship/offer';
import {
  createdHardshipOfferResponse,
  createHardshipOfferBody,
  hardshipOfferResponse,
  offerIdParam,
} from '../../../domain/hardship/schemas/hardship-offers';
import { type AppEnv, factory } from '../../env';
import { bearerChallenge, sendError } from '../../errors';
import { holdsPermission, requires, requiresScope } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, optionalJsonBody, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: hardship offers'];

const routing =
  'Routing (docs/processes.md P5): an active SCRA_MLA_PROTECTED restriction on the borrower or loan (or a specialist condition the guardrails list) → SPECIALIST (a specialist task on the case); else every failed eligibility rule is a reason of INELIGIBLE (codes PROGRAM_RETIRED, HARDSHIP_REASON_MISMATCH, RELIEF_TYPE_MISMATCH, PRODUCT_CLASS_NOT_IN_SCOPE, JURISDICTION_NOT_IN_SCOPE, CURRENCY_NOT_IN_SCOPE, REPAYMENT_FREQUENCY_NOT_IN_SCOPE, NATIVE_CAPABILITY_MISSING, MINIMUM_LOAN_AGE_NOT_MET, ACTIVE_HARDSHIP_CASES_ABOVE_MAXIMUM, VERIFIED_CONTACT_REQUIRED, PRINCIPAL_FORGIVENESS_PROHIBITED, RATE_CHANGE_PROHIBITED, DEFERRED_PAYMENTS_ABOVE_MAXIMUM); else by the size of the relief in its unit (installments for deferral, forbearance and reduced payment; whole currency units, rounded up, for fee waiver and forgiveness; basis points for a rate reduction): ≤ straightThroughMaximum → OFFERED (expires after offerValidityHours), ≤ humanApprovalMaximum → PENDING_APPROVAL (an approval task on the case), above → REFERRED (a referral task).';

/**
 * The program's `humanApprovalPermission` on the token's client (403 `error.msg.not.authorized` without it; 404 for
 * an unknown or another tenant's offer): checked once the path names the offer and before the query or body is read,
 * after `requiresScope('actions:approve')` (docs/design.md §4 "Scopes and permissions").
 */
const approvalPermissionGuard = factory.createMiddleware(async (c, next) => {
  // `pathParams(offerIdParam)` ran before: the segment is a valid id.
  const offerId = Number(c.req.param('offerId'));
  const permission = await hardshipOfferApprovalPermission(c.get('deps').db, c.get('tenantId'), offerId);
  if (permission === null) throw notFound('Hardship offer', offerId);
  if (!holdsPermission(c.get('auth').permissions, permission)) {
    const err = new DomainError(
      'error.msg.not.authorized',
      `The client lacks the permission ${permission} that the offer's program requires of an approver.`,
    );
    return sendError(c, err, { 'WWW-Authenticate': bearerChallenge(err) });
  }
  await next();
});

/**
 * Approve or reject, once scope and program permission passed: the decision under the tenant's maker-checker policy
 * (activities/hardship/decide-hardship-offer.ts `decideHardshipOffer`), then the offer's process is told.
 */
async function decide(c: Context<AppEnv>, offerId: number, decision: HardshipOfferDecision) {
  const auth = c.get('auth');
  const deps = c.get('deps');
  const decided = await deps.activities.decideHardshipOffer({
    ...operationContext(c),
    clientId: auth.clientId,
    scopes: auth.scopes,
    offerId,
    decision,
  });
  await deps.processes.hardshipOffers.notifyOfferChanged({ tenantId: c.get('tenantId'), offerId });
  return c.json(decided, 200);
}

const decisionDoc = (decision: 'approve' | 'reject') =>
  doc({
    tags,
    summary: `${decision === 'approve' ? 'Approve' : 'Reject'} a hardship offer (maker-checker)`,
    description: `The checker's decision on a PENDING_APPROVAL offer (docs/servicing.md "Hardship offers"). Needs scope \`actions:approve\` and the permission named by the program version's \`humanApprovalPermission\` (else 403), a \`Service-Actor\` (400 when absent) other than the offer's maker (same actor → 403 naming \`header.Service-Actor\`), and, under the tenant's default maker-checker policy \`distinct-client\`, a token of another OAuth client than the one that created the offer (same client → 403 naming \`header.Authorization\`; a tenant set to \`same-client-distinct-actor\` accepts the maker's client with another actor). Writes the append-only approval record (actor and clientId of the checker, makerActor and makerClientId it was checked against, makerCheckerPolicy, decision, policy version = the active guardrails version, request hash = hex SHA-256 of the RFC 8785 canonical offer terms, decided at) and moves the offer to ${decision === 'approve' ? 'APPROVED (its validity timer starts: offerExpiresAt = now + offerValidityHours)' : 'REJECTED'}. Not PENDING_APPROVAL → 409 \`error.msg.hardship.offer.invalid.state.transition\`; unknown or another tenant's → 404. The same actor through the same client repeating the same decision gets the offer as it is.`,
    scope: 'actions:approve',
    permission: { resource: "the offer's program version (`humanApprovalPermission`)" },
    mutation: true,
    actorRequired: true,
    responses: { 200: { description: 'The offer with its decision trail', schema: hardshipOfferResponse } },
  });

export const hardshipOfferRoutes = factory
  .createApp()
  /** Creates and routes an offer → 201 `{offerId, status}`. */
  .post(
    '/',
    doc({
      tags,
      summary: 'Request a hardship offer',
      description: `Routes the request against the tenant's active guardrails and the program version in effect today, and stores the offer with the outcome as its status; \`Service-Actor\` (required, 400 when absent) is the maker, recorded with the token's client id. The case must be OPEN (409) and the tenant's; case, loan and program must exist (404 naming the field). Body: \`requestedRelief\` is \`{reliefType, params}\`: PAYMENT_DEFERRAL {installmentCount}, FORBEARANCE {installmentCount, paymentReductionBasisPoints}, REDUCED_PAYMENT {installmentCount, reducedPaymentMinor}, FEE_WAIVER {fromDate, toDate, maximumWaiverMinor}, RATE_REDUCTION {currentRateBasisPoints, reducedRateBasisPoints}, PRINCIPAL_FORGIVENESS {amountMinor}; \`…Minor\` are decimal strings of minor units of the loan's currency. ${routing}`,
      scope: 'servicing:write',
      permission: 'CREATE_HARDSHIPOFFER',
      mutation: true,
      actorRequired: true,
      responses: { 201: { description: 'The offer and its status', schema: createdHardshipOfferResponse } },
    }),
    requires('servicing:write', 'CREATE_HARDSHIPOFFER'),
    noQuery(),
    ...jsonBody(createHardshipOfferBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const { activities, startMarks, processes } = c.get('deps');
      const created = await activities.createHardshipOffer({
        ...operationContext(c),
        clientId: c.get('auth').clientId,
        caseId: body.caseId,
        loanId: body.loanId,
        programCode: body.programCode,
        hardshipReasonCode: body.hardshipReasonCode,
        requestedRelief: requestedReliefOf(body.requestedRelief),
      });
      await startAfterCommit(startMarks, created.workflow, (input) => processes.hardshipOffers.start(input));
      return c.json({ offerId: created.offer.offerId, status: created.offer.status }, 201);
    },
  )
  /** The offer with its status, reasons, decision trail and timers → 200; unknown → 404. */
  .get(
    '/:offerId',
    doc({
      tags,
      summary: 'Read a hardship offer',
      description:
        "The offer: status, routing reasons (INELIGIBLE, SPECIALIST), relief size, the maker (`createdBy`, `createdByClientId`), the decision trail (approval records: actor, clientId, makerActor, makerClientId, makerCheckerPolicy, decision, policyVersion, requestHash, decidedAt) and the timers (`offerExpiresAt` while an offer is open, `documentsDueAt` once accepted; null otherwise). Unknown or another tenant's → 404.",
      scope: 'servicing:read',
      permission: 'READ_HARDSHIPOFFER',
      responses: { 200: { description: 'The offer', schema: hardshipOfferResponse } },
    }),
    requires('servicing:read', 'READ_HARDSHIPOFFER'),
    pathParams(offerIdParam),
    noQuery(),
    async (c) => {
      const { offerId } = c.req.valid('param');
      const offer = await getHardshipOffer(c.get('deps').db, c.get('tenantId'), offerId);
      if (!offer) throw notFound('Hardship offer', offerId);
      return c.json(offer, 200);
    },
  )
  /** Approves a PENDING_APPROVAL offer (second actor) → 200 the offer. */
  .post(
    '/:offerId/approve',
    decisionDoc('approve'),
    requiresScope('actions:approve'),
    pathParams(offerIdParam),
    approvalPermissionGuard,
    noQuery(),
    ...optionalJsonBody(v.strictObject({})),
    idempotent(),
    async (c) => decide(c, c.req.valid('param').offerId, 'APPROVED'),
  )
  /** The borrower accepts an OFFERED / APPROVED offer → 200 the offer (AWAITING_DOCUMENTS or APPLIED). */
  .post(
    '/:offerId/accept',
    doc({
      tags,
      summary: 'Accept a hardship offer',
      description:
        "Records the borrower's acceptance of an OFFERED or APPROVED offer (`Service-Actor`, optional, names who recorded it). When the program requires evidence (`requiredEvidenceCode` other than `NONE`) the offer becomes AWAITING_DOCUMENTS with `timers.documentsDueAt` = now + the guardrails' `documentDeadlineHoursMaximum` and a `HARDSHIP_DOCUMENTS_DUE` task on the case: evidence of that type added to the case (`POST /v1/servicing/cases/{caseId}/evidence`) is confirmed by the offer's process, which then applies the relief (APPLIED); without it by the deadline the offer LAPSED. A program requiring no evidence applies the relief at once (APPLIED). Applying modifies the loan's schedule (a new schedule version, `appliedScheduleVersion`; deferral moves installments to the end, never forgiving money) with the ledger balanced. Not OFFERED / APPROVED, or past `offerExpiresAt` → 409 `error.msg.hardship.offer.invalid.state.transition`; a schedule that can no longer take the relief → 409 `error.msg.hardship.relief.not.applicable`; unknown or another tenant's → 404. Events `hardship.offer.accepted`, `hardship.offer.applied`.",
      scope: 'servicing:write',
      permission: 'ACCEPT_HARDSHIPOFFER',
      mutation: true,
      responses: { 200: { description: 'The accepted offer', schema: hardshipOfferResponse } },
    }),
    requires('servicing:write', 'ACCEPT_HARDSHIPOFFER'),
    pathParams(offerIdParam),
    noQuery(),
    ...optionalJsonBody(v.strictObject({})),
    idempotent(),
    async (c) => {
      const { offerId } = c.req.valid('param');
      const deps = c.get('deps');
      const accepted = await deps.activities.acceptHardshipOffer({ ...operationContext(c), offerId });
      await deps.processes.hardshipOffers.notifyOfferChanged({ tenantId: c.get('tenantId'), offerId });
      return c.json(accepted, 200);
    },
  )
  /** Rejects a PENDING_APPROVAL offer (second actor) → 200 the offer. */
  .post(
    '/:offerId/reject',
    decisionDoc('reject'),
    requiresScope('actions:approve'),
    pathParams(offerIdParam),
    approvalPermissionGuard,
    noQuery(),
    ...optionalJsonBody(v.strictObject({})),
    idempotent(),
    async (c) => decide(c, c.req.valid('param').offerId, 'REJECTED'),
  );
