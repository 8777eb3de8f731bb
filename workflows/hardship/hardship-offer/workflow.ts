/**
 * A hardship offer as a durable process (docs/processes.md P5; domain/hardship/offer-process.ts).
 *
 * The offer is routed and stored by its creating operation (OFFERED, PENDING_APPROVAL, REFERRED, SPECIALIST or
 * INELIGIBLE); this process then owns its clocks and its background steps, while the database stays the arbiter
 * of its status (each step is one idempotent transaction on the locked offer row):
 * - OFFERED / APPROVED: the validity timer (`offerExpiresAt`) → `expireHardshipOffer` (EXPIRED unless accepted
 *   meanwhile);
 * - AWAITING_DOCUMENTS (after acceptance): on every `evidenceAdded` hint, and once on entering the status,
 *   `confirmHardshipEvidence` looks for the program's required evidence on the case and, when found, applies the
 *   relief (APPLIED); at the document deadline (`documentsDueAt`) a last look, then LAPSED;
 * - PENDING_APPROVAL / OFFERED / APPROVED: every `loanChanged` signal runs `reevaluateHardshipOffer` (INELIGIBLE or
 *   SPECIALIST when the loan no longer qualifies and the guardrails say `reevaluateOnMaterialLoanDrift`); signals
 *   arriving together are coalesced into one re-evaluation;
 * - `offerChanged` (sent by the approve, reject and accept routes after their commit) re-reads status and timers.
 * A lost signal delays a step, never changes an outcome: the timers' steps re-read the row (an acceptance whose
 * signal was lost is found by the expiry step, evidence whose hint was lost by the deadline step).
 * Ends when the status is final (INELIGIBLE, SPECIALIST, REFERRED, REJECTED, EXPIRED, LAPSED, APPLIED) and returns
 * it. Messages: signals `offerChanged`, `evidenceAdded`, `loanChanged`; query `getState`.
 * Id: `hardship-offer/<tenant>/<offerId>`; queue `servicing`; search attributes TenantId, CaseId, LoanId.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../../activities';
import {
  type HardshipOfferProgress,
  type HardshipOfferState,
  hardshipOfferTimer,
  isFinalHardshipOfferStatus,
  isOpenHardshipOfferStatus,
  type LoanChangedHint,
} from '../../../domain/hardship/offer-process';
import { dbWrite } from '../../common/activity-options';
import { workflowNow } from '../../common/time';
import { evidenceAddedSignal, getStateQuery, loanChangedSignal, offerChangedSignal } from './messages';
import type { HardshipOfferWorkflowInput, HardshipOfferWorkflowResult } from './types';

const { readHardshipOfferProgress, expireHardshipOffer, confirmHardshipEvidence, reevaluateHardshipOffer } =
  proxyActivities<Activities>(dbWrite);

/** Waits until `woken()` or the instant `untilMs` (forever when null); true when `woken()` became true. */
async function waitUntil(woken: () => boolean, untilMs: number | null): Promise<boolean> {
  if (woken()) return true;
  if (untilMs === null) {
    await condition(woken);
    return true;
  }
  const remainingMs = untilMs - workflowNow();
  if (remainingMs <= 0) return false;
  return condition(woken, remainingMs);
}

/** Runs one hardship offer from its routing to its final status (see the module comment). */
export async function hardshipOfferWorkflow(
  input: HardshipOfferWorkflowInput,
): Promise<HardshipOfferWorkflowResult> {
  const ref = { tenantId: input.tenantId, offerId: input.offerId };
  const state: HardshipOfferState = {
    offerId: input.offerId,
    status: input.status,
    offerExpiresAtMs: null,
    documentsDueAtMs: null,
    hintsReceived: 0,
    loanChangesReceived: 0,
    reevaluations: 0,
  };
  let hintsOwed = 0;
  let latestChange: LoanChangedHint | null = null;

  setHandler(offerChangedSignal, () => {
    state.hintsReceived += 1;
    hintsOwed += 1;
  });
  setHandler(evidenceAddedSignal, () => {
    state.hintsReceived += 1;
    hintsOwed += 1;
  });
  setHandler(loanChangedSignal, (hint) => {
    state.loanChangesReceived += 1;
    latestChange = hint;
  });
  setHandler(getStateQuery, () => ({ ...state }));

  /** Takes the progress a step answered; `looked`: the step was the evidence step (it has already looked). */
  const adopt = (progress: HardshipOfferProgress, looked = false) => {
    const entering = progress.status === 'AWAITING_DOCUMENTS' && state.status !== 'AWAITING_DOCUMENTS';
    state.status = progress.status;
    state.offerExpiresAtMs = progress.offerExpiresAtMs;
    state.documentsDueAtMs = progress.documentsDueAtMs;
    // Evidence may have been added before the acceptance: look once on entering AWAITING_DOCUMENTS.
    if (entering && !looked) hintsOwed += 1;
  };

  adopt(await readHardshipOfferProgress(ref));
  while (!isFinalHardshipOfferStatus(state.status)) {
    const timer = hardshipOfferTimer(state);
    const woken = await waitUntil(() => hintsOwed > 0 || latestChange !== null, timer?.atMs ?? null);
    if (latestChange !== null) {
      const change: LoanChangedHint = latestChange;
      latestChange = null;
      if (isOpenHardshipOfferStatus(state.status)) {
        state.reevaluations += 1;
        adopt(await reevaluateHardshipOffer({ ...ref, change }));
      }
    }
    if (hintsOwed > 0) {
      hintsOwed = 0;
      // One step for every status: it re-reads the offer and, when AWAITING_DOCUMENTS, confirms its evidence.
      adopt(await confirmHardshipEvidence({ ...ref, atDeadline: false }), true);
    }
    if (!woken && timer !== null && !isFinalHardshipOfferStatus(state.status)) {
      if (timer.kind === 'EXPIRY') adopt(await expireHardshipOffer(ref));
      else adopt(await confirmHardshipEvidence({ ...ref, atDeadline: true }), true);
    }
  }
  return { offerId: input.offerId, status: state.status };
}
