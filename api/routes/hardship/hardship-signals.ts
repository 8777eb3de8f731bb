/**
 * The API's hints to hardship-offer processes (docs/processes.md P5), sent after the request's own operation
 * committed. Best effort: a failure is logged and the answer stands, since each process re-reads the offer when its
 * timer fires (evidence whose hint was lost is found at the document deadline; a loan change whose hint was lost is
 * not re-evaluated, and the offer stands as routed).
 */
import { hardshipOfferIdsOf } from '../../../db/queries/hardship/hardship-offers';
import { openHardshipOfferStatuses } from '../../../domain/hardship/offer-process';
import type { AppDeps } from '../../env';

/** Evidence `evidenceId` was added to case `caseId`: signals `evidenceAdded` to its AWAITING_DOCUMENTS offers. */
export async function signalEvidenceAdded(
  deps: AppDeps,
  tenantId: string,
  caseId: number,
  evidenceId: number,
): Promise<void> {
  try {
    const offerIds = await hardshipOfferIdsOf(deps.db, tenantId, { caseId }, ['AWAITING_DOCUMENTS']);
    if (offerIds.length === 0) return;
    const { failed } = await deps.processes.hardshipOffers.notifyEvidenceAdded(
      tenantId,
      offerIds,
      evidenceId,
    );
    for (const { offerId, error } of failed) {
      deps.logger.warn({ offerId, caseId, evidenceId, err: error }, 'hardship offer process not signalled');
    }
  } catch (err) {
    deps.logger.warn({ caseId, evidenceId, err }, 'hardship offers of the case not signalled');
  }
}

/**
 * A loan changed materially (a payment or funding of `loanId`, a restriction on one loan or on every loan of a
 * borrower): signals `loanChanged` to the offers not yet accepted (PENDING_APPROVAL, OFFERED, APPROVED).
 */
export async function signalLoanChanged(
  deps: AppDeps,
  tenantId: string,
  where: { loanId: number } | { borrowerId: number },
  hint: { kind: 'PAYMENT' | 'FUNDING' | 'RESTRICTION'; resourceId: number | null },
): Promise<void> {
  try {
    const offerIds = await hardshipOfferIdsOf(deps.db, tenantId, where, openHardshipOfferStatuses);
    if (offerIds.length === 0) return;
    const { failed } = await deps.processes.hardshipOffers.notifyLoanChanged(tenantId, offerIds, hint);
    for (const { offerId, error } of failed) {
      deps.logger.warn({ offerId, ...where, hint, err: error }, 'hardship offer process not signalled');
    }
  } catch (err) {
    deps.logger.warn({ ...where, hint, err }, 'hardship offers of the loan not signalled');
  }
}
