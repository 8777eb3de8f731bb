DROP INDEX "loan_delinquency_history_tenant_loan_date_idx";--> statement-breakpoint
ALTER TABLE "loan_delinquency_history" ADD COLUMN "source" text DEFAULT 'CLOSE_OF_BUSINESS' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "loan_delinquency_history_tenant_loan_step_date_idx" ON "loan_delinquency_history" USING btree ("tenant_id","loan_id","business_date") WHERE source = 'CLOSE_OF_BUSINESS';--> statement-breakpoint
ALTER TABLE "loan_delinquency_history" ADD CONSTRAINT "loan_delinquency_history_source_check" CHECK ("loan_delinquency_history"."source" in ('CLOSE_OF_BUSINESS', 'TRANSACTION'));--> statement-breakpoint
-- A money operation that changes what is overdue stores its change at once (docs/lending.md "Close of business"),
-- so one business date may hold several changes: only a close-of-business step's row stays unique per (loan, day).
-- The table stays append-only: the REVOKE of UPDATE, DELETE and TRUNCATE from lending_app (0060) covers the new
-- column, since it is table-wide.
SELECT 1;
