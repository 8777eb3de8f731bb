/**
 * Promises to pay as a durable process (docs/processes.md P4 "Promises to pay"). Mounted at
 * `/v1/servicing/promises`. Creation stores the promise with its start intent (one transaction), then starts
 * `promiseWorkflow` through its client port and marks the intent started; should the process die in between, the
 * start-intent relay in a worker starts it (docs/processes.md P0), and a retry with the same Idempotency-Key returns
 * the same promise. Reads come from the database (the workflow writes the resolution there).
 */
import { getPromise, listPromises } from '../../../db/queries/servicing/promises';
import { notFound } from '../../../domain/errors';
import {
  createPromiseBody,
  listPromisesQuery,
  promiseIdParam,
  promiseListResponse,
  promiseResponse,
} from '../../../domain/servicing/schemas/promises';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: promises to pay'];

export const promiseRoutes = factory
  .createApp()
  /**
   * Takes a promise: 201 with the promise (`status: "PENDING"`, `deadlineAt`). caseId / loanId not of the tenant →
   * 404 naming them; a closed case or a loan that is not ACTIVE → 409; a currency other than the loan's → 400
   * `validation.msg.payment.currency.mismatch`; a malformed or over-precise amount, a promisedDate before today or
   * more than 90 days ahead (tenant time zone) → 400.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Take a promise to pay',
      description:
        "Stores the promise and starts its durable process (`promise/<tenant>/<promiseId>`), which watches the loan's POSTED payments value-dated from today until the end of `promisedDate` + 3 grace days (tenant time zone): once they reach `amount` the promise is KEPT at once (case effect `PROMISE_KEPT`, which lets the case close with outcome `PROMISE_KEPT`); at the deadline a part makes it PARTIALLY_KEPT, nothing BROKEN (each with a follow-up task on the case). Events `promise.created`, `promise.kept`, `promise.partially.kept`, `promise.broken`.",
      scope: 'servicing:write',
      permission: 'CREATE_PROMISETOPAY',
      mutation: true,
      responses: { 201: { description: 'Promise taken', schema: promiseResponse } },
    }),
    requires('servicing:write', 'CREATE_PROMISETOPAY'),
    noQuery(),
    ...jsonBody(createPromiseBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const { activities, startMarks, processes } = c.get('deps');
      const created = await activities.createPromiseToPay({ ...operationContext(c), ...body });
      await startAfterCommit(startMarks, created.workflow, (input) => processes.promises.start(input));
      return c.json(created.promise, 201);
    },
  )
  /** A case's promises newest first: `caseId` (required), `limit` (1–200), `offset` → `{items, limit, offset, hasMore}`. */
  .get(
    '/',
    doc({
      tags,
      summary: "List a case's promises to pay",
      scope: 'servicing:read',
      permission: 'READ_PROMISETOPAY',
      responses: { 200: { description: 'One page of promises, newest first', schema: promiseListResponse } },
    }),
    requires('servicing:read', 'READ_PROMISETOPAY'),
    queryParams(listPromisesQuery),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await listPromises(c.get('deps').db, c.get('tenantId'), query);
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
  /** One promise with its status, paid amount and deadline; another tenant's or unknown → 404. */
  .get(
    '/:promiseId',
    doc({
      tags,
      summary: 'Read a promise to pay',
      scope: 'servicing:read',
      permission: 'READ_PROMISETOPAY',
      responses: { 200: { description: 'The promise', schema: promiseResponse } },
    }),
    requires('servicing:read', 'READ_PROMISETOPAY'),
    pathParams(promiseIdParam),
    noQuery(),
    async (c) => {
      const { promiseId } = c.req.valid('param');
      const found = await getPromise(c.get('deps').db, c.get('tenantId'), promiseId);
      if (!found) throw notFound('Promise', promiseId);
      return c.json(found, 200);
    },
  );
