/**
 * The typed port to the payment-intent process (docs/processes.md P0 "one folder per process"; P1): the API (and a
 * provider webhook, in production) reach `paymentIntentWorkflow` only through this. Start options come from
 * `paymentIntentStartSpec` (the same spec `createPaymentIntent` stores as its start intent) via
 * `workflows/common/client-start.ts`. Imports `@temporalio/client`: never part of the workflow bundle.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { DomainError } from '../../../domain/errors';
import { paymentIntentWorkflowId } from '../../../domain/ids';
import {
  type PaymentIntentState,
  type PaymentIntentWorkflowInput,
  paymentIntentStartSpec,
  type RailEvent,
} from '../../../domain/payments/payment-intent';
import { toDomainError } from '../../common/client-errors';
import { startWorkflowOf } from '../../common/client-start';
import {
  cancelPaymentUpdate,
  getStateQuery,
  type ResolveSettlementArgs,
  railEventUpdate,
  resolveSettlementUpdate,
} from './messages';
import type { paymentIntentWorkflow } from './workflow';

/** Which payment's process. */
export interface PaymentProcessRef {
  tenantId: string;
  paymentId: number;
}

export interface PaymentIntentClient {
  /**
   * Starts the payment's workflow (id `payment-intent/<tenant>/<paymentId>`); a no-op when it already runs or ran.
   * Errors: 503 when Temporal is unreachable.
   */
  start(input: PaymentIntentWorkflowInput): Promise<void>;
  /**
   * Delivers a rail outcome (update `railEvent`) and answers the state once the workflow applied it. Errors: 409
   * `error.msg.payment.invalid.state.transition` when the status does not allow it, as a `PaymentProcessEndedError`
   * when the process has ended; 503 when Temporal is unreachable.
   */
  railEvent(ref: PaymentProcessRef, event: RailEvent): Promise<PaymentIntentState>;
  /** Cancels a payment not yet submitted (update `cancelPayment`). Errors: 409 as `railEvent`; 503. */
  cancel(ref: PaymentProcessRef, reason: string | null): Promise<PaymentIntentState>;
  /** Resolves the `SETTLED_NOT_POSTED` exception the process waits on (update `resolveSettlement`). Errors: 409; 503. */
  resolveSettlement(ref: PaymentProcessRef, args: ResolveSettlementArgs): Promise<PaymentIntentState>;
  /** The process's state (query `getState`). Errors: 404 when no such workflow exists; 503. */
  state(ref: PaymentProcessRef): Promise<PaymentIntentState>;
}

/** The DomainError for a message to a process that has ended (its workflow completed). */
export class PaymentProcessEndedError extends DomainError {
  constructor(paymentId: number) {
    super('error.msg.payment.invalid.state.transition', `The process of payment ${paymentId} has ended.`);
  }
}

export function createPaymentIntentClient(client: Client): PaymentIntentClient {
  const handleOf = (ref: PaymentProcessRef) =>
    client.workflow.getHandle<typeof paymentIntentWorkflow>(
      paymentIntentWorkflowId(ref.tenantId, ref.paymentId),
    );
  const mapped = (ref: PaymentProcessRef, err: unknown): unknown => {
    if (err instanceof WorkflowNotFoundError) return new PaymentProcessEndedError(ref.paymentId);
    // An update sent to a completed workflow fails with "workflow execution already completed".
    if (err instanceof Error && /already completed/i.test(err.message))
      return new PaymentProcessEndedError(ref.paymentId);
    return toDomainError(err);
  };
  return {
    async start(input) {
      await startWorkflowOf(client, paymentIntentStartSpec(input));
    },
    async railEvent(ref, event) {
      try {
        return await handleOf(ref).executeUpdate(railEventUpdate, { args: [event] });
      } catch (err) {
        throw mapped(ref, err);
      }
    },
    async cancel(ref, reason) {
      try {
        return await handleOf(ref).executeUpdate(cancelPaymentUpdate, { args: [{ reason }] });
      } catch (err) {
        throw mapped(ref, err);
      }
    },
    async resolveSettlement(ref, args) {
      try {
        return await handleOf(ref).executeUpdate(resolveSettlementUpdate, { args: [args] });
      } catch (err) {
        throw mapped(ref, err);
      }
    },
    async state(ref) {
      try {
        return await handleOf(ref).query(getStateQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw new DomainError('error.msg.resource.not.found', `Payment ${ref.paymentId} has no process.`);
        }
        throw toDomainError(err);
      }
    },
  };
}
