/**
 * Operations of the customers context: the customer aggregate, its identifiers,
 * consents, payment instruments and restrictions. Each is one transaction, idempotent, and
 * appends to the customer's history. The hold check for guarded commands, `activeRestrictions`,
 * is not an operation: it runs inside the guarded command's own transaction (restrictions.ts).
 */
import type { Deps } from '../deps';
import { addCustomerIdentifier } from './add-identifier';
import { addPaymentInstrument } from './add-payment-instrument';
import { applyRestriction } from './apply-restriction';
import { boardCustomer } from './board-customer';
import { createCustomer } from './create-customer';
import { recordCustomerConsent } from './record-consent';
import { releaseRestriction } from './release-restriction';
import { verifyPaymentInstrument } from './verify-payment-instrument';

export { type ActiveRestriction, activeRestrictions } from './restrictions';

/** The customers context's operations, built from `deps`; names are unique across workers. */
export function createCustomerActivities(deps: Deps) {
  return {
    createCustomer: createCustomer(deps),
    boardCustomer: boardCustomer(deps),
    addCustomerIdentifier: addCustomerIdentifier(deps),
    recordCustomerConsent: recordCustomerConsent(deps),
    addPaymentInstrument: addPaymentInstrument(deps),
    verifyPaymentInstrument: verifyPaymentInstrument(deps),
    applyRestriction: applyRestriction(deps),
    releaseRestriction: releaseRestriction(deps),
  };
}
