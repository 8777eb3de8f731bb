/** Input, progress and result of `contactConsentUpdateWorkflow` (JSON-serializable; defined in the domain). */
import type { ContactConsentUpdateStatus } from '../../../domain/servicing/contact-consent';

export type {
  ContactConsentUpdateOutcome as ContactConsentUpdateWorkflowResult,
  ContactConsentUpdateWorkflowInput,
} from '../../../domain/servicing/contact-consent';

/** Where the process stands (query `getProgress`). */
export interface ContactConsentUpdateProgress {
  updateId: number;
  /** SCHEDULED while the timer runs; COMPLETED or SUPERSEDED once the update took effect. */
  status: ContactConsentUpdateStatus;
  /** ISO 8601 instant (UTC) the timer waits for. */
  effectiveAt: string;
}
