/**
 * Privacy requests as a durable process (docs/servicing.md "Privacy requests in Temporal").
 * Mounted at `/v1/servicing/privacy-requests`. Creation stores the request with its start intent
 * (one transaction), then starts `privacyRequestWorkflow` through its client port and marks the
 * intent started; should the process die in between, the start-intent relay in a worker starts it
 * (docs/processes.md P0), and a retry with the same Idempotency-Key returns the same request.
 * Fulfilment goes to the workflow as an update (update-with-start).
 */
import { getPrivacyRequest } from '../../../db/queries/servicing/servicing';
import { reminderLeadDays } from '../../../domain/deadlines';
import { DomainError, notFound } from '../../../domain/errors';
import {
  isTerminalPrivacyStatus,
  type PrivacyRequestWorkflowInput,
} from '../../../domain/servicing/privacy-request';
import {
  createdPrivacyRequestResponse,
  createPrivacyRequestBody,
  fulfilPrivacyRequestBody,
  fulfilResponse,
  privacyRequestResponse,
  requestIdParam,
} from '../../../domain/servicing/schemas/servicing';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Servicing: privacy requests'];

export const privacyRequestRoutes = factory
  .createApp()
  /**
   * Receives a request: 201 `{requestId, status: "RECEIVED", statutoryDueAt, reviewTaskId,
   * resourceId}`; caseId / sourceInteractionId not of the tenant → 404; a closed case, or a case or interaction of
   * another customer → 409.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Receive a privacy request',
      description:
        'Stores the request, opens a review task and starts its durable process (`privacy-request/<tenant>/<requestId>`), which raises a reminder 10 days before `statutoryDueAt` and marks the request OVERDUE at that time without an outcome.',
      scope: 'servicing:write',
      permission: 'CREATE_PRIVACYREQUEST',
      mutation: true,
      responses: { 201: { description: 'Request received', schema: createdPrivacyRequestResponse } },
    }),
    requires('servicing:write', 'CREATE_PRIVACYREQUEST'),
    noQuery(),
    ...jsonBody(createPrivacyRequestBody),
    idempotent({ claimInOperation: true }),
    async (c) => {
      const body = c.req.valid('json');
      const { activities, startMarks, processes } = c.get('deps');
      const opened = await activities.openPrivacyRequest({ ...operationContext(c), ...body });
      await startAfterCommit(startMarks, opened.workflow, (input) => processes.privacyRequests.start(input));
      return c.json(
        {
          requestId: opened.requestId,
          status: opened.status,
          statutoryDueAt: opened.statutoryDueAt,
          reviewTaskId: opened.reviewTaskId,
          resourceId: opened.requestId,
        },
        201,
      );
    },
  )
  .get(
    '/:requestId',
    doc({
      tags,
      summary: 'Read a privacy request',
      scope: 'servicing:read',
      permission: 'READ_PRIVACYREQUEST',
      responses: {
        200: {
          description: 'The request with its status, due time and evidence ids',
          schema: privacyRequestResponse,
        },
      },
    }),
    requires('servicing:read', 'READ_PRIVACYREQUEST'),
    pathParams(requestIdParam),
    noQuery(),
    async (c) => {
      const { requestId } = c.req.valid('param');
      const found = await getPrivacyRequest(c.get('deps').db, c.get('tenantId'), requestId);
      if (!found) throw notFound('Privacy request', requestId);
      const { workflowId: _workflowId, ...view } = found;
      return c.json(view, 200);
    },
  )
  /**
   * Records the outcome (spec: RECEIVED → FULFILLED, evidence ids attached) → 200
   * `{resourceId, changes: {status}}`; unknown evidence → 400; a second outcome → 409.
   */
  .post(
    '/:requestId/fulfill',
    doc({
      tags,
      summary: 'Fulfil a privacy request',
      scope: 'servicing:write',
      permission: 'FULFILL_PRIVACYREQUEST',
      mutation: true,
      responses: { 200: { description: 'Outcome recorded', schema: fulfilResponse } },
    }),
    requires('servicing:write', 'FULFILL_PRIVACYREQUEST'),
    pathParams(requestIdParam),
    noQuery(),
    ...jsonBody(fulfilPrivacyRequestBody),
    idempotent(),
    async (c) => {
      const { requestId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { db, processes } = c.get('deps');
      const tenantId = c.get('tenantId');
      const found = await getPrivacyRequest(db, tenantId, requestId);
      if (!found) throw notFound('Privacy request', requestId);
      if (isTerminalPrivacyStatus(found.status)) {
        throw new DomainError(
          'error.msg.privacy.request.invalid.state.transition',
          `Privacy request ${requestId} is already ${found.status}.`,
        );
      }
      const input: PrivacyRequestWorkflowInput = {
        tenantId,
        requestId,
        caseId: found.caseId,
        customerRef: found.customerRef,
        regime: found.regime as PrivacyRequestWorkflowInput['regime'],
        statutoryDueAt: found.statutoryDueAt,
        dueAtMs: Date.parse(found.statutoryDueAt),
        reminderAtMs: Date.parse(found.statutoryDueAt) - reminderLeadDays * 86_400_000,
      };
      const { actor, correlationId } = operationContext(c);
      const result = await processes.privacyRequests.fulfil(input, {
        ...body,
        actor: actor ?? null,
        correlationId: correlationId ?? null,
      });
      return c.json({ resourceId: result.requestId, changes: { status: result.status } }, 200);
    },
  );
