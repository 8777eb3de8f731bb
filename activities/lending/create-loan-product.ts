import { and, eq, inArray } from 'drizzle-orm';
import { readLoanChargeDefinitions } from '../../db/queries/lending/loans';
import { charges, delinquencyBuckets, loanProductCharges, loanProducts } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { DomainError, type FieldError, fieldError } from '../../domain/errors';
import { loanChargeDefinitionErrors } from '../../domain/lending/loan-charges';
import {
  type ConfigurationStatus,
  configurationStatusOf,
  type LoanProductDefinition,
  loanProductErrors,
  normalizeLmsConfig,
  resolvedPaymentAllocation,
} from '../../domain/lending/products';
import type { Deps, OperationContext } from '../deps';
import { rowOfRequestKey } from '../servicing/records';

export interface CreateLoanProductInput extends OperationContext, LoanProductDefinition {
  /** Charge definitions to attach, by id: each must be the tenant's, active, and in the product currency. */
  charges: { id: number }[];
  /**
   * The NSF charge (docs/lending.md "NSF fee on a returned payment"): the tenant's, active, a flat penalty of a
   * specified due date, in the product currency; absent/null = none.
   */
  nsfChargeId?: number | null;
}

export interface CreateLoanProductResult {
  productId: number;
  /** `CONFIGURED`, or what loan approval still misses (domain/lending/products.ts `ConfigurationStatus`). */
  configurationStatus: ConfigurationStatus;
}

/**
 * Creates a loan product with Fineract's native calculation settings, its attached charges and `lmsConfig`
 * (OpenAPI `GET /v1/loanproducts`; `POST /v1/loanproducts`), in one transaction.
 * Stores amounts and rates exactly (decimal strings into `numeric`), the advanced strategy's allocation rules
 * (docs/design.md §5's default order when none are given), `lmsConfig` with its defaults (booleans false, 21 statement
 * lead days), the down payment (`enableDownPayment`, `disbursedAmountPercentageForDownPayment` exactly,
 * `enableAutoRepaymentForDownPayment` false when not given) and the `configurationStatus` computed by
 * `configurationStatusOf`.
 * Idempotent by `requestKey`: a retry returns the product the first call created.
 * Errors: 400 `validation.msg.validation.errors.exist` with one field error per broken rule of
 * `loanProductErrors` (codes, bounds, currency digits, grace, allocation rules, lmsConfig, the down-payment
 * fields: `downPaymentErrors`), and per attached charge (`charges[i].id`) listed twice, not found in the tenant,
 * inactive, or in another currency; naming `nsfChargeId` for an NSF charge not found, inactive, in another
 * currency, not a penalty, not of a specified due date or not flat; naming `delinquencyBucketId`
 * (`validation.msg.loanproduct.delinquencyBucketId.not.found`) for a bucket that is not the tenant's.
 * Also stores the delinquency settings (`delinquencyBucketId`, `graceOnArrearsAgeing` default 0,
 * `enableInstallmentLevelDelinquency` default false, `chargeOffDaysPastDue` default null: docs/lending.md
 * "Delinquency configuration").
 */
export function createLoanProduct(deps: Deps) {
  return async (input: CreateLoanProductInput): Promise<CreateLoanProductResult> => {
    const ruleErrors = loanProductErrors(input);
    if (ruleErrors.length > 0) throw validationFailure(ruleErrors);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const chargeIds = input.charges.map((c) => c.id);
      const found =
        chargeIds.length === 0
          ? []
          : await tx
              .select({ id: charges.id, currencyCode: charges.currencyCode, active: charges.active })
              .from(charges)
              .where(and(eq(charges.tenantId, input.tenantId), inArray(charges.id, chargeIds)))
              .for('share');
      const byId = new Map(found.map((c) => [c.id, c]));
      const chargeErrors: FieldError[] = [];
      chargeIds.forEach((chargeId, index) => {
        const at = `charges[${index}].id`;
        const charge = byId.get(chargeId);
        if (chargeIds.indexOf(chargeId) !== index) {
          chargeErrors.push(
            fieldError(
              at,
              chargeId,
              `Charge ${chargeId} is listed more than once.`,
              'validation.msg.loanproduct.charges.duplicate',
            ),
          );
        } else if (!charge) {
          chargeErrors.push(
            fieldError(
              at,
              chargeId,
              `Charge ${chargeId} was not found.`,
              'validation.msg.loanproduct.charges.not.found',
            ),
          );
        } else if (!charge.active) {
          chargeErrors.push(
            fieldError(
              at,
              chargeId,
              `Charge ${chargeId} is not active.`,
              'validation.msg.loanproduct.charges.inactive',
            ),
          );
        } else if (charge.currencyCode !== input.currencyCode) {
          chargeErrors.push(
            fieldError(
              at,
              chargeId,
              `Charge ${chargeId} is in ${charge.currencyCode}; the product is in ${input.currencyCode}.`,
              'validation.msg.loanproduct.charges.currency.mismatch',
            ),
          );
        }
      });
      if (input.nsfChargeId !== undefined && input.nsfChargeId !== null) {
        const definition = (await readLoanChargeDefinitions(tx, input.tenantId, [input.nsfChargeId])).get(
          input.nsfChargeId,
        );
        if (!definition) {
          chargeErrors.push(
            fieldError(
              'nsfChargeId',
              input.nsfChargeId,
              `Charge ${input.nsfChargeId} was not found.`,
              'validation.msg.loanproduct.nsfChargeId.not.found',
            ),
          );
        } else {
          chargeErrors.push(
            ...loanChargeDefinitionErrors(definition, input.currencyCode).map((e) => ({
              ...e,
              parameterName: 'nsfChargeId',
            })),
          );
          if (!definition.penalty) {
            chargeErrors.push(
              fieldError(
                'nsfChargeId',
                input.nsfChargeId,
                `Charge ${input.nsfChargeId} is a fee: the NSF charge must be a penalty.`,
                'validation.msg.loanproduct.nsfChargeId.not.penalty',
              ),
            );
          }
        }
      }
      if (input.delinquencyBucketId !== undefined && input.delinquencyBucketId !== null) {
        const [bucket] = await tx
          .select({ id: delinquencyBuckets.id })
          .from(delinquencyBuckets)
          .where(
            and(
              eq(delinquencyBuckets.tenantId, input.tenantId),
              eq(delinquencyBuckets.id, input.delinquencyBucketId),
            ),
          )
          .for('share');
        if (!bucket) {
          chargeErrors.push(
            fieldError(
              'delinquencyBucketId',
              input.delinquencyBucketId,
              `Delinquency bucket ${input.delinquencyBucketId} was not found.`,
              'validation.msg.loanproduct.delinquencyBucketId.not.found',
            ),
          );
        }
      }
      if (chargeErrors.length > 0) throw validationFailure(chargeErrors);

      const configurationStatus = configurationStatusOf(input.lmsConfig, input);
      const [created] = await tx
        .insert(loanProducts)
        .values({
          tenantId: input.tenantId,
          name: input.name,
          shortName: input.shortName,
          currencyCode: input.currencyCode,
          digitsAfterDecimal: input.digitsAfterDecimal,
          inMultiplesOf: input.inMultiplesOf,
          installmentAmountInMultiplesOf: input.installmentAmountInMultiplesOf,
          principal: input.principal,
          minPrincipal: input.minPrincipal,
          maxPrincipal: input.maxPrincipal,
          numberOfRepayments: input.numberOfRepayments,
          minNumberOfRepayments: input.minNumberOfRepayments,
          maxNumberOfRepayments: input.maxNumberOfRepayments,
          interestRatePerPeriod: input.interestRatePerPeriod,
          minInterestRatePerPeriod: input.minInterestRatePerPeriod,
          maxInterestRatePerPeriod: input.maxInterestRatePerPeriod,
          repaymentEvery: input.repaymentEvery,
          repaymentFrequencyType: input.repaymentFrequencyType,
          interestRateFrequencyType: input.interestRateFrequencyType,
          interestType: input.interestType,
          amortizationType: input.amortizationType,
          interestCalculationPeriodType: input.interestCalculationPeriodType,
          allowPartialPeriodInterestCalcualtion: input.allowPartialPeriodInterestCalcualtion,
          daysInYearType: input.daysInYearType,
          daysInMonthType: input.daysInMonthType,
          graceOnPrincipalPayment: input.graceOnPrincipalPayment,
          graceOnInterestPayment: input.graceOnInterestPayment,
          transactionProcessingStrategyCode: input.transactionProcessingStrategyCode,
          nsfChargeId: input.nsfChargeId ?? null,
          paymentAllocation: resolvedPaymentAllocation(
            input.transactionProcessingStrategyCode,
            input.paymentAllocation,
          ),
          lmsConfig: { ...normalizeLmsConfig(input.lmsConfig) },
          configurationStatus,
          enableDownPayment: input.enableDownPayment ?? false,
          disbursedAmountPercentageForDownPayment: input.enableDownPayment
            ? (input.disbursedAmountPercentageForDownPayment ?? null)
            : null,
          enableAutoRepaymentForDownPayment:
            (input.enableDownPayment ?? false) && (input.enableAutoRepaymentForDownPayment ?? false),
          delinquencyBucketId: input.delinquencyBucketId ?? null,
          graceOnArrearsAgeing: input.graceOnArrearsAgeing ?? 0,
          enableInstallmentLevelDelinquency: input.enableInstallmentLevelDelinquency ?? false,
          chargeOffDaysPastDue: input.chargeOffDaysPastDue ?? null,
          createdAt: deps.clock(),
          requestKey: input.requestKey ?? null,
        })
        .onConflictDoNothing({ target: [loanProducts.tenantId, loanProducts.requestKey] })
        .returning({ id: loanProducts.id });
      if (!created) {
        const existing = await rowOfRequestKey(tx, loanProducts, input.tenantId, input.requestKey);
        return {
          productId: existing.id,
          configurationStatus: existing.configurationStatus as ConfigurationStatus,
        };
      }
      if (chargeIds.length > 0) {
        await tx
          .insert(loanProductCharges)
          .values(
            chargeIds.map((chargeId) => ({ tenantId: input.tenantId, productId: created.id, chargeId })),
          )
          .onConflictDoNothing();
      }
      return { productId: created.id, configurationStatus };
    });
  };
}

function validationFailure(errors: FieldError[]): DomainError {
  return new DomainError(
    'validation.msg.validation.errors.exist',
    errors.map((e) => e.developerMessage).join(' '),
    { errors },
  );
}
