/**
 * Statutory response periods of privacy requests and the due times derived from them.
 * Pure: the receipt instant and the tenant's compliance time zone are parameters.
 *
 * Sources (docs/design.md §5 Privacy-request clocks):
 * - CCPA/CPRA: 45 calendar days from receipt, one 45-day extension with notice — 11 CCR §7021(a)–(b).
 * - GDPR / UK GDPR: one month from receipt, extendable by two further months — GDPR Art. 12(3).
 * - VCDPA (Va. Code §59.1-578), CPA (C.R.S. §6-1-1306), CTDPA (Conn. Gen. Stat. §42-520): 45 days, +45.
 * The due time is the end of the due day (23:59:59) in the compliance time zone, rendered with its offset.
 * The reminder falls `reminderLeadDays` (10) before the due time.
 */
import { addDays, addMonths } from './calendar';
import { formatWithOffset, instantOfLocal, localDate } from './time-zone';

export const privacyRegimes = ['CCPA_CPRA', 'GDPR', 'UK_GDPR', 'VCDPA', 'CPA_CO', 'CTDPA'] as const;
export type PrivacyRegime = (typeof privacyRegimes)[number];

/** A period counted in calendar days or calendar months. */
export type StatutoryPeriod = { days: number } | { months: number };

export interface RegimeRule {
  period: StatutoryPeriod;
  extension: StatutoryPeriod;
  source: string;
}

export const regimeRules: Record<PrivacyRegime, RegimeRule> = {
  CCPA_CPRA: { period: { days: 45 }, extension: { days: 45 }, source: '11 CCR §7021' },
  GDPR: { period: { months: 1 }, extension: { months: 2 }, source: 'GDPR Art. 12(3)' },
  UK_GDPR: { period: { months: 1 }, extension: { months: 2 }, source: 'UK GDPR Art. 12(3)' },
  VCDPA: { period: { days: 45 }, extension: { days: 45 }, source: 'Va. Code §59.1-578(B)' },
  CPA_CO: { period: { days: 45 }, extension: { days: 45 }, source: 'C.R.S. §6-1-1306(2)' },
  CTDPA: { period: { days: 45 }, extension: { days: 45 }, source: 'Conn. Gen. Stat. §42-520(c)' },
};

/** Days before the due time at which the reminder effect and task are raised. */
export const reminderLeadDays = 10;

/** Default compliance time zone of a tenant. */
export const defaultComplianceTimeZone = 'America/Los_Angeles';

export interface PrivacyDeadlines {
  /** ISO date of the due day in the compliance time zone. */
  dueDate: string;
  /** End of the due day, ISO 8601 with the zone's offset (the spec's `statutoryDueAt`). */
  statutoryDueAt: string;
  /** Epoch milliseconds of `statutoryDueAt`. */
  dueAtMs: number;
  /** Epoch milliseconds of the reminder (due time − reminderLeadDays × 24 h). */
  reminderAtMs: number;
}

function addPeriod(date: string, period: StatutoryPeriod): string {
  return 'days' in period ? addDays(date, period.days) : addMonths(date, period.months);
}

/** End of `date` (23:59:59 wall time) in `timeZone`, as epoch milliseconds. */
export function endOfLocalDay(date: string, timeZone: string): number {
  return instantOfLocal(date, { hour: 23, minute: 59, second: 59 }, timeZone);
}

/**
 * Due time of a privacy request received at `receivedAtMs` under `regime`, counted in calendar
 * days or months from the receipt date in `timeZone`.
 */
export function computePrivacyDeadlines(input: {
  regime: PrivacyRegime;
  receivedAtMs: number;
  timeZone: string;
}): PrivacyDeadlines {
  const receiptDate = localDate(input.receivedAtMs, input.timeZone);
  const dueDate = addPeriod(receiptDate, regimeRules[input.regime].period);
  const dueAtMs = endOfLocalDay(dueDate, input.timeZone);
  return {
    dueDate,
    statutoryDueAt: formatWithOffset(dueAtMs, input.timeZone),
    dueAtMs,
    reminderAtMs: dueAtMs - reminderLeadDays * 86_400_000,
  };
}

/** Due time after the regime's one extension, counted from the original due day. */
export function computeExtendedDueAt(input: {
  regime: PrivacyRegime;
  dueDate: string;
  timeZone: string;
}): PrivacyDeadlines {
  const dueDate = addPeriod(input.dueDate, regimeRules[input.regime].extension);
  const dueAtMs = endOfLocalDay(dueDate, input.timeZone);
  return {
    dueDate,
    statutoryDueAt: formatWithOffset(dueAtMs, input.timeZone),
    dueAtMs,
    reminderAtMs: dueAtMs - reminderLeadDays * 86_400_000,
  };
}
