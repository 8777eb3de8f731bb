-- The loan summary's one-statement read (0019, 0023) also returns `principal_forgiven`: the principal the loan's
-- hardship reliefs wrote off (Σ loan_schedule_versions.principal_forgiven_minor, minor units as text,
-- activities/lending/loan-relief.ts), so `getLoanSummary` (db/queries/lending/ledger.ts) can state the principal
-- outstanding from the stored state as disbursed − forgiven − repaid (domain/lending/allocation.ts, principal forgiveness).
-- Its result type changes, so it is dropped first; otherwise the function is 0023's.
DROP FUNCTION IF EXISTS read_loan_summary_as_tenant(text, bigint, date, timestamptz, boolean);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION read_loan_summary_as_tenant(
  p_tenant_id text, p_loan_id bigint, p_as_of date, p_at timestamptz, p_replay boolean
) RETURNS TABLE (
  id bigint, account_no text, status text, currency_code text, strategy_code text, apr_disclosure jsonb,
  payment_allocation jsonb, installments json, state_current boolean, disbursed text, disbursement_count integer,
  overpayment text, restrictions json, in_flight_count integer, in_flight_amount text, principal_forgiven text
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
                        AND r.status = 'ACTIVE' AND (r.expires_at IS NULL OR r.expires_at > p_at)), '[]'::json),
           coalesce(s.in_flight_count, 0), coalesce(s.in_flight_amount, 0)::text,
           coalesce((SELECT sum(v.principal_forgiven_minor)
                       FROM loan_schedule_versions v
                      WHERE v.tenant_id = l.tenant_id AND v.loan_id = l.id), 0)::text
      FROM loans l
      LEFT JOIN loan_products p ON p.tenant_id = l.tenant_id AND p.id = l.product_id
      LEFT JOIN loan_summary_projections s ON s.tenant_id = l.tenant_id AND s.loan_id = l.id
     WHERE l.tenant_id = p_tenant_id AND l.id = p_loan_id;
  PERFORM set_config('role', caller_role, true), set_config('app.tenant_id', coalesce(caller_tenant, ''), true);
END
$$;
