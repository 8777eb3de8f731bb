/**
 * Messages of `privacyRequestWorkflow` (imported by the API to address it).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type {
  FulfilPrivacyRequestArgs,
  FulfilPrivacyRequestResult,
} from '../../../domain/servicing/privacy-request';
import type { PrivacyRequestProgress } from './types';

/** Records the request's outcome; answers with the new status. Rejected (409) once it has one. */
export const fulfilRequestUpdate = defineUpdate<FulfilPrivacyRequestResult, [FulfilPrivacyRequestArgs]>(
  'fulfilRequest',
);

/** Where the process stands: status, due time, reminder raised. */
export const getProgressQuery = defineQuery<PrivacyRequestProgress>('getProgress');
