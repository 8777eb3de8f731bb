/**
 * Messages of `autopayWorkflow` (imported by the API's client port to address it; docs/processes.md P1 Autopay).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AutopayState } from '../../../domain/payments/autopay';

/**
 * The loan's enrolment changed (cancelled, or a new one after a cancel): the process wakes from its timer and
 * re-plans from the stored state (the database is the source of truth; the signal only shortens the wait). No
 * arguments.
 */
export const enrolmentChangedSignal = defineSignal<[]>('enrolmentChanged');

/** Where the process stands: enrolment, cursor, the installment waited for and its collection date. */
export const getStateQuery = defineQuery<AutopayState>('getState');
