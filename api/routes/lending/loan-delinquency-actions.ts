/**
 * Delinquency actions of a loan (Apache Fineract `LoansApiResource`: `/v1/loans/{loanId}/delinquency-actions`,
 * `LoanDelinquencyActionData`; docs/lending.md "Delinquency configuration"). Mounted at
 * `/v1/loans/{loanId}/delinquency-actions` (api/app.ts); every route of that path is here.
 */
import { listDelinquencyActions } from '../../../db/queries/lending/delinquency-configuration';
import { notFound } from '../../../domain/errors';
import {
  createDelinquencyActionBody,
  createdResourceResponse,
  delinquencyActionListResponse,
} from '../../../domain/lending/schemas/delinquency-configuration';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: delinquency'];

export const loanDelinquencyActionRoutes = factory
  .createApp()
  /**
   * Pauses or resumes a loan's delinquency: body `{action: "pause" | "resume", startDate, endDate?, locale?,
   * dateFormat?}` (ISO dates) → 201 `{resourceId}`. 404 for another tenant's loan; 400 naming the field, with
   * Fineract's code, for a loan that is not ACTIVE, a pause without an `endDate` after its `startDate`, starting before
   * the disbursement or overlapping another pause, a resume with an `endDate`, not on the loan's business date, or
   * outside an active pause.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Pause or resume a loan’s delinquency',
      scope: 'lending:write',
      permission: 'CREATE_DELINQUENCY_ACTION',
      mutation: true,
      responses: { 201: { description: 'Action recorded', schema: createdResourceResponse } },
    }),
    requires('lending:write', 'CREATE_DELINQUENCY_ACTION'),
    pathParams(loanIdParam),
    noQuery(),
    ...jsonBody(createDelinquencyActionBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const { action, startDate, endDate } = c.req.valid('json');
      const result = await c.get('deps').activities.createLoanDelinquencyAction({
        ...operationContext(c),
        loanId,
        action,
        startDate,
        endDate,
      });
      return c.json({ resourceId: result.actionId }, 201);
    },
  )
  /** The loan's actions, oldest first: 200 `[{id, action: PAUSE | RESUME, startDate, endDate, createdOn}]`; 404 for another tenant's loan. */
  .get(
    '/',
    doc({
      tags,
      summary: 'List a loan’s delinquency actions',
      scope: 'lending:read',
      permission: 'READ_LOAN',
      responses: { 200: { description: 'The actions', schema: delinquencyActionListResponse } },
    }),
    requires('lending:read', 'READ_LOAN'),
    pathParams(loanIdParam),
    noQuery(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const found = await listDelinquencyActions(c.get('deps').db, c.get('tenantId'), loanId);
      if (!found) throw notFound('Loan', loanId);
      return c.json(found, 200);
    },
  );
