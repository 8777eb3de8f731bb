/**
 * Operations of the lending core's product catalogue and documents (issue 3 §1, §5): charge definitions, loan
 * products, document records and their title changes. Each runs one tenant transaction and is idempotent by
 * `requestKey` (activities/README.md); `createActivities` (activities/index.ts) spreads them in, so they are
 * also Temporal activities under these names.
 */
import type { Deps } from '../deps';
import { changeDocumentTitle } from './change-document-title';
import { createCharge } from './create-charge';
import { createDocument } from './create-document';
import { createLoanProduct } from './create-loan-product';

/** `{createCharge, createLoanProduct, createDocument, changeDocumentTitle}` bound to `deps`. */
export function createLendingProductActivities(deps: Deps) {
  return {
    createCharge: createCharge(deps),
    createLoanProduct: createLoanProduct(deps),
    createDocument: createDocument(deps),
    changeDocumentTitle: changeDocumentTitle(deps),
  };
}

export type LendingProductActivities = ReturnType<typeof createLendingProductActivities>;
