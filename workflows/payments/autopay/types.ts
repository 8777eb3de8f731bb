/** Input and result of `autopayWorkflow` (the input is the domain's, shared with the start spec). */
import type { AutopayState } from '../../../domain/payments/autopay';

export type { AutopayWorkflowInput } from '../../../domain/payments/autopay';

/** The state when the process ends (`endedBecause` set). */
export type AutopayWorkflowResult = AutopayState;
