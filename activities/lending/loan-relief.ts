// PLACEHOLDER replaced at merge by wip/hardship-apply (the interface the lead codes against).
import type { Tx } from '../../db/tenant-tx';
import type { RequestedRelief } from '../../domain/hardship/offer';

export interface ApplyLoanReliefInput {
  tenantId: string;
  loanId: number;
  requestedRelief: RequestedRelief;
  asOfDate: string;
  source: { kind: 'HARDSHIP_OFFER'; offerId: number };
  actor: string | null;
  now: Date;
}
export interface AppliedLoanRelief {
  scheduleVersion: number;
  summary: Record<string, unknown>;
  installmentCountBefore: number;
  installmentCountAfter: number;
  totalDueBefore: string;
  totalDueAfter: string;
  journalEntryId: number | null;
}
export async function applyLoanRelief(_tx: Tx, _input: ApplyLoanReliefInput): Promise<AppliedLoanRelief> {
  throw new Error('placeholder');
}
