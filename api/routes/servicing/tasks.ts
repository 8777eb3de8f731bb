/** Tasks. Mounted at `/v1/servicing/tasks`. */
import { getTask, listTasks } from '../../../db/queries/servicing/servicing';
import { notFound } from '../../../domain/errors';
import {
  completeTaskBody,
  listTasksQuery,
  taskIdParam,
  taskListResponse,
  taskResponse,
} from '../../../domain/servicing/schemas/servicing';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: tasks'];

export const taskRoutes = factory
  .createApp()
  /** Tasks newest first: `caseId`, `status`, `limit` (1–200), `offset` → `{items, limit, offset, hasMore}`. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List tasks',
      scope: 'servicing:read',
      permission: 'READ_TASK',
      responses: { 200: { description: 'One page of tasks', schema: taskListResponse } },
    }),
    requires('servicing:read', 'READ_TASK'),
    queryParams(listTasksQuery),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await listTasks(c.get('deps').db, c.get('tenantId'), query);
      return c.json(
        {
          items: rows.slice(0, query.limit),
          limit: query.limit,
          offset: query.offset,
          hasMore: rows.length > query.limit,
        },
        200,
      );
    },
  )
  .get(
    '/:taskId',
    doc({
      tags,
      summary: 'Read a task',
      scope: 'servicing:read',
      permission: 'READ_TASK',
      responses: { 200: { description: 'The task', schema: taskResponse } },
    }),
    requires('servicing:read', 'READ_TASK'),
    pathParams(taskIdParam),
    noQuery(),
    async (c) => {
      const { taskId } = c.req.valid('param');
      const found = await getTask(c.get('deps').db, c.get('tenantId'), taskId);
      if (!found) throw notFound('Task', taskId);
      return c.json(found, 200);
    },
  )
  /** Completes an open task → `{resourceId, changes: {status: "COMPLETED"}}`; not open → 409. */
  .post(
    '/:taskId/complete',
    doc({
      tags,
      summary: 'Complete a task',
      scope: 'servicing:write',
      permission: 'COMPLETE_TASK',
      mutation: true,
      responses: { 200: { description: 'Task completed' } },
    }),
    requires('servicing:write', 'COMPLETE_TASK'),
    pathParams(taskIdParam),
    noQuery(),
    ...jsonBody(completeTaskBody),
    idempotent(),
    async (c) => {
      const { taskId } = c.req.valid('param');
      const { note } = c.req.valid('json');
      const result = await c
        .get('deps')
        .activities.completeTask({ ...operationContext(c), taskId, note: note ?? null });
      return c.json({ resourceId: result.taskId, changes: { status: result.status } }, 200);
    },
  );
