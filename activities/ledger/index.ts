/**
 * Money operations of loans recorded as external (issue: record-external funding and payment; spec § States,
 * § Lending core writes). Each runs one tenant transaction that locks the loan first, is idempotent by
 * `externalRecordRef`, re-runs the loan's allocation and appends its balanced journal corrections
 * (repost-loan.ts), and writes its outbox event. `createActivities` (activities/index.ts) spreads them in, so they
 * are also Temporal activities under these names.
 */
import type { Deps } from '../deps';
import { recordExternalFunding } from './record-external-funding';
import { recordExternalPayment } from './record-external-payment';

/** `{recordExternalFunding, recordExternalPayment}` bound to `deps`. */
export function createLedgerActivities(deps: Deps) {
  return {
    recordExternalFunding: recordExternalFunding(deps),
    recordExternalPayment: recordExternalPayment(deps),
  };
}

export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
