/**
 * Sandbox simulations of a payment's rail (docs/processes.md P1 "Sandbox simulations", after Increase's
 * `/simulations/ach_transfers/{id}/settle|return`). Mounted at `/v1/sandbox/payments`; every route answers 404
 * `error.msg.resource.not.found` outside the sandbox environment. Each delivers the event to the payment's
 * process (update `railEvent`), records it on the sandbox rail's own books (so its settlement report shows it,
 * activities/payments/record-sandbox-rail-event.ts `recordSandboxRailEvent`), and answers 200 with the payment as it stands once
 * the workflow has applied the event. A status that does not allow the event → 409
 * `error.msg.payment.invalid.state.transition`; another tenant's payment, or a payment recorded as external → 404.
 */
import type { Context } from 'hono';
import type { PaymentIntentView } from '../../../db/queries/payments/payments';
import { getPayment } from '../../../db/queries/payments/payments';
import { DomainError, notFound, validationError } from '../../../domain/errors';
import { lateReturnException, type RailEvent } from '../../../domain/payments/payment-intent';
import { isKnownReturnCode } from '../../../domain/payments/rails';
import {
  paymentIdParam,
  paymentIntentResponse,
  simulateFailBody,
  simulateReturnBody,
  simulateSettleBody,
} from '../../../domain/payments/schemas/payments';
import { PaymentProcessEndedError } from '../../../workflows/payments/payment-intent/client';
import { type AppEnv, factory } from '../../env';
import { requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { jsonBody, noQuery, pathParams } from '../../validation';

const tags = ['Sandbox: payment simulations'];

/** The intent `paymentId` of the caller's tenant; 404 outside sandbox, for a foreign or external payment. */
async function intentOf(c: Context<AppEnv>, paymentId: number): Promise<PaymentIntentView> {
  if (c.get('deps').config.environment !== 'sandbox') {
    throw new DomainError(
      'error.msg.resource.not.found',
      'Simulations exist only in the sandbox environment.',
    );
  }
  const payment = await getPayment(c.get('deps').db, c.get('tenantId'), paymentId);
  if (!payment || payment.rail === null) throw notFound('Payment intent', paymentId);
  return payment;
}

/** Delivers `event` to the payment's process, records it on the sandbox rail, answers the payment as it stands. */
async function simulate(c: Context<AppEnv>, payment: PaymentIntentView, event: RailEvent) {
  const { processes, activities, db } = c.get('deps');
  const tenantId = c.get('tenantId');
  const ref = { tenantId, paymentId: payment.paymentId };
  try {
    await processes.paymentIntents.railEvent(ref, event);
  } catch (err) {
    // A return after the process ended (its window and grace are over): nothing is reversed; the return goes to
    // reconciliation as RETURN_NOT_REVERSED (docs/processes.md P1), and the payment stays as it is.
    if (
      !(err instanceof PaymentProcessEndedError && event.type === 'RETURNED' && payment.status === 'POSTED')
    ) {
      throw err;
    }
    await activities.openReconciliationException(
      lateReturnException({
        tenantId,
        paymentId: payment.paymentId,
        providerRef: payment.providerRef,
        returnCode: event.returnCode,
        returnedOn: event.returnedOn,
      }),
    );
  }
  await activities.recordSandboxRailEvent({ ...ref, event });
  const after = await getPayment(db, tenantId, payment.paymentId);
  return c.json(after, 200);
}

const today = (c: Context<AppEnv>) => c.get('deps').clock().toISOString().slice(0, 10);

export const sandboxPaymentRoutes = factory
  .createApp()
  /** Settles the payment: optional `{amount}` simulates a settlement of another amount (a reconciliation exception). */
  .post(
    '/:paymentId/settle',
    doc({
      tags,
      summary: 'Simulate the settlement of a payment (sandbox)',
      description:
        'The rail settles the payment today. With `amount` other than the intent’s, the workflow opens a SETTLED_NOT_POSTED reconciliation exception and waits for its resolution.',
      scope: 'lending:write',
      permission: 'SIMULATE_PAYMENT',
      mutation: true,
      responses: {
        200: {
          description: 'The payment once the workflow applied the settlement',
          schema: paymentIntentResponse,
        },
      },
    }),
    requires('lending:write', 'SIMULATE_PAYMENT'),
    pathParams(paymentIdParam),
    noQuery(),
    ...jsonBody(simulateSettleBody),
    idempotent(),
    async (c) => {
      const payment = await intentOf(c, c.req.valid('param').paymentId);
      const body = c.req.valid('json');
      return simulate(c, payment, {
        type: 'SETTLED',
        amount: body.amount ?? payment.amount,
        settledOn: today(c),
      });
    },
  )
  /** Returns a posted payment with `{returnCode}` (a code the payment's rail knows, else 400). */
  .post(
    '/:paymentId/return',
    doc({
      tags,
      summary: 'Simulate the return of a payment (sandbox)',
      description:
        "The rail returns the payment today with `returnCode`. Inside the code's window the posting is reversed (RETURNED, `payment.returned`); after it, a RETURN_NOT_REVERSED reconciliation exception is opened and nothing is reversed.",
      scope: 'lending:write',
      permission: 'SIMULATE_PAYMENT',
      mutation: true,
      responses: {
        200: {
          description: 'The payment once the workflow applied the return',
          schema: paymentIntentResponse,
        },
      },
    }),
    requires('lending:write', 'SIMULATE_PAYMENT'),
    pathParams(paymentIdParam),
    noQuery(),
    ...jsonBody(simulateReturnBody),
    idempotent(),
    async (c) => {
      const payment = await intentOf(c, c.req.valid('param').paymentId);
      const { returnCode } = c.req.valid('json');
      if (payment.rail === null || !isKnownReturnCode(payment.rail, returnCode)) {
        throw validationError(
          'returnCode',
          returnCode,
          `returnCode ${returnCode} is not a return code of the ${payment.rail} rail.`,
        );
      }
      return simulate(c, payment, { type: 'RETURNED', returnCode, returnedOn: today(c) });
    },
  )
  /** Fails a submitted payment before settlement with `{reason}`. */
  .post(
    '/:paymentId/fail',
    doc({
      tags,
      summary: 'Simulate a failure of a payment before settlement (sandbox)',
      scope: 'lending:write',
      permission: 'SIMULATE_PAYMENT',
      mutation: true,
      responses: {
        200: {
          description: 'The payment once the workflow applied the failure',
          schema: paymentIntentResponse,
        },
      },
    }),
    requires('lending:write', 'SIMULATE_PAYMENT'),
    pathParams(paymentIdParam),
    noQuery(),
    ...jsonBody(simulateFailBody),
    idempotent(),
    async (c) => {
      const payment = await intentOf(c, c.req.valid('param').paymentId);
      return simulate(c, payment, { type: 'FAILED', reason: c.req.valid('json').reason });
    },
  );
