/** Input, state and result of `hardshipOfferWorkflow` (JSON; the input is the domain's, shared with the start spec). */
export type {
  HardshipOfferState,
  HardshipOfferWorkflowInput,
  LoanChangedHint,
} from '../../../domain/hardship/offer-process';

export interface HardshipOfferWorkflowResult {
  offerId: number;
  /** The final status that ended the process (domain `finalHardshipOfferStatuses`). */
  status: string;
}
