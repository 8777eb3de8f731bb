/**
 * Finds the hardship offers of a loan a loan change concerns, for the payment-intent workflow's `loanChanged` signals
 * (docs/processes.md P5): `findOpenHardshipOffersOfLoan`. Read only.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import { hardshipOffers } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { openHardshipOfferStatuses } from '../../domain/hardship/offer-process';
import type { Deps } from '../deps';

/**
 * The offers of loan `loanId` a loan change concerns (not yet accepted: PENDING_APPROVAL, OFFERED, APPROVED), for
 * the payment-intent workflow's `loanChanged` signals. Read only.
 */
export function findOpenHardshipOffersOfLoan(deps: Deps) {
  return async (input: { tenantId: string; loanId: number }): Promise<{ offerIds: number[] }> =>
    withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const rows = await tx
        .select({ id: hardshipOffers.id })
        .from(hardshipOffers)
        .where(
          and(
            eq(hardshipOffers.tenantId, input.tenantId),
            eq(hardshipOffers.loanId, input.loanId),
            inArray(hardshipOffers.status, [...openHardshipOfferStatuses]),
          ),
        )
        .orderBy(asc(hardshipOffers.id));
      return { offerIds: rows.map((r) => r.id) };
    });
}
