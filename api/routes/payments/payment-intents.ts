/**
 * Payment intents (spec § Lending core writes `POST /v1/loans/{loanId}/payments`, § States, § Errors,
 * § Limits; docs/design.md §5 rejections, rails and statuses; docs/processes.md P1). Mounted at `/v1/loans` beside the loan
 * money routes (which own the payments list and record-external). Creation stores the intent with its start
 * intent (one transaction), then starts `paymentIntentWorkflow` through its client port and marks the start intent
 * done; should the process die in between, the start-intent relay in a worker starts it (docs/processes.md P0),
 * and a retry with the same Idempotency-Key returns the same intent. Every later change of the payment goes
 * through its workflow (updates), which owns its state.
 */
import { getLoanPayment } from '../../../db/queries/payments/payments';
import { notFound } from '../../../domain/errors';
import {
  cancelPaymentBody,
  createPaymentBody,
  loanPaymentParams,
  paymentDetailResponse,
  paymentIntentResponse,
} from '../../../domain/payments/schemas/payments';
import { loanIdParam } from '../../../domain/validation/money';
import { factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, pathParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: payment intents'];

/*
 * `{paymentId}` is any path segment but `record-external` (written without a `/`, which the OpenAPI path
 * conversion splits on): `/payments/record-external` stays the record-external route alone, so a GET of it is a
 * 405 naming POST, while any other id reaches the handler's validation (a 400 naming `paymentId`).
 */

export const paymentIntentRoutes = factory
  .createApp()
  /**
   * Creates a payment intent → 201 `{paymentId, resourceId, loanId, loanRef, instrumentId, amount, currency, rail,
   * effectiveDate, source, status, providerRef, returnCode, createdAt}` with status CREATED (activities/payments/
   * create-payment-intent.ts `createPaymentIntent`). 409 `error.msg.loan.payment.hold.active`,
   * `error.msg.loan.payment.amount.exceeds.outstanding`, `error.msg.payment.instrument.not.eligible`,
   * `error.msg.loan.invalid.state.transition` (loan not ACTIVE); 400 for a currency other than the loan's
   * (`validation.msg.payment.currency.mismatch`), too many decimals, an unknown rail, an `effectiveDate` outside the
   * rail's bounds (not in the past except a CHECK up to five business days back, at most 30 days ahead); 404 for
   * another tenant's loan.
   */
  .post(
    '/:loanId/payments',
    doc({
      tags,
      summary: 'Create a payment intent',
      description:
        "Checks the rules under the loan's lock (instrument VERIFIED and ACTIVE and the borrower's or a co-borrower's; no PAYMENT_HOLD; amount plus the intents in flight not above the total outstanding), stores the intent (CREATED: its amount is reserved) and starts its durable process `payment-intent/<tenant>/<paymentId>`: submission to the rail on the submission date of `effectiveDate`, SUBMITTED, then POSTED on settlement (value-dated to `effectiveDate`, `payment.posted`), RETURNED on a return inside the rail's window (`payment.returned`), or FAILED (`payment.failed`).",
      scope: 'lending:write',
      permission: 'CREATE_LMS_PAYMENT',
      mutation: true,
      responses: { 201: { description: 'Intent created (status CREATED)', schema: paymentIntentResponse } },
    }),
    requires('lending:write', 'CREATE_LMS_PAYMENT'),
    pathParams(loanIdParam),
    noQuery(),
    ...jsonBody(createPaymentBody),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const { activities, platform, processes } = c.get('deps');
      const created = await activities.createPaymentIntent({ ...operationContext(c), loanId, ...body });
      await startAfterCommit(platform, created.workflow, (input) => processes.paymentIntents.start(input));
      return c.json(created.payment, 201);
    },
  )
  /**
   * One payment of the loan (an intent or a payment recorded as external) with its status history, oldest first:
   * 200 `{…payment, history: [{status, at, detail}]}`; not the tenant's, or not of this loan → 404.
   */
  .get(
    '/:loanId/payments/:paymentId{(?!record-external$)[^\\x2f]+}',
    doc({
      tags,
      summary: 'Read a payment with its status history',
      scope: 'lending:read',
      permission: 'READ_LMS_PAYMENT',
      responses: { 200: { description: 'The payment and its history', schema: paymentDetailResponse } },
    }),
    requires('lending:read', 'READ_LMS_PAYMENT'),
    pathParams(loanPaymentParams),
    noQuery(),
    async (c) => {
      const { loanId, paymentId } = c.req.valid('param');
      const found = await getLoanPayment(c.get('deps').db, c.get('tenantId'), loanId, paymentId);
      if (!found) throw notFound('Payment', paymentId);
      return c.json(found, 200);
    },
  )
  /**
   * Cancels an intent not yet submitted to its rail (CREATED → CANCELLED, docs/design.md §5) through its process (update
   * `cancelPayment`) → 200 with the payment; any other status → 409 `error.msg.payment.invalid.state.transition`;
   * not the tenant's or not of this loan → 404.
   */
  .post(
    '/:loanId/payments/:paymentId{(?!record-external$)[^\\x2f]+}/cancel',
    doc({
      tags,
      summary: 'Cancel a payment intent before submission',
      scope: 'lending:write',
      permission: 'CANCEL_LMS_PAYMENT',
      mutation: true,
      responses: { 200: { description: 'Cancelled', schema: paymentIntentResponse } },
    }),
    requires('lending:write', 'CANCEL_LMS_PAYMENT'),
    pathParams(loanPaymentParams),
    noQuery(),
    ...jsonBody(cancelPaymentBody),
    idempotent(),
    async (c) => {
      const { loanId, paymentId } = c.req.valid('param');
      const body = c.req.valid('json');
      const tenantId = c.get('tenantId');
      const { db, processes } = c.get('deps');
      const before = await getLoanPayment(db, tenantId, loanId, paymentId);
      if (!before || before.rail === null) throw notFound('Payment intent', paymentId);
      await processes.paymentIntents.cancel({ tenantId, paymentId }, body.reason ?? null);
      const after = await getLoanPayment(db, tenantId, loanId, paymentId);
      if (!after) throw notFound('Payment intent', paymentId);
      const { history: _history, ...payment } = after;
      return c.json(payment, 200);
    },
  );
