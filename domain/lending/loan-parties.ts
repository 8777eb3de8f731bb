/**
 * Roles a customer other than the borrower can hold on a loan (docs/lending.md "Lending core":
 * "co-borrowers and authorized parties"). Pure.
 */

/** Party roles, as stored and shown (`POST /v1/loans/{loanId}/parties`, event `loan.party.added`). */
export const loanPartyRoles = ['CO_BORROWER', 'AUTHORIZED_PARTY', 'GUARANTOR'] as const;
export type LoanPartyRole = (typeof loanPartyRoles)[number];
