/**
 * Raises a privacy request's deadline reminder, a task and an effect (docs/design.md §5 Privacy-request clocks):
 * `raisePrivacyReminder`. One transaction; idempotent.
 */

import { withTenantTransaction } from '../../db/tenant-tx';
import { isTerminalPrivacyStatus } from '../../domain/servicing/privacy-request';
import type { Deps } from '../deps';
import { lockRequest, type RequestRef } from './privacy-request-lock';
import { openTask, recordEffect } from './records';

/**
 * Raises the deadline reminder (`reminderLeadDays` before due): a PRIVACY_DEADLINE_REMINDER task
 * and a PRIVACY_REQUEST_REMINDER effect. Does nothing once the request has an outcome.
 * Returns whether the reminder stands.
 */
export function raisePrivacyReminder(deps: Deps) {
  return async (input: RequestRef): Promise<{ raised: boolean }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const row = await lockRequest(tx, input);
      if (isTerminalPrivacyStatus(row.status)) return { raised: false };
      const now = deps.clock();
      const task = await openTask(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        taskType: 'PRIVACY_DEADLINE_REMINDER',
        title: `Privacy request ${row.id} is due ${row.statutoryDueAtText}`,
        subjectType: 'privacy_request',
        subjectId: row.id,
        dueAt: row.statutoryDueAt,
        dedupeKey: `privacy-request/${row.id}/reminder`,
      });
      await recordEffect(tx, {
        tenantId: input.tenantId,
        caseId: row.caseId,
        effectType: 'PRIVACY_REQUEST_REMINDER',
        subjectType: 'privacy_request',
        subjectId: row.id,
        detail: { requestId: row.id, statutoryDueAt: row.statutoryDueAtText, taskId: task.id },
        occurredAt: now,
        dedupeKey: `privacy-request/${row.id}/reminder`,
      });
      return { raised: true };
    });
}
