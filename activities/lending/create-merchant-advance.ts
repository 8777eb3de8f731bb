import { and, eq } from 'drizzle-orm';
import {
  type MerchantAdvanceView,
  merchantAdvanceViewOf,
  remittancesOf,
} from '../../db/queries/lending/merchant-advances';
import { customers, merchantAdvances } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, referenceNotFound, validationError } from '../../domain/errors';
import {
  advancePosting,
  formatHoldbackRate,
  holdbackRateBasisPoints,
  type RemittanceFrequency,
  remittanceFrequencies,
} from '../../domain/lending/merchant-advance';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { moneyOfInput, utcDateOf } from './loan-money';
import { appendMerchantPosting } from './merchant-advance-ledger';

export interface CreateMerchantAdvanceInput extends OperationContext {
  /** The merchant: a customer of the tenant. */
  customerId: number;
  /** Decimal string > 0: cash paid to the merchant (currency's minor-unit digits at most). */
  advanceAmount: string;
  /** Decimal string ≥ advanceAmount: the receivables bought, repaid by remittances. */
  purchasedAmount: string;
  /** Decimal string in (0, 1], at most 4 fraction digits: the share of reported sales remitted. */
  holdbackRate: string;
  /** ISO 4217 code. */
  currency: string;
  remittanceFrequency: RemittanceFrequency;
}

/** `money` of a named field: 400 naming `parameterName` (not `amount`) for a bad amount. */
function moneyField(
  parameterName: string,
  amount: string,
  currency: string,
): { minor: bigint; text: string } {
  try {
    return moneyOfInput(amount, currency);
  } catch (error) {
    if (error instanceof DomainError && error.errors[0]?.parameterName === 'amount') {
      throw validationError(parameterName, amount, error.message.replace(/^amount/, parameterName));
    }
    throw error;
  }
}

/**
 * Creates a merchant advance and posts it (docs/processes.md P6 "Merchant advances": `POST /v1/merchant-advances`):
 * one transaction inserts the advance (id `mca_…` minted by the database), appends its balanced entry
 * `merchant-advance/<advanceId>` value-dated to today (UTC): Dr MERCHANT_ADVANCE_RECEIVABLE purchasedAmount / Cr
 * EXTERNAL_CLEARING advanceAmount / Cr MERCHANT_DEFERRED_REVENUE the difference (domain/lending/merchant-advance.ts),
 * and writes `merchant.advance.created`. Idempotent by `requestKey` (a retried create returns the first advance).
 *
 * Errors: 400 `validation.msg.validation.errors.exist` naming `currency` (not ISO 4217), `advanceAmount` /
 * `purchasedAmount` (malformed, not above zero, over-precise), `purchasedAmount` below `advanceAmount`,
 * `holdbackRate` (not in (0, 1] or more than 4 decimals), `remittanceFrequency`; 404 naming `customerId` when the
 * tenant has no such customer.
 */
export function createMerchantAdvance(deps: Deps) {
  return async (input: CreateMerchantAdvanceInput): Promise<MerchantAdvanceView> => {
    const advance = moneyField('advanceAmount', input.advanceAmount, input.currency);
    const purchased = moneyField('purchasedAmount', input.purchasedAmount, input.currency);
    if (purchased.minor < advance.minor) {
      throw validationError(
        'purchasedAmount',
        input.purchasedAmount,
        'purchasedAmount must not be below advanceAmount.',
      );
    }
    if (holdbackRateBasisPoints(input.holdbackRate) === null) {
      throw validationError(
        'holdbackRate',
        input.holdbackRate,
        'holdbackRate must be a decimal string above 0 and at most 1 with at most 4 decimals.',
      );
    }
    if (!(remittanceFrequencies as readonly string[]).includes(input.remittanceFrequency)) {
      throw validationError(
        'remittanceFrequency',
        input.remittanceFrequency,
        'remittanceFrequency must be DAILY or WEEKLY.',
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      if (input.requestKey) {
        const [existing] = await tx
          .select()
          .from(merchantAdvances)
          .where(
            and(
              eq(merchantAdvances.tenantId, input.tenantId),
              eq(merchantAdvances.requestKey, input.requestKey),
            ),
          );
        if (existing)
          return merchantAdvanceViewOf(existing, await remittancesOf(tx, input.tenantId, existing.id));
      }
      const [customer] = await tx
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.tenantId, input.tenantId), eq(customers.id, input.customerId)));
      if (!customer) throw referenceNotFound('customerId', input.customerId, 'Customer');
      const now = deps.clock();
      const [row] = await tx
        .insert(merchantAdvances)
        .values({
          tenantId: input.tenantId,
          customerId: customer.id,
          advanceAmount: advance.text,
          purchasedAmount: purchased.text,
          holdbackRate: formatHoldbackRate(input.holdbackRate),
          currencyCode: input.currency,
          remittanceFrequency: input.remittanceFrequency,
          fundedOnDate: utcDateOf(now),
          requestKey: input.requestKey ?? null,
          actorUsername: input.actor ?? null,
          createdAt: now,
        })
        .onConflictDoNothing({ target: [merchantAdvances.tenantId, merchantAdvances.requestKey] })
        .returning();
      if (!row) {
        // the same request key committed meanwhile by a concurrent retry: answer its advance
        const [winner] = await tx
          .select()
          .from(merchantAdvances)
          .where(
            and(
              eq(merchantAdvances.tenantId, input.tenantId),
              eq(merchantAdvances.requestKey, input.requestKey ?? ''),
            ),
          );
        if (!winner) throw new Error('merchant advance vanished after a request-key conflict');
        return merchantAdvanceViewOf(winner, await remittancesOf(tx, input.tenantId, winner.id));
      }
      await appendMerchantPosting(tx, {
        tenantId: input.tenantId,
        posting: advancePosting(row.advanceRef, {
          advanceAmount: advance.text,
          purchasedAmount: purchased.text,
          currency: input.currency,
        }),
        valueDate: row.fundedOnDate,
        now,
      });
      const view = merchantAdvanceViewOf(row, []);
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'merchant.advance.created',
        subjectId: view.advanceId,
        data: {
          advanceId: view.advanceId,
          customerId: view.customerId,
          advanceAmount: view.advanceAmount,
          purchasedAmount: view.purchasedAmount,
          holdbackRate: view.holdbackRate,
          currency: view.currency,
          remittanceFrequency: view.remittanceFrequency,
          fundedOnDate: view.fundedOnDate,
        },
        occurredAt: now,
        dedupeKey: `merchant-advance/${view.advanceId}/created`,
      });
      return view;
    });
  };
}
