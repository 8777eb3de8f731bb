-- Installment-level delinquency is a stored tag like the loan's classification (Apache Fineract
-- `m_loan_installment_delinquency_tag`; docs/lending.md "Delinquency"): `loans.installment_delinquency_tags` holds,
-- per overdue installment, the range of its own days and what it owed when a close-of-business step or a money
-- operation last set the loan's tags. The loan summary's one-statement read (0065) also returns it, so the summary
-- shows the same tags as the loan read. Its result type changes, so it is dropped first; otherwise the function is
-- 0065's.
ALTER TABLE "loans" ADD COLUMN "installment_delinquency_tags" jsonb;
--> statement-breakpoint
DROP FUNCTION IF EXISTS read_loan_summary_as_tenant(text, bigint, date, timestamptz, boolean);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION read_loan_summary_as_tenant(
  p_tenant_id text, p_loan_id bigint, p_as_of date, p_at timestamptz, p_replay boolean
) RETURNS TABLE (
  id bigint, account_no text, status text, currency_code text, strategy_code text, apr_disclosure jsonb,
  payment_allocation jsonb, installments json, state_current boolean, disbursed text, disbursement_count integer,
  overpayment text, restrictions json, in_flight_count integer, in_flight_amount text, principal_forgiven text,
  delinquency_range_id bigint, last_closed_business_date text, charged_off boolean, charged_off_on_date text,
  last_payment json, delinquency_terms jsonb, delinquency_ranges json, delinquency_actions json,
  installment_delinquency_tags jsonb
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
                      WHERE v.tenant_id = l.tenant_id AND v.loan_id = l.id), 0)::text,
           l.delinquency_range_id, l.last_closed_business_date::text, l.charged_off, l.charged_off_on_date::text,
           (SELECT json_build_object('valueDate', pm.effective_date::text, 'amount', pm.amount::text)
              FROM payments pm
             WHERE pm.tenant_id = l.tenant_id AND pm.loan_id = l.id AND pm.status = 'POSTED'
               AND pm.effective_date <= p_as_of
             ORDER BY pm.effective_date DESC, pm.id DESC
             LIMIT 1),
           l.terms -> 'delinquency',
           coalesce((SELECT json_agg(json_build_object(
                       'id', dr.id, 'classification', dr.classification,
                       'minimumAgeDays', dr.minimum_age_days, 'maximumAgeDays', dr.maximum_age_days)
                       ORDER BY dr.minimum_age_days, dr.id)
                       FROM delinquency_bucket_ranges br
                       JOIN delinquency_ranges dr ON dr.tenant_id = br.tenant_id AND dr.id = br.range_id
                      WHERE br.tenant_id = l.tenant_id
                        AND br.bucket_id = CASE WHEN jsonb_typeof(l.terms -> 'delinquency' -> 'delinquencyBucketId') = 'number'
                                                THEN (l.terms -> 'delinquency' -> 'delinquencyBucketId')::numeric END),
                    '[]'::json),
           coalesce((SELECT json_agg(json_build_object(
                       'action', da.action, 'startDate', da.start_date::text, 'endDate', da.end_date::text)
                       ORDER BY da.id)
                       FROM loan_delinquency_actions da
                      WHERE da.tenant_id = l.tenant_id AND da.loan_id = l.id), '[]'::json),
           l.installment_delinquency_tags
      FROM loans l
      LEFT JOIN loan_products p ON p.tenant_id = l.tenant_id AND p.id = l.product_id
      LEFT JOIN loan_summary_projections s ON s.tenant_id = l.tenant_id AND s.loan_id = l.id
     WHERE l.tenant_id = p_tenant_id AND l.id = p_loan_id;
  PERFORM set_config('role', caller_role, true), set_config('app.tenant_id', coalesce(caller_tenant, ''), true);
END
$$;
