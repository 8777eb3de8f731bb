import { and, eq } from 'drizzle-orm';
import { customers, loanParties, loans } from '../../db/schema';
import { withTenantTransaction } from '../../db/tenant-tx';
import { fieldError, notFound } from '../../domain/errors';
import { type LoanPartyRole, loanPartyRoles } from '../../domain/lending/loan-parties';
import { recordCustomerChange } from '../customers/records';
import type { Deps, OperationContext } from '../deps';
import { writeOutboxEvent } from '../platform/outbox';
import { loanValidationFailure } from './application';

export { type LoanPartyRole, loanPartyRoles } from '../../domain/lending/loan-parties';

export interface AddLoanPartyInput extends OperationContext {
  loanId: number;
  /** A customer of the tenant other than the borrower. */
  customerId: number;
  role: LoanPartyRole;
}

export interface AddLoanPartyResult {
  partyId: number;
  /** False when the customer already had this role on the loan (the existing party is returned). */
  created: boolean;
}

/**
 * Adds a co-borrower, authorized party or guarantor to a loan (OpenAPI `POST /v1/loans/{loanId}/parties`), in one transaction: the party row, `LOAN_PARTY_ADDED` in the
 * party's customer history and the outbox event `loan.party.added`. Idempotent by its natural key (loan,
 * customer, role): a repeat returns the existing party and writes nothing.
 * Errors: 404 for a loan that is not the tenant's; 400 naming `customerId` when it is not a customer of the
 * tenant or is the borrower; 400 naming `role` for an unknown role.
 */
export function addLoanParty(deps: Deps) {
  return async (input: AddLoanPartyInput): Promise<AddLoanPartyResult> => {
    if (!(loanPartyRoles as readonly string[]).includes(input.role)) {
      throw loanValidationFailure([
        fieldError(
          'role',
          input.role,
          `role must be one of ${loanPartyRoles.join(', ')}.`,
          'validation.msg.loan.party.role.is.not.one.of.expected.enumerations',
        ),
      ]);
    }
    const now = deps.clock();
    return withTenantTransaction(deps.db, input.tenantId, async (tx) => {
      const [loan] = await tx
        .select({ id: loans.id, clientId: loans.clientId, accountNo: loans.accountNo })
        .from(loans)
        .where(and(eq(loans.tenantId, input.tenantId), eq(loans.id, input.loanId)))
        .for('share');
      if (!loan) throw notFound('Loan', input.loanId);
      if (input.customerId === loan.clientId) {
        throw loanValidationFailure([
          fieldError(
            'customerId',
            input.customerId,
            `Customer ${input.customerId} is the borrower of loan ${loan.id} and cannot also be a party.`,
            'validation.msg.loan.party.customerId.is.borrower',
          ),
        ]);
      }
      const [customer] = await tx
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.tenantId, input.tenantId), eq(customers.id, input.customerId)))
        .for('update');
      if (!customer) {
        throw loanValidationFailure([
          fieldError(
            'customerId',
            input.customerId,
            `Customer ${input.customerId} is not a customer of this tenant.`,
            'validation.msg.loan.party.customerId.not.found',
          ),
        ]);
      }
      const [created] = await tx
        .insert(loanParties)
        .values({
          tenantId: input.tenantId,
          loanId: loan.id,
          customerId: input.customerId,
          role: input.role,
          createdAt: now,
        })
        .onConflictDoNothing({
          target: [loanParties.tenantId, loanParties.loanId, loanParties.customerId, loanParties.role],
        })
        .returning({ id: loanParties.id });
      if (!created) {
        const [existing] = await tx
          .select({ id: loanParties.id })
          .from(loanParties)
          .where(
            and(
              eq(loanParties.tenantId, input.tenantId),
              eq(loanParties.loanId, loan.id),
              eq(loanParties.customerId, input.customerId),
              eq(loanParties.role, input.role),
            ),
          );
        if (!existing) throw new Error('loan party vanished after a conflict');
        return { partyId: existing.id, created: false };
      }
      await recordCustomerChange(tx, {
        tenantId: input.tenantId,
        customerId: input.customerId,
        action: 'LOAN_PARTY_ADDED',
        detail: { loanId: loan.id, accountNo: loan.accountNo, partyId: created.id, role: input.role },
        actor: input.actor,
        correlationId: input.correlationId,
        occurredAt: now,
      });
      await writeOutboxEvent(tx, {
        tenantId: input.tenantId,
        eventType: 'loan.party.added',
        subjectId: loan.id,
        data: {
          loanId: loan.id,
          loanRef: loan.accountNo,
          partyId: created.id,
          customerId: input.customerId,
          role: input.role,
        },
        occurredAt: now,
        dedupeKey: `loan/${loan.id}/party/${created.id}/added`,
      });
      return { partyId: created.id, created: true };
    });
  };
}
