/**
 * Autopay (docs/processes.md P1 Autopay; docs/lending.md "Autopay": "Autopay enrollment carries
 * authorizationRef and never backfills history"; docs/design.md §5 Holds). Mounted at
 * `/v1/loans/{loanId}/autopay`. Enrolment stores the enrolment with the start intent of
 * `autopay/<tenant>/<loanId>` (one transaction), then starts the process through its client port (signal-with-start) and marks the start intent done; should the
 * process die in between, the start-intent relay starts it (docs/processes.md P0). Cancel changes the stored
 * enrolment (the source of truth) and then signals the process, which re-plans and ends.
 */
import { getLoanAutopay } from '../../../db/queries/payments/autopay';
import { notFound } from '../../../domain/errors';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import {
  autopayEnrolmentResponse,
  cancelAutopayBody,
  enrolAutopayBody,
} from '../../../domain/payments/schemas/autopay';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, optionalJsonBody, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: autopay'];

/** The autopay routes, mounted at `/v1/loans/{loanId}/autopay` (api/app.ts). */
export const autopayRoutes = factory
  .createApp()
  /**
   * Enrols the loan in autopay → 201 `{enrolmentId, resourceId, loanId, loanRef, instrumentId, authorizationRef,
   * rail, amountType, fixedAmount, currency, daysBeforeDue, status: "ACTIVE", enrolledAt, enrolledOn, cancelledAt}`
   * (activities/payments/enrol-autopay.ts `enrolAutopay`). 400 for a FIXED enrolment without `fixedAmount` (or one with
   * it otherwise), an unknown rail or amountType, `daysBeforeDue` not an integer in 0..15, an identifier-looking or
   * empty `authorizationRef`, a `fixedAmount` with more digits than the loan's currency; 409
   * `error.msg.loan.autopay.already.active`, `error.msg.payment.instrument.not.eligible`,
   * `error.msg.loan.invalid.state.transition` (loan not ACTIVE); 404 for another tenant's loan.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Enrol a loan in autopay',
      description:
        "Stores the enrolment (at most one ACTIVE per loan) and starts the durable process `autopay/<tenant>/<loanId>`: for each installment due after the enrolment date (never earlier ones), on the due date minus `daysBeforeDue` it creates a payment intent (source AUTOPAY) with the enrolment's instrument and rail for what the installment still owes (INSTALLMENT_DUE) or `fixedAmount` (FIXED); while a PAYMENT_HOLD is in force the installment is skipped and a case effect and a task record it.",
      scope: 'lending:write',
      permission: 'CREATE_LMS_AUTOPAY',
      mutation: true,
      responses: { 201: { description: 'Enrolled (status ACTIVE)', schema: autopayEnrolmentResponse } },
    }),
    requires('lending:write', 'CREATE_LMS_AUTOPAY'),
    pathParams(loanIdParam),
    noQuery(),
    ...jsonBody(enrolAutopayBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { activities, startMarks, processes } = c.get('deps');
      const enrolled = await activities.enrolAutopay({ ...operationContext(c), loanId, ...body });
      if (enrolled.created) {
        await startAfterCommit(startMarks, enrolled.workflow, (input) => processes.autopay.start(input));
      }
      return c.json(enrolled.enrolment, 201);
    },
  )
  /**
   * The loan's enrolment → 200 (the ACTIVE one, else the most recent, CANCELLED); 404 when the loan never had one
   * or is not the tenant's.
   */
  .get(
    '/',
    doc({
      tags,
      summary: "Read the loan's autopay enrolment",
      scope: 'lending:read',
      permission: 'READ_LMS_AUTOPAY',
      responses: { 200: { description: 'The enrolment', schema: autopayEnrolmentResponse } },
    }),
    requires('lending:read', 'READ_LMS_AUTOPAY'),
    pathParams(loanIdParam),
    noQuery(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const found = await getLoanAutopay(c.get('deps').db, c.get('tenantId'), loanId);
      if (!found) throw notFound('Autopay enrolment of loan', loanId);
      return c.json(found, 200);
    },
  )
  /**
   * Cancels the loan's ACTIVE enrolment → 200 with status CANCELLED (a repeat answers the cancelled enrolment);
   * the process is signalled and ends without creating another intent (intents already created are not touched:
   * cancel them through `POST /v1/loans/{loanId}/payments/{paymentId}/cancel`). 404 when the loan never had an
   * enrolment or is not the tenant's.
   */
  .post(
    '/cancel',
    doc({
      tags,
      summary: "Cancel the loan's autopay",
      scope: 'lending:write',
      permission: 'CANCEL_LMS_AUTOPAY',
      mutation: true,
      responses: { 200: { description: 'Cancelled', schema: autopayEnrolmentResponse } },
    }),
    requires('lending:write', 'CANCEL_LMS_AUTOPAY'),
    pathParams(loanIdParam),
    noQuery(),
    ...optionalJsonBody(cancelAutopayBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const { activities, processes } = c.get('deps');
      const ctx = operationContext(c);
      const result = await activities.cancelAutopay({ ...ctx, loanId });
      await processes.autopay.enrolmentChanged({ tenantId: ctx.tenantId, loanId });
      return c.json(result.enrolment, 200);
    },
  );
