-- Payment intents (docs/processes.md P1).
-- 1. `payment_status_history` is append-only (docs/design.md §3; see 0008): the application role may read and insert.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "payment_status_history" FROM lending_app;
--> statement-breakpoint
-- 2. The summary projection (0018) also keeps the count and sum of the loan's payment intents in flight (CREATED or
-- SUBMITTED), which the summary shows apart from posted money. The triggers on `payments` already mark the row.
CREATE OR REPLACE FUNCTION refresh_loan_summary_projection(p_tenant_id text, p_loan_id bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE loan_summary_projections p
     SET installments = coalesce((
           SELECT json_agg(json_build_object(
                    'installmentNumber', i.installment_number, 'fromDate', i.from_date::text,
                    'dueDate', i.due_date::text, 'principalDue', i.principal_due::text,
                    'interestDue', i.interest_due::text, 'feeChargesDue', i.fee_charges_due::text,
                    'penaltyChargesDue', i.penalty_charges_due::text,
                    'principalPaid', i.principal_paid::text, 'interestPaid', i.interest_paid::text,
                    'feeChargesPaid', i.fee_charges_paid::text, 'penaltyChargesPaid', i.penalty_charges_paid::text,
                    'interestWaived', i.interest_waived::text, 'feeChargesWaived', i.fee_charges_waived::text,
                    'penaltyChargesWaived', i.penalty_charges_waived::text) ORDER BY i.installment_number)
             FROM loan_installments i
            WHERE i.tenant_id = p.tenant_id AND i.loan_id = p.loan_id), '[]'::json),
         (disbursed, disbursement_count, last_funding_date) = (
           SELECT coalesce(sum(f.amount), 0), count(*)::int, max(f.funding_date)
             FROM fundings f
            WHERE f.tenant_id = p.tenant_id AND f.loan_id = p.loan_id),
         (overpayment, last_payment_date, unallocated_payments) = (
           SELECT coalesce(sum((pm.allocation ->> 'overpayment')::numeric), 0), max(pm.effective_date),
                  (count(*) FILTER (WHERE pm.allocation IS NULL))::int
             FROM payments pm
            WHERE pm.tenant_id = p.tenant_id AND pm.loan_id = p.loan_id AND pm.status = 'POSTED'),
         (in_flight_count, in_flight_amount) = (
           SELECT count(*)::int, coalesce(sum(pm.amount), 0)
             FROM payments pm
            WHERE pm.tenant_id = p.tenant_id AND pm.loan_id = p.loan_id AND pm.status IN ('CREATED', 'SUBMITTED')),
         stale = false
   WHERE p.tenant_id = p_tenant_id AND p.loan_id = p_loan_id;
END
$$;
--> statement-breakpoint
-- 3. The summary's one-statement read (0019) returns them too; its result type changes, so it is dropped first.
DROP FUNCTION IF EXISTS read_loan_summary_as_tenant(text, bigint, date, timestamptz, boolean);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION read_loan_summary_as_tenant(
  p_tenant_id text, p_loan_id bigint, p_as_of date, p_at timestamptz, p_replay boolean
) RETURNS TABLE (
  id bigint, account_no text, status text, currency_code text, strategy_code text, apr_disclosure jsonb,
  payment_allocation jsonb, installments json, state_current boolean, disbursed text, disbursement_count integer,
  overpayment text, restrictions json, in_flight_count integer, in_flight_amount text
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
           coalesce(s.in_flight_count, 0), coalesce(s.in_flight_amount, 0)::text
      FROM loans l
      LEFT JOIN loan_products p ON p.tenant_id = l.tenant_id AND p.id = l.product_id
      LEFT JOIN loan_summary_projections s ON s.tenant_id = l.tenant_id AND s.loan_id = l.id
     WHERE l.tenant_id = p_tenant_id AND l.id = p_loan_id;
  PERFORM set_config('role', caller_role, true), set_config('app.tenant_id', coalesce(caller_tenant, ''), true);
END
$$;
