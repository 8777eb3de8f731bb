import { and, eq } from 'drizzle-orm';
import {
  type MerchantRemittanceView,
  merchantRemittanceViewOf,
} from '../../db/queries/lending/merchant-advances';
import { merchantRemittances } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, notFound } from '../../domain/errors';
import { remittanceReversal, remittanceTransactionRef } from '../../domain/lending/merchant-advance';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { appendMerchantPosting, lockMerchantAdvance } from './merchant-advance-ledger';

export interface ReturnMerchantRemittanceInput extends OperationContext {
  /** Opaque `mca_…` id. */
  advanceId: string;
  /** Opaque `mrem_…` id of a remittance of that advance. */
  remittanceId: string;
  /** The return code of the rail or bank (e.g. NACHA `R01`). */
  returnCode: string;
  /** Why it was returned (free text; never an identifier or account number). */
  reason: string;
}

/**
 * Returns a posted remittance (docs/processes.md P6; docs/conventions.md §8: a correction is a reversing entry linked to the
 * original): one transaction under the advance's row lock marks it RETURNED with the code and reason, appends the
 * reversal `…/remittance/<remittanceId>/reversal` (every line swapped, each linked to the line it reverses,
 * value-dated like the original) and writes `merchant.remittance.returned`. The remittance then counts as neither
 * settled nor posted in the reconciliation, and the outstanding purchased amount rises by it.
 *
 * Errors: 400 naming `reason` when it looks like an identifier; 404 when the tenant has no such advance or the
 * advance no such remittance; 409 `error.msg.merchant.remittance.invalid.state.transition` when it is already
 * RETURNED (a retry under the same Idempotency-Key is answered by the API's middleware first).
 */
export function returnMerchantRemittance(deps: Deps) {
  return async (input: ReturnMerchantRemittanceInput): Promise<MerchantRemittanceView> => {
    assertNoSensitiveData('reason', input.reason);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const advance = await lockMerchantAdvance(tx, input.tenantId, input.advanceId);
      const [remittance] = await tx
        .select()
        .from(merchantRemittances)
        .where(
          and(
            eq(merchantRemittances.tenantId, input.tenantId),
            eq(merchantRemittances.advanceId, advance.id),
            eq(merchantRemittances.remittanceRef, input.remittanceId),
          ),
        );
      if (!remittance) throw notFound('Merchant remittance', input.remittanceId);
      if (remittance.status !== 'POSTED') {
        throw new DomainError(
          'error.msg.merchant.remittance.invalid.state.transition',
          `Remittance ${input.remittanceId} is ${remittance.status}: only a POSTED remittance can be returned.`,
        );
      }
      const now = deps.clock();
      const [row] = await tx
        .update(merchantRemittances)
        .set({
          status: 'RETURNED',
          returnCode: input.returnCode,
          returnReason: input.reason,
          returnedAt: now,
        })
        .where(
          and(eq(merchantRemittances.tenantId, input.tenantId), eq(merchantRemittances.id, remittance.id)),
        )
        .returning();
      if (!row) throw new Error('remittance vanished under the advance lock');
      await appendMerchantPosting(tx, {
        tenantId: input.tenantId,
        posting: remittanceReversal(advance.advanceRef, row.remittanceRef, row.amount, advance.currencyCode),
        valueDate: row.effectiveDate,
        now,
        reverses: remittanceTransactionRef(advance.advanceRef, row.remittanceRef),
      });
      const view = merchantRemittanceViewOf(advance, row);
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'merchant.remittance.returned',
        subjectId: view.remittanceId,
        data: {
          remittanceId: view.remittanceId,
          advanceId: view.advanceId,
          status: 'RETURNED',
          periodStart: view.periodStart,
          periodEnd: view.periodEnd,
          amount: view.amount,
          currency: view.currency,
          effectiveDate: view.effectiveDate,
          returnCode: input.returnCode,
        },
        occurredAt: now,
        dedupeKey: `merchant-remittance/${view.remittanceId}/returned`,
      });
      return view;
    });
  };
}
