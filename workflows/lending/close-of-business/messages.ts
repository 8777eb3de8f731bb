/** Messages of `closeOfBusinessWorkflow` (docs/processes.md P7 "The run"): its progress, read by `GET /v1/cob/runs/{runId}`. */
import { defineQuery } from '@temporalio/workflow';
import type { CobRunLoans } from './types';

/** `{total, processed, failed}` so far (over continue-as-new runs). */
export const progressQuery = defineQuery<CobRunLoans>('progress');
