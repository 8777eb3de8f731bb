/**
 * Checks of a case against its loan and its records, shared by the operations that run them inside their own
 * transaction (docs/processes.md P4): `assertCaseCustomerIsLoanParty` (a promise to pay, a hardship offer) and
 * `assertCaseOutcomeGrounded` (closing a case, close-case.ts).
 */
import { and, eq, exists, or, sql } from 'drizzle-orm';
import { caseEffects, customers, loanParties, loans } from '../../db/schema';
import type { Tx } from '../../db/tenant-tx';
import { DomainError, fieldError } from '../../domain/errors';

/**
 * Throws 409 `error.msg.case.customer.mismatch` (naming `caseId`) unless the case's `customerRef` is the
 * `customerRef` (docs/processes.md P4 "Refs") of the loan's borrower or of one of its parties (co-borrower,
 * guarantor, authorized party): a promise to pay is taken from someone who answers for the loan. Also used by
 * the hardship offers (activities/hardship/create-hardship-offer.ts).
 */
export async function assertCaseCustomerIsLoanParty(
  tx: Tx,
  tenantId: string,
  loanId: number,
  caseId: number,
  caseCustomerRef: string,
): Promise<void> {
  const [party] = await tx
    .select({ customerId: customers.id })
    .from(customers)
    .where(
      and(
        eq(customers.tenantId, tenantId),
        eq(customers.customerRef, caseCustomerRef),
        or(
          exists(
            tx
              .select({ one: sql`1` })
              .from(loans)
              .where(
                and(eq(loans.tenantId, tenantId), eq(loans.id, loanId), eq(loans.clientId, customers.id)),
              ),
          ),
          exists(
            tx
              .select({ one: sql`1` })
              .from(loanParties)
              .where(
                and(
                  eq(loanParties.tenantId, tenantId),
                  eq(loanParties.loanId, loanId),
                  eq(loanParties.customerId, customers.id),
                ),
              ),
          ),
        ),
      ),
    );
  if (!party) {
    const message = `caseId: case ${caseId} is not of the borrower or a party of loan ${loanId}.`;
    throw new DomainError('error.msg.case.customer.mismatch', message, {
      errors: [fieldError('caseId', caseId, message, 'error.msg.case.customer.mismatch')],
    });
  }
}

/** Outcome codes a case may close with only when its effects show the fact (code → effect type required). */
const groundingEffects: Readonly<Record<string, string>> = { PROMISE_KEPT: 'PROMISE_KEPT' };

/**
 * Throws unless the case's records ground `outcomeCode` (docs/processes.md P4; docs/servicing.md: a case closed
 * with `PROMISE_KEPT`): `PROMISE_KEPT` needs a `PROMISE_KEPT` effect on that case (a promise of it resolved KEPT);
 * other codes need nothing. 409 `error.msg.case.outcome.not.grounded` naming `outcomeCode`. Runs in the closing
 * transaction (after the case row is locked).
 */
export async function assertCaseOutcomeGrounded(
  tx: Tx,
  tenantId: string,
  caseId: number,
  outcomeCode: string,
): Promise<void> {
  const effectType = groundingEffects[outcomeCode];
  if (effectType === undefined) return;
  const [found] = await tx
    .select({ id: caseEffects.id })
    .from(caseEffects)
    .where(
      and(
        eq(caseEffects.tenantId, tenantId),
        eq(caseEffects.caseId, caseId),
        eq(caseEffects.effectType, effectType),
      ),
    )
    .limit(1);
  if (found) return;
  const message = `outcomeCode: case ${caseId} has no kept promise to pay (no ${effectType} effect); close it with another outcome code or wait until a promise is kept.`;
  throw new DomainError('error.msg.case.outcome.not.grounded', message, {
    errors: [fieldError('outcomeCode', outcomeCode, message, 'error.msg.case.outcome.not.grounded')],
  });
}
