/**
 * Operations of the lending context (docs/lending.md "Lending core"): charge definitions and
 * loan products, loans (schedule preview, submission, approval with a frozen Regulation Z
 * disclosure, parties), fundings recorded as external (each re-running the loan's allocation and
 * appending the journal difference, repost-loan.ts; payments recorded as external are in activities/payments/),
 * document records and periodic statements (list-statement-tenants.ts, list-statement-candidates.ts,
 * generate-statement.ts).
 * Each runs one tenant transaction and is idempotent by its business key (activities/README.md);
 * `createActivities` (activities/index.ts) spreads them in, so they are also Temporal activities
 * under these names. Merchant advances (docs/processes.md P6): create (posted at once), reported sales,
 * remittances recorded as external and their returns, each under the advance's row lock. Close-of-business runs
 * (docs/processes.md P7): open-cob-run.ts, count-cob-run-loans.ts, plan-cob-chunks.ts, close-cob-chunk.ts,
 * complete-cob-run.ts.
 */
import type { Deps } from '../deps';
import { addLoanCharge } from './add-loan-charge';
import { addLoanParty } from './add-loan-party';
import { approveLoan } from './approve-loan';
import { boardLoan } from './board-loan';
import { calculateLoanSchedule } from './calculate-loan-schedule';
import { chargeOffLoan } from './charge-off-loan';
import { closeCobChunk } from './close-cob-chunk';
import { completeCobRun } from './complete-cob-run';
import { countCobRunLoans } from './count-cob-run-loans';
import { createCharge } from './create-charge';
import { createDelinquencyBucket } from './create-delinquency-bucket';
import { createDelinquencyRange } from './create-delinquency-range';
import { createDocument } from './create-document';
import { createLoan } from './create-loan';
import { createLoanDelinquencyAction } from './create-loan-delinquency-action';
import { createLoanProduct } from './create-loan-product';
import { createMerchantAdvance } from './create-merchant-advance';
import { generateStatement } from './generate-statement';
import { listStatementCandidates } from './list-statement-candidates';
import { listStatementTenants } from './list-statement-tenants';
import { openCobRun } from './open-cob-run';
import { planCobChunks } from './plan-cob-chunks';
import { recordExternalFunding } from './record-external-funding';
import { recordExternalMerchantRemittance } from './record-external-merchant-remittance';
import { reportMerchantSales } from './report-merchant-sales';
import { returnMerchantRemittance } from './return-merchant-remittance';
import { undoChargeOffLoan } from './undo-charge-off-loan';
import { waiveLoanCharge } from './waive-loan-charge';

export function createLendingActivities(deps: Deps) {
  return {
    createCharge: createCharge(deps),
    createLoanProduct: createLoanProduct(deps),
    createDelinquencyRange: createDelinquencyRange(deps),
    createDelinquencyBucket: createDelinquencyBucket(deps),
    createLoanDelinquencyAction: createLoanDelinquencyAction(deps),
    createDocument: createDocument(deps),
    calculateLoanSchedule: calculateLoanSchedule(deps),
    createLoan: createLoan(deps),
    approveLoan: approveLoan(deps),
    boardLoan: boardLoan(deps),
    addLoanParty: addLoanParty(deps),
    addLoanCharge: addLoanCharge(deps),
    waiveLoanCharge: waiveLoanCharge(deps),
    chargeOffLoan: chargeOffLoan(deps),
    undoChargeOffLoan: undoChargeOffLoan(deps),
    recordExternalFunding: recordExternalFunding(deps),
    listStatementTenants: listStatementTenants(deps),
    listStatementCandidates: listStatementCandidates(deps),
    generateStatement: generateStatement(deps),
    openCobRun: openCobRun(deps),
    countCobRunLoans: countCobRunLoans(deps),
    planCobChunks: planCobChunks(deps),
    closeCobChunk: closeCobChunk(deps),
    completeCobRun: completeCobRun(deps),
    createMerchantAdvance: createMerchantAdvance(deps),
    reportMerchantSales: reportMerchantSales(deps),
    recordExternalMerchantRemittance: recordExternalMerchantRemittance(deps),
    returnMerchantRemittance: returnMerchantRemittance(deps),
  };
}

export type LendingActivities = ReturnType<typeof createLendingActivities>;
