CREATE TABLE "loan_delinquency_actions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "loan_delinquency_actions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"loan_id" bigint NOT NULL,
	"action" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "loan_delinquency_actions_tenant_id_id_key" UNIQUE("tenant_id","id"),
	CONSTRAINT "loan_delinquency_actions_dates_check" CHECK (("loan_delinquency_actions"."action" = 'PAUSE' and "loan_delinquency_actions"."end_date" > "loan_delinquency_actions"."start_date") or ("loan_delinquency_actions"."action" = 'RESUME' and "loan_delinquency_actions"."end_date" is null))
);
--> statement-breakpoint
ALTER TABLE "loan_delinquency_actions" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "delinquency_bucket_ranges" (
	"tenant_id" text NOT NULL,
	"bucket_id" bigint NOT NULL,
	"range_id" bigint NOT NULL,
	CONSTRAINT "delinquency_bucket_ranges_tenant_id_bucket_id_range_id_pk" PRIMARY KEY("tenant_id","bucket_id","range_id")
);
--> statement-breakpoint
ALTER TABLE "delinquency_bucket_ranges" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "delinquency_buckets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "delinquency_buckets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "delinquency_buckets_tenant_id_id_key" UNIQUE("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "delinquency_buckets" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "delinquency_ranges" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "delinquency_ranges_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"classification" text NOT NULL,
	"minimum_age_days" integer NOT NULL,
	"maximum_age_days" integer,
	"collections_case_type_code" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"request_key" text,
	CONSTRAINT "delinquency_ranges_tenant_id_id_key" UNIQUE("tenant_id","id"),
	CONSTRAINT "delinquency_ranges_ages_check" CHECK ("delinquency_ranges"."minimum_age_days" >= 0 and ("delinquency_ranges"."maximum_age_days" is null or "delinquency_ranges"."maximum_age_days" >= "delinquency_ranges"."minimum_age_days"))
);
--> statement-breakpoint
ALTER TABLE "delinquency_ranges" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "delinquency_bucket_id" bigint;--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "grace_on_arrears_ageing" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "enable_installment_level_delinquency" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_products" ADD COLUMN "charge_off_days_past_due" integer;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "penalty_wait_period_days" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "due_days_for_repayment_event" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "overdue_days_for_repayment_event" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "loan_delinquency_actions" ADD CONSTRAINT "loan_delinquency_actions_loan_fk" FOREIGN KEY ("tenant_id","loan_id") REFERENCES "public"."loans"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delinquency_bucket_ranges" ADD CONSTRAINT "delinquency_bucket_ranges_bucket_fk" FOREIGN KEY ("tenant_id","bucket_id") REFERENCES "public"."delinquency_buckets"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delinquency_bucket_ranges" ADD CONSTRAINT "delinquency_bucket_ranges_range_fk" FOREIGN KEY ("tenant_id","range_id") REFERENCES "public"."delinquency_ranges"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "loan_delinquency_actions_loan_idx" ON "loan_delinquency_actions" USING btree ("tenant_id","loan_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "loan_delinquency_actions_tenant_request_key_idx" ON "loan_delinquency_actions" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "delinquency_buckets_tenant_name_idx" ON "delinquency_buckets" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "delinquency_buckets_tenant_request_key_idx" ON "delinquency_buckets" USING btree ("tenant_id","request_key");--> statement-breakpoint
CREATE UNIQUE INDEX "delinquency_ranges_tenant_classification_idx" ON "delinquency_ranges" USING btree ("tenant_id","classification");--> statement-breakpoint
CREATE UNIQUE INDEX "delinquency_ranges_tenant_request_key_idx" ON "delinquency_ranges" USING btree ("tenant_id","request_key");--> statement-breakpoint
ALTER TABLE "loan_products" ADD CONSTRAINT "loan_products_delinquency_bucket_fk" FOREIGN KEY ("tenant_id","delinquency_bucket_id") REFERENCES "public"."delinquency_buckets"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_products" ADD CONSTRAINT "loan_products_delinquency_check" CHECK ("loan_products"."grace_on_arrears_ageing" >= 0 and ("loan_products"."charge_off_days_past_due" is null or "loan_products"."charge_off_days_past_due" >= 1));--> statement-breakpoint
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_close_of_business_days_check" CHECK ("tenants"."penalty_wait_period_days" >= 0 and "tenants"."due_days_for_repayment_event" >= 0 and "tenants"."overdue_days_for_repayment_event" >= 0);--> statement-breakpoint
CREATE POLICY "loan_delinquency_actions_tenant_isolation" ON "loan_delinquency_actions" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "delinquency_bucket_ranges_tenant_isolation" ON "delinquency_bucket_ranges" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "delinquency_buckets_tenant_isolation" ON "delinquency_buckets" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));--> statement-breakpoint
CREATE POLICY "delinquency_ranges_tenant_isolation" ON "delinquency_ranges" AS PERMISSIVE FOR ALL TO public USING (tenant_id = current_setting('app.tenant_id', true)) WITH CHECK (tenant_id = current_setting('app.tenant_id', true));