import { charges } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError } from '../../domain/errors';
import { type ChargeDefinition, chargeDefinitionErrors } from '../../domain/lending/charges';
import type { Deps, OperationContext } from '../deps';
import { rowOfRequestKey } from '../servicing/records';

export interface CreateChargeInput extends OperationContext, ChargeDefinition {}

export interface CreateChargeResult {
  chargeId: number;
}

/**
 * Defines a loan charge (OpenAPI `POST /v1/charges`) in Fineract's terms:
 * `amount` is a decimal string, money in `currencyCode` for a flat charge (at most the currency's minor-unit
 * digits) or the percent of a percentage charge (at most 6 fraction digits), stored exactly in `numeric(19,6)`.
 * Idempotent by `requestKey`: a retry returns the charge the first call defined.
 * Errors: 400 `validation.msg.validation.errors.exist` with one field error per broken rule of
 * `chargeDefinitionErrors` (domain/lending/charges.ts: unknown currency, unsupported code, penalty at
 * disbursement, amount not > 0 or with too many digits).
 */
export function createCharge(deps: Deps) {
  return async (input: CreateChargeInput): Promise<CreateChargeResult> => {
    const errors = chargeDefinitionErrors(input);
    if (errors.length > 0) {
      throw new DomainError(
        'validation.msg.validation.errors.exist',
        errors.map((e) => e.developerMessage).join(' '),
        { errors },
      );
    }
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [created] = await tx
        .insert(charges)
        .values({
          tenantId: input.tenantId,
          name: input.name,
          currencyCode: input.currencyCode,
          amount: input.amount,
          chargeAppliesTo: input.chargeAppliesTo,
          chargeTimeType: input.chargeTimeType,
          chargeCalculationType: input.chargeCalculationType,
          penalty: input.penalty,
          active: input.active,
          createdAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [charges.tenantId, charges.requestKey] })
        .returning({ id: charges.id });
      if (created) return { chargeId: created.id };
      const existing = await rowOfRequestKey(tx, charges, input.tenantId, input.requestKey);
      return { chargeId: existing.id };
    });
  };
}
