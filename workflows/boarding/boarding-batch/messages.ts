/**
 * Messages of `boardingWorkflow` (docs/processes.md P3): the operator's controls and the progress query the batch
 * read answers from.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { BoardingProgress } from './types';

/** Stop starting new work after the chunks in flight (status PAUSED). */
export const pauseSignal = defineSignal<[]>('pause');
/** Go on where it paused (status back to VALIDATING / RUNNING). */
export const resumeSignal = defineSignal<[]>('resume');
/** Stop for good after the chunks in flight (status CANCELLED); what was boarded stays boarded. */
export const cancelSignal = defineSignal<[]>('cancel');

/** Status, counts per kind, times and ETA. */
export const getProgressQuery = defineQuery<BoardingProgress>('getProgress');
