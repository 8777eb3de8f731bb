/**
 * Loan statuses (OpenAPI `GET /v1/loans`: `status.code`, value seen `loanStatusType.active`; docs/lending.md "Lending core": loan
 * submitted → approved) as stored (`loan_status` enum, db/schema/lending/lending.ts) and as shown: Apache Fineract's
 * `LoanStatus` enum (`fineract-loan/.../loanaccount/domain/LoanStatus.java`, commit 4198b0bc), whose API form is
 * `{id, code: "loanStatusType.<name>", value}` (`LoanEnumerations.status`). Pure.
 */

/** Stored statuses, mirroring the `loan_status` pgEnum. */
export const loanStatuses = [
  'SUBMITTED',
  'APPROVED',
  'ACTIVE',
  'CLOSED_OBLIGATIONS_MET',
  'OVERPAID',
] as const;
export type LoanStatus = (typeof loanStatuses)[number];

/** A status as the API shows it (Fineract `LoanStatusEnumData` without its boolean flags). */
export interface LoanStatusView {
  /** Fineract's numeric status: 100, 200, 300, 600, 700. */
  id: number;
  /** e.g. `loanStatusType.submitted.and.pending.approval`, `loanStatusType.active`. */
  code: string;
  /** English label, e.g. `Submitted and pending approval`. */
  value: string;
}

const views: Readonly<Record<LoanStatus, LoanStatusView>> = {
  SUBMITTED: {
    id: 100,
    code: 'loanStatusType.submitted.and.pending.approval',
    value: 'Submitted and pending approval',
  },
  APPROVED: { id: 200, code: 'loanStatusType.approved', value: 'Approved' },
  ACTIVE: { id: 300, code: 'loanStatusType.active', value: 'Active' },
  CLOSED_OBLIGATIONS_MET: {
    id: 600,
    code: 'loanStatusType.closed.obligations.met',
    value: 'Closed (obligations met)',
  },
  OVERPAID: { id: 700, code: 'loanStatusType.overpaid', value: 'Overpaid' },
};

/** The API form of a stored status (a fresh object). RangeError for a value outside `loanStatuses`. */
export function loanStatusView(status: string): LoanStatusView {
  const view = (views as Record<string, LoanStatusView | undefined>)[status];
  if (!view) throw new RangeError(`unknown loan status ${JSON.stringify(status)}`);
  return { ...view };
}
