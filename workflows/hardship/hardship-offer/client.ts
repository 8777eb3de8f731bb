/**
 * The typed port to the hardship-offer process (docs/processes.md P0 "one folder per process"): the API reaches
 * `hardshipOfferWorkflow` only through this. Start options come from `hardshipOfferStartSpec` (the same spec the
 * creating operation stores as its start intent) via `workflows/common/client-start.ts`. Imports
 * `@temporalio/client`: never part of the workflow bundle.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { DomainError } from '../../../domain/errors';
import {
  type HardshipOfferState,
  type HardshipOfferWorkflowInput,
  hardshipOfferStartSpec,
  type LoanChangedHint,
} from '../../../domain/hardship/offer-process';
import { hardshipOfferWorkflowId } from '../../../domain/ids';
import { toDomainError } from '../../common/client-errors';
import { startWorkflowOf } from '../../common/client-start';
import { evidenceAddedSignal, getStateQuery, loanChangedSignal, offerChangedSignal } from './messages';
import type { hardshipOfferWorkflow } from './workflow';

/** Offers whose best-effort signal could not be delivered (their timers' steps re-read the offer). */
export interface HardshipOfferNotice {
  failed: { offerId: number; error: unknown }[];
}

export interface HardshipOfferClient {
  /**
   * Starts the offer's workflow (id `hardship-offer/<tenant>/<offerId>`); a no-op when it already runs or ran.
   * Errors: 503 when Temporal is unreachable.
   */
  start(input: HardshipOfferWorkflowInput): Promise<void>;
  /**
   * Signals `offerChanged` after an approval, rejection or acceptance committed. A process not (yet) started is
   * skipped (the start-intent relay starts it, and it reads the offer first). Errors: 503 when Temporal is
   * unreachable (the change stands; a retry of the request re-sends the signal).
   */
  notifyOfferChanged(ref: { tenantId: string; offerId: number }): Promise<void>;
  /** Signals `evidenceAdded` to the processes of `offerIds`. Best effort, never throws (failures returned). */
  notifyEvidenceAdded(
    tenantId: string,
    offerIds: readonly number[],
    evidenceId: number,
  ): Promise<HardshipOfferNotice>;
  /** Signals `loanChanged` to the processes of `offerIds`. Best effort, never throws (failures returned). */
  notifyLoanChanged(
    tenantId: string,
    offerIds: readonly number[],
    hint: LoanChangedHint,
  ): Promise<HardshipOfferNotice>;
  /** The process's state (query `getState`). Errors: 404 when no such workflow exists; 503 unreachable. */
  state(ref: { tenantId: string; offerId: number }): Promise<HardshipOfferState>;
}

export function createHardshipOfferClient(client: Client): HardshipOfferClient {
  const handleOf = (tenantId: string, offerId: number) =>
    client.workflow.getHandle<typeof hardshipOfferWorkflow>(hardshipOfferWorkflowId(tenantId, offerId));

  const signalEach = async (
    offerIds: readonly number[],
    send: (offerId: number) => Promise<void>,
  ): Promise<HardshipOfferNotice> => {
    const outcomes = await Promise.allSettled(offerIds.map(send));
    const failed: HardshipOfferNotice['failed'] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled' || outcome.reason instanceof WorkflowNotFoundError) return;
      failed.push({ offerId: offerIds[index] as number, error: outcome.reason });
    });
    return { failed };
  };

  return {
    async start(input) {
      await startWorkflowOf(client, hardshipOfferStartSpec(input));
    },
    async notifyOfferChanged(ref) {
      try {
        await handleOf(ref.tenantId, ref.offerId).signal(offerChangedSignal);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return;
        throw toDomainError(err);
      }
    },
    notifyEvidenceAdded(tenantId, offerIds, evidenceId) {
      return signalEach(offerIds, (offerId) =>
        handleOf(tenantId, offerId).signal(evidenceAddedSignal, { evidenceId }),
      );
    },
    notifyLoanChanged(tenantId, offerIds, hint) {
      return signalEach(offerIds, (offerId) => handleOf(tenantId, offerId).signal(loanChangedSignal, hint));
    },
    async state(ref) {
      try {
        return await handleOf(ref.tenantId, ref.offerId).query(getStateQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) {
          throw new DomainError(
            'error.msg.resource.not.found',
            `Hardship offer ${ref.offerId} has no process.`,
          );
        }
        throw toDomainError(err);
      }
    },
  };
}
