CREATE TABLE "loan_schedule_versions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_schedule_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"version" integer NOT NULL,
	"reason" text NOT NULL,
	"source_kind" text,
	"source_id" bigint,
	"relief_type" text,
	"as_of_date" date,
	"installments" jsonb NOT NULL,
	"installment_count" integer NOT NULL,
	"total_due_minor" numeric(38, 0) NOT NULL,
	"principal_forgiven_minor" numeric(38, 0) DEFAULT '0' NOT NULL,
	"summary" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"created_by" text,
	CONSTRAINT "loan_schedule_versions_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "loan_schedule_versions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "loan_schedule_versions" ADD CONSTRAINT "loan_schedule_versions_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "loan_schedule_versions_tenant_loan_version_idx" ON "loan_schedule_versions" USING btree ("tenant_id","loan_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_schedule_versions_tenant_source_idx" ON "loan_schedule_versions" USING btree ("tenant_id","source_kind","source_id") WHERE source_kind is not null;--> statement-breakpoint
CREATE POLICY "loan_schedule_versions_tenant_isolation" ON "loan_schedule_versions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));