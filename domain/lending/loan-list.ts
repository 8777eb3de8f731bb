/**
 * The native loan list's sort keys (OpenAPI `GET /v1/loans?orderBy=`), shared by the route's
 * query schema and the list query.
 */

/** Sort keys of `GET /v1/loans` (`orderBy`). */
export const loanOrderByFields = ['id', 'accountNo', 'submittedOnDate'] as const;
export type LoanOrderBy = (typeof loanOrderByFields)[number];
