/** Input, progress and result of `privacyRequestWorkflow` (JSON-serializable). */
import type { PrivacyRequestStatus } from '../../../domain/servicing/privacy-request';

export type { PrivacyRequestWorkflowInput } from '../../../domain/servicing/privacy-request';

export interface PrivacyRequestProgress {
  requestId: number;
  status: PrivacyRequestStatus;
  /** ISO 8601 with offset. */
  statutoryDueAt: string;
  reminderRaised: boolean;
}

export interface PrivacyRequestWorkflowResult {
  requestId: number;
  /** The outcome that ended the process. */
  status: PrivacyRequestStatus;
  /** Whether the request went past its statutory due time first. */
  wasOverdue: boolean;
}
