/**
 * Messages of `contactConsentUpdateWorkflow` (imported by its client port to address it; docs/processes.md P4).
 */
import { defineQuery } from '@temporalio/workflow';
import type { ContactConsentUpdateProgress } from './types';

/** Where the process stands: the update, its status and the instant its timer waits for. */
export const getProgressQuery = defineQuery<ContactConsentUpdateProgress>('getProgress');
