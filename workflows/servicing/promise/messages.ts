/**
 * Messages of `promiseWorkflow` (imported by its client port and by the payment-intent workflow, which signal it
 * when a payment of the loan posts).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PaymentPostedHint, PromiseState } from '../../../domain/servicing/promise';

/** A payment of the promise's loan posted: a hint only, the workflow re-reads the loan's payments. */
export const paymentPostedSignal = defineSignal<[PaymentPostedHint]>('paymentPosted');

/** Where the promise stands: status, paid amount at the last read, deadline, hints received. */
export const getStateQuery = defineQuery<PromiseState>('getState');
