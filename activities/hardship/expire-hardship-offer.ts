/**
 * Expires a hardship offer when its validity timer fires (docs/processes.md P5): `expireHardshipOffer`, a step of
 * `hardshipOfferWorkflow`. One tenant transaction on the locked offer row; idempotent.
 */

import { withTenantTransaction } from '../../db/tenant-tx';
import {
  acceptableHardshipOfferStatuses,
  type HardshipOfferProgress,
} from '../../domain/hardship/offer-process';
import type { Deps } from '../deps';
import {
  type HardshipOfferRef,
  lockedOffer,
  moveOffer,
  processActor,
  progressOf,
} from './hardship-offer-steps';

/**
 * The validity timer of an OFFERED / APPROVED offer fired (workflow step): the offer becomes `EXPIRED` (effect
 * `HARDSHIP_OFFER_EXPIRED`, event `hardship.offer.expired`). Any other status (accepted meanwhile, re-evaluated)
 * is left as it is. Returns the progress. Errors: 404 when absent.
 */
export function expireHardshipOffer(deps: Deps) {
  return async (ref: HardshipOfferRef): Promise<HardshipOfferProgress> =>
    withTenantTransaction(deps.db, ref.tenantId, async (tx) => {
      const offer = await lockedOffer(tx, ref);
      if (!(acceptableHardshipOfferStatuses as readonly string[]).includes(offer.status)) {
        return progressOf(offer);
      }
      const now = deps.clock();
      const updated = await moveOffer(tx, offer, {
        changes: { status: 'EXPIRED' },
        effectType: 'HARDSHIP_OFFER_EXPIRED',
        detail: { fromStatus: offer.status, offerExpiresAt: offer.offerExpiresAt?.toISOString() ?? null },
        eventType: 'hardship.offer.expired',
        data: {
          status: 'EXPIRED',
          offerExpiresAt: offer.offerExpiresAt?.toISOString() ?? null,
          expiredAt: now.toISOString(),
        },
        actor: processActor,
        correlationId: null,
        now,
        dedupe: 'expired',
      });
      return progressOf(updated);
    });
}
