/**
 * The case tasks of a hardship offer (docs/processes.md P5): the task each routed status opens on the case
 * (`taskOfStatus`) and the completion of an offer's open task with its case effect (`completeOfferTask`), shared by
 * the operations that create, decide, re-evaluate and move an offer.
 */
import { and, eq } from 'drizzle-orm';
import { tasks } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { recordEffect } from '../servicing/records';

/**
 * Completes the offer's open task of `taskType` (opened with dedupe key `hardship-offer/<offerId>/<taskType>`) with
 * `note` and the case effect `TASK_COMPLETED`, as `completeTask` does; nothing when it is absent or already closed.
 */
export async function completeOfferTask(
  tx: Tx,
  tenantId: string,
  offerId: number,
  taskType: string,
  actor: string,
  note: string,
  now: Date,
  correlationId: string | null | undefined,
): Promise<void> {
  const [task] = await tx
    .update(tasks)
    .set({ status: 'COMPLETED', completedAt: now, completedBy: actor, completionNote: note })
    .where(
      and(
        eq(tasks.tenantId, tenantId),
        eq(tasks.dedupeKey, `hardship-offer/${offerId}/${taskType}`),
        eq(tasks.status, 'OPEN'),
      ),
    )
    .returning();
  if (!task || task.caseId === null) return;
  await recordEffect(tx, {
    tenantId,
    caseId: task.caseId,
    effectType: 'TASK_COMPLETED',
    subjectType: 'task',
    subjectId: task.id,
    detail: { taskType: task.taskType, note },
    actor,
    correlationId: correlationId ?? null,
    occurredAt: now,
    dedupeKey: `task/${task.id}/completed`,
  });
}

/** The task a status opens on the case, if any. */
export function taskOfStatus(status: string): { taskType: string; title: string } | null {
  switch (status) {
    case 'PENDING_APPROVAL':
      return { taskType: 'HARDSHIP_OFFER_APPROVAL', title: 'Approve or reject hardship offer' };
    case 'SPECIALIST':
      return { taskType: 'HARDSHIP_SPECIALIST_REVIEW', title: 'Specialist review of hardship request' };
    case 'REFERRED':
      return { taskType: 'HARDSHIP_OFFER_REFERRAL', title: 'Referred hardship request' };
    default:
      return null;
  }
}
