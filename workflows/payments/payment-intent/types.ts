/** Input and result of `paymentIntentWorkflow` (the input is the domain's, shared with the start spec). */
import type { PaymentIntentState } from '../../../domain/payments/payment-intent';

export type { PaymentIntentWorkflowInput } from '../../../domain/payments/payment-intent';

/** The payment's final state when the process ends (POSTED after its return window, RETURNED, FAILED, CANCELLED). */
export type PaymentIntentWorkflowResult = PaymentIntentState;
