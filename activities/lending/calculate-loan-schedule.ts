import { withTenantTransaction } from '../../db/tenant-tx';
import { errorCodes } from '../../domain/errors';
import type { AprDisclosure } from '../../domain/lending/disclosure';
import {
  type LoanDisclosureUnavailableReason,
  loanAprDisclosure,
} from '../../domain/lending/loan-terms/apr-disclosure';
import type { LoanApplication } from '../../domain/lending/loan-terms/types';
import { assertNoSensitiveData } from '../../domain/sensitive-data';
import type { Deps, OperationContext } from '../deps';
import { resolveApplicationInTx, type SchedulePreview, schedulePreviewOf } from './application';

export interface CalculateLoanScheduleInput extends OperationContext, LoanApplication {}

/** Why the preview carries no disclosure although the product has `aprEnabled` (what approval would answer). */
export interface AprDisclosureUnavailable {
  /** `error.msg.loan.apr.disclosure.unavailable`: the 409 an approval of this loan would get. */
  code: 'error.msg.loan.apr.disclosure.unavailable';
  reason: LoanDisclosureUnavailableReason;
  developerMessage: string;
}

/**
 * The preview: the schedule (`SchedulePreview`) and, for a product with `lmsConfig.aprEnabled`, `aprDisclosure`
 * — the §1026.18 disclosure approval would freeze now (no `finalizedAt`) — or null with
 * `aprDisclosureUnavailable` saying why approval would fail (also for a product that is not CONFIGURED, whatever
 * its APR setting: approval refuses it). A CONFIGURED product without APR carries neither field.
 */
export type LoanSchedulePreview = SchedulePreview & {
  aprDisclosure?: AprDisclosure | null;
  aprDisclosureUnavailable?: AprDisclosureUnavailable;
};

/**
 * Previews the repayment schedule of a loan application without storing anything (OpenAPI
 * `POST /v1/loans?command=calculateLoanSchedule`, "previews the amortization schedule without creating a loan;
 * same body as loan creation"). The application is validated exactly as at creation (borrower,
 * product, terms, charges, an `externalId` free of identifiers; activities/lending/application.ts), in one read
 * transaction of the tenant.
 * Errors: 400 `validation.msg.validation.errors.exist` naming each offending parameter.
 */
export function calculateLoanSchedule(deps: Deps) {
  return async (input: CalculateLoanScheduleInput): Promise<LoanSchedulePreview> => {
    assertNoSensitiveData('externalId', input.externalId);
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const { product, resolved } = await resolveApplicationInTx(tx, input.tenantId, input, deps.clock(), {
        lockBorrower: false,
      });
      const preview: LoanSchedulePreview = schedulePreviewOf(resolved.schedule);
      if (!product.lmsConfig.aprEnabled && product.configurationStatus === 'CONFIGURED') return preview;
      const result = loanAprDisclosure(
        product,
        resolved.terms,
        resolved.principal,
        resolved.expectedDisbursementDate,
        resolved.schedule,
      );
      if (result.ok) {
        preview.aprDisclosure = result.disclosure;
      } else {
        preview.aprDisclosure = null;
        preview.aprDisclosureUnavailable = {
          code: 'error.msg.loan.apr.disclosure.unavailable',
          reason: result.reason,
          developerMessage: `${errorCodes['error.msg.loan.apr.disclosure.unavailable'].message} ${result.reason}: ${result.message}.`,
        };
      }
      return preview;
    });
  };
}
