/**
 * The loan facts a hardship request is routed on (docs/processes.md P5 third bullet; domain/hardship/offer.ts):
 * `gatherHardshipLoanFacts`, read inside the caller's tenant transaction by the operations that create and
 * re-evaluate an offer.
 */
import { and, asc, eq, lte, ne, sql } from 'drizzle-orm';
import {
  cases,
  contactPoints,
  customerAddresses,
  hardshipOffers,
  loanInstallments,
  loanProducts,
  loans,
} from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { referenceNotFound } from '../../domain/errors';
import {
  type HardshipLoanFacts,
  nativeLoanCapabilities,
  repaymentFrequencyName,
} from '../../domain/hardship/offer';
import { activeRestrictions } from '../customers/restrictions';

/**
 * The routing facts of loan `loanId` for a request in case `caseId`, at `now` (`today` = the tenant's date):
 * - `productClass`: the product's `lmsConfig.productClass` ('' when unset: outside every non-empty list);
 * - `jurisdiction`: the borrower's first recorded address, `<countryCode>-<region>` (ISO 3166-2) when it has a
 *   region, else the country; '' without an address;
 * - `currency`: the loan's; `repaymentFrequency`: `repaymentFrequencyName` of the loan's terms (the product's
 *   when the loan's terms do not say);
 * - `nativeCapabilities`: the engine's `nativeLoanCapabilities` (every loan here is serviced natively);
 * - `installmentsSinceFirstDue`: the loan's installments due on or before today;
 * - `activeHardshipCaseCount`: the OPEN cases with an offer on this loan, the request's case counted once;
 * - `verifiedContactPresent`: the borrower has a VERIFIED contact point;
 * - `conditions`: none yet (no record of bankruptcy, litigation, … exists in the engine);
 * - `activeRestrictionTypes`: the restrictions in force at `now` on the borrower or this loan.
 */
export async function gatherHardshipLoanFacts(
  tx: Tx,
  tenantId: string,
  loanId: number,
  caseId: number,
  now: Date,
  today: string,
): Promise<HardshipLoanFacts> {
  const [loan] = await tx
    .select({
      clientId: loans.clientId,
      currency: loans.currencyCode,
      terms: loans.terms,
      lmsConfig: loanProducts.lmsConfig,
      productEvery: loanProducts.repaymentEvery,
      productFrequencyType: loanProducts.repaymentFrequencyType,
    })
    .from(loans)
    .innerJoin(
      loanProducts,
      and(eq(loanProducts.tenantId, loans.tenantId), eq(loanProducts.id, loans.productId)),
    )
    .where(and(eq(loans.tenantId, tenantId), eq(loans.id, loanId)));
  if (!loan) throw referenceNotFound('loanId', loanId, 'Loan');
  const [address] = await tx
    .select({ countryCode: customerAddresses.countryCode, region: customerAddresses.region })
    .from(customerAddresses)
    .where(and(eq(customerAddresses.tenantId, tenantId), eq(customerAddresses.customerId, loan.clientId)))
    .orderBy(asc(customerAddresses.id))
    .limit(1);
  const [age] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(loanInstallments)
    .where(
      and(
        eq(loanInstallments.tenantId, tenantId),
        eq(loanInstallments.loanId, loanId),
        lte(loanInstallments.dueDate, today),
      ),
    );
  const otherCases = await tx
    .selectDistinct({ caseId: hardshipOffers.caseId })
    .from(hardshipOffers)
    .innerJoin(cases, and(eq(cases.tenantId, hardshipOffers.tenantId), eq(cases.id, hardshipOffers.caseId)))
    .where(
      and(
        eq(hardshipOffers.tenantId, tenantId),
        eq(hardshipOffers.loanId, loanId),
        ne(hardshipOffers.caseId, caseId),
        eq(cases.status, 'OPEN'),
      ),
    );
  const [verified] = await tx
    .select({ id: contactPoints.id })
    .from(contactPoints)
    .where(
      and(
        eq(contactPoints.tenantId, tenantId),
        eq(contactPoints.customerId, loan.clientId),
        eq(contactPoints.verificationStatus, 'VERIFIED'),
      ),
    )
    .limit(1);
  const restrictions = await activeRestrictions(tx, tenantId, loan.clientId, loanId, { at: now });
  const terms = loan.terms as { repaymentEvery?: unknown; repaymentFrequencyType?: unknown };
  const every = typeof terms.repaymentEvery === 'number' ? terms.repaymentEvery : loan.productEvery;
  const frequencyType =
    typeof terms.repaymentFrequencyType === 'number'
      ? terms.repaymentFrequencyType
      : loan.productFrequencyType;
  return {
    productClass: typeof loan.lmsConfig.productClass === 'string' ? loan.lmsConfig.productClass : '',
    jurisdiction: address
      ? address.region
        ? `${address.countryCode}-${address.region}`
        : address.countryCode
      : '',
    currency: loan.currency,
    repaymentFrequency: repaymentFrequencyName(every, frequencyType),
    nativeCapabilities: [...nativeLoanCapabilities],
    installmentsSinceFirstDue: age?.n ?? 0,
    activeHardshipCaseCount: otherCases.length + 1,
    verifiedContactPresent: verified !== undefined,
    conditions: [],
    activeRestrictionTypes: [...new Set(restrictions.map((r) => r.restrictionType))],
  };
}
