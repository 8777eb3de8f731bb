/** Input, state and result of `promiseWorkflow` (JSON-serializable; the input is the domain's, shared with the start spec). */
import type { PromiseOutcome } from '../../../domain/servicing/promise';

export type {
  PaymentPostedHint,
  PromiseState,
  PromiseWorkflowInput,
} from '../../../domain/servicing/promise';

export interface PromiseWorkflowResult {
  promiseId: number;
  /** The outcome that ended the process. */
  status: PromiseOutcome;
  /** Decimal string: paid in the window when it was resolved. */
  paidAmount: string;
  /** True when resolved at the deadline, false when kept before it. */
  atDeadline: boolean;
}
