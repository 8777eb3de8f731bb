-- The loan summary's projection stores its installments in a compact shape, which the summary's one-statement read
-- (`read_loan_summary_as_tenant`, 0065) returns as stored: one JSON array per installment, ordered by installment
-- number, holding in this order
--   [installment_number, from_date, due_date,
--    principal_due, interest_due, fee_charges_due, penalty_charges_due,
--    principal_paid, interest_paid, fee_charges_paid, penalty_charges_paid,
--    interest_waived, fee_charges_waived, penalty_charges_waived]
-- (the number a JSON number, the dates ISO text, the amounts decimal text at the column's scale, exactly as before),
-- instead of one object per installment repeating its fourteen keys. The row the summary reads is about half as
-- long, cheaper for PostgreSQL to build and send and for the API to decode (db/queries/lending/ledger.ts
-- `getLoanSummary`, `postedInstallmentOf`); the figures and the response are unchanged.
-- 1. The refresh (0023's, otherwise unchanged) builds the compact shape.
CREATE OR REPLACE FUNCTION refresh_loan_summary_projection(p_tenant_id text, p_loan_id bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE loan_summary_projections p
     SET installments = coalesce((
           SELECT json_agg(json_build_array(
                    i.installment_number, i.from_date::text, i.due_date::text,
                    i.principal_due::text, i.interest_due::text, i.fee_charges_due::text,
                    i.penalty_charges_due::text,
                    i.principal_paid::text, i.interest_paid::text, i.fee_charges_paid::text,
                    i.penalty_charges_paid::text,
                    i.interest_waived::text, i.fee_charges_waived::text, i.penalty_charges_waived::text)
                    ORDER BY i.installment_number)
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
-- 2. The stored rows are rewritten in place from their own objects (the same texts, so the same figures; `stale`
-- stays false, so the deferred refresh does not run for them).
UPDATE loan_summary_projections p
   SET installments = (
         SELECT coalesce(json_agg(json_build_array(
                  (e.v ->> 'installmentNumber')::integer, e.v ->> 'fromDate', e.v ->> 'dueDate',
                  e.v ->> 'principalDue', e.v ->> 'interestDue', e.v ->> 'feeChargesDue', e.v ->> 'penaltyChargesDue',
                  e.v ->> 'principalPaid', e.v ->> 'interestPaid', e.v ->> 'feeChargesPaid',
                  e.v ->> 'penaltyChargesPaid',
                  e.v ->> 'interestWaived', e.v ->> 'feeChargesWaived', e.v ->> 'penaltyChargesWaived')
                  ORDER BY e.n), '[]'::json)
           FROM json_array_elements(p.installments) WITH ORDINALITY AS e(v, n))
 WHERE json_array_length(p.installments) > 0 AND json_typeof(p.installments -> 0) = 'object';
