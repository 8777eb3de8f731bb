-- The loan summary's read as ONE statement (db/queries/lending/ledger.ts `getLoanSummary`): the tenant
-- context and the read in one Parse/Bind/Execute/Sync, where `readAsTenant` needs four statements (BEGIN, the
-- context, the read, COMMIT) and so four protocol turns in PostgreSQL.
--
-- It switches to the non-owner role `lending_app` and sets `app.tenant_id`, both transaction-local, exactly as
-- db/tenant-tx.ts does, then runs the read, so row-level security confines it to `p_tenant_id`; it restores the
-- caller's role and tenant before returning. Called as a statement of its own (autocommit), the implicit
-- transaction ends with the statement; if the read fails, the transaction aborts and the settings revert too.
-- Not SECURITY DEFINER (PostgreSQL forbids a role switch there): it runs as the caller, who must be a member of
-- `lending_app` (migration 0000 grants it to the migrating role).
--
-- Returns at most one row, the columns `getLoanSummary` reads: the loan, its product's payment allocation, its
-- row of loan_summary_projections (migration 0018; an empty state when it has none), `state_current` (no money
-- event after `p_as_of`, every posted payment allocated, not `p_replay`) and the restrictions in force at `p_at`
-- (status ACTIVE, not expired, customer-wide or on this loan; db/queries/customers/restrictions.ts), oldest first.
CREATE OR REPLACE FUNCTION read_loan_summary_as_tenant(
  p_tenant_id text, p_loan_id bigint, p_as_of date, p_at timestamptz, p_replay boolean
) RETURNS TABLE (
  id bigint, account_no text, status text, currency_code text, strategy_code text, apr_disclosure jsonb,
  payment_allocation jsonb, installments json, state_current boolean, disbursed text, disbursement_count integer,
  overpayment text, restrictions json
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  caller_role text := current_setting('role');
  caller_tenant text := current_setting('app.tenant_id', true);
BEGIN
  PERFORM set_config('role', 'lending_app', true), set_config('app.tenant_id', p_tenant_id, true);
  RETURN QUERY
    SELECT l.id, l.account_no, l.status::text, l.currency_code, l.transaction_processing_strategy_code,
           l.apr_disclosure, p.payment_allocation,
           coalesce(s.installments, '[]'::json),
           coalesce(s.last_funding_date <= p_as_of, true)
             AND coalesce(s.last_payment_date <= p_as_of, true)
             AND coalesce(s.unallocated_payments, 0) = 0
             AND NOT p_replay,
           coalesce(s.disbursed, 0)::text, coalesce(s.disbursement_count, 0), coalesce(s.overpayment, 0)::text,
           coalesce((SELECT json_agg(json_build_object(
                       'restrictionId', r.id, 'restrictionType', r.restriction_type, 'loanId', r.loan_id,
                       'reason', r.reason, 'effectiveAt', r.effective_at, 'expiresAt', r.expires_at)
                       ORDER BY r.effective_at, r.id)
                       FROM restrictions r
                      WHERE r.tenant_id = l.tenant_id AND r.customer_id = l.client_id
                        AND (r.loan_id IS NULL OR r.loan_id = l.id)
                        AND r.status = 'ACTIVE' AND (r.expires_at IS NULL OR r.expires_at > p_at)), '[]'::json)
      FROM loans l
      LEFT JOIN loan_products p ON p.tenant_id = l.tenant_id AND p.id = l.product_id
      LEFT JOIN loan_summary_projections s ON s.tenant_id = l.tenant_id AND s.loan_id = l.id
     WHERE l.tenant_id = p_tenant_id AND l.id = p_loan_id;
  PERFORM set_config('role', caller_role, true), set_config('app.tenant_id', coalesce(caller_tenant, ''), true);
END
$$;
