/**
 * Retention of the raw text of staged boarding lines (docs/design.md §3 Data rules: government identifiers and account data
 * are accepted once and not kept in clear; FTC Safeguards Rule, 16 CFR 314.4(c)(6): dispose of customer information
 * no later than two years after it was last used, unless it is needed; data minimisation, GDPR Art. 5(1)(c) and (e)).
 * Once a batch is finished (COMPLETED, COMPLETED_WITH_ERRORS or CANCELLED) its lines' `raw` text is needed only to
 * look into a failure: after `retentionDays` (default 30) it is purged, while each line keeps its number, kind,
 * source refs, state, Shape A error and created id (so the errors endpoint and the CLI's rejects file still work).
 * Pure: no I/O, no clock.
 */

/** Days a finished batch keeps the raw text of its lines (`BOARDING_RAW_RETENTION_DAYS`; default 30). */
export const boardingRawRetentionDaysDefault = 30;

/** The longest retention accepted (ten years), so the cutoff stays a valid instant. */
export const boardingRawRetentionDaysMax = 3_650;

/** The id of the Temporal Schedule that runs the purge every day (one per namespace). */
export const boardingRawPurgeScheduleId = 'boarding-raw-purge';

/** Input of the purge workflow and its schedule: the retention in days (whole days, 0 to `…Max`). */
export interface BoardingRawPurgeInput {
  retentionDays?: number;
}

/**
 * The instant (epoch milliseconds) before which a finished batch's raw lines are purged: `nowMs` minus
 * `retentionDays` days (86 400 000 ms each; UTC, no calendar). Throws RangeError for a retention that is not a whole
 * number of days from 0 to `boardingRawRetentionDaysMax`.
 */
export function boardingRawPurgeCutoffMs(
  nowMs: number,
  retentionDays = boardingRawRetentionDaysDefault,
): number {
  if (!Number.isInteger(retentionDays) || retentionDays < 0 || retentionDays > boardingRawRetentionDaysMax)
    throw new RangeError(
      `retentionDays must be a whole number of days from 0 to ${boardingRawRetentionDaysMax}, not ${retentionDays}`,
    );
  return nowMs - retentionDays * 86_400_000;
}
