/**
 * Records the outcome of a privacy request with its evidence (docs/servicing.md "Privacy requests in Temporal"; docs/design.md §5 Privacy-request
 * clocks): `fulfilPrivacyRequest`. One transaction; idempotent.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { evidence, privacyRequestEvidence, privacyRequests, tasks } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';
import {
  type FulfilPrivacyRequestArgs,
  type FulfilPrivacyRequestResult,
  isTerminalPrivacyStatus,
} from '../../domain/servicing/privacy-request';
import type { Deps } from '../deps';
import { lockRequest, type RequestRef } from './privacy-request-lock';
import { recordEffect } from './records';

/**
 * Records the outcome of a privacy request (docs/servicing.md "Privacy requests in Temporal": RECEIVED → FULFILLED, evidence ids
 * attached): the status, the evidence links, a PRIVACY_REQUEST_<OUTCOME> effect, and completes the
 * request's open tasks. A repeat with the same outcome and evidence returns the first result.
 * Errors: 404 unknown request; 400 (parameterName `evidenceIds[i]`) evidence not the tenant's;
 * 409 `error.msg.privacy.request.invalid.state.transition` when it already has another outcome.
 */
export function fulfilPrivacyRequest(deps: Deps) {
  return async (input: RequestRef & FulfilPrivacyRequestArgs): Promise<FulfilPrivacyRequestResult> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const row = await lockRequest(tx, input);
      const evidenceIds = [...new Set(input.evidenceIds)].sort((a, b) => a - b);
      if (isTerminalPrivacyStatus(row.status)) {
        const attached = await tx
          .select({ id: privacyRequestEvidence.evidenceId })
          .from(privacyRequestEvidence)
          .where(
            and(
              eq(privacyRequestEvidence.tenantId, input.tenantId),
              eq(privacyRequestEvidence.requestId, row.id),
            ),
          );
        const same =
          row.status === input.outcome &&
          attached
            .map((a) => a.id)
            .sort((a, b) => a - b)
            .join(',') === evidenceIds.join(',');
        if (same) return { requestId: row.id, status: row.status };
        throw new DomainError(
          'error.msg.privacy.request.invalid.state.transition',
          `Privacy request ${row.id} is already ${row.status}.`,
        );
      }
      if (evidenceIds.length > 0) {
        const found = await tx
          .select({ id: evidence.id })
          .from(evidence)
          .where(and(eq(evidence.tenantId, input.tenantId), inArray(evidence.id, evidenceIds)));
        const known = new Set(found.map((f) => f.id));
        const missing = input.evidenceIds
          .map((id, index) => ({ id, index }))
          .filter(({ id }) => !known.has(id));
        if (missing.length > 0) {
          throw new DomainError('validation.msg.validation.errors.exist', 'Some evidence was not found.', {
            errors: missing.map(({ id, index }) =>
              fieldError(`evidenceIds[${index}]`, id, `Evidence ${id} was not found.`),
            ),
          });
        }
        await tx
          .insert(privacyRequestEvidence)
          .values(
            evidenceIds.map((evidenceId) => ({ tenantId: input.tenantId, requestId: row.id, evidenceId })),
          )
          .onConflictDoNothing();
      }
      const now = deps.clock();
      await tx
        .update(privacyRequests)
        .set({
          status: input.outcome,
          outcome: input.outcome,
          outcomeReason: input.outcomeReason,
          fulfilledAt: now,
          updatedAt: now,
        })
        .where(and(eq(privacyRequests.tenantId, input.tenantId), eq(privacyRequests.id, row.id)));
      await tx
        .update(tasks)
        .set({
          status: 'COMPLETED',
          completedAt: now,
          completedBy: input.actor ?? null,
          completionNote: `Request ${input.outcome}`,
        })
        .where(
          and(
            eq(tasks.tenantId, input.tenantId),
            eq(tasks.subjectType, 'privacy_request'),
            eq(tasks.subjectId, String(row.id)),
            eq(tasks.status, 'OPEN'),
          ),
        );
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: `PRIVACY_REQUEST_${input.outcome}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: {
          requestId: row.id,
          fromStatus: row.status,
          toStatus: input.outcome,
          outcomeReason: input.outcomeReason,
          evidenceIds,
        },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
        dedupeKey: `privacy-request/${row.id}/outcome`,
      });
      return { requestId: row.id, status: input.outcome };
    });
}
