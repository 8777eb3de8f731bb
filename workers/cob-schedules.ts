/**
 * Keeps every tenant's daily close-of-business schedule in place (docs/processes.md P7 "The run"; Temporal is the
 * scheduler, P0): at worker start it ensures the schedule of every tenant in its zone
 * (workflows/lending/close-of-business/client.ts `ensureCloseOfBusinessSchedule`, idempotent across processes),
 * then every `intervalMs` reads the tenants again and ensures the schedule of each tenant that appeared or whose
 * compliance time zone changed since (tenants are created by the admin CLI and the stack, outside any worker). A
 * tenant whose schedule could not be ensured (Temporal down) is tried again at the next sweep.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Db } from '../db/client';
import { listTenantTimeZones } from '../db/queries/lending/cob-runs';
import { ensureCloseOfBusinessSchedule } from '../workflows/lending/close-of-business/client';

export interface CobSchedulesOptions {
  client: Client;
  db: Db;
  logger: Logger;
  /** Between sweeps, milliseconds (default 60 000). */
  intervalMs?: number;
  /** The tenants and their zones; default every tenant of `db` (`listTenantTimeZones`). */
  listTenants?: () => Promise<{ tenantId: string; timeZone: string }[]>;
}

/**
 * Runs the first sweep, then one every `intervalMs`. Resolves (after the first sweep) to the stop function, which
 * cancels the next sweep and waits for one in progress. Never rejects: a failed sweep is logged and retried.
 */
export async function startCloseOfBusinessSchedules(
  options: CobSchedulesOptions,
): Promise<() => Promise<void>> {
  const intervalMs = options.intervalMs ?? 60_000;
  /** tenant → the zone its schedule was last ensured in by this process. */
  const ensured = new Map<string, string>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let sweep: Promise<void> = Promise.resolve();
  const sweepOnce = async () => {
    try {
      const tenants = await (options.listTenants ?? (() => listTenantTimeZones(options.db)))();
      let changed = 0;
      for (const tenant of tenants) {
        if (stopped) break;
        if (ensured.get(tenant.tenantId) === tenant.timeZone) continue;
        try {
          await ensureCloseOfBusinessSchedule(options.client, tenant);
        } catch (err) {
          // One tenant's refusal (an unknown zone) never holds back the others; it is tried at the next sweep.
          options.logger.warn({ err, tenantId: tenant.tenantId }, 'close-of-business schedule not ensured');
          continue;
        }
        ensured.set(tenant.tenantId, tenant.timeZone);
        changed += 1;
      }
      if (changed > 0) options.logger.info({ tenants: changed }, 'close-of-business schedules in place');
    } catch (err) {
      options.logger.warn(
        { err, retryMs: intervalMs },
        'close-of-business schedules not all ensured; retrying',
      );
    }
    if (!stopped) {
      timer = setTimeout(() => {
        sweep = sweepOnce();
      }, intervalMs);
      timer.unref();
    }
  };
  sweep = sweepOnce();
  await sweep;
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await sweep;
  };
}
