import { and, eq } from 'drizzle-orm';
import { tasks } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import type { Deps, OperationContext } from '../deps';
import { recordEffect } from './records';

export interface CompleteTaskInput extends OperationContext {
  taskId: number;
  note?: string | null;
}

/**
 * Completes an open task; a task on a case appends `TASK_COMPLETED` to its effects.
 * Errors: 404 when the task is not the tenant's; 409 `error.msg.task.invalid.state.transition`
 * when it is no longer open.
 */
export function completeTask(deps: Deps) {
  return async (input: CompleteTaskInput): Promise<{ taskId: number; status: 'COMPLETED' }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [task] = await tx
        .select()
        .from(tasks)
        .where(and(eq(tasks.tenantId, input.tenantId), eq(tasks.id, input.taskId)))
        .for('update');
      if (!task) throw notFound('Task', input.taskId);
      if (task.status !== 'OPEN') {
        throw new DomainError(
          'error.msg.task.invalid.state.transition',
          `Task ${input.taskId} is already ${task.status}.`,
        );
      }
      const now = deps.clock();
      await tx
        .update(tasks)
        .set({
          status: 'COMPLETED',
          completedAt: now,
          completedBy: input.actor ?? null,
          completionNote: input.note ?? null,
        })
        .where(and(eq(tasks.tenantId, input.tenantId), eq(tasks.id, input.taskId)));
      if (task.caseId !== null) {
        await recordEffect(tx, {
          tenantId: input.tenantId,
          caseId: task.caseId,
          effectType: 'TASK_COMPLETED',
          subjectType: 'task',
          subjectId: task.id,
          detail: { taskType: task.taskType, note: input.note ?? null },
          actor: input.actor,
          correlationId: input.correlationId,
          occurredAt: now,
          dedupeKey: `task/${task.id}/completed`,
        });
      }
      return { taskId: task.id, status: 'COMPLETED' };
    });
}
