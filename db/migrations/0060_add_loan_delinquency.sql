CREATE TABLE "loan_delinquency_history" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_delinquency_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"business_date" date NOT NULL,
	"classification" text NOT NULL,
	"previous_classification" text NOT NULL,
	"delinquency_range_id" bigint,
	"delinquent_days" integer NOT NULL,
	"delinquent_amount" numeric(19, 6) NOT NULL,
	"collections_case_id" bigint,
	"collections_suppressed_by" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "loan_delinquency_history_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "loan_delinquency_history" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "delinquency_range_id" bigint;--> statement-breakpoint
ALTER TABLE "loans" ADD COLUMN "last_closed_business_date" date;--> statement-breakpoint
ALTER TABLE "loan_delinquency_history" ADD CONSTRAINT "loan_delinquency_history_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "loan_delinquency_history_tenant_loan_date_idx" ON "loan_delinquency_history" USING btree ("tenant_id","loan_id","business_date");--> statement-breakpoint
CREATE INDEX "loan_delinquency_history_tenant_loan_id_idx" ON "loan_delinquency_history" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
CREATE POLICY "loan_delinquency_history_tenant_isolation" ON "loan_delinquency_history" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
-- The delinquency history is append-only (docs/design.md §3 "History is append-only"): a stored change of
-- classification is never changed nor removed; a rerun finds it by (tenant, loan, business date). See
-- 0008_enforce_append_only for the rule and test/activities/database-invariants.test.ts for the proof.
REVOKE UPDATE, DELETE, TRUNCATE ON TABLE "loan_delinquency_history" FROM lending_app;
--> statement-breakpoint
-- The loan summary's one-statement read (0019, 0023, 0045) also returns what the summary's delinquency needs
-- (docs/lending.md "Delinquency"): the loan's stored close-of-business columns above and its last POSTED payment
-- value-dated on or before the as-of date (`last_payment`: {valueDate, amount} or null; an index read of the loan's
-- payments). Its result type changes, so it is dropped first; otherwise the function is 0045's.
DROP FUNCTION IF EXISTS read_loan_summary_as_tenant(text, bigint, date, timestamptz, boolean);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION read_loan_summary_as_tenant(
  p_tenant_id text, p_loan_id bigint, p_as_of date, p_at timestamptz, p_replay boolean
) RETURNS TABLE (
  id bigint, account_no text, status text, currency_code text, strategy_code text, apr_disclosure jsonb,
  payment_allocation jsonb, installments json, state_current boolean, disbursed text, disbursement_count integer,
  overpayment text, restrictions json, in_flight_count integer, in_flight_amount text, principal_forgiven text,
  delinquency_range_id bigint, last_closed_business_date text, charged_off boolean, charged_off_on_date text,
  last_payment json
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
             LIMIT 1)
      FROM loans l
      LEFT JOIN loan_products p ON p.tenant_id = l.tenant_id AND p.id = l.product_id
      LEFT JOIN loan_summary_projections s ON s.tenant_id = l.tenant_id AND s.loan_id = l.id
     WHERE l.tenant_id = p_tenant_id AND l.id = p_loan_id;
  PERFORM set_config('role', caller_role, true), set_config('app.tenant_id', coalesce(caller_tenant, ''), true);
END
$$;
