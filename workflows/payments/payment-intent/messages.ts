/**
 * Messages of `paymentIntentWorkflow` (imported by the API's client port to address it). Every update answers
 * with the process's state once the workflow has applied the message (docs/processes.md P1: "each … once the
 * workflow has taken the event"); a validator refuses what the payment's status does not allow with
 * `error.msg.payment.invalid.state.transition` (409), so a refused message never reaches the history.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  PaymentIntentState,
  RailEvent,
  SettlementResolution,
} from '../../../domain/payments/payment-intent';

/** The rail's outcome for the payment: settled, returned or failed (a provider webhook, or a sandbox simulation). */
export const railEventUpdate = defineUpdate<PaymentIntentState, [RailEvent]>('railEvent');

/** Cancels the intent before it is submitted to the rail (CREATED → CANCELLED). */
export const cancelPaymentUpdate = defineUpdate<PaymentIntentState, [{ reason?: string | null }]>(
  'cancelPayment',
);

/** An operator's resolution of the `SETTLED_NOT_POSTED` exception the process waits on. */
export interface ResolveSettlementArgs {
  exceptionId: number;
  resolution: SettlementResolution;
  /** Why (free text, kept with the exception). */
  reason: string;
  /** Who resolved it (`Service-Actor`, else the client id). */
  actor: string;
}
export const resolveSettlementUpdate = defineUpdate<PaymentIntentState, [ResolveSettlementArgs]>(
  'resolveSettlement',
);

/** Where the payment stands (status, provider reference, settlement, return window, open exception). */
export const getStateQuery = defineQuery<PaymentIntentState>('getState');
