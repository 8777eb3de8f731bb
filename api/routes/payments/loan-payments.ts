/**
 * A loan's payments (OpenAPI `POST /v1/loans/{loanId}/payments` and payments recorded as
 * external; docs/lending.md "Lending core": payments; docs/design.md §5 Enumerations; docs/design.md §4 Errors; docs/design.md §4 Paging; docs/design.md §5 rejections, rails and
 * statuses; docs/processes.md P1). Mounted at `/v1/loans/{loanId}/payments` (api/app.ts); every route of that path
 * is here.
 *
 * Payment intents: creation stores the intent with its start intent (one transaction), then starts
 * `paymentIntentWorkflow` through its client port and marks the start intent done; should the process die in
 * between, the start-intent relay in a worker starts it (docs/processes.md P0), and a retry with the same
 * Idempotency-Key returns the same intent. Every later change of the payment goes through its workflow (updates),
 * which owns its state.
 *
 * Payments recorded as external post at once. Replays: the Idempotency-Key middleware answers a retry under the
 * same key with the original status and body (`x-served-from-cache: true`). A retry under another key (or none)
 * with the same `externalRecordRef` and the same content is answered by the operation with the same status, 201,
 * and the payment as it stands (its current allocation); the same `externalRecordRef` with other content → 409
 * `error.msg.external.record.ref.conflict`.
 */
import { listLoanPayments } from '../../../db/queries/lending/ledger';
import { getLoanPayment } from '../../../db/queries/payments/payments';
import { pendingPromiseIdsOfLoan } from '../../../db/queries/servicing/promises';
import { notFound } from '../../../domain/errors';
import { loanIdParam } from '../../../domain/lending/schemas/loans';
import {
  cancelPaymentBody,
  createPaymentBody,
  loanPaymentParams,
  paymentDetailResponse,
  paymentIntentResponse,
} from '../../../domain/payments/schemas/payments';
import {
  externalPaymentOf,
  listPaymentsQuery,
  paymentListResponse,
  recordedPaymentResponse,
  recordPaymentBody,
} from '../../../domain/payments/schemas/recorded-payments';
import { redactedMoneyFields } from '../../../domain/validation/money';
import { type AppDeps, factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, pathParams, queryParams, redactingJsonBody } from '../../validation';
import { operationContext } from '../context';
import { signalLoanChanged } from '../hardship/hardship-signals';

/** OpenAPI tags: intents and recorded payments keep their own groups in the document. */
const intentTags = ['Lending: payment intents'];
const moneyTags = ['Lending: loan money'];

/**
 * After a payment of `loanId` committed: signals `paymentPosted` to the loan's PENDING promise processes
 * (docs/processes.md P4). Best effort: a failure is logged and the answer stands, since each promise re-reads the
 * loan's payments at its deadline.
 */
async function signalPendingPromises(deps: AppDeps, tenantId: string, loanId: number, paymentId: number) {
  try {
    const promiseIds = await pendingPromiseIdsOfLoan(deps.db, tenantId, loanId);
    if (promiseIds.length === 0) return;
    const { failed } = await deps.processes.promises.notifyPaymentPosted(tenantId, promiseIds, { paymentId });
    for (const { promiseId, error } of failed) {
      deps.logger.warn({ promiseId, loanId, paymentId, err: error }, 'promise process not signalled');
    }
  } catch (err) {
    deps.logger.warn({ loanId, paymentId, err }, 'pending promises of the loan not signalled');
  }
}

/*
 * `{paymentId}` is any path segment but `record-external` (written without a `/`, which the OpenAPI path
 * conversion splits on): `/payments/record-external` stays the record-external route alone, so a GET of it is a
 * 405 naming POST, while any other id reaches the handler's validation (a 400 naming `paymentId`).
 */

export const loanPaymentRoutes = factory
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
    '/',
    doc({
      tags: intentTags,
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
      const { activities, startMarks, processes } = c.get('deps');
      const created = await activities.createPaymentIntent({ ...operationContext(c), loanId, ...body });
      await startAfterCommit(startMarks, created.workflow, (input) => processes.paymentIntents.start(input));
      return c.json(created.payment, 201);
    },
  )
  /**
   * The loan's payments newest first (effective date, then recording order): `status`, `limit` (1–200, default
   * 50), `offset` → `{items: [{paymentId, loanRef, status, amount, currency, effectiveDate, allocation}]}`;
   * another tenant's loan → 404.
   */
  .get(
    '/',
    doc({
      tags: moneyTags,
      summary: "List a loan's payments",
      scope: 'lending:read',
      permission: 'READ_LMS_PAYMENT',
      responses: { 200: { description: 'One page of payments, newest first', schema: paymentListResponse } },
    }),
    requires('lending:read', 'READ_LMS_PAYMENT'),
    pathParams(loanIdParam),
    queryParams(listPaymentsQuery),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const filter = c.req.valid('query');
      const items = await listLoanPayments(c.get('deps').db, c.get('tenantId'), loanId, filter);
      if (items === null) throw notFound('Loan', loanId);
      return c.json({ items }, 200);
    },
  )
  /**
   * Records a payment received outside the system and posts it → 201 `{resourceId, paymentId, loanId, status:
   * "POSTED", amount, currency, effectiveDate, allocation: {principal, interest, fee, penalty, overpayment}}`
   * (activities/payments/record-external-payment.ts). Value-dated to `effectiveDate` and allocated by the loan's
   * strategy; a back-dated payment re-allocates the later ones. A payment of at least the summary's payoff quote
   * for its `effectiveDate` pays the loan off (later interest, fees and penalties waived; the loan closes; any
   * excess is an overpayment). The loan must be ACTIVE (else 409
   * `error.msg.loan.invalid.state.transition`); a PAYMENT_HOLD does not block it. 400 for too many decimals, a
   * currency other than the loan's (`validation.msg.payment.currency.mismatch`), an `effectiveDate` before the
   * first funding or in the future, identifier-looking text; 404 for another tenant's loan.
   */
  .post(
    '/record-external',
    doc({
      tags: moneyTags,
      summary: 'Record an external payment',
      description:
        "Posted to the ledger value-dated to `effectiveDate` and allocated across installments by the loan's strategy; a back-dated payment re-allocates the later ones (reversing and re-posting their journal entries). `source` is `IMPORT` for boarded history. `externalRecordRef` is unique per tenant for ever: the same content returns the payment as it stands (201), other content → 409. `payment.posted` is emitted.",
      scope: 'lending:write',
      permission: 'RECORD_LMS_PAYMENT',
      mutation: true,
      responses: {
        201: { description: 'Payment posted (or the same record replayed)', schema: recordedPaymentResponse },
      },
    }),
    requires('lending:write', 'RECORD_LMS_PAYMENT'),
    pathParams(loanIdParam),
    noQuery(),
    ...redactingJsonBody(recordPaymentBody, redactedMoneyFields),
    idempotent(),
    async (c) => {
      const { loanId } = c.req.valid('param');
      const body = c.req.valid('json');
      const result = await c.get('deps').activities.recordExternalPayment({
        ...operationContext(c),
        loanId,
        ...externalPaymentOf(body),
      });
      await signalPendingPromises(c.get('deps'), c.get('tenantId'), loanId, result.paymentId);
      await signalLoanChanged(
        c.get('deps'),
        c.get('tenantId'),
        { loanId },
        {
          kind: 'PAYMENT',
          resourceId: result.paymentId,
        },
      );
      return c.json(
        {
          resourceId: result.paymentId,
          paymentId: result.paymentId,
          loanId: result.loanId,
          status: result.status,
          amount: result.amount,
          currency: result.currency,
          effectiveDate: result.effectiveDate,
          allocation: result.allocation,
        },
        201,
      );
    },
  )
  /**
   * One payment of the loan (an intent or a payment recorded as external) with its status history, oldest first:
   * 200 `{…payment, history: [{status, at, detail}]}`; not the tenant's, or not of this loan → 404.
   */
  .get(
    '/:paymentId{(?!record-external$)[^\\x2f]+}',
    doc({
      tags: intentTags,
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
    '/:paymentId{(?!record-external$)[^\\x2f]+}/cancel',
    doc({
      tags: intentTags,
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
