/**
 * The daily purge of the raw text of finished boarding batches (domain/boarding/retention.ts; docs/design.md §3 Data
 * rules). `boardingRawPurgeWorkflow` is started once a day by the Temporal Schedule `boarding-raw-purge` (03:00 UTC,
 * overlap SKIP; `client.ts` `ensureBoardingRawPurgeSchedule`, created by every worker process at start). It takes the
 * cutoff `workflowNow() − retentionDays` and calls `purgeBoardingRawLines` (activities/boarding/purge.ts) until no
 * batch is due, then returns what it purged. A failed run is repeated by the next day's run (idempotent). Its id is
 * the schedule's, without `TenantId`: it belongs to no tenant.
 *
 * Deterministic: time only through `workflowNow()`; activities reached through `proxyActivities`.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import { type BoardingRawPurgeInput, boardingRawPurgeCutoffMs } from '../../../domain/boarding/retention';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';

const { purgeBoardingRawLines } = proxyActivities<Activities>(dbWrite);

/** What one run purged, and its cutoff (epoch milliseconds). */
export interface BoardingRawPurgeResult {
  cutoffMs: number;
  batchesPurged: number;
  linesPurged: number;
}

/**
 * Purges every finished batch that completed before now − `retentionDays` (default 30; module note). Errors: a
 * retention that is not a whole number of days from 0 to 3650 fails the run (RangeError); database errors are
 * retried by the activity preset.
 */
export async function boardingRawPurgeWorkflow(
  input: BoardingRawPurgeInput = {},
): Promise<BoardingRawPurgeResult> {
  const cutoffMs = boardingRawPurgeCutoffMs(workflowNow(), input.retentionDays);
  const result: BoardingRawPurgeResult = { cutoffMs, batchesPurged: 0, linesPurged: 0 };
  for (;;) {
    const page = await purgeBoardingRawLines({ cutoffMs });
    result.batchesPurged += page.batchesPurged;
    result.linesPurged += page.linesPurged;
    if (!page.more) return result;
  }
}
