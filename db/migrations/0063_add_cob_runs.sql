CREATE TABLE "cob_run_errors" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cob_run_errors_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"run_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"error" text NOT NULL,
	"recorded_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cob_run_errors_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "cob_run_errors" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "cob_runs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "cob_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"run_id" text NOT NULL,
	"business_date" date NOT NULL,
	"loan_ids" jsonb,
	"workflow_id" text NOT NULL,
	"status" text DEFAULT 'RUNNING' NOT NULL,
	"loans_total" integer DEFAULT 0 NOT NULL,
	"loans_processed" integer DEFAULT 0 NOT NULL,
	"loans_failed" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	CONSTRAINT "cob_runs_tenant_id_id_key" UNIQUE("tenant_id","id"),
	CONSTRAINT "cob_runs_tenant_run_id_key" UNIQUE("tenant_id","run_id"),
	CONSTRAINT "cob_runs_counts_check" CHECK ("cob_runs"."loans_total" >= 0 and "cob_runs"."loans_processed" >= 0 and "cob_runs"."loans_failed" >= 0)
);
--> statement-breakpoint
ALTER TABLE "cob_runs" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "cob_run_errors" ADD CONSTRAINT "cob_run_errors_run_fk" FOREIGN KEY ("tenant_id","run_id") REFERENCES "public"."cob_runs"("tenant_id","run_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cob_run_errors" ADD CONSTRAINT "cob_run_errors_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cob_run_errors_tenant_run_loan_idx" ON "cob_run_errors" USING btree ("tenant_id","run_id","loan_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cob_runs_tenant_whole_day_idx" ON "cob_runs" USING btree ("tenant_id","business_date") WHERE loan_ids is null;--> statement-breakpoint
CREATE POLICY "cob_run_errors_tenant_isolation" ON "cob_run_errors" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "cob_runs_tenant_isolation" ON "cob_runs" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));