/**
 * Scopes, permissions and credential formats (docs/design.md §4 "Scopes and permissions"; docs/design.md §4 Tokens).
 */

/** The spec's scopes: each opens a broad surface; a permission decides each operation. */
export const scopes = [
  'servicing:read',
  'servicing:write',
  'lending:read',
  'lending:write',
  'actions:approve',
] as const;
export type Scope = (typeof scopes)[number];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

/**
 * Permission names, one per operation, in the spec's pattern (`CREATE_LMS_PAYMENT`,
 * `APPROVE_LMS_FUNDING`): ACTION_ENTITY. `ALL` grants every permission.
 */
export const permissions = [
  'CREATE_SERVICINGCASE',
  'READ_SERVICINGCASE',
  'CLOSE_SERVICINGCASE',
  'READ_CASEEFFECT',
  'CREATE_INTERACTION',
  'READ_INTERACTION',
  'CREATE_EVIDENCE',
  'READ_EVIDENCE',
  'READ_TASK',
  'COMPLETE_TASK',
  'CREATE_PRIVACYREQUEST',
  'READ_PRIVACYREQUEST',
  'FULFILL_PRIVACYREQUEST',
  // Case types, field definitions and form entries (docs/processes.md P4).
  'READ_CASETYPE',
  'CREATE_CASETYPE',
  'PUBLISH_CASETYPEFIELDS',
  'CREATE_FORMENTRY',
  'READ_FORMENTRY',
  'UPDATE_FORMENTRY',
  // Contact-consent updates (docs/processes.md P4).
  'UPDATE_CONTACTCONSENT',
  'READ_CONTACTCONSENT',
  // AI-assisted sessions and their outputs (docs/processes.md P4).
  'CREATE_AISESSION',
  'READ_AISESSION',
  'CREATE_AISESSIONOUTPUT',
  'READ_AISESSIONOUTPUT',
  // Promises to pay (docs/processes.md P4).
  'CREATE_PROMISETOPAY',
  'READ_PROMISETOPAY',
  // Lending core.
  'CREATE_CHARGE',
  'READ_CHARGE',
  'CREATE_LOANPRODUCT',
  'READ_LOANPRODUCT',
  // Delinquency configuration (Fineract DelinquencyApiResource).
  'CREATE_DELINQUENCY_RANGE',
  'READ_DELINQUENCY_RANGE',
  'CREATE_DELINQUENCY_BUCKET',
  'READ_DELINQUENCY_BUCKET',
  // Delinquency pause/resume on a loan (Fineract LoansApiResource delinquency-actions; read with READ_LOAN).
  'CREATE_DELINQUENCY_ACTION',
  'CREATE_CUSTOMER',
  'READ_CUSTOMER',
  'CREATE_CUSTOMERIDENTIFIER',
  'CREATE_CUSTOMERCONSENT',
  'CREATE_PAYMENTINSTRUMENT',
  'VERIFY_PAYMENTINSTRUMENT',
  'CREATE_RESTRICTION',
  'RELEASE_RESTRICTION',
  'SEARCH_PORTFOLIO',
  'CALCULATE_LOANSCHEDULE',
  'CREATE_LOAN',
  'APPROVE_LOAN',
  'READ_LOAN',
  'CREATE_LOANPARTY',
  // Charges added to an active loan (Fineract LoanChargesApiResource).
  'CREATE_LOANCHARGE',
  'READ_LOANCHARGE',
  'WAIVE_LOANCHARGE',
  // Charge-off (Fineract LoanTransactionsApiResource command=charge-off / undo-charge-off).
  'CHARGEOFF_LOAN',
  'UNDOCHARGEOFF_LOAN',
  // Close-of-business runs (docs/processes.md P7): starting one; reading runs and their errors (RUN_COB reads too).
  'RUN_COB',
  'READ_COB',
  'RECORD_LMS_FUNDING',
  'READ_LMS_FUNDING',
  'RECORD_LMS_PAYMENT',
  'READ_LMS_PAYMENT',
  // Payment intents on rails (docs/processes.md P1).
  'CREATE_LMS_PAYMENT',
  'CANCEL_LMS_PAYMENT',
  'SIMULATE_PAYMENT',
  // Autopay (docs/processes.md P1 Autopay).
  'CREATE_LMS_AUTOPAY',
  'READ_LMS_AUTOPAY',
  'CANCEL_LMS_AUTOPAY',
  // Statements (docs/processes.md P6).
  'READ_STATEMENT',
  'READ_JOURNALENTRY',
  // Merchant advances (docs/processes.md P6).
  'CREATE_MERCHANTADVANCE',
  'READ_MERCHANTADVANCE',
  'REPORT_MERCHANTSALES',
  'RECORD_MERCHANTREMITTANCE',
  'CREATE_DOCUMENT',
  'READ_DOCUMENT',
  'UPDATE_DOCUMENT',
  // Portfolio boarding (docs/processes.md P3): uploading a batch and controlling it.
  'BOARD_PORTFOLIO',
  'READ_BOARDINGBATCH',
  // Reconciliation exceptions (docs/processes.md P1).
  'READ_RECONEXCEPTION',
  'RESOLVE_RECONEXCEPTION',
  // Webhook subscriptions and deliveries (docs/processes.md P2).
  'CREATE_WEBHOOKSUBSCRIPTION',
  'READ_WEBHOOKSUBSCRIPTION',
  'UPDATE_WEBHOOKSUBSCRIPTION',
  'ROTATE_WEBHOOKSUBSCRIPTION_SECRET',
  'DEACTIVATE_WEBHOOKSUBSCRIPTION',
  'TEST_WEBHOOKSUBSCRIPTION',
  'READ_WEBHOOKDELIVERY',
  // Voice-provider control surface (docs/processes.md P4).
  'CREATE_VOICEWORKFLOWVERSION',
  'READ_VOICEWORKFLOWVERSION',
  'ACTIVATE_VOICEWORKFLOWVERSION',
  'CREATE_VOICEDISPATCH',
  'READ_VOICEDISPATCH',
  // Hardship policies and programs (docs/processes.md P5).
  'MANAGE_HARDSHIPPOLICY',
  'READ_HARDSHIPPOLICY',
  // Hardship offers (docs/processes.md P5); approving one needs the program's humanApprovalPermission.
  'CREATE_HARDSHIPOFFER',
  'READ_HARDSHIPOFFER',
  'ACCEPT_HARDSHIPOFFER',
  // A permission programs may name as humanApprovalPermission: the checker of hardship offers.
  'APPROVE_HARDSHIPOFFER',
] as const;
export type Permission = (typeof permissions)[number];

export function isPermission(value: string): value is Permission | 'ALL' {
  return value === 'ALL' || (permissions as readonly string[]).includes(value);
}

/** Access-token lifetime (docs/design.md §4 Tokens: valid 3600 s). */
export const accessTokenLifetimeSeconds = 3600;

export type ServiceEnvironment = 'sandbox' | 'production';

/** Prefix of opaque credentials per environment: `at_test_`/`at_live_`, `cs_test_`/`cs_live_`. */
export function credentialPrefix(kind: 'at' | 'cs', environment: ServiceEnvironment): string {
  return `${kind}_${environment === 'production' ? 'live' : 'test'}_`;
}
