/**
 * Marks a privacy request without an outcome at its due time OVERDUE, with an effect and an escalation task
 * (docs/design.md §5 Privacy-request clocks): `markPrivacyRequestOverdue`. One transaction; idempotent.
 */
import { and, eq } from 'drizzle-orm';
import { privacyRequests } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { isTerminalPrivacyStatus } from '../../domain/servicing/privacy-request';
import type { Deps } from '../deps';
import { lockRequest, type RequestRef } from './privacy-request-lock';
import { openTask, recordEffect } from './records';

/**
 * At the due time without an outcome: status OVERDUE, a PRIVACY_REQUEST_OVERDUE effect and a
 * PRIVACY_ESCALATION task. Does nothing once the request has an outcome; returns the status.
 */
export function markPrivacyRequestOverdue(deps: Deps) {
  return async (input: RequestRef): Promise<{ status: string }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const row = await lockRequest(tx, input);
      if (isTerminalPrivacyStatus(row.status) || row.status === 'OVERDUE') return { status: row.status };
      const now = deps.clock();
      await tx
        .update(privacyRequests)
        .set({ status: 'OVERDUE', updatedAt: now })
        .where(and(eq(privacyRequests.tenantId, input.tenantId), eq(privacyRequests.id, row.id)));
      const task = await openTask(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        taskType: 'PRIVACY_ESCALATION',
        title: `Privacy request ${row.id} missed its statutory due time ${row.statutoryDueAtText}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        dueAt: null,
        dedupeKey: `privacy-request/${row.id}/escalation`,
      });
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: 'PRIVACY_REQUEST_OVERDUE',
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: { requestId: row.id, fromStatus: row.status, toStatus: 'OVERDUE', escalationTaskId: task.id },
        occurredAt: now,
        dedupeKey: `privacy-request/${row.id}/overdue`,
      });
      return { status: 'OVERDUE' };
    });
}
