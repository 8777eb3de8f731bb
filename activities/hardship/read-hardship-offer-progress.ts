/**
 * Reads where a hardship offer stands, status and timers (docs/processes.md P5): `readHardshipOfferProgress`, the
 * workflow's read at start and after each hint. Read only.
 */

import { hardshipOfferRow } from '../../db/queries/hardship/hardship-offers';
import { withTenantTransaction } from '../../db/tenant-tx';
import { notFound } from '../../domain/errors';
import type { HardshipOfferProgress } from '../../domain/hardship/offer-process';
import type { Deps } from '../deps';
import { type HardshipOfferRef, progressOf } from './hardship-offer-steps';

/**
 * Where offer `offerId` stands (status and timers) — the workflow's read at start and after each hint.
 * Errors: 404 when absent (a caller bug: the process is started for a stored offer).
 */
export function readHardshipOfferProgress(deps: Deps) {
  return async (ref: HardshipOfferRef): Promise<HardshipOfferProgress> =>
    withTenantTransaction(deps.db, ref.tenantId, async (tx) => {
      const row = await hardshipOfferRow(tx, ref.tenantId, ref.offerId);
      if (!row) throw notFound('Hardship offer', ref.offerId);
      return progressOf(row);
    });
}
