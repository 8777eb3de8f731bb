CREATE TABLE "loan_summary_projections" (
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"installments" json DEFAULT '[]'::json NOT NULL,
	"disbursed" numeric(19, 6) DEFAULT '0' NOT NULL,
	"disbursement_count" integer DEFAULT 0 NOT NULL,
	"last_funding_date" date,
	"overpayment" numeric(19, 6) DEFAULT '0' NOT NULL,
	"last_payment_date" date,
	"unallocated_payments" integer DEFAULT 0 NOT NULL,
	"stale" boolean DEFAULT false NOT NULL,
	CONSTRAINT "loan_summary_projections_tenant_id_loan_id_pk" PRIMARY KEY("tenant_id","loan_id")
);
--> statement-breakpoint
ALTER TABLE "loan_summary_projections" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "loan_summary_projections" ADD CONSTRAINT "loan_summary_projections_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE POLICY "loan_summary_projections_tenant_isolation" ON "loan_summary_projections" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));