/**
 * Messages of `hardshipOfferWorkflow` (imported by its client port and by the payment-intent workflow, which
 * signals `loanChanged` when a payment of the loan posts). Every signal is a hint: the workflow re-reads the
 * offer (or re-runs eligibility) from the database, which is the arbiter of its status.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { HardshipOfferState, LoanChangedHint } from '../../../domain/hardship/offer-process';

/** The offer changed outside the process (approved, rejected, accepted): re-read its status and timers. */
export const offerChangedSignal = defineSignal<[]>('offerChanged');

/** Evidence was added to the offer's case: look for the evidence the program requires. */
export const evidenceAddedSignal = defineSignal<[{ evidenceId: number | null }]>('evidenceAdded');

/** The offer's loan changed materially (payment, funding, restriction): re-run eligibility. */
export const loanChangedSignal = defineSignal<[LoanChangedHint]>('loanChanged');

/** Where the offer stands: status, timers, messages received, re-evaluations run. */
export const getStateQuery = defineQuery<HardshipOfferState>('getState');
